"""A labelled accelerometer trace: samples as the LIS3DH reports them, their instants, and the
onset and release of every press, the one data type every model of the popper produces; each
press's main blow (``main_blows_ms``); and what the firmware's driver hands the detector for
such samples (``driver_mg``)."""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

FULL_SCALE_G = 8.0  # the LIS3DH's range as the firmware sets it
MG_PER_DIGIT = 4  # high-resolution mode at +-8 g
DIGIT_LIMIT = 2048  # 12-bit readings: -2048..2047 digits
MAIN_BLOW_WINDOW_MS = 40.0  # a press's main blow is looked for this long after its onset


@dataclass(frozen=True)
class Trace:
    """Samples as the LIS3DH reports them (g, 4 mg steps) at their instants (ms), with the
    onset of every press (ms, same clock).

    ``releases_ms`` gives each press's release blow, one a press in the order of
    ``press_times_ms``, each after its press's onset and before the next press's: the instant
    the dome snaps back, or for a dome that does not click the instant the finger's force falls
    away. It is empty where the model (or a recording) does not know; a release may fall after
    the last sample when the trace ends during a hold."""

    t_ms: list[float]
    samples_g: list[tuple[float, float, float]]
    press_times_ms: list[float]
    kind: str = ""
    seed: int = 0
    events: list[tuple[float, str]] = field(default_factory=list)  # (onset ms, what), all kinds
    releases_ms: list[float] = field(default_factory=list)  # one a press, when it lets go

    @property
    def seconds(self) -> float:
        """First sample to last, and one period more."""
        return (self.t_ms[-1] - self.t_ms[0]) / 1000.0 + 0.0025 if self.t_ms else 0.0


def step_g(trace: Trace, i: int) -> float:
    """The step of sample ``i``: the size (g) of its difference from the sample before (x, y
    and z together); 0 for the first sample."""
    if i <= 0:
        return 0.0
    return math.dist(trace.samples_g[i], trace.samples_g[i - 1])


def main_blows_ms(trace: Trace) -> list[float]:
    """Each press's main blow (ms), one a press in the order of ``press_times_ms``: the first
    sample whose step (``step_g``) reaches half the largest step among the samples at or after
    the onset and no more than ``MAIN_BLOW_WINDOW_MS`` (40 ms) after it. A press with no sample
    in that window (the trace ends first) gets its onset."""
    blows = []
    for onset in trace.press_times_ms:
        first = bisect.bisect_left(trace.t_ms, onset)
        last = bisect.bisect_right(trace.t_ms, onset + MAIN_BLOW_WINDOW_MS)
        steps = [(trace.t_ms[i], step_g(trace, i)) for i in range(first, last)]
        if not steps:
            blows.append(onset)
            continue
        half = max(step for _, step in steps) / 2.0
        blows.append(next(t for t, step in steps if step >= half))
    return blows


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
