"""A model family written from the equations of motion: the popper is a rigid box on feet (a
spring and a damper up and down, another pair for rocking) standing on a table whose top
moves; everything that happens is a force on the box or a motion of the table under it.

Written by the session that also wrote the settings-driven detector, from the physics alone
(without reading the first family's model), as a third view while the two families by other
authors are pending; it is no substitute for them.

The unit (drawn per ``unit``):
- box mass 0.15-0.6 kg; feet: natural frequency 12-90 Hz up and down, damping ratio
  0.05-0.5; rocking, and sliding sideways on the feet, at 0.5-1.2 times that, damping
  0.1-0.6; one unit in five stands on a cloth or a cushion (natural frequency 4-10 Hz,
  damping 0.3-0.8);
- the dome: a plain spring (half the units) or a snap dome that gives way past its trip
  force (2-6 N) with a click: a force step of 20-60 % of the trip force over 1-3 ms;
- the sensor board: any orientation (a third of the units upright within 10 degrees), 20-70
  mg offsets, 3 % gain error per axis, 1-3 mg noise, a low-pass of 80-200 Hz (one pole),
  its clock 400 Hz within 2 %, drifting up to 0.3 % over a session; now and then a sample
  the firmware was too late for (0-4 a minute, runs of up to 3).

Presses: the hand's force rises as a smooth ramp over 4-40 ms to 2-20 N, is held 40-400 ms
and released over 10-60 ms; pushed 0-25 degrees off vertical and 0-2 cm off the centre (which
rocks the box); a slam in twenty, 25-45 N over a third of the time. A press's onset is when
the hand's force starts, or for a snap dome its click; its release is when the snap dome
snaps back (a weaker click the other way), or for a plain spring when the hand's force starts
to fall. In play, 5-15 presses a minute, a fifth
of them in quick series of 2-4 (0.15-0.6 s apart), some on a table still moving.

Everything else, at 4-20 a minute: knocks and fist bangs (a table impulse 0.2-6 m/s^2 peak
at the unit, ringing in 2-3 modes of 40-400 Hz, up to 60 % sideways), dice landing near the
unit (2-5 decaying bounces), a cup set down (one soft thump), the table bumped (a 3-10 Hz
shove of 0.5-3 m/s^2, mostly sideways), a phone buzzing (150-250 Hz, 0.3-2 m/s^2 at the
unit, on for 0.2-1.5 s at a time), someone leaning on the table (a tilt of 0.5-3 degrees
over a second), and the unit lifted, carried and put down (accelerations of 1-5 m/s^2 and
turns of 10-90 degrees over 1-4 s, a landing of 5-30 m/s^2).
"""

from __future__ import annotations

import math
import random

from popdice.traces.trace import Trace

NAME = "springmass"
SUMMARY = "a box on spring-damper feet (or a cushion) driven by the hand's force and the table"

G = 9.81
STEP_HZ = 4000
ODR_HZ = 400.0


class Unit:
    """One popper as built: its mechanics and its sensor."""

    def __init__(self, unit: int) -> None:
        rng = random.Random(f"{NAME}:unit:{unit}")
        self.mass = rng.uniform(0.15, 0.6)
        if rng.random() < 0.2:
            self.f_up, self.zeta_up = rng.uniform(4, 10), rng.uniform(0.3, 0.8)
        else:
            self.f_up, self.zeta_up = rng.uniform(12, 90), rng.uniform(0.05, 0.5)
        self.f_rock = self.f_up * rng.uniform(0.5, 1.2)
        self.zeta_rock = rng.uniform(0.1, 0.6)
        self.snap = rng.random() < 0.5
        self.trip_n = rng.uniform(2, 6)
        self.click_share = rng.uniform(0.2, 0.6)
        self.click_ms = rng.uniform(1, 3)
        upright = rng.random() < 1 / 3
        tilt = math.radians(rng.uniform(0, 10)) if upright else math.acos(rng.uniform(-1, 1))
        self.mount = _rotation(rng.uniform(0, 2 * math.pi), tilt, rng.uniform(0, 2 * math.pi))
        self.offset = [rng.uniform(-0.07, 0.07) for _ in range(3)]
        self.gain = [1 + rng.uniform(-0.03, 0.03) for _ in range(3)]
        self.noise = rng.uniform(0.001, 0.003)
        self.cutoff_hz = rng.uniform(80, 200)
        self.clock = 1 + rng.uniform(-0.02, 0.02)
        self.drift = rng.uniform(-0.003, 0.003)
        self.late_per_min = rng.uniform(0, 4)


def _rotation(heading: float, tilt: float, roll: float) -> list[list[float]]:
    ch, sh, ct, st, cr, sr = (
        math.cos(heading),
        math.sin(heading),
        math.cos(tilt),
        math.sin(tilt),
        math.cos(roll),
        math.sin(roll),
    )
    rz = [[ch, -sh, 0], [sh, ch, 0], [0, 0, 1]]
    rx = [[1, 0, 0], [0, ct, -st], [0, st, ct]]
    rr = [[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]]
    return _mul(_mul(rz, rx), rr)


def _mul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


class _World:
    """Forces and table motion over time, at STEP_HZ."""

    def __init__(self, steps: int) -> None:
        self.press_force = [0.0] * steps  # N, down on the box
        self.press_side = [0.0] * steps  # N, sideways on the box
        self.press_torque = [0.0] * steps  # N m, rocking
        self.table_up = [0.0] * steps  # m/s^2, the table top under the unit
        self.table_side = [0.0] * steps  # m/s^2
        self.carried = [0.0] * steps  # m/s^2 up while in a hand (feet off the table)
        self.carried_side = [0.0] * steps
        self.tilt = [0.0] * steps  # rad, the unit turned (leaning table, carried)
        self.in_hand = [False] * steps

    def add(self, series: list[float], start_s: float, values: list[float]) -> None:
        first = int(start_s * STEP_HZ)
        for k, value in enumerate(values):
            if 0 <= first + k < len(series):
                series[first + k] += value


def _press(world: _World, unit: Unit, rng: random.Random, at_s: float) -> tuple[float, float]:
    """Adds a press starting at ``at_s``; returns its onset and its release (s): when the
    hand's force starts and when it starts to fall, or for a snap dome the click and the
    snap back."""
    slam = rng.random() < 0.05
    peak = rng.uniform(25, 45) if slam else rng.uniform(2, 20)
    rise = rng.uniform(0.004, 0.04) * (0.4 if slam else 1.0)
    hold = rng.uniform(0.04, 0.4)
    fall = rng.uniform(0.01, 0.06)
    angle = math.radians(rng.uniform(0, 25))
    lever = rng.uniform(0, 0.02)
    n_rise, n_hold, n_fall = int(rise * STEP_HZ), int(hold * STEP_HZ), int(fall * STEP_HZ)
    force = []
    for k in range(n_rise):
        s = k / n_rise
        force.append(peak * (10 * s**3 - 15 * s**4 + 6 * s**5))
    force += [peak] * n_hold
    for k in range(n_fall):
        s = k / n_fall
        force.append(peak * (1 - (10 * s**3 - 15 * s**4 + 6 * s**5)))
    onset, letting_go = at_s, at_s + (n_rise + n_hold) / STEP_HZ
    if unit.snap and peak > unit.trip_n:
        trip = next(k for k, f in enumerate(force) if f >= unit.trip_n)
        onset = at_s + trip / STEP_HZ
        click = max(1, int(unit.click_ms * STEP_HZ / 1000))
        step = unit.click_share * unit.trip_n
        for k in range(trip, len(force)):
            force[k] += step * min(1.0, (k - trip) / click)
        release = next(
            (k for k in range(len(force) - 1, trip, -1) if force[k] >= unit.trip_n), None
        )
        if release is not None:  # the dome snaps back: a weaker click the other way
            letting_go = at_s + release / STEP_HZ
            for k in range(release, len(force)):
                force[k] -= 0.6 * step * min(1.0, (k - release) / click)
    world.add(world.press_force, at_s, [f * math.cos(angle) for f in force])
    world.add(world.press_side, at_s, [f * math.sin(angle) for f in force])
    world.add(world.press_torque, at_s, [f * lever for f in force])
    return onset, letting_go


def _ringing(
    rng: random.Random, seconds: float, peak: float, low: float, high: float
) -> list[float]:
    modes = [
        (rng.uniform(low, high), rng.uniform(0.01, 0.08), rng.uniform(0.3, 1.0))
        for _ in range(rng.randint(2, 3))
    ]
    total = sum(a for _f, _d, a in modes)
    out = []
    for k in range(int(seconds * STEP_HZ)):
        t = k / STEP_HZ
        out.append(sum(a * math.exp(-t / d) * math.sin(2 * math.pi * f * t) for f, d, a in modes))
    return [peak * v / total for v in out]


def _knock(world: _World, rng: random.Random, at_s: float) -> None:
    peak = rng.uniform(0.2, 6.0) * (1 if rng.random() < 0.8 else 2)
    up = _ringing(rng, 0.4, peak, 40, 400)
    side_share = rng.uniform(0, 0.6)
    world.add(world.table_up, at_s, up)
    world.add(world.table_side, at_s, [v * side_share for v in _ringing(rng, 0.4, peak, 30, 300)])


def _dice(world: _World, rng: random.Random, at_s: float) -> None:
    t = at_s
    strength = rng.uniform(0.5, 4.0)
    for _bounce in range(rng.randint(2, 5)):
        world.add(world.table_up, t, _ringing(rng, 0.15, strength, 150, 900))
        t += rng.uniform(0.05, 0.25)
        strength *= rng.uniform(0.3, 0.7)


def _cup(world: _World, rng: random.Random, at_s: float) -> None:
    length = int(rng.uniform(0.02, 0.05) * STEP_HZ)
    peak = rng.uniform(0.3, 2.0)
    world.add(world.table_up, at_s, [peak * math.sin(math.pi * k / length) for k in range(length)])
    world.add(world.table_up, at_s + length / STEP_HZ, _ringing(rng, 0.2, peak * 0.3, 40, 200))


def _bump(world: _World, rng: random.Random, at_s: float) -> None:
    f = rng.uniform(3, 10)
    peak = rng.uniform(0.5, 3.0)
    n = int(STEP_HZ / f)
    shove = [peak * math.sin(2 * math.pi * k / n) for k in range(n)]
    world.add(world.table_side, at_s, shove)
    world.add(world.table_up, at_s, [v * rng.uniform(0.1, 0.4) for v in shove])


def _buzz(world: _World, rng: random.Random, at_s: float) -> float:
    f = rng.uniform(150, 250)
    level = rng.uniform(0.3, 2.0)
    t = at_s
    for _ in range(rng.randint(1, 4)):
        n = int(rng.uniform(0.2, 1.5) * STEP_HZ)
        phase = rng.uniform(0, 2 * math.pi)
        world.add(
            world.table_up,
            t,
            [level * math.sin(2 * math.pi * f * k / STEP_HZ + phase) for k in range(n)],
        )
        world.add(
            world.table_side,
            t,
            [0.5 * level * math.cos(2 * math.pi * f * k / STEP_HZ) for k in range(n)],
        )
        t += n / STEP_HZ + rng.uniform(0.2, 0.8)
    return t


def _lean(world: _World, rng: random.Random, at_s: float) -> float:
    angle = math.radians(rng.uniform(0.5, 3.0))
    n = int(rng.uniform(0.6, 1.5) * STEP_HZ)
    hold = int(rng.uniform(0.5, 3.0) * STEP_HZ)
    shape = [angle * 0.5 * (1 - math.cos(math.pi * k / n)) for k in range(n)]
    world.add(world.tilt, at_s, shape + [angle] * hold + shape[::-1])
    return at_s + (2 * n + hold) / STEP_HZ


def _handle(world: _World, rng: random.Random, at_s: float) -> float:
    seconds = rng.uniform(1.0, 4.0)
    n = int(seconds * STEP_HZ)
    first = int(at_s * STEP_HZ)
    turn = math.radians(rng.uniform(10, 90))
    wobble = [(rng.uniform(0.5, 3.0), rng.uniform(1.0, 5.0), rng.uniform(0, 6.3)) for _ in range(3)]
    for k in range(n):
        i = first + k
        if i >= len(world.in_hand):
            break
        t = k / STEP_HZ
        world.in_hand[i] = True
        s = k / n
        world.tilt[i] += turn * math.sin(math.pi * s) ** 2
        world.carried[i] += sum(a * math.sin(2 * math.pi * f * t + p) for f, a, p in wobble) * 0.5
        world.carried_side[i] += sum(a * math.cos(2 * math.pi * f * t + p) for f, a, p in wobble)
    world.add(world.table_up, at_s + seconds, _ringing(rng, 0.2, rng.uniform(5, 30), 30, 250))
    return at_s + seconds


def session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace:
    """A session of ``seconds`` with unit ``unit``: play (presses among everything else) or,
    with ``presses=False``, everything else alone."""
    built = Unit(unit)
    rng = random.Random(f"{NAME}:session:{unit}:{seed}:{presses}")
    steps = int(seconds * STEP_HZ)
    world = _World(steps)
    onsets: list[float] = []
    releases: list[float] = []
    events: list[tuple[float, str]] = []
    others = (_knock, _dice, _cup, _bump, _buzz, _lean, _handle)
    weights = (4, 3, 2, 2, 1, 1, 1)
    t = 1.0 + rng.uniform(0, 1)
    end = seconds - 2.0
    while t < end:
        if presses and rng.random() < 0.6:
            series = rng.randint(2, 4) if rng.random() < 0.2 else 1
            for _ in range(series):
                if t >= end:
                    break
                onset, release = _press(world, built, rng, t)
                onsets.append(onset)
                releases.append(release)
                events.append((onset * 1000, "press"))
                t += rng.uniform(0.15, 0.6) + 0.4
            t += rng.uniform(1.5, 6.0)
        else:
            event = rng.choices(others, weights)[0]
            start = t
            done = event(world, rng, t)
            events.append((t * 1000, event.__name__.strip("_")))
            t = max(t, done if isinstance(done, float) else t)
            if presses and event in (_knock, _dice, _buzz, _bump) and rng.random() < 0.3:
                at = start + rng.uniform(0.2, 0.8)  # a press on a table still moving
                if at < end:
                    onset, release = _press(world, built, rng, at)
                    onsets.append(onset)
                    releases.append(release)
                    events.append((onset * 1000, "press"))
                    t = max(t, at + 0.6)
            t += rng.uniform(1.0, 6.0)
    motion = _simulate(built, world)
    t_ms, samples = _sense(built, rng, motion, seconds)
    pairs = zip(onsets, releases, strict=True)
    in_range = [(o * 1000, r * 1000) for o, r in pairs if o * 1000 <= t_ms[-1]]
    kind = "play" if presses else "quiet"
    return Trace(
        t_ms,
        samples,
        [round(o, 1) for o, _ in in_range],
        kind,
        seed,
        sorted(events),
        [round(r, 1) for _, r in in_range],
    )


def _simulate(unit: Unit, world: _World) -> list[tuple[float, float, float]]:
    """The box's proper acceleration (m/s^2, table frame: x, y sideways, z up, gravity
    included) at every step."""
    w_up = 2 * math.pi * unit.f_up
    w_rock = 2 * math.pi * unit.f_rock
    dt = 1.0 / STEP_HZ
    z = v = 0.0  # the box relative to the table top, up
    th = om = 0.0  # rocking
    xs = vs = 0.0  # the box pushed sideways on its feet
    out = []
    for k in range(len(world.press_force)):
        if world.in_hand[k]:
            z = v = th = om = xs = vs = 0.0
            up = world.carried[k]
            side = world.carried_side[k]
        else:
            spring = -w_up * w_up * z - 2 * unit.zeta_up * w_up * v
            accel_rel = spring - world.press_force[k] / unit.mass - world.table_up[k]
            v += accel_rel * dt
            z += v * dt
            up = accel_rel + world.table_up[k]
            rock = -w_rock * w_rock * th - 2 * unit.zeta_rock * w_rock * om
            rock += world.press_torque[k] / (unit.mass * 0.0025)
            om += rock * dt
            th += om * dt
            shear = -w_rock * w_rock * xs - 2 * unit.zeta_rock * w_rock * vs
            shear += world.press_side[k] / unit.mass
            vs += shear * dt
            xs += vs * dt
            side = world.table_side[k] + shear + rock * 0.02
        tilt = world.tilt[k] + th
        gx = G * math.sin(tilt)
        gz = G * math.cos(tilt)
        out.append((side + gx, 0.3 * side, up + gz))
    return out


def _sense(
    unit: Unit, rng: random.Random, motion: list[tuple[float, float, float]], seconds: float
) -> tuple[list[float], list[tuple[float, float, float]]]:
    alpha = 1 - math.exp(-2 * math.pi * unit.cutoff_hz / STEP_HZ)
    filtered = [0.0, 0.0, G]
    smoothed = []
    for sample in motion:
        for axis in range(3):
            filtered[axis] += alpha * (sample[axis] - filtered[axis])
        smoothed.append(tuple(filtered))
    t_ms: list[float] = []
    samples: list[tuple[float, float, float]] = []
    period = 1.0 / (ODR_HZ * unit.clock)
    t = 0.0
    skip = 0
    late_chance = unit.late_per_min / 60.0 / ODR_HZ
    while t < seconds - 0.01:
        k = min(int(t * STEP_HZ), len(smoothed) - 1)
        if skip:
            skip -= 1
        elif rng.random() < late_chance:
            skip = rng.randint(0, 2)
        else:
            reading = []
            for axis in range(3):
                body = sum(unit.mount[j][axis] * smoothed[k][j] for j in range(3)) / G
                value = body * unit.gain[axis] + unit.offset[axis] + rng.gauss(0, unit.noise)
                value = max(-8.0, min(8.0, round(value * 250) / 250))
                reading.append(round(value, 3))
            t_ms.append(round(t * 1000, 1))
            samples.append((reading[0], reading[1], reading[2]))
        drift = 1 + unit.drift * t / max(seconds, 1.0)
        t += period * drift
    return t_ms, samples
