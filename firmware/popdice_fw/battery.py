"""The battery level: VSYS through the Pico's 1/3 divider on ADC3, with a low-battery flag.

The ADC reads 0..3.3 V (``read_u16`` 0..65535); VSYS is three times that. The flag has
hysteresis: it sets below ``low_mv`` and clears only at ``low_mv + _HYSTERESIS_MV`` or
above, so a level near the threshold does not make the warning flicker.
"""

from micropython import const

_REFERENCE_X_DIVIDER_MV = const(9900)  # 3300 mV full scale, times the 1/3 divider
_FULL_SCALE = const(65535)
_SAMPLES = const(8)
_HYSTERESIS_MV = const(100)

LOW_MV = const(3500)


class Battery:
    def __init__(self, adc, low_mv=LOW_MV):
        self.adc = adc
        self.low_mv = low_mv
        self.mv = 0
        self.low = False

    def read_mv(self):
        """VSYS in millivolts, the mean of a few conversions."""
        total = 0
        for _ in range(_SAMPLES):
            total += self.adc.read_u16()
        return (total // _SAMPLES) * _REFERENCE_X_DIVIDER_MV // _FULL_SCALE

    def tenths(self):
        """VSYS to the nearest tenth of a volt, in tenths: what the screen shows."""
        return (self.mv + 50) // 100

    def update(self):
        """Reads VSYS; returns True when the low flag changed."""
        self.mv = self.read_mv()
        if self.low:
            low = self.mv < self.low_mv + _HYSTERESIS_MV
        else:
            low = self.mv < self.low_mv
        changed = low != self.low
        self.low = low
        return changed
