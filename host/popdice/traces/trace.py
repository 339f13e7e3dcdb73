"""A labelled accelerometer trace: samples as the LIS3DH reports them, their instants, and the
onset of every press, the one data type every model of the popper produces; and what the
firmware's driver hands the detector for such samples (``driver_mg``)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

FULL_SCALE_G = 8.0  # the LIS3DH's range as the firmware sets it
MG_PER_DIGIT = 4  # high-resolution mode at +-8 g
DIGIT_LIMIT = 2048  # 12-bit readings: -2048..2047 digits


@dataclass(frozen=True)
class Trace:
    """Samples as the LIS3DH reports them (g, 4 mg steps) at their instants (ms), with the
    onset of every press (ms, same clock)."""

    t_ms: list[float]
    samples_g: list[tuple[float, float, float]]
    press_times_ms: list[float]
    kind: str = ""
    seed: int = 0
    events: list[tuple[float, str]] = field(default_factory=list)  # (onset ms, what), all kinds

    @property
    def seconds(self) -> float:
        """First sample to last, and one period more."""
        return (self.t_ms[-1] - self.t_ms[0]) / 1000.0 + 0.0025 if self.t_ms else 0.0


def driver_mg(samples: Iterable[Iterable[float]]) -> array:
    """What the driver hands the detector for readings in g: x, y, z integers in milli-g,
    flattened. It follows the simulated LIS3DH exactly (which holds samples as 32-bit
    floats, clips to the range, rounds to a digit and saturates at 12 bits) and then the
    driver (digits times 4 mg)."""
    flat = array("f")
    for sample in samples:
        flat.extend(sample)
    out = array("h", bytes(2 * len(flat)))
    for i, g in enumerate(flat):
        g = min(max(g, -FULL_SCALE_G), FULL_SCALE_G)
        digits = round(g * 1000.0 / MG_PER_DIGIT)
        digits = min(max(digits, -DIGIT_LIMIT), DIGIT_LIMIT - 1)
        out[i] = digits * MG_PER_DIGIT
    return out
