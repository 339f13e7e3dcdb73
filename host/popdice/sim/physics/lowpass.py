"""The LIS3DH's own low-pass filter, through which every motion reaches its readings.

In high-resolution mode the part's bandwidth is ODR/9 (the datasheet's operating-mode table:
ODR/2 in normal and low-power mode, ODR/9 and a turn-on time of 7/ODR in high-resolution
mode): about 44 Hz at 400 Hz. The filter's exact form is not published; it is modelled as a
2-pole Butterworth low-pass at that bandwidth, whose step settles in about 7 samples.

Everything fast in the model is a sum of decaying complex exponentials starting at an onset,
so the filter is applied exactly: the response to e^(pt) from t = 0 is
c0 e^(pt) + c1 e^(q1 t) + c2 e^(q2 t), where q1, q2 are the filter's poles. Steady tones use
the filter's gain and phase at their frequency; slow motion (under 15 Hz) passes unchanged.
"""

from __future__ import annotations

import cmath
import math

ODR_HZ = 400.0
BANDWIDTH_HZ = ODR_HZ / 9.0
_WC = 2 * math.pi * BANDWIDTH_HZ
_Q1 = _WC * complex(-math.sqrt(0.5), math.sqrt(0.5))
_Q2 = _Q1.conjugate()
SETTLE_S = 12.0 / (_WC * math.sqrt(0.5))  # its own transient is down to e^-12 by then


def response(f_hz: float) -> complex:
    """Gain and phase of the filter for a tone of ``f_hz``."""
    s = complex(0.0, 2 * math.pi * f_hz)
    return _WC * _WC / ((s - _Q1) * (s - _Q2))


class Exponential:
    """The filtered response to ``amplitude * e^(pole * t)`` switched on at t = 0 (t in s);
    ``at(t)`` is complex (take its imaginary part for a sine)."""

    def __init__(self, amplitude: complex, pole: complex) -> None:
        w2 = _WC * _WC
        self.pole = pole
        self.c0 = amplitude * w2 / ((pole - _Q1) * (pole - _Q2))
        self.c1 = amplitude * w2 / ((_Q1 - pole) * (_Q1 - _Q2))
        self.c2 = amplitude * w2 / ((_Q2 - pole) * (_Q2 - _Q1))

    def at(self, t: float) -> complex:
        value = self.c0 * cmath.exp(self.pole * t)
        if t < SETTLE_S:
            value += self.c1 * cmath.exp(_Q1 * t) + self.c2 * cmath.exp(_Q2 * t)
        return value
