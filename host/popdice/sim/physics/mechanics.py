"""The physical model of what moves the popper: presses and everything that is not a press.

Everything here is in the unit's body frame: z is the unit's up axis (the axis of the dome),
x and y lie in the plane of its base. Accelerations are specific force in g, what an
accelerometer reports: a unit resting on a level table reads the up vector (0, 0, 1). Each
event adds its acceleration to a ``Motion`` (the record of one trace, sample by sample), as
the sensor's own low-pass filter passes it (``lowpass.py``: ODR/9, about 44 Hz, in
high-resolution mode); ``sensor.py`` then makes LIS3DH readings of it.

Two resonances tell a press from a knock. The unit on its rubber feet is a mass on a spring:
any blow to the unit itself rings at that mount's resonance, 60-150 Hz, and dies away in
4-18 ms (rubber is lossy). Frequency and decay belong to the unit (drawn once per trace);
each blow rings within 5% and 10% of them. The table is a plate: a blow to it rings in its
bending modes, lower and longer (15-200 Hz, quality factor 8-25, 13-530 ms), and rocks the
unit on its feet as the wave passes, which puts much of the motion in the plane of the base.
Through the sensor's filter a blow to the unit reads as a dip of 5-10 ms along up; a knock as
a slower, longer, multi-axis ringing.

Press (labelled; its time is the onset, the instant the dome's blow starts):
- the dome snaps through and strikes the base, driving the unit down into its feet: the
  reading along up drops first, then rings at the mount; peak 1-6 g log-uniform (5% are
  slams of 6-10 g), onset over 0.3-1.2 ms;
- along the dome's axis tipped by the finger: sideways part 0-15%; the unit rocks a little
  on its feet, a sideways ring at 30-90 Hz of 0-8% of the peak;
- the release (labelled too, with the instant its blow starts): the dome snaps back after a
  hold of 80-600 ms log-uniform (4% hold 0.6-1.5 s), a blow of 5-30% of the press, downward
  first too (the dome pushes off the base);
- the presses of one burst differ in strength by a factor e^N(0, 0.25).

Table knock (a knuckle, a fist, a card slapped down, a cup set down, anywhere on the table):
2-4 table modes, each a decaying sine from the onset, with its own sign, frequency (15-200 Hz
log-uniform), quality factor (8-25), weight (0.2-1) and direction (vertical plus a sideways
part of 40-150% in a direction of its own); the onset builds over 0.5-8 ms (further away,
softer); peak magnitude at
the unit 0.02-1 g log-uniform, and 30% strong ones of 1-6 g (a fist right beside it).

Bump (someone walks into the table): a sideways shove, a half-sine of 15-80 ms and 0.1-1.5 g
(vertical part 0-40%), and a knock of 20-60% of it in the table's low modes (15-60 Hz).

Handling (pick up, hold or carry, put down), unlabelled:
- lift: 0.25-0.7 s, a minimum-jerk rise of 5-30 cm while the unit tips 3-60° (10%: turned
  over, 90-180°) about a random horizontal axis;
- in the hand, 0.5-8 s: physiological tremor (8-12 Hz, 15-60 mg, one random direction,
  slowly modulated); the hand sways the tilt by 1-10° at 0.2-1 Hz; half the time the holder
  walks (a vertical bob at 1.6-2.2 Hz of 0.05-0.25 g and a sideways sway of 0.02-0.08 g);
- put down: 0.3-0.8 s, a minimum-jerk descent of 5-30 cm while the unit turns back flat at
  a new heading; it lands at 1-15 cm/s and the feet stop it: the reading along up rises
  first, peak v 2 pi f / g at the mount frequency f (at most 9 g), sideways 3-30%; half the
  landings are edge first, a tilted clack (sideways 30-100%) 10-60 ms before the flat one;
  the tremor dies out 20-100 ms after the landing.

Phone buzzing beside the unit: a vibration motor at 150-250 Hz, drifting by up to 2%, with a
second harmonic of 5-25%, arriving through the table (vertical plus 20-100% sideways) at
0.01-0.15 g log-uniform (25%: touching the unit, 0.15-0.5 g); spin-up 15-60 ms, spin-down
20-80 ms. A call is 2-8 bursts of 0.4-1.5 s, 0.3-1 s apart; a notification 1-3 bursts of
0.08-0.4 s. Sampled at 400 Hz they alias to 150-200 Hz, and the sensor's filter takes them
down to a few percent.

Leaning on the table: the table tilts by 0.1-2° over 0.4-2 s, stays 2-15 s, and comes back
over 0.3-2 s; at both ends it wobbles (2-6 Hz, 5-40 mg, sideways, dying over 0.2-1 s), and
half the time it creaks (a knock of 0.01-0.1 g).
"""

from __future__ import annotations

import bisect
import cmath
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from .geometry import (
    UP,
    Vec,
    add,
    cross,
    direction,
    horizontal,
    rotation,
    scale,
    sub,
    tilted_up,
    unit,
)
from .geometry import apply as rotate
from .lowpass import SETTLE_S, Exponential, response

G_MS2 = 9.81
NEGLIGIBLE_G = 0.0005  # well under the sensor's 4 mg step: a ringing is cut off below this

PRESS_PEAK_G = (1.0, 6.0)
PRESS_SLAM_G = (6.0, 10.0)
PRESS_SLAM_SHARE = 0.05
MOUNT_HZ = (60.0, 150.0)
MOUNT_DECAY_MS = (4.0, 18.0)
PRESS_RISE_MS = (0.3, 1.2)
PRESS_SIDEWAYS = (0.0, 0.15)
PRESS_ROCK = (0.0, 0.08)
ROCK_HZ = (30.0, 90.0)
RELEASE_HOLD_MS = (80.0, 600.0)
RELEASE_LONG_HOLD_MS = (600.0, 1500.0)
RELEASE_LONG_SHARE = 0.04
RELEASE_SHARE = (0.05, 0.30)
BURST_SPREAD = 0.25

KNOCK_MODES = (2, 4)
TABLE_HZ = (15.0, 200.0)
TABLE_Q = (8.0, 25.0)
KNOCK_SIDEWAYS = (0.4, 1.5)
KNOCK_RISE_MS = (0.5, 8.0)
KNOCK_PEAK_G = (0.02, 1.0)
KNOCK_STRONG_G = (1.0, 6.0)
KNOCK_STRONG_SHARE = 0.3

BUMP_MS = (15.0, 80.0)
BUMP_PEAK_G = (0.1, 1.5)

TREMOR_HZ = (8.0, 12.0)
TREMOR_G = (0.015, 0.06)
LANDING_SPEED_MS = (0.01, 0.15)
LANDING_SIDEWAYS = (0.03, 0.30)
EDGE_SIDEWAYS = (0.3, 1.0)

BUZZ_HZ = (150.0, 250.0)
BUZZ_G = (0.01, 0.15)
BUZZ_TOUCHING_G = (0.15, 0.5)
BUZZ_TOUCHING_SHARE = 0.25


def log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def min_jerk(s: float) -> float:
    """Minimum-jerk progress 0..1 over normalised time 0..1 (how hands move things)."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


def min_jerk_accel(s: float) -> float:
    """Second derivative of ``min_jerk`` over normalised time (0 outside 0..1)."""
    if s <= 0.0 or s >= 1.0:
        return 0.0
    return 60.0 * s - 180.0 * s * s + 120.0 * s * s * s


@dataclass(frozen=True)
class Mount:
    """The unit on its rubber feet: the resonance that every blow to the unit rings at."""

    f_hz: float
    decay_ms: float

    @classmethod
    def random(cls, rng: random.Random) -> Mount:
        return cls(rng.uniform(*MOUNT_HZ), rng.uniform(*MOUNT_DECAY_MS))

    def ring(self, rng: random.Random) -> tuple[float, float]:
        """Frequency and decay of one blow: the mount's, give or take where it lands."""
        return self.f_hz * rng.uniform(0.95, 1.05), self.decay_ms * rng.uniform(0.9, 1.1)


class Motion:
    """The body-frame acceleration of one unit at a run of sample instants, built event by
    event: what the events add, and the up vector it rests with (which handling changes)."""

    def __init__(self, t_ms: list[float], up: Vec, mount: Mount) -> None:
        self.t_ms = t_ms
        self.mount = mount
        n = len(t_ms)
        self.ax = [0.0] * n
        self.ay = [0.0] * n
        self.az = [0.0] * n
        self._rest_from = [0]
        self._rest_up = [up]

    @property
    def end_ms(self) -> float:
        return self.t_ms[-1] if self.t_ms else 0.0

    def index(self, t_ms: float) -> int:
        """The first sample at or after ``t_ms``."""
        return bisect.bisect_left(self.t_ms, t_ms)

    def rest_up(self, t_ms: float) -> Vec:
        """The up vector the unit rests with at ``t_ms``."""
        at = bisect.bisect_right(self._rest_from, self.index(t_ms)) - 1
        return self._rest_up[max(at, 0)]

    def rest_ups(self) -> list[tuple[int, Vec]]:
        """(first sample, up vector) of each stretch the unit rests with one up vector."""
        return list(zip(self._rest_from, self._rest_up, strict=True))

    def settle(self, t_ms: float, up: Vec) -> None:
        """From ``t_ms`` on, the unit rests with ``up`` (only ever later than before)."""
        first = self.index(t_ms)
        if first <= self._rest_from[-1]:
            self._rest_up[-1] = up
        else:
            self._rest_from.append(first)
            self._rest_up.append(up)

    def add_path(self, start_ms: float, length_ms: float, path: Callable[[float], Vec]) -> None:
        """Adds ``path(t)`` (g, t in ms from ``start_ms``) over ``length_ms``."""
        for i in range(self.index(start_ms), self.index(start_ms + length_ms)):
            x, y, z = path(self.t_ms[i] - start_ms)
            self.ax[i] += x
            self.ay[i] += y
            self.az[i] += z

    def add_ringing(
        self,
        start_ms: float,
        peak_g: float,
        f_hz: float,
        decay_ms: float,
        along: Vec,
        rise_ms: float = 0.0,
    ) -> None:
        """A decaying sine from rest at ``start_ms`` along ``along``, the response of a
        resonance to a blow, as the sensor's filter passes it. ``peak_g`` is the first
        extreme of the motion itself (its sign, the first lobe's); ``rise_ms`` softens the
        onset (the blow arrives over that time)."""
        norm = peak_g / _first_peak(f_hz, decay_ms, rise_ms)
        pole = complex(-1000.0 / decay_ms, 2 * math.pi * f_hz)
        parts = [Exponential(norm, pole)]
        if rise_ms > 0:
            parts.append(Exponential(-norm, pole - 1000.0 / rise_ms))
        length = decay_ms * math.log(max(abs(norm), NEGLIGIBLE_G) / NEGLIGIBLE_G)
        length = max(length, 0.0) + SETTLE_S * 1000.0
        dx, dy, dz = along
        for i in range(self.index(start_ms), self.index(start_ms + length)):
            t = (self.t_ms[i] - start_ms) / 1000.0
            w = sum(part.at(t) for part in parts).imag
            self.ax[i] += dx * w
            self.ay[i] += dy * w
            self.az[i] += dz * w


def _ringing(t_ms: float, f_hz: float, decay_ms: float, rise_ms: float) -> float:
    """The unscaled motion of a ringing (before the sensor's filter)."""
    value = math.exp(-t_ms / decay_ms) * math.sin(2 * math.pi * f_hz * t_ms / 1000.0)
    if rise_ms > 0:
        value *= 1.0 - math.exp(-t_ms / rise_ms)
    return value


def _first_peak(f_hz: float, decay_ms: float, rise_ms: float) -> float:
    """The largest value of the unscaled ringing over its first half period and a bit."""
    span = 600.0 / f_hz + 3 * rise_ms
    return max(_ringing(span * k / 128, f_hz, decay_ms, rise_ms) for k in range(1, 128))


# --- presses


def press_strength(rng: random.Random) -> float:
    if rng.random() < PRESS_SLAM_SHARE:
        return rng.uniform(*PRESS_SLAM_G)
    return log_uniform(rng, *PRESS_PEAK_G)


def burst_strength(rng: random.Random, previous_g: float) -> float:
    """The next press of a burst: like the last one, give or take."""
    return min(max(previous_g * math.exp(rng.gauss(0.0, BURST_SPREAD)), 0.8), 10.0)


def press(motion: Motion, rng: random.Random, onset_ms: float, peak_g: float) -> float:
    """A press with its release; returns when the release snaps (ms)."""
    f_hz, decay = motion.mount.ring(rng)
    along = direction(rng, rng.uniform(*PRESS_SIDEWAYS))
    motion.add_ringing(onset_ms, -peak_g, f_hz, decay, along, rng.uniform(*PRESS_RISE_MS))
    rock = horizontal(rng.uniform(0.0, 2 * math.pi))
    motion.add_ringing(
        onset_ms,
        peak_g * rng.uniform(*PRESS_ROCK),
        rng.uniform(*ROCK_HZ),
        decay,
        rock,
        rng.uniform(*PRESS_RISE_MS),
    )
    if rng.random() < RELEASE_LONG_SHARE:
        hold = rng.uniform(*RELEASE_LONG_HOLD_MS)
    else:
        hold = log_uniform(rng, *RELEASE_HOLD_MS)
    release_ms = onset_ms + hold
    f_hz, decay = motion.mount.ring(rng)
    motion.add_ringing(
        release_ms,
        -peak_g * rng.uniform(*RELEASE_SHARE),
        f_hz,
        decay,
        direction(rng, rng.uniform(*PRESS_SIDEWAYS)),
        rng.uniform(*PRESS_RISE_MS),
    )
    return release_ms


# --- knocks and bumps


def knock_strength(rng: random.Random) -> float:
    if rng.random() < KNOCK_STRONG_SHARE:
        return log_uniform(rng, *KNOCK_STRONG_G)
    return log_uniform(rng, *KNOCK_PEAK_G)


def knock(
    motion: Motion,
    rng: random.Random,
    onset_ms: float,
    peak_g: float,
    band_hz: tuple[float, float] = TABLE_HZ,
) -> float:
    """A blow to the table reaching the unit; returns when it has died away (ms)."""
    rise = rng.uniform(*KNOCK_RISE_MS)
    modes = []
    for _ in range(rng.randint(*KNOCK_MODES)):
        f_hz = log_uniform(rng, *band_hz)
        decay = 1000.0 * rng.uniform(*TABLE_Q) / (math.pi * f_hz)
        along = direction(rng, rng.uniform(*KNOCK_SIDEWAYS))
        modes.append((f_hz, decay, along, rng.uniform(0.2, 1.0) * rng.choice((-1.0, 1.0))))
    peak = _peak_of_modes(modes, rise)
    end = onset_ms
    for f_hz, decay, along, weight in modes:
        # add_ringing scales by the first lobe of each mode; undo that to keep the weights.
        first = _first_peak(f_hz, decay, rise)
        motion.add_ringing(onset_ms, weight * peak_g / peak * first, f_hz, decay, along, rise)
        end = max(end, onset_ms + decay * math.log(max(peak_g, 0.001) / NEGLIGIBLE_G))
    return end


def _peak_of_modes(modes: list[tuple[float, float, Vec, float]], rise_ms: float) -> float:
    """The largest magnitude of the summed modes (the motion itself) over 150 ms."""
    best = 1e-9
    for k in range(300):
        t = k * 0.5
        total = (0.0, 0.0, 0.0)
        for f_hz, decay, along, weight in modes:
            total = add(total, scale(along, weight * _ringing(t, f_hz, decay, rise_ms)))
        best = max(best, math.sqrt(total[0] ** 2 + total[1] ** 2 + total[2] ** 2))
    return best


def bump(motion: Motion, rng: random.Random, onset_ms: float) -> float:
    """Someone walks into the table; returns when it has died away (ms)."""
    width = rng.uniform(*BUMP_MS)
    peak = rng.uniform(*BUMP_PEAK_G)
    shove = unit(add(horizontal(rng.uniform(0, 2 * math.pi)), scale(UP, rng.uniform(0.0, 0.4))))

    def half_sine(t: float) -> Vec:
        return scale(shove, peak * math.sin(math.pi * t / width))

    motion.add_path(onset_ms, width, half_sine)
    ring = knock(motion, rng, onset_ms + width * 0.5, peak * rng.uniform(0.2, 0.6), (15.0, 60.0))
    return max(ring, onset_ms + width)


# --- the phone


def buzz_level(rng: random.Random) -> float:
    if rng.random() < BUZZ_TOUCHING_SHARE:
        return rng.uniform(*BUZZ_TOUCHING_G)
    return log_uniform(rng, *BUZZ_G)


def buzz(
    motion: Motion,
    rng: random.Random,
    start_ms: float,
    length_ms: float,
    level_g: float,
) -> None:
    """One burst of a phone's vibration motor."""
    f_hz = rng.uniform(*BUZZ_HZ)
    drift = rng.uniform(0.0, 0.02)
    drift_hz = rng.uniform(0.5, 3.0)
    harmonic = rng.uniform(0.05, 0.25)
    spin_up = rng.uniform(15.0, 60.0)
    spin_down = rng.uniform(20.0, 80.0)
    along = direction(rng, rng.uniform(0.2, 1.0))
    phase = rng.uniform(0.0, 2 * math.pi)
    first, second = response(f_hz), response(2 * f_hz)
    wobble = drift * f_hz / drift_hz  # the phase swing of a frequency drift of ``drift``

    def vibration(t: float) -> Vec:
        envelope = min(1.0, t / spin_up) * min(1.0, max(0.0, (length_ms - t) / spin_down))
        angle = phase + 2 * math.pi * f_hz * t / 1000.0
        angle += wobble * math.sin(2 * math.pi * drift_hz * t / 1000.0)
        value = abs(first) * math.sin(angle + cmath.phase(first))
        value += harmonic * abs(second) * math.sin(2 * angle + 1.0 + cmath.phase(second))
        return scale(along, envelope * level_g * value)

    motion.add_path(start_ms, length_ms, vibration)


# --- leaning on the table


def lean(motion: Motion, rng: random.Random, start_ms: float) -> float:
    """Someone leans on the table and lets go again; returns when it is over (ms)."""
    angle = math.radians(rng.uniform(0.1, 2.0))
    azimuth = rng.uniform(0.0, 2 * math.pi)
    into = rng.uniform(400.0, 2000.0)
    stay = rng.uniform(2000.0, 15000.0)
    out = rng.uniform(300.0, 2000.0)
    base = motion.rest_up(start_ms)
    axis = cross(UP, horizontal(azimuth))

    def tilt(t: float) -> Vec:
        if t < into:
            share = min_jerk(t / into)
        elif t < into + stay:
            share = 1.0
        else:
            share = 1.0 - min_jerk((t - into - stay) / out)
        return sub(rotate(rotation(axis, angle * share), base), base)

    total = into + stay + out
    motion.add_path(start_ms, total, tilt)
    for at in (start_ms, start_ms + into + stay):
        motion.add_ringing(
            at + rng.uniform(0.0, 300.0),
            rng.uniform(0.005, 0.04),
            rng.uniform(2.0, 6.0),
            rng.uniform(200.0, 1000.0) / 3.0,
            horizontal(rng.uniform(0.0, 2 * math.pi)),
        )
        if rng.random() < 0.5:
            knock(motion, rng, at + rng.uniform(0.0, 500.0), rng.uniform(0.01, 0.1))
    return start_ms + total + 400.0


# --- handling


def handle(motion: Motion, rng: random.Random, start_ms: float) -> float:
    """Picked up, held or carried, put down again at a new heading; returns when it lands
    (ms; its feet are still ringing then)."""
    up0 = motion.rest_up(start_ms)
    lift_ms = rng.uniform(250.0, 700.0)
    lift_m = rng.uniform(0.05, 0.30)
    hold_ms = rng.uniform(500.0, 8000.0)
    put_ms = rng.uniform(300.0, 800.0)
    drop_m = rng.uniform(0.05, 0.30)
    if rng.random() < 0.1:
        tip = math.radians(rng.uniform(90.0, 180.0))
    else:
        tip = math.radians(rng.uniform(3.0, 60.0))
    tip_axis = horizontal(rng.uniform(0.0, 2 * math.pi))
    sway = math.radians(rng.uniform(1.0, 10.0))
    sway_hz = (rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0))
    sway_axes = (horizontal(rng.uniform(0.0, 6.3)), horizontal(rng.uniform(0.0, 6.3)))
    tremor_hz = rng.uniform(*TREMOR_HZ)
    tremor_g = rng.uniform(*TREMOR_G)
    tremor_dir = unit((rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, 1)))
    walking = rng.random() < 0.5
    step_hz = rng.uniform(1.6, 2.2)
    bob_g = rng.uniform(0.05, 0.25) if walking else 0.0
    sway_g = rng.uniform(0.02, 0.08) if walking else 0.0
    # The unit comes back to the same table at a new heading: the table's slope, turned.
    heading = rng.uniform(0.0, 2 * math.pi)
    up1 = rotate(rotation(UP, heading), up0)
    landing_ms = lift_ms + hold_ms + put_ms
    letting_go_ms = rng.uniform(20.0, 100.0)

    def held_up(t: float) -> Vec:
        """The up vector in the body frame while the hand has the unit."""
        tipped = rotate(rotation(tip_axis, tip * min_jerk(t / lift_ms)), up0)
        wobble = sway * min(1.0, t / lift_ms) * min(1.0, (landing_ms - t) / put_ms)
        for axis, hz in zip(sway_axes, sway_hz, strict=True):
            angle = wobble * math.sin(2 * math.pi * hz * t / 1000.0)
            tipped = rotate(rotation(axis, angle), tipped)
        if t <= lift_ms + hold_ms:
            return tipped
        share = min_jerk((t - lift_ms - hold_ms) / put_ms)
        return unit(add(scale(tipped, 1.0 - share), scale(up1, share)))

    def in_hand(t: float) -> Vec:
        up = held_up(t)
        vertical = lift_m * min_jerk_accel(t / lift_ms) / (lift_ms / 1000.0) ** 2
        landing = (t - lift_ms - hold_ms) / put_ms
        vertical -= drop_m * min_jerk_accel(landing) / (put_ms / 1000.0) ** 2
        step = 2 * math.pi * step_hz * t / 1000.0
        accel = scale(up, vertical / G_MS2 + bob_g * math.sin(step))
        side = unit(cross(up, sway_axes[0]))
        accel = add(accel, scale(side, sway_g * math.sin(step / 2)))
        shake = tremor_g * (0.6 + 0.4 * math.sin(2 * math.pi * 0.7 * t / 1000.0))
        accel = add(
            accel,
            scale(tremor_dir, shake * math.sin(2 * math.pi * tremor_hz * t / 1000)),
        )
        return sub(add(up, accel), up0)

    motion.add_path(start_ms, landing_ms, in_hand)

    def letting_go(t: float) -> Vec:
        fade = 1.0 - t / letting_go_ms
        angle = 2 * math.pi * tremor_hz * (t + landing_ms) / 1000.0
        return scale(tremor_dir, tremor_g * 0.6 * fade * math.sin(angle))

    touchdown = start_ms + landing_ms
    motion.settle(touchdown, up1)
    motion.add_path(touchdown, letting_go_ms, letting_go)
    f_hz, decay = motion.mount.ring(rng)
    peak = min(rng.uniform(*LANDING_SPEED_MS) * 2 * math.pi * f_hz / G_MS2, 9.0)
    flat_at = touchdown
    if rng.random() < 0.5:
        motion.add_ringing(
            touchdown,
            peak * rng.uniform(0.3, 1.0),
            f_hz,
            decay,
            direction(rng, rng.uniform(*EDGE_SIDEWAYS), up1),
            rng.uniform(*PRESS_RISE_MS),
        )
        flat_at += rng.uniform(10.0, 60.0)
    motion.add_ringing(
        flat_at,
        peak,
        f_hz,
        decay,
        direction(rng, rng.uniform(*LANDING_SIDEWAYS), up1),
        rng.uniform(*PRESS_RISE_MS),
    )
    return touchdown


def slope_up(rng: random.Random) -> Vec:
    """The up vector of a unit on a table that is not quite level (0-3°)."""
    return tilted_up(math.radians(rng.uniform(0.0, 3.0)), rng.uniform(0.0, 2 * math.pi))
