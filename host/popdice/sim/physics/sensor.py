"""The LIS3DH as the model sees it (sample clock, mounting, offsets, noise, range, 4 mg
steps); what the firmware's driver makes of its readings (integer milli-g) is
``popdice.traces.trace.driver_mg``.

- Clock: the part samples on its own oscillator, 400 Hz within 2% (one error per trace);
  each instant wanders by a normal jitter of 0.01-0.06 ms (one level per trace, capped at
  0.3 ms); timestamps are kept to 0.1 ms, so they are not exactly 2.5 ms apart.
- Mounting: the sensor's axes are the unit's, turned: in 60% of traces nearly upright (up to
  10°, any heading), otherwise any orientation at all, so gravity is often off z.
- Errors: a zero-g offset of up to 40 mg and a gain error of up to 3% on each axis, white
  noise of 2-4 mg rms (one level per trace): the datasheet's 220 ug/sqrt(Hz) over the 200 Hz
  bandwidth of 400 Hz sampling is 3.1 mg.
- Readings: high-resolution mode at +-8 g: clipped to +-8 g, in 4 mg steps (3 decimals of g).
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from ...traces.trace import FULL_SCALE_G, MG_PER_DIGIT
from .geometry import IDENTITY, Mat, Vec, apply, compose, random_rotation, rotation
from .mechanics import Motion

ODR_HZ = 400
PERIOD_MS = 1000.0 / ODR_HZ
RATE_ERROR = 0.02
JITTER_MS = (0.01, 0.06)
JITTER_LIMIT_MS = 0.3
NOISE_G = (0.002, 0.004)
IDEAL_NOISE_G = 0.003  # typical: ``Lis3dh.ideal``'s
OFFSET_G = 0.04
GAIN_ERROR = 0.03
TILTED_SHARE = 0.6
UPRIGHT_TILT_DEG = 10.0
TIME_DECIMALS = 1
G_DECIMALS = 3


def sample_times(rng: random.Random, seconds: float, steady: bool = False) -> list[float]:
    """The instants (ms) of ``seconds`` of samples by one part's clock, jitter included;
    ``steady``: exactly 400 Hz (the simulated part's clock)."""
    if steady:
        return [round(i * PERIOD_MS, TIME_DECIMALS) for i in range(int(seconds * ODR_HZ))]
    period = PERIOD_MS * (1.0 + rng.uniform(-RATE_ERROR, RATE_ERROR))
    jitter = rng.uniform(*JITTER_MS)
    count = int(seconds * 1000.0 / period)
    times = []
    for i in range(count):
        wander = min(max(rng.gauss(0.0, jitter), -JITTER_LIMIT_MS), JITTER_LIMIT_MS)
        times.append(round(i * period + wander, TIME_DECIMALS))
    return times


def quantise_g(g: float) -> float:
    """A reading of ``g`` as the part reports it: clipped to the range, in 4 mg steps."""
    g = min(max(g, -FULL_SCALE_G), FULL_SCALE_G)
    return round(round(g * 1000.0 / MG_PER_DIGIT) * MG_PER_DIGIT / 1000.0, G_DECIMALS)


@dataclass(frozen=True)
class Lis3dh:
    """One part in one unit: how it is mounted and how it errs."""

    mounting: Mat  # body frame to sensor frame
    offset_g: Vec
    gain: Vec
    noise_g: float

    @classmethod
    def random(cls, rng: random.Random) -> Lis3dh:
        if rng.random() < TILTED_SHARE:
            heading = rotation((0.0, 0.0, 1.0), rng.uniform(0.0, 2 * math.pi))
            lean = rotation(
                (math.cos(rng.uniform(0, 6.3)), math.sin(rng.uniform(0, 6.3)), 0.0),
                math.radians(rng.uniform(0.0, UPRIGHT_TILT_DEG)),
            )
            mounting = compose(lean, heading)
        else:
            mounting = random_rotation(rng)
        offset = (
            rng.uniform(-OFFSET_G, OFFSET_G),
            rng.uniform(-OFFSET_G, OFFSET_G),
            rng.uniform(-OFFSET_G, OFFSET_G),
        )
        gain = (
            1.0 + rng.uniform(-GAIN_ERROR, GAIN_ERROR),
            1.0 + rng.uniform(-GAIN_ERROR, GAIN_ERROR),
            1.0 + rng.uniform(-GAIN_ERROR, GAIN_ERROR),
        )
        return cls(mounting, offset, gain, rng.uniform(*NOISE_G))

    @classmethod
    def ideal(cls, noise_g: float = IDEAL_NOISE_G) -> Lis3dh:
        """Upright (sensor axes are the unit's), no offset or gain error, typical noise (or
        ``noise_g`` rms)."""
        return cls(IDENTITY, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0), noise_g)

    def read(self, motion: Motion, rng: random.Random) -> list[tuple[float, float, float]]:
        """Every sample of ``motion`` as the part reports it, in g."""
        out: list[tuple[float, float, float]] = []
        rests = motion.rest_ups()
        rests.append((len(motion.t_ms), rests[-1][1]))
        gx, gy, gz = self.gain
        ox, oy, oz = self.offset_g
        sigma = self.noise_g
        gauss = rng.gauss
        for (first, up), (last, _) in itertools.pairwise(rests):
            ux, uy, uz = up
            for i in range(first, last):
                x, y, z = apply(
                    self.mounting,
                    (ux + motion.ax[i], uy + motion.ay[i], uz + motion.az[i]),
                )
                out.append(
                    (
                        quantise_g(x * gx + ox + gauss(0.0, sigma)),
                        quantise_g(y * gy + oy + gauss(0.0, sigma)),
                        quantise_g(z * gz + oz + gauss(0.0, sigma)),
                    )
                )
        return out
