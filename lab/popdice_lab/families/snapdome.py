"""Snap-dome popper: a dome that buckles with a click, in a stiff case on feet, on a ringing table.

The popper's top is a snap dome (a big tactile-switch dome or a Trouble-style bubble). The
finger's force builds with hardly any motion until the trip force; then the dome buckles. For
the snap time the case feels only the snap ratio of the trip force while dome and fingertip fall
through the travel, then they hit bottom and hand that momentum back in a short impact. The
doublet makes the case bounce and rock on its feet and the sensor board ring. Below the return
force on the way off, the dome snaps back: a weaker doublet of the other sign. The case is rigid
(heave, roll, pitch, two slides) on four one-sided feet with a shear spring and Coulomb friction
(stick-slip, hops); the board sits on a mount with its own resonance; the table is four vertical
modes and two sway modes driven by whatever hits it, moving the feet (no back-coupling).

Unit spread (``unit`` picks one): 0.12-0.6 kg; feet +-25..55 mm out, centre of mass 12-35 mm
above them, top 15-45 mm above that; rubber feet (60 %: heave 45-140 Hz, damping 6-18 %,
friction 0.6-1.0) or hard ones (heave 140-320 Hz, 5-12 %, friction 0.2-0.4); dome trip 3-15 N,
snap ratio 0.25-0.6, travel 0.8-2.5 mm, 1-6 g, return 30-60 % of trip, impact 0.08-0.3 ms
(metal) or 0.3-1.2 ms (plastic), up to 5 mm off centre; the sensor board on the base (mount
250-480 Hz), under the lid by the dome (120-350 Hz, struck by the click) or on foam (60-160 Hz,
15-35 %), anywhere over the footprint, flat, upside down or on edge, 0-4 degrees askew; table
modes 15-35, 40-90, 100-220, 250-450 Hz (2-10 %, 4-40 kg at the unit), sway 5-12 Hz.
Sensor part: offsets sd 20 mg (z 30 mg), gains sd 2 %, cross-axis sd 1 %, noise 150-350
ug/sqrt(Hz) (z x1.2-1.5), internal low-pass 44-200 Hz (two poles, Q 0.5-0.8), clock -2..+2 %
drifting 0.05-0.3 % per session, 0.02-0.15 % of samples missed (bursts of 1-6).

Presses (play: 5-15 a minute, groups of 1-4 some 0.1-0.6 s apart, a third of the groups during
or just after something else): hardness sets the ramp (250 ms soft .. 25 ms jab), the overshoot
(5-95 % over trip), the fingertip's landing (5-15 g at 0.01-0.47 m/s, 5-15 ms) and the mass
that falls with the dome (4-20 g); up to 12 mm off centre, up to 18 degrees slanted; held
40-350 ms, let go in 15-120 ms. The label is where a careful eye would put the press's start,
found by replaying the press alone on the resting unit without noise: the click (the snap's
start), unless the build-up already moves the sensor's own output (its filter included) by
more than max(8 sigma of noise, 40 mg), as jabs on light units and hard slanted or off-centre
pushes on soft feet can; then the instant that rise left the noise (max(3 sigma, 10 mg)). The
release is the instant the dome snaps back, the finger's force having fallen below the return
force (``Press.back``).

Disturbances (several a minute; alone in quiet sessions): knuckle knocks (1-3 of 0.03-0.25 N s
in 0.6-2 ms, 5-80 cm away), fist bangs (0.3-2.5 N s, 5-15 ms), palm slams (0.3-2 N s, 3-8 ms),
dice (1-5 of 4-20 g at 0.8-3 m/s, bouncing then tumbling), a die hitting the case, a cup or an
object set down (0.15-1.5 kg at 0.02-0.25 m/s), a phone buzzing (150-235 Hz, 0.5-2 N, bursts),
the table bumped (15-150 N sideways for 60-250 ms), someone leaning on it (forearms landing,
lifting 1.5-10 s later; the top's tilt of a few mrad is under the noise), the unit nudged
(0-1 cm), slid 2-30 cm by hand (stick-slip), picked up, carried (tilted up to 35 degrees,
turned, hand tremor) and set down at 0.015-0.12 m/s or (a quarter) let go 1-6 mm up, its case
tapped, and the dome touched without popping it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from popdice.traces.trace import Trace

NAME = "snapdome"
SUMMARY = (
    "A snap dome that clicks as it buckles (weaker as it snaps back) in a stiff case on rubber "
    "or hard feet on a ringing wooden table, seen by an LIS3DH at 400 Hz"
)

G = 9.80665
PERIOD_S = 0.0025
SUBSTEPS = 8
LSB_G = 0.004
FULL_SCALE_G = 8.0
SETTLED = 0.003  # m/s^2: everything below this is at rest (well under one LSB)

Four = tuple[float, float, float, float]
Six = tuple[float, float, float, float, float, float]


def _smooth(u: float) -> float:
    """0 -> 1 with zero slope at both ends (raised cosine), clamped."""
    return 0.0 if u <= 0.0 else 1.0 if u >= 1.0 else 0.5 - 0.5 * math.cos(math.pi * u)


def _smoother(u: float) -> float:
    """0 -> 1 with zero slope and curvature at both ends (quintic), clamped."""
    return 0.0 if u <= 0.0 else 1.0 if u >= 1.0 else u * u * u * (10.0 - 15.0 * u + 6.0 * u * u)


def _half_sine_share(a: float, b: float, duration: float) -> float:
    """Share of a half-sine pulse's impulse delivered between a and b (the pulse starts at 0)."""
    a, b = max(a, 0.0), min(b, duration)
    if b <= a:
        return 0.0
    return 0.5 * (math.cos(math.pi * a / duration) - math.cos(math.pi * b / duration))


def _overlap(a: float, b: float, start: float, end: float) -> float:
    return max(0.0, min(b, end) - max(a, start))


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


# --- the unit as built ---------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    mode_hz: Four
    mode_zeta: Four
    mode_kg: Four  # effective mass at the unit
    sway_hz: tuple[float, float]
    sway_zeta: float
    sway_kg: float
    level: tuple[float, float]  # tilt about x and y (rad)


@dataclass(frozen=True)
class Body:
    mass: float
    inertia: tuple[float, float]  # about x and y
    foot_x: float  # feet at (+-foot_x, +-foot_y) around the centre of mass
    foot_y: float
    cm_height: float  # above the feet's plane
    top: float  # above the centre of mass
    foot_k: float  # each
    foot_c: float
    shear_k: float  # all four
    shear_c: float
    mu_static: float
    mu_kinetic: float


@dataclass(frozen=True)
class Dome:
    trip_n: float
    snap_ratio: float  # the dome's push while it snaps, over the trip force
    travel_m: float
    mass_kg: float
    impact_s: float
    return_ratio: float
    centre: tuple[float, float]


@dataclass(frozen=True)
class Sensor:
    position: tuple[float, float, float]  # from the centre of mass, case frame
    mount_hz: float
    mount_zeta: float
    click_per_kg: float  # how hard the dome's click strikes the board's mount directly
    readout: list[list[float]]  # case frame -> reported axes: gains, cross-axis, mounting
    offset_g: tuple[float, float, float]
    noise_g: tuple[float, float, float]  # rms per sample
    cutoff_hz: float
    q: float
    clock_error: float
    miss_rate: float


@dataclass(frozen=True)
class Popper:
    table: Table
    body: Body
    dome: Dome
    sensor: Sensor


def build_unit(unit: int) -> Popper:
    """The popper ``unit`` as built, drawn from the family's spread."""
    rng = random.Random(f"snapdome:unit:{unit}")
    return Popper(_build_table(rng), _build_body(rng), _build_dome(rng), _build_sensor(rng))


def _four(values: list[float]) -> Four:
    return values[0], values[1], values[2], values[3]


def _build_table(rng: random.Random) -> Table:
    heavy = rng.random()
    kg = [(15.0, 40.0), (10.0, 30.0), (6.0, 20.0), (4.0, 14.0)]
    hz = [(15.0, 35.0), (40.0, 90.0), (100.0, 220.0), (250.0, 450.0)]
    sway = rng.uniform(5.0, 12.0)
    return Table(
        mode_hz=_four([rng.uniform(low, high) for low, high in hz]),
        mode_zeta=_four([rng.uniform(0.02, 0.06) * (1 + 0.2 * i) for i in range(4)]),
        mode_kg=_four(
            [low * (high / low) ** (0.5 * heavy + 0.5 * rng.random()) for low, high in kg]
        ),
        sway_hz=(sway, sway * rng.uniform(0.8, 1.25)),
        sway_zeta=rng.uniform(0.03, 0.1),
        sway_kg=rng.uniform(20.0, 60.0),
        level=(rng.gauss(0.0, 0.004), rng.gauss(0.0, 0.004)),
    )


def _build_body(rng: random.Random) -> Body:
    mass = _log_uniform(rng, 0.12, 0.6)
    foot_x, foot_y = rng.uniform(0.025, 0.055), rng.uniform(0.025, 0.055)
    cm_height, top = rng.uniform(0.012, 0.035), rng.uniform(0.015, 0.045)
    tall = (cm_height + top) ** 2
    rubber = ((45, 140), (0.06, 0.18), (0.6, 1.0), (0.25, 0.5))  # heave Hz, damping, mu, shear
    hard = ((140, 320), (0.05, 0.12), (0.2, 0.4), (0.4, 0.8))
    feet = rubber if rng.random() < 0.6 else hard
    heave_hz, zeta, mu, shear = (rng.uniform(low, high) for low, high in feet)
    k_total = mass * (2 * math.pi * heave_hz) ** 2
    inertia_x = mass * ((2 * foot_y + 0.01) ** 2 + tall) / 12 * rng.uniform(0.8, 1.2)
    inertia_y = mass * ((2 * foot_x + 0.01) ** 2 + tall) / 12 * rng.uniform(0.8, 1.2)
    return Body(
        mass=mass,
        inertia=(inertia_x, inertia_y),
        foot_x=foot_x,
        foot_y=foot_y,
        cm_height=cm_height,
        top=top,
        foot_k=k_total / 4,
        foot_c=zeta * math.sqrt(k_total * mass) / 2,
        shear_k=shear * k_total,
        shear_c=2 * zeta * math.sqrt(shear * k_total * mass),
        mu_static=mu,
        mu_kinetic=mu * rng.uniform(0.7, 0.9),
    )


def _build_dome(rng: random.Random) -> Dome:
    metal = rng.random() < 0.5
    offset, heading = 0.005 * math.sqrt(rng.random()), rng.uniform(0.0, 2 * math.pi)
    return Dome(
        trip_n=_log_uniform(rng, 3.0, 15.0),
        snap_ratio=rng.uniform(0.25, 0.6),
        travel_m=rng.uniform(0.8e-3, 2.5e-3),
        mass_kg=rng.uniform(1e-3, 6e-3),
        impact_s=rng.uniform(0.08e-3, 0.3e-3) if metal else rng.uniform(0.3e-3, 1.2e-3),
        return_ratio=rng.uniform(0.3, 0.6),
        centre=(offset * math.cos(heading), offset * math.sin(heading)),
    )


def _matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def _mounting(rng: random.Random) -> list[list[float]]:
    """Rows: the sensor's axes in the case frame; its z is the case's z or x or y, either way."""
    normal = 2 if rng.random() < 0.65 else rng.choice((0, 1))
    others = [a for a in range(3) if a != normal]
    rng.shuffle(others)
    axes = [others[0], others[1], normal]
    rows = [[rng.choice((-1.0, 1.0)) if j == axes[i] else 0.0 for j in range(3)] for i in range(3)]
    a, b, c = rows
    det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
    det += a[2] * (b[0] * c[1] - b[1] * c[0])
    if det < 0:
        rows[1] = [-v for v in rows[1]]
    x, y, z = (rng.gauss(0.0, math.radians(1.5)) for _ in range(3))
    askew = [[1.0, -z, y], [z, 1.0, -x], [-y, x, 1.0]]
    return _matmul(rows, askew)


def _build_sensor(rng: random.Random) -> Sensor:
    mount = rng.choices(["base", "lid", "foam"], weights=[45, 35, 20])[0]
    height, hz, zeta, click = {
        "lid": (rng.uniform(0.01, 0.03), rng.uniform(120, 350), 0.06, 3.0),
        "base": (rng.uniform(-0.03, -0.008), rng.uniform(250, 480), 0.05, 1.0),
        "foam": (rng.uniform(-0.03, -0.008), rng.uniform(60, 160), 0.25, 0.5),
    }[mount]
    gains = [
        [1 + rng.gauss(0, 0.02) if i == j else rng.gauss(0, 0.01) for j in range(3)]
        for i in range(3)
    ]
    cutoff = _log_uniform(rng, 400 / 9, 200.0)
    noise = rng.uniform(150e-6, 350e-6) * math.sqrt(1.2 * cutoff)
    return Sensor(
        position=(rng.uniform(-0.035, 0.035), rng.uniform(-0.035, 0.035), height),
        mount_hz=hz,
        mount_zeta=zeta * rng.uniform(0.6, 1.4),
        click_per_kg=click * rng.uniform(0.3, 1.6),
        readout=_matmul(gains, _mounting(rng)),
        offset_g=(rng.gauss(0, 0.02), rng.gauss(0, 0.02), rng.gauss(0, 0.03)),
        noise_g=(noise, noise, noise * rng.uniform(1.2, 1.5)),
        cutoff_hz=cutoff,
        q=rng.uniform(0.5, 0.8),
        clock_error=rng.uniform(-0.02, 0.02),
        miss_rate=_log_uniform(rng, 2e-4, 1.5e-3),
    )


# --- what pushes: on the table (felt through its modes) and on the unit --------------------


def _couplings(rng: random.Random, distance: float, sway: float = 0.03) -> Six:
    """How a push ``distance`` away reaches the unit through each table mode: the low modes move
    the whole top, the higher ones fade with distance, mode shapes random."""
    near, heading = math.sqrt(0.1 / max(distance, 0.05)), rng.uniform(0.0, 2 * math.pi)
    return (
        rng.uniform(0.5, 1.0),
        rng.uniform(-1.0, 1.0) * math.exp(-distance / 1.5),
        rng.uniform(-1.0, 1.0) * near * math.exp(-distance / 0.6),
        rng.uniform(-1.0, 1.0) * near * math.exp(-distance / 0.3),
        sway * math.cos(heading),
        sway * math.sin(heading),
    )


@dataclass
class TablePulses:
    """Blows on the table: half-sine pulses (start, duration, impulse down, impulse sideways)."""

    pulses: list[Four]
    couplings: Six
    start: float = 0.0
    end: float = 0.0
    cursor: int = 0

    def __post_init__(self) -> None:
        self.pulses.sort()
        self.start = self.pulses[0][0]
        self.end = max(t0 + duration for t0, duration, _, _ in self.pulses)

    def push(self, t: float, dt: float) -> tuple[float, float]:
        """Mean (down, sideways) force over [t, t + dt]."""
        pulses, i = self.pulses, self.cursor
        while i < len(pulses) and pulses[i][0] + pulses[i][1] <= t:
            i += 1
        self.cursor = i
        down = sideways = 0.0
        while i < len(pulses) and pulses[i][0] < t + dt:
            t0, duration, impulse, side = pulses[i]
            share = _half_sine_share(t - t0, t + dt - t0, duration)
            down, sideways, i = down + impulse * share, sideways + side * share, i + 1
        return down / dt, sideways / dt


@dataclass
class PhoneBuzz:
    """A phone's vibration motor in bursts: a sine (and a second harmonic, the phone rattling on
    the top) whose force grows with the motor's speed squared as it spins up and down."""

    bursts: list[tuple[float, float]]  # (on, off)
    hz: float
    force_n: float
    rattle: float
    spin_s: float
    couplings: Six
    start: float = 0.0
    end: float = 0.0

    def __post_init__(self) -> None:
        self.start, self.end = self.bursts[0][0], self.bursts[-1][1] + 5 * self.spin_s

    def push(self, t: float, dt: float) -> tuple[float, float]:
        tm = t + 0.5 * dt
        speed = 0.0
        for on, off in self.bursts:
            if on <= tm < off + 5 * self.spin_s:
                speed = (1 - math.exp((on - min(tm, off)) / self.spin_s)) * math.exp(
                    min(0, off - tm) / self.spin_s
                )
        phase = 2 * math.pi * self.hz * tm
        return self.force_n * speed * speed * (
            math.sin(phase) + self.rattle * math.sin(2 * phase + 1)
        ), 0.0


@dataclass
class Press:
    """A finger on the dome. Its force ramps (raised cosine) towards the target, the fingertip's
    landing on top of that; at the trip force the dome snaps: for the snap time the case feels
    only the snap ratio of the trip force, then the impact returns that momentum. Letting go,
    below the return force, the dome snaps back (weaker, other sign). A target under the trip
    force only touches the dome."""

    start: float  # the fingertip touches
    target_n: float
    ramp_s: float
    landing_ns: float  # the fingertip's momentum
    landing_s: float
    hold_s: float
    release_s: float
    point: tuple[float, float, float]  # where the finger pushes, from the centre of mass
    slant: tuple[float, float]  # sideways push per newton down
    damping: float  # finger and hand on the case, N s/m
    dome: Dome
    follow_kg: float  # fingertip mass that falls with the dome
    end: float = 0.0
    click: float | None = None
    snap_s: float = 0.0
    snap_ns: float = 0.0
    back: float = 0.0
    back_s: float = 0.0
    back_ns: float = 0.0
    letgo: float = math.inf
    hold_n: float = 0.0

    def __post_init__(self) -> None:
        dome, t = self.dome, self.start
        while t < self.start + self.ramp_s + self.landing_s and self.click is None:
            self.click = t if self.finger(t) >= dome.trip_n else None
            t += 5e-5
        self.letgo = self.start + self.ramp_s + self.hold_s
        if self.click is not None:
            deficit = (1.0 - dome.snap_ratio) * dome.trip_n
            self.snap_s = math.sqrt(2 * dome.travel_m * (dome.mass_kg + self.follow_kg) / deficit)
            self.snap_ns = deficit * self.snap_s
            self.letgo = self.click + self.snap_s + dome.impact_s + self.hold_s
        self.hold_n = self.target_n * _smooth((self.letgo - self.start) / self.ramp_s)
        self.end = self.letgo + self.release_s + 0.01
        if self.click is not None:
            returning = dome.return_ratio * dome.trip_n
            drop = 1.0 - min(returning / self.hold_n, 1.0)
            self.back = self.letgo + math.acos(1.0 - 2.0 * drop) / math.pi * self.release_s
            self.back_s = math.sqrt(2 * dome.travel_m * dome.mass_kg / (0.8 * returning))
            self.back_ns = 0.8 * returning * self.back_s

    def finger(self, t: float) -> float:
        """The finger's push on the dome, without the snap."""
        since = t - self.start
        if since < 0.0:
            return 0.0
        if t < self.letgo:
            force = self.target_n * _smooth(since / self.ramp_s)
        else:
            force = self.hold_n * (1.0 - _smooth((t - self.letgo) / self.release_s))
        if since < self.landing_s:
            shape = math.pi / (2 * self.landing_s) * math.sin(math.pi * since / self.landing_s)
            force += self.landing_ns * shape
        return force

    def push(self, t: float, dt: float, x: float, y: float, vx: float, vy: float, vz: float) -> Six:
        """Mean (fx, fy, fz, torque x, torque y, click force up) on the case over [t, t + dt]."""
        finger, click = self.finger(t + 0.5 * dt), 0.0
        if self.click is not None:
            snapped, back_end, impact = (
                self.click + self.snap_s,
                self.back + self.back_s,
                self.dome.impact_s,
            )
            click = self.snap_ns * (
                _half_sine_share(t - snapped, t + dt - snapped, impact)
                - _overlap(t, t + dt, self.click, snapped) / self.snap_s
            ) + self.back_ns * (
                _overlap(t, t + dt, self.back, back_end) / self.back_s
                - _half_sine_share(t - back_end, t + dt - back_end, 1.5 * impact)
            )
            click /= dt
        fx, fy = finger * self.slant[0], finger * self.slant[1]
        fz = -(finger + click) - (self.damping * vz if finger > 0.2 else 0.0)
        px, py, pz = self.point
        return fx, fy, fz, py * fz - pz * fy, pz * fx - px * fz, -click


@dataclass
class CaseHits:
    """Short blows on the case itself (a die, a fingertip): half-sine pulses along one line."""

    pulses: list[tuple[float, float, float]]  # (start, duration, impulse)
    point: tuple[float, float, float]
    direction: tuple[float, float, float]
    start: float = 0.0
    end: float = 0.0

    def __post_init__(self) -> None:
        self.start = self.pulses[0][0]
        self.end = max(t0 + duration for t0, duration, _ in self.pulses)

    def push(self, t: float, dt: float, x: float, y: float, vx: float, vy: float, vz: float) -> Six:
        force = sum(j * _half_sine_share(t - t0, t + dt - t0, d) for t0, d, j in self.pulses) / dt
        fx, fy, fz = (force * c for c in self.direction)
        px, py, pz = self.point
        return fx, fy, fz, py * fz - pz * fy, pz * fx - px * fz, fz


@dataclass
class Hand:
    """A hand on the case: a well-damped grip spring pulling it along a smooth path (a slide; a
    nudge is a short one), pressing on it, trembling (8-12 Hz), and carrying ``carried`` newtons
    of its weight, from none at the first instant to all at the second (or the other way)."""

    start: float
    end: float
    pull: tuple[float, float, float]  # heading, metres, seconds
    grip: tuple[float, float]  # N/m, N s/m
    press_n: float
    carried: tuple[float, float, float]
    tremor: tuple[float, float, float]  # N, Hz, phase
    height: float
    origin: tuple[float, float] | None = None

    def push(self, t: float, dt: float, x: float, y: float, vx: float, vy: float, vz: float) -> Six:
        if self.origin is None:
            self.origin = (x, y)
        tm = t + 0.5 * dt
        there = _smooth((tm - self.start) / 0.05) * _smooth((self.end - tm) / 0.08)
        heading, distance, duration = self.pull
        u = (tm - self.start - 0.05) / duration
        along = distance * _smoother(u)
        speed = distance * 30 * u * u * (1 - u) ** 2 / duration if 0.0 < u < 1.0 else 0.0
        cos_h, sin_h = math.cos(heading), math.sin(heading)
        (k, c), (x0, y0) = self.grip, self.origin
        fx = k * (x0 + along * cos_h - x) + c * (speed * cos_h - vx)
        fy = k * (y0 + along * sin_h - y) + c * (speed * sin_h - vy)
        newtons, none_at, all_at = self.carried
        shake = self.tremor[0] * math.sin(2 * math.pi * self.tremor[1] * tm + self.tremor[2])
        fx, fy = there * (fx + shake), there * (fy + 0.5 * shake)
        fz = newtons * _smooth((tm - none_at) / (all_at - none_at))
        fz += there * (shake - self.press_n - c * vz)
        return fx, fy, fz, -self.height * fy, self.height * fx, 0.0


TableSource = TablePulses | PhoneBuzz
UnitSource = Press | CaseHits | Hand


# --- the unit in the hand: kinematic --------------------------------------------------------


@dataclass
class Carry:
    """The unit off the table: lifted, carried (moved, tilted, turned, trembling), lowered, and
    set down at ``landing_speed`` or let go ``drop_m`` up to fall onto its feet."""

    lift: float
    timing: tuple[float, float, float]  # rising, carried, lowering (s)
    height_m: float
    drop_m: float
    landing_speed: float
    tilt: Four  # peak roll and pitch; roll and pitch at touch-down (rad)
    turn: float
    move: tuple[float, float]
    tremor: tuple[float, float, float]  # m/s^2, Hz, phase
    lowered: float = 0.0
    touch: float = 0.0

    def __post_init__(self) -> None:
        self.lowered = self.lift + sum(self.timing)
        self.touch = self.lowered + math.sqrt(2 * self.drop_m / G)
        if self.drop_m > 0.0:
            self.landing_speed = G * (self.touch - self.lowered)

    def _position(self, t: float) -> tuple[float, float, float]:
        moved = _smoother((t - self.lift) / (self.lowered - self.lift))
        rise, _, lower = self.timing
        down = (t - self.lowered + lower) / lower
        if down < 0.0:
            height = self.height_m * _smoother((t - self.lift) / rise)
        elif self.drop_m > 0.0:
            height = self.drop_m + (self.height_m - self.drop_m) * (1 - _smoother(down))
        else:  # still moving down at landing_speed as it touches
            w = min(down, 1.0)
            height = self.height_m * (1 - _smoother(down))
            height += self.landing_speed * lower * (1 - w) * w**3
        return self.move[0] * moved, self.move[1] * moved, height

    def deviation(self, t: float) -> tuple[float, float, float]:
        """Proper acceleration in the case frame, less 1 g along its z (m/s^2)."""
        u = min(max((t - self.lift) / (self.lowered - self.lift), 0.0), 1.0)
        acc = [0.0, 0.0, -G]  # let go: falling
        if t < self.lowered:
            a, b, c = (self._position(t + s) for s in (-1e-3, 0.0, 1e-3))
            shake = self.tremor[0] * min(1.0, 4 * u, 4 * (1 - u))
            shake *= math.sin(2 * math.pi * self.tremor[1] * t + self.tremor[2])
            acc = [(a[i] - 2 * b[i] + c[i]) * 1e6 + shake * (1.0, 0.6, 0.4)[i] for i in range(3)]
        bump, settle = math.sin(math.pi * u) ** 2, _smoother(u)
        roll = self.tilt[0] * bump + self.tilt[2] * settle
        pitch = self.tilt[1] * bump + self.tilt[3] * settle
        fx, fy, fz = acc[0], acc[1], acc[2] + G
        c, s = math.cos(self.turn * settle), math.sin(self.turn * settle)
        fx, fy = c * fx + s * fy, -s * fx + c * fy
        c, s = math.cos(pitch), math.sin(pitch)
        fx, fz = c * fx - s * fz, s * fx + c * fz
        c, s = math.cos(roll), math.sin(roll)
        return fx, c * fy + s * fz, -s * fy + c * fz - G


# --- what happens in a session --------------------------------------------------------------


@dataclass
class Plan:
    table: list[TableSource] = field(default_factory=list)
    unit: list[UnitSource] = field(default_factory=list)
    carries: list[Carry] = field(default_factory=list)
    presses: list[Press] = field(default_factory=list)
    events: list[tuple[float, str]] = field(default_factory=list)
    busy: list[tuple[float, float]] = field(default_factory=list)  # a hand on the unit

    def claim(self, start: float, end: float, kind: str = "") -> bool:
        """Book the unit for a hand from ``start`` to ``end`` if it is free (0.3 s either side)."""
        if any(end + 0.3 > b0 and start - 0.3 < b1 for b0, b1 in self.busy):
            return False
        self.busy.append((start, end))
        if kind:
            self.events.append((start, kind))
        return True


def _blows(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """Knocks, bangs, slams: a few blows of one strength, somewhere on the table."""
    count, gap, impulse, duration, near, far = {
        "knock": ([1, 1, 2, 2, 3], (0.08, 0.25), (0.03, 0.25), (0.6e-3, 2e-3), 0.05, 0.8),
        "fist_bang": ([1, 1, 1, 2, 3], (0.25, 0.6), (0.3, 2.5), (5e-3, 15e-3), 0.15, 1.0),
        "slam": ([1, 1, 2], (0.2, 0.5), (0.3, 2.0), (3e-3, 8e-3), 0.1, 0.9),
    }[kind]
    strength, pulses = _log_uniform(rng, *impulse), []
    for i in range(rng.choice(count)):
        blow = strength * rng.uniform(0.7, 1.3)
        pulses.append((t + i * rng.uniform(*gap), rng.uniform(*duration), blow, 0.0))
    plan.table.append(TablePulses(pulses, _couplings(rng, rng.uniform(near, far))))
    plan.events.append((t, kind))


def _dice(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """Dice landing, bouncing (restitution 0.3-0.55) and tumbling; maybe one hits the case."""
    distance = rng.uniform(0.1, 0.8)
    for die in range(rng.choice([1, 1, 2, 2, 3, 5]) if kind == "dice" else 1):
        mass, speed = rng.uniform(0.004, 0.02), rng.uniform(0.8, 3.0)
        bounce = rng.uniform(0.3, 0.55)
        when, pulses = t + die * rng.uniform(0.0, 0.08), []
        while speed > 0.15:
            pulses.append((when, rng.uniform(1e-4, 3e-4), mass * speed * (1 + bounce), 0.0))
            when, speed = when + 2 * bounce * speed * rng.uniform(0.3, 1.0) / G, speed * bounce
        for _ in range(rng.randint(2, 8)):
            when += rng.uniform(0.03, 0.15)
            pulses.append((when, rng.uniform(1e-4, 3e-4), mass * rng.uniform(0.05, 0.3), 0.0))
        spot = max(0.03, distance + rng.uniform(-0.1, 0.1))
        plan.table.append(TablePulses(pulses, _couplings(rng, spot)))
    plan.events.append((t, kind))
    if kind == "dice_hits_unit":
        body, heading, down = p.body, rng.uniform(0.0, 2 * math.pi), rng.uniform(0.0, 0.5)
        side = (-math.cos(heading) * body.foot_x, -math.sin(heading) * body.foot_y)
        point = (*side, rng.uniform(-0.5 * body.cm_height, 0.5 * body.top))
        norm = math.sqrt(1 + down * down)
        direction = (math.cos(heading) / norm, math.sin(heading) / norm, -down / norm)
        impulse = rng.uniform(0.004, 0.02) * rng.uniform(0.3, 2.0) * rng.uniform(1.3, 1.6)
        hit = (t + rng.uniform(0.02, 0.3), rng.uniform(1e-4, 3e-4), impulse)
        plan.unit.append(CaseHits([hit], point, direction))


def _set_down(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """A cup or another object put down on the table, sometimes rocking onto its base twice."""
    cup = kind == "cup_down"
    mass = rng.uniform(0.15, 0.5) if cup else rng.uniform(0.2, 1.5)
    speed = rng.uniform(0.03, 0.25) if cup else rng.uniform(0.02, 0.2)
    impulse = mass * speed * rng.uniform(1.1, 1.3)
    duration = rng.uniform(1.5e-3, 5e-3) if cup else rng.uniform(3e-3, 10e-3)
    pulses = [(t, duration, impulse, 0.0)]
    if rng.random() < 0.3:
        pulses.append((t + rng.uniform(0.02, 0.06), duration, impulse * rng.uniform(0.2, 0.5), 0.0))
    plan.table.append(TablePulses(pulses, _couplings(rng, rng.uniform(0.1, 0.8))))
    plan.events.append((t, kind))


def _buzz(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    bursts, when = [], t
    for _ in range(rng.randint(1, 5)):
        on = rng.uniform(0.2, 1.2)
        bursts.append((when, when + on))
        when += on + rng.uniform(0.2, 1.0)
    hz, newtons = rng.uniform(150.0, 235.0), rng.uniform(0.5, 2.0)
    motor = (hz, newtons, rng.uniform(0.1, 0.4), rng.uniform(0.02, 0.06))
    plan.table.append(PhoneBuzz(bursts, *motor, _couplings(rng, rng.uniform(0.05, 0.5))))
    plan.events.append((t, kind))


def _bump(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """A hip or knee against the table: mostly sideways, some of it down."""
    duration, peak = rng.uniform(0.06, 0.25), _log_uniform(rng, 15.0, 150.0)
    impulse = 2 / math.pi * peak * duration
    pulse = (t, duration, impulse * rng.uniform(0.1, 0.5), impulse)
    plan.table.append(TablePulses([pulse], _couplings(rng, rng.uniform(0.3, 1.0), sway=1.0)))
    plan.events.append((t, kind))


def _lean(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """Someone leaning on the table: forearms landing, later lifting (the top's tilt under the
    unit, a few mrad, stays under the noise)."""
    thump, leaving = rng.uniform(0.1, 0.8), t + rng.uniform(1.5, 10.0)
    landing = (t, rng.uniform(0.015, 0.05), thump, 0.0)
    lifting = (leaving, rng.uniform(0.02, 0.06), -thump * rng.uniform(0.2, 0.6), 0.0)  # unloading
    pulses = [landing, lifting]
    plan.table.append(TablePulses(pulses, _couplings(rng, rng.uniform(0.2, 0.8))))
    plan.events.append((t, kind))


def _tremor(rng: random.Random) -> tuple[float, float, float]:
    return rng.uniform(0.03, 0.15), rng.uniform(8.0, 12.0), rng.uniform(0.0, 2 * math.pi)


def _nudge_or_slide(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    if kind == "nudge":
        distance, speed, press, k = rng.uniform(0.0, 0.01), 0.1, 0.0, rng.uniform(100.0, 600.0)
    else:
        distance, speed, press, k = (
            rng.uniform(0.02, 0.3),
            rng.uniform(0.05, 0.3),
            rng.uniform(0.5, 4),
            rng.uniform(300, 1500),
        )
    duration = max(0.08, distance / speed * 1.9)
    end = t + duration + rng.uniform(0.1, 0.3)
    grip = (k, rng.uniform(1.0, 2.0) * math.sqrt(k * p.body.mass))
    pull = (rng.uniform(0, 2 * math.pi), distance, duration)
    if plan.claim(t, end, kind):
        height = rng.uniform(0.2, 1.0) * p.body.top
        plan.unit.append(Hand(t, end, pull, grip, press, (0.0, t, end), _tremor(rng), height))


def _pick_up(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """Grabbed (the hand takes the weight), carried, then set down or let go just above."""
    grab, weight, dropped = rng.uniform(0.15, 0.4), p.body.mass * G, rng.random() < 0.25
    tilt = [math.radians(rng.uniform(-35, 35)) for _ in range(2)]
    tilt += [math.radians(rng.uniform(-1, 1)) for _ in range(2)]
    timing = (rng.uniform(0.25, 0.6), rng.uniform(0.4, 5.0), rng.uniform(0.3, 0.7))
    drop, landing = rng.uniform(0.001, 0.006) if dropped else 0.0, rng.uniform(0.015, 0.12)
    move = (rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3))
    shake = (rng.uniform(0.05, 0.25), rng.uniform(8.0, 12.0), rng.uniform(0, 6.3))
    height, turn = rng.uniform(0.03, 0.2), math.radians(rng.uniform(-100, 100))
    carry = Carry(t + grab, timing, height, drop, landing, _four(tilt), turn, move, shake)
    release, top, still = rng.uniform(0.05, 0.25), p.body.top, (0.0, 0.0, 1.0)
    if not plan.claim(t, carry.touch + release, kind):
        return
    lifting = (weight, t, carry.lift)
    plan.unit.append(Hand(t, carry.lift, still, (300.0, 5.0), 0.0, lifting, _tremor(rng), top))
    if not dropped:
        end = carry.touch + release
        letting = (weight, end, carry.touch)
        plan.unit.append(Hand(carry.touch, end, still, (0.0, 5.0), 0.0, letting, _tremor(rng), top))
    plan.carries.append(carry)
    plan.events.append((carry.touch, "put_down"))


def _case_tap(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    """A fingertip tapping the case: on the top beside the dome, or on a side."""
    body, heading = p.body, rng.uniform(0, 2 * math.pi)
    cos_h, sin_h = math.cos(heading), math.sin(heading)
    if rng.random() < 0.4:  # on the top, beside the dome, straight down
        point = (0.8 * body.foot_x * cos_h, 0.8 * body.foot_y * sin_h, body.top)
        direction = (0.0, 0.0, -1.0)
    else:  # on a side, inwards
        point = (-body.foot_x * cos_h, -body.foot_y * sin_h, 0.3 * body.top)
        direction = (cos_h, sin_h, 0.0)
    pulses, when = [], t
    for _ in range(rng.choice([1, 1, 2, 3])):
        pulses.append((when, rng.uniform(1e-3, 4e-3), _log_uniform(rng, 0.002, 0.015)))
        when += rng.uniform(0.1, 0.4)
    if plan.claim(t, when, kind):
        plan.unit.append(CaseHits(pulses, point, direction))


def _press(
    p: Popper, rng: random.Random, t: float, hardness: float, quick: bool, pop: bool = True
) -> Press:
    """A finger on the dome from ``t``; ``hardness`` 0 (a slow soft push) .. 1 (a jab)."""
    dome = p.dome
    ramp = 0.25 * 0.1**hardness * rng.uniform(0.8, 1.2) * (0.6 if quick else 1.0)
    target = dome.trip_n * (1.05 + 0.9 * hardness * rng.uniform(0.7, 1.0))
    speed = (0.02 + 0.43 * hardness**2) * rng.uniform(0.6, 1.05)
    hold = _log_uniform(rng, 0.04, 0.35) * (0.6 if quick else 1.0)
    if not pop:  # only touched: a lighter, slower, longer push
        target, ramp = dome.trip_n * rng.uniform(0.3, 0.8), 2 * ramp
        speed, hold = min(speed, 0.05), 4 * hold
    off, heading = 0.012 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
    centre = (dome.centre[0] + off * math.cos(heading), dome.centre[1] + off * math.sin(heading))
    slant = math.tan(min(abs(rng.gauss(0, math.radians(6))), math.radians(18)))
    slant_heading = rng.uniform(0, 2 * math.pi)
    return Press(
        start=t,
        target_n=target,
        ramp_s=ramp,
        landing_ns=rng.uniform(0.005, 0.015) * speed,
        landing_s=0.008 * (0.1 / speed) ** 0.2 * rng.uniform(0.8, 1.25),  # a Hertzian pad
        hold_s=hold,
        release_s=rng.uniform(0.015, 0.12),
        point=(*centre, p.body.top),
        slant=(slant * math.cos(slant_heading), slant * math.sin(slant_heading)),
        damping=rng.uniform(2.0, 8.0),
        dome=dome,
        follow_kg=rng.uniform(0.004, 0.012) + 0.008 * hardness,
    )


def _dome_touch(plan: Plan, p: Popper, rng: random.Random, t: float, kind: str) -> None:
    touch = _press(p, rng, t, rng.uniform(0.0, 0.4), False, pop=False)
    if touch.click is None and plan.claim(t, touch.end, kind):
        plan.unit.append(touch)


DISTURBANCES: dict[str, tuple[float, Callable[[Plan, Popper, random.Random, float, str], None]]] = {
    "knock": (14, _blows),
    "fist_bang": (6, _blows),
    "slam": (5, _blows),
    "dice": (16, _dice),
    "dice_hits_unit": (4, _dice),
    "cup_down": (8, _set_down),
    "object_down": (4, _set_down),
    "phone_buzz": (6, _buzz),
    "table_bump": (5, _bump),
    "lean": (5, _lean),
    "nudge": (5, _nudge_or_slide),
    "slide": (5, _nudge_or_slide),
    "pick_up": (4, _pick_up),
    "case_tap": (5, _case_tap),
    "dome_touch": (3, _dome_touch),
}


def _press_group(plan: Plan, p: Popper, rng: random.Random, t: float, seconds: float) -> int:
    """A single press or a quick series of 2-4 from ``t``; how many it placed."""
    count = rng.choices([1, 2, 3, 4], weights=[55, 20, 15, 10])[0]
    hardness = rng.random() ** 1.5  # most presses are unhurried; a fifth are jabs
    group, when = [], t
    for _ in range(count):
        firmness = min(1.0, max(0.0, hardness + rng.uniform(-0.2, 0.2)))
        group.append(_press(p, rng, when, firmness, count > 1))
        when = group[-1].end + rng.uniform(0.03, 0.2)
    if when > seconds - 0.3 or not plan.claim(t, when):
        return 0
    plan.unit += group
    plan.presses += group
    return count


def plan_session(p: Popper, rng: random.Random, seconds: float, presses: bool) -> Plan:
    """Disturbances as a Poisson process (3.5-8 a minute in play, 5-12 quiet), then presses."""
    plan, kinds = Plan(), list(DISTURBANCES)
    rate = (rng.uniform(3.5, 8.0) if presses else rng.uniform(5.0, 12.0)) / 60
    t = rng.expovariate(rate)
    while t < seconds - 1.0:
        kind = rng.choices(kinds, [DISTURBANCES[k][0] for k in kinds])[0]
        DISTURBANCES[kind][1](plan, p, rng, t, kind)
        t += rng.expovariate(rate)
    if presses:
        wanted = round(rng.uniform(5.0, 15.0) * seconds / 60)
        others = [when for when, _ in plan.events]
        placed, tries = 0, 0
        while placed < wanted and tries < 20 * wanted + 20:
            tries += 1
            if others and rng.random() < 0.35:  # during or just after something else
                t = rng.choice(others) + rng.uniform(-0.1, 1.2)
            else:
                t = rng.uniform(0.3, seconds - 1.0)
            placed += _press_group(plan, p, rng, max(t, 0.05), seconds)
    return plan


# --- the physics: table modes, the case on its feet, the board's mount, the sensor's filter --


def simulate(
    p: Popper,
    table_sources: list[TableSource],
    unit_sources: list[UnitSource],
    carries: list[Carry],
    times: list[float],
    probe: list[tuple[float, float]] | None = None,
) -> list[tuple[float, float, float]]:
    """The filtered proper acceleration at the sensor, case frame, less 1 g on z (m/s^2), at each
    of ``times`` (s). Integrated (semi-implicit Euler, SUBSTEPS a sample) only while something
    moves; ``probe`` collects (t, |filtered deviation|) at every substep."""
    tb, body, sen = p.table, p.body, p.sensor
    om = [2 * math.pi * f for f in tb.mode_hz]
    k1, k2, k3, k4 = (w * w for w in om)
    z1, z2, z3, z4 = (2 * zeta * w for zeta, w in zip(tb.mode_zeta, om, strict=True))
    i1, i2, i3, i4 = (1 / m for m in tb.mode_kg)
    omx, omy = (2 * math.pi * f for f in tb.sway_hz)
    kx, ky, zx, zy, isw = (
        omx * omx,
        omy * omy,
        2 * tb.sway_zeta * omx,
        2 * tb.sway_zeta * omy,
        1 / tb.sway_kg,
    )
    inv_m, inv_ix, inv_iy = 1 / body.mass, 1 / body.inertia[0], 1 / body.inertia[1]
    fa, fb, h, kf, cf = body.foot_x, body.foot_y, body.cm_height, body.foot_k, body.foot_c
    kh, ch, mus, muk = body.shear_k, body.shear_c, body.mu_static, body.mu_kinetic
    rest, heave = body.mass * G / (4 * kf), math.sqrt(4 * kf * inv_m)
    rx, ry, rz = sen.position
    bw = 2 * math.pi * sen.mount_hz
    bk, bz, bc = bw * bw, 2 * sen.mount_zeta * bw, sen.click_per_kg
    wc = 2 * math.pi * sen.cutoff_hz
    wc2, wcq = wc * wc, wc / sen.q

    q1 = q2 = q3 = q4 = w1 = w2 = w3 = w4 = qx = wx = qy = wy = 0.0  # table
    z = vz = x = vx = y = vy = ph = wph = th = wth = px = py = 0.0  # case; (px, py) feet's anchor
    bqx = bqy = bqz = bvx = bvy = bvz = lx = ly = lz = lvx = lvy = lvz = 0.0  # board, filter
    ax = ay = az = aph = ath = 0.0
    sliding, idle, calm = False, True, 0
    table_queue = sorted(table_sources, key=lambda s: s.start)
    unit_queue = sorted(unit_sources, key=lambda s: s.start)
    carry_queue = sorted(carries, key=lambda c: c.lift)
    active_table: list[TableSource] = []
    active_unit: list[UnitSource] = []
    out: list[tuple[float, float, float]] = []
    for n, instant in enumerate(times):  # a sample shows the motion up to its instant
        t = times[n - 1] if n else instant - PERIOD_S
        while table_queue and table_queue[0].start < instant:
            active_table.append(table_queue.pop(0))
            idle = False
        while unit_queue and unit_queue[0].start < instant:
            active_unit.append(unit_queue.pop(0))
            idle = False
        active_table = [s for s in active_table if s.end >= t]
        active_unit = [s for s in active_unit if s.end >= t]
        if carry_queue and instant >= carry_queue[0].lift:
            carry = carry_queue[0]
            if instant < carry.touch:
                out.append(carry.deviation(instant))
                continue
            carry_queue.pop(0)  # touch-down: the lowest foot touches, the rest still
            lx, ly, lz = out[-1] if out else (0.0, 0.0, 0.0)
            q1 = q2 = q3 = q4 = w1 = w2 = w3 = w4 = qx = wx = qy = wy = 0.0
            x = vx = y = vy = wph = wth = px = py = lvx = lvy = lvz = 0.0
            bqx = bqy = bqz = bvx = bvy = bvz = 0.0
            ph, th = carry.tilt[2], carry.tilt[3]
            z = rest - min(s * ph * fb + r * th * fa for s in (1, -1) for r in (1, -1))
            vz, idle, calm = -carry.landing_speed, False, 0
        if idle:
            out.append((0.0, 0.0, 0.0))
            continue
        dt = (instant - t) / SUBSTEPS
        for _ in range(SUBSTEPS):
            f1 = f2 = f3 = f4 = fsx = fsy = 0.0
            for table_source in active_table:
                fv, fh = table_source.push(t, dt)
                c = table_source.couplings
                f1, f2, f3, f4 = f1 + fv * c[0], f2 + fv * c[1], f3 + fv * c[2], f4 + fv * c[3]
                fsx, fsy = fsx + fh * c[4], fsy + fh * c[5]
            ex = ey = ez = tx = ty = click = 0.0
            for unit_source in active_unit:
                a1, a2, a3, a4, a5, a6 = unit_source.push(t, dt, x, y, vx, vy, vz)
                ex, ey, ez, tx, ty, click = ex + a1, ey + a2, ez + a3, tx + a4, ty + a5, click + a6
            w1, w2 = (
                w1 + dt * (f1 * i1 - z1 * w1 - k1 * q1),
                w2 + dt * (f2 * i2 - z2 * w2 - k2 * q2),
            )
            w3, w4 = (
                w3 + dt * (f3 * i3 - z3 * w3 - k3 * q3),
                w4 + dt * (f4 * i4 - z4 * w4 - k4 * q4),
            )
            q1, q2, q3, q4 = q1 + dt * w1, q2 + dt * w2, q3 + dt * w3, q4 + dt * w4
            wx, wy = (
                wx + dt * (fsx * isw - zx * wx - kx * qx),
                wy + dt * (fsy * isw - zy * wy - ky * qy),
            )
            qx, qy = qx + dt * wx, qy + dt * wy
            # the feet: each squeezed by heave and tilt against the table, pushing only
            base, rate = rest + q1 + q2 + q3 + q4 - z, w1 + w2 + w3 + w4 - vz
            pb, ta, vpb, vta = ph * fb, th * fa, wph * fb, wth * fa
            normal = roll = pitch = 0.0
            for sb, sa in ((1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)):
                squeeze = base - sb * pb + sa * ta
                if squeeze > 0.0:
                    force = kf * squeeze + cf * (rate - sb * vpb + sa * vta)
                    if force > 0.0:
                        normal, roll, pitch = normal + force, roll + sb * force, pitch - sa * force
            # the feet's shear spring, its anchor slipping at the friction limit
            foot_x, foot_y = x - h * th, y + h * ph
            hx = -kh * (foot_x - qx - px) - ch * (vx - h * wth - wx)
            hy = -kh * (foot_y - qy - py) - ch * (vy + h * wph - wy)
            limit = (muk if sliding else mus) * normal
            sliding = hx * hx + hy * hy > limit * limit
            if sliding:
                scale = muk * normal / math.sqrt(hx * hx + hy * hy)
                hx, hy = hx * scale, hy * scale
                px, py = foot_x - qx + hx / kh, foot_y - qy + hy / kh
            az, ax, ay = (normal + ez) * inv_m - G, (hx + ex) * inv_m, (hy + ey) * inv_m
            aph, ath = (roll * fb + h * hy + tx) * inv_ix, (pitch * fa - h * hx + ty) * inv_iy
            vz, vx, vy, wph, wth = (
                vz + dt * az,
                vx + dt * ax,
                vy + dt * ay,
                wph + dt * aph,
                wth + dt * ath,
            )
            z, x, y, ph, th = z + dt * vz, x + dt * vx, y + dt * vy, ph + dt * wph, th + dt * wth
            # at the sensor, in the tilted case's frame, less 1 g
            dax, day, daz = ax + ath * rz, ay - aph * rz, az + aph * ry - ath * rx
            cx, cy, cz = dax - th * (G + daz), day + ph * (G + daz), daz - ph * day + th * dax
            # the board on its mount, struck directly by the click when it sits by the dome
            rbx, rby = -bz * bvx - bk * bqx - cx, -bz * bvy - bk * bqy - cy
            rbz = -bz * bvz - bk * bqz - cz + bc * click
            bvx, bvy, bvz = bvx + dt * rbx, bvy + dt * rby, bvz + dt * rbz
            bqx, bqy, bqz = bqx + dt * bvx, bqy + dt * bvy, bqz + dt * bvz
            cx, cy, cz = cx + rbx, cy + rby, cz + rbz
            # the LIS3DH's own low-pass
            lvx, lvy = (
                lvx + dt * (wc2 * (cx - lx) - wcq * lvx),
                lvy + dt * (wc2 * (cy - ly) - wcq * lvy),
            )
            lvz = lvz + dt * (wc2 * (cz - lz) - wcq * lvz)
            lx, ly, lz, t = lx + dt * lvx, ly + dt * lvy, lz + dt * lvz, t + dt
            if probe is not None:
                probe.append((t, math.sqrt(lx * lx + ly * ly + lz * lz)))
        out.append((lx, ly, lz))
        if active_table or active_unit:
            continue
        motion = abs(lx) + abs(ly) + abs(lz) + (abs(lvx) + abs(lvy) + abs(lvz)) / wc
        motion += k1 * abs(q1) + om[0] * abs(w1) + k2 * abs(q2) + om[1] * abs(w2)
        motion += k3 * abs(q3) + om[2] * abs(w3) + k4 * abs(q4) + om[3] * abs(w4)
        motion += kx * abs(qx) + omx * abs(wx) + ky * abs(qy) + omy * abs(wy)
        motion += abs(ax) + abs(ay) + abs(az) + 0.05 * (abs(aph) + abs(ath))
        motion += heave * (abs(vx) + abs(vy) + abs(vz) + 0.05 * (abs(wph) + abs(wth)))
        motion += bk * (abs(bqx) + abs(bqy) + abs(bqz)) + bw * (abs(bvx) + abs(bvy) + abs(bvz))
        calm = calm + 1 if motion < SETTLED else 0
        if calm >= 8:  # at rest: stop integrating until something moves it again
            q1 = q2 = q3 = q4 = w1 = w2 = w3 = w4 = qx = wx = qy = wy = 0.0
            z = vz = vx = vy = ph = wph = th = wth = 0.0
            bqx = bqy = bqz = bvx = bvy = bvz = lx = ly = lz = lvx = lvy = lvz = 0.0
            px, py, idle, calm = x, y, True, 0
    return out


# --- the sensor: clock, axes, errors, noise, 4 mg steps ------------------------------------


def sample_times(p: Popper, rng: random.Random, seconds: float) -> list[float]:
    """The instants (s) the LIS3DH's own clock takes samples: off by its error, drifting."""
    drift, cycle, phase = rng.uniform(0.0005, 0.003), rng.uniform(60.0, 400.0), rng.uniform(0, 6.3)
    times, t = [], rng.uniform(0.0, PERIOD_S)
    while t < seconds:
        times.append(t)
        t += PERIOD_S / (
            1.0 + p.sensor.clock_error + drift * math.sin(2 * math.pi * t / cycle + phase)
        )
    return times


def readings(
    p: Popper, rng: random.Random, times: list[float], deviations: list[tuple[float, float, float]]
) -> list[tuple[float, float, float]]:
    """What the LIS3DH reports: tilted as the table is, in the sensor's axes, with its gains,
    offsets (drifting a little) and noise (as correlated as its filter makes it), clipped, in
    4 mg steps."""
    sen, gauss = p.sensor, rng.gauss
    (m11, m12, m13), (m21, m22, m23), (m31, m32, m33) = sen.readout
    memory = math.exp(-2 * math.pi * sen.cutoff_hz * PERIOD_S)
    fresh = math.sqrt(1 - memory * memory)
    s1, s2, s3 = (fresh * s for s in sen.noise_g)
    wander = [
        (rng.uniform(0.0, 0.002), rng.uniform(100, 600), rng.uniform(0, 6.3)) for _ in range(3)
    ]
    n1 = n2 = n3 = 0.0
    bx, by = p.table.level
    top = round(FULL_SCALE_G / LSB_G)
    out: list[tuple[float, float, float]] = []
    for t, (dx, dy, dz) in zip(times, deviations, strict=True):
        fx, fy, fz = dx / G, dy / G, 1.0 + dz / G
        fx, fy, fz = fx - by * fz, fy + bx * fz, fz - bx * fy + by * fx
        n1, n2, n3 = (
            memory * n1 + gauss(0.0, s1),
            memory * n2 + gauss(0.0, s2),
            memory * n3 + gauss(0.0, s3),
        )
        o1, o2, o3 = (
            o + a * math.sin(2 * math.pi * t / c + f)
            for o, (a, c, f) in zip(sen.offset_g, wander, strict=True)
        )
        c1 = round((m11 * fx + m12 * fy + m13 * fz + o1 + n1) / LSB_G)
        c2 = round((m21 * fx + m22 * fy + m23 * fz + o2 + n2) / LSB_G)
        c3 = round((m31 * fx + m32 * fy + m33 * fz + o3 + n3) / LSB_G)
        out.append(tuple(round(max(-top, min(top, c)) * LSB_G, 3) for c in (c1, c2, c3)))  # type: ignore[arg-type]
    return out


def missed(p: Popper, rng: random.Random, count: int) -> set[int]:
    """Samples the firmware came too late for, in bursts of 1-6."""
    lost: set[int] = set()
    n = int(rng.expovariate(p.sensor.miss_rate)) + 1
    while n < count - 1:
        length = rng.choices([1, 2, 3, 4, 5, 6], weights=[75, 15, 4, 3, 2, 1])[0]
        lost.update(range(n, min(n + length, count - 1)))
        n += length + int(rng.expovariate(p.sensor.miss_rate)) + 1
    return lost


def press_onset(p: Popper, press: Press) -> float:
    """Where a press first shows, replaying it alone on the resting unit without noise: the
    click, unless the build-up already moves the sensor's output (filter included) clearly, by
    max(8 sigma of noise, 40 mg); then where that rise left the noise, at max(3 sigma, 10 mg)."""
    assert press.click is not None
    sigma = max(p.sensor.noise_g)
    clearly, emerging = G * max(8 * sigma, 0.040), G * max(3 * sigma, 0.010)
    first = press.start - 2 * PERIOD_S
    times = [first + i * PERIOD_S for i in range(int((press.click - first) / PERIOD_S) + 2)]
    probe: list[tuple[float, float]] = []
    simulate(p, [], [press], [], times, probe)
    quiet_until = press.start
    for t, size in probe:
        if t >= press.click:
            break
        if size < emerging:
            quiet_until = t
        elif size > clearly:
            return quiet_until
    return press.click


def session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace:
    """``seconds`` of popper ``unit`` at the table; ``seed`` picks what happens."""
    popper = build_unit(unit)
    tag = f"snapdome:{unit}:{seed}:{int(presses)}:{seconds!r}"
    plan = plan_session(popper, random.Random(f"{tag}:plan"), seconds, presses)
    popped = [press for press in plan.presses if press.click is not None]
    labels = sorted((press_onset(popper, press), press.back) for press in popped)
    times = sample_times(popper, random.Random(f"{tag}:clock"), seconds)
    deviations = simulate(popper, plan.table, plan.unit, plan.carries, times)
    values = readings(popper, random.Random(f"{tag}:noise"), times, deviations)
    lost = missed(popper, random.Random(f"{tag}:late"), len(times))
    keep = [i for i in range(len(times)) if i not in lost]
    events = sorted(plan.events + [(t, "press") for t, _ in labels])
    return Trace(
        t_ms=[round(times[i] * 1000, 3) for i in keep],
        samples_g=[values[i] for i in keep],
        press_times_ms=[round(t * 1000, 3) for t, _ in labels],
        kind=NAME,
        seed=seed,
        events=[(round(t * 1000, 3), what) for t, what in events],
        releases_ms=[round(back * 1000, 3) for _, back in labels],
    )
