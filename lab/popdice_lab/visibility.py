"""How far a press has moved the reading by the time the detector must decide on it.

The horizon is ``HORIZON_SAMPLES``: 4 samples (10 ms) from a press's label, the latency
target a detector that pops on the press blow was once held to (the targets now count
latency in ms from the pop's anchor, ``popdice.traces.scoring.TARGET_LATENCY_MS``; this
horizon stays as it was, so its figures compare with earlier ones). By then a press has
moved the reading by some amount; if that is within the reading's own noise, nothing that
decides in time can tell the press from the noise without also firing on the noise. This
module measures it: for each labelled press, the largest change of any axis over the
label's sample and the ``HORIZON_SAMPLES`` after it, from the mean of the three samples
before the label, in units of the recording's noise (the noise of each axis: the median
absolute change from one sample to the next, scaled to a standard deviation, never less
than the sensor's 4 mg step).

A press is *faint* below ``FAINT_SIGMAS``: 5 standard deviations. Gaussian noise passes 5
sigmas on one axis of one sample with a chance of about 3 in 10 million; at 400 samples a
second on three axes that is about one false press an hour, the target. So a detector that
fires on smaller moves fires on the noise more often than that, and the share of faint
presses is, roughly, the recall lost at that latency and that false-press rate before any
disturbance is counted; ``bench/detect.py`` prints it for each model family.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

HORIZON_SAMPLES = 4  # samples after a press's label by which it is judged (10 ms at 400 Hz)
FAINT_SIGMAS = 5.0
STEP_MG = 4  # the LIS3DH's step at +-8 g in high-resolution mode
_MAD_TO_SIGMA = 1.0 / (0.6745 * 2**0.5)  # median |difference| of white noise, to its sigma


@dataclass
class Visibility:
    """Each press's largest move within ``HORIZON_SAMPLES`` of its label, in noise sigmas."""

    sigmas: list[float]

    @property
    def faint(self) -> float | None:
        """The share of presses that stay under ``FAINT_SIGMAS``."""
        if not self.sigmas:
            return None
        return sum(1 for s in self.sigmas if s < FAINT_SIGMAS) / len(self.sigmas)

    def add(self, other: Visibility) -> None:
        self.sigmas += other.sigmas


def noise_mg(samples_mg: Sequence[int]) -> tuple[float, float, float]:
    """Each axis's noise (mg, a standard deviation) in flat x, y, z samples."""
    noise = []
    for axis in range(3):
        values = samples_mg[axis::3]
        steps = [abs(b - a) for a, b in itertools.pairwise(values)]
        spread = statistics.median(steps) * _MAD_TO_SIGMA if steps else 0.0
        noise.append(max(spread, float(STEP_MG)))
    return noise[0], noise[1], noise[2]


def visibility(
    t_ms: Sequence[float], samples_mg: Sequence[int], onsets_ms: Sequence[float]
) -> Visibility:
    """How far each labelled press has moved the reading ``HORIZON_SAMPLES`` after its
    label."""
    noise = noise_mg(samples_mg)
    count = len(t_ms)
    sigmas = []
    first = 0
    for onset in sorted(onsets_ms):
        while first < count and t_ms[first] < onset:
            first += 1
        if first < 3 or first + HORIZON_SAMPLES >= count:
            continue
        largest = 0.0
        for axis in range(3):
            before = [samples_mg[3 * k + axis] for k in range(first - 3, first)]
            base = sum(before) / 3
            for k in range(first, first + HORIZON_SAMPLES + 1):
                largest = max(largest, abs(samples_mg[3 * k + axis] - base) / noise[axis])
        sigmas.append(largest)
    return Visibility(sigmas)
