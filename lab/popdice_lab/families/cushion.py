"""Cushion family: the popper where people really put it during a casual game.

The unit lies on a sofa cushion, a bed, a beanbag or someone's lap, or is held in one hand and
pressed with that hand's thumb or with a finger of the other hand, and is passed around. The
physics: linear modes of the unit on its support, driven by forces (a fingertip on the dome, taps,
grabs) and by the support's own motion (someone sitting down), plus the hand's slow kinematics
(tremor, wander, turns, shakes), all seen through the LIS3DH.

The unit (fixed by ``unit``):
- case of 80-220 g, 50-90 mm across, 25-45 mm tall;
- dome: per unit a blend between a metal snap dome (peak 3-8 N at 0.4-0.9 mm, collapsing to
  35-60 % of the peak over 0.8-1.8 mm more, 0.3-1.5 N s/m) and a rubber dome (peak 2-5 N at
  0.8-1.8 mm, falling only to 75-92 %, 3-10 N s/m); most units lie near one end or the other;
- sensor board anywhere in the case, flat face up, face down or on edge, turned by quarter turns
  and up to 3 degrees off, flexing at 150-700 Hz (5-15 % damping);
- LIS3DH: offsets 25 mg rms (at most 90 mg), gains within 5 %, cross-axis up to 1.5 %, noise
  2-4.5 mg rms (z a quarter more), two poles putting its bandwidth anywhere from ODR/9 to ODR/2
  (44-200 Hz), a sample clock 2 % fast to 2 % slow drifting by up to 0.2 %, and a sample missed
  by the firmware every 15-90 s (one to three in a row).

Supports (drawn anew at each placement):
- sofa cushion 600-3000 N/m under the unit with 15-45 % damping; bed 400-2500 N/m, 5-20 % (it
  bounces); beanbag 250-1200 N/m, 50-120 %; lap 1500-6000 N/m, 30-70 %. Sideways 25-60 % as
  stiff; the unit rocks about its bottom (k w^2 / 8-16). Tilted up to 8 degrees, a lap 3-15
  degrees and rocking with breath by 0.2-0.8 degrees at 0.2-0.35 Hz;
- a hand: the unit in a grip of 2.5-15 kN/m on a hand of 0.3-0.7 kg on an arm of 250-1500 N/m
  (two modes per axis, about 2-8 Hz and 25-70 Hz), rocking in the fingers at 0.4-3 N m/rad;
  physiological tremor 3-30 mg rms at 8-12 Hz, the arm's wander 3-15 mg, the hand's tilt
  wandering by 0.6-3 degrees at 0.15-0.6 Hz; the dome up, tilted by 10-50 degrees.

Presses (about 5-15 a minute: singles, quick series of 2-4, some amid sofa events): a
fingertip of 8-25 g, its pad squeezing by 1-2 mm (most of it under 0.5-1.5 N) in series with the
dome, driven by muscles of 400-2000 N/m along a course that pushes at 30-300 mm/s to 1.15-2.3
times the dome's peak force, holds 30-600 ms and lifts at 50-300 mm/s, from 0.3-6 mm above the
dome or from resting on it. Fingertip, dome and the unit's motion along the dome's axis are
integrated together at 3.2 kHz; the contact force then pushes the unit, 0-20 degrees off the
dome's axis and 0-6 mm off its centre. In a hand, two thirds of presses are by the holding
thumb, whose push comes back on the same hand.

Disturbances: someone sitting down (the cushion sinks 5-40 mm, jolts 0.05-0.6 g, bounces at
1.5-5 Hz, tilts 0.5-4 degrees) or shifting beside it (a tenth to a third of that); the cushion
patted (1-4 pats of 0.05-0.6 g, 30-80 ms); the sofa bumped by a dog or a child (0.05-0.8 g
sideways, rocking at 3-8 Hz); a phone buzzing beside it (150-240 Hz, 0.03-0.4 g in the cushion,
2-4 buzzes); a leg jiggling under it (3-7 Hz, 0.05-0.5 g, 2-8 s); taps on the case's side or rim
(1.5-8 N for 1.5-6 ms, 1-4 at 3-8 Hz); a thumb landing and fidgeting on the dome (up to 60 % of
its peak) or squeezing it to 60-85 % without a pop; regrips; gestures (0.1-0.4 m in 0.3-0.9 s);
shaken as a joke (3-7 Hz, 0.8-4 g, 1-3 s); turned over to look (120-180 degrees about the wrist
and back); passed to another player; put down (landing at 0.02-0.25 m/s) and picked up.

Labels: with the contact force known the rest is linear, so each press's own effect is computed
alone, through the sensor's filters: the force of the press less that of the same thumb staying
where it was. The label is the first instant that effect exceeds twice the noise and the hand's
tremor together (at least 12 mg): where the press starts to show in the trace. Its release is
where the dome lets the fingertip go on the way off: the first instant after the deepest push
that the tip is back at the travel of the dome's greatest force. A snapping dome has just sprung
back up to there, throwing the tip off, and its force collapses; a rubber one's force falls
away from there.
"""

from __future__ import annotations

import bisect
import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from popdice.traces.trace import Trace

NAME = "cushion"
SUMMARY = (
    "Snap-to-rubber dome under a thumb or finger, the popper on a sofa cushion, bed, beanbag or "
    "lap, or in a trembling hand and passed around; support modes seen through a LIS3DH"
)

Vec = tuple[float, float, float]
Matrix = tuple[Vec, Vec, Vec]
Step = tuple[float, float, float, float, float, float]  # exact update of a damped oscillator
Channels = dict[str, list[float]]
Span = tuple[float, float]

G0 = 9.80665
PERIOD_S = 1.0 / 400.0
FINE = 8  # fine steps in a sample period, where the loads change fast
FINE_S = PERIOD_S / FINE
LSB_G, RANGE_G = 0.004, 8.0
SOFT = ("sofa", "bed", "beanbag", "lap")
TWO_PI = 2.0 * math.pi


def vec(values: list[float] | tuple[float, ...]) -> Vec:
    return (values[0], values[1], values[2])


def rotation(axis: Vec, angle: float) -> Matrix:
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return (
        (c + x * x * t, x * y * t - z * s, x * z * t + y * s),
        (y * x * t + z * s, c + y * y * t, y * z * t - x * s),
        (z * x * t - y * s, z * y * t + x * s, c + z * z * t),
    )


def product(a: Matrix, b: Matrix) -> Matrix:
    rows = [vec([sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)]) for i in range(3)]
    return (rows[0], rows[1], rows[2])


def apply(m: Matrix, v: Vec) -> Vec:
    return vec([m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2] for i in range(3)])


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def scaled(v: Vec, size: float) -> Vec:
    return (v[0] * size, v[1] * size, v[2] * size)


def normalised(v: Vec) -> Vec:
    return scaled(v, 1.0 / math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))


def any_way(rng: random.Random, vertical: float = 1.0) -> Vec:
    return normalised((rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, vertical)))


def horizontal(rng: random.Random, size: float = 1.0) -> Vec:
    bearing = rng.uniform(0.0, TWO_PI)
    return (size * math.cos(bearing), size * math.sin(bearing), 0.0)


def log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def axis_angle(m: Matrix) -> tuple[Vec, float]:
    """The axis and angle of a rotation, also near half a turn."""
    angle = math.acos(max(-1.0, min(1.0, (m[0][0] + m[1][1] + m[2][2] - 1.0) / 2.0)))
    axis = (m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1])
    if math.sqrt(sum(a * a for a in axis)) > 1e-6:
        return normalised(axis), angle
    if angle < 1e-3:
        return (0.0, 0.0, 1.0), 0.0
    i = max(range(3), key=lambda j: m[j][j])
    return normalised(vec([m[j][i] + (1.0 if j == i else 0.0) for j in range(3)])), angle


def multiply(a: list[list[float]], b: list[list[float]], scale: float = 1.0) -> list[list[float]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) * scale for j in range(3)] for i in range(3)]


@functools.cache
def oscillator(hz: float, zeta: float, step_s: float) -> Step:
    """Exact update over one step of q'' + 2 zeta w q' + w^2 q = u with u held: the new q and v
    as weights of (q, v, u), from the matrix exponential by scaling and squaring."""
    w = TWO_PI * hz
    a = [[0.0, step_s, 0.0], [-w * w * step_s, -2.0 * zeta * w * step_s, step_s], [0.0] * 3]
    halvings = max(0, math.ceil(math.log2(max(abs(x) for row in a for x in row))) + 2)
    a = [[x * 0.5**halvings for x in row] for row in a]
    result = [[float(i == j) for j in range(3)] for i in range(3)]
    term = [row[:] for row in result]
    for order in range(1, 14):
        term = multiply(term, a, 1.0 / order)
        result = [[result[i][j] + term[i][j] for j in range(3)] for i in range(3)]
    for _ in range(halvings):
        result = multiply(result, result)
    return result[0][0], result[0][1], result[0][2], result[1][0], result[1][1], result[1][2]


def minimum_jerk(tau: float) -> tuple[float, float, float]:
    """Position, speed and acceleration of a minimum-jerk move from 0 to 1 in unit time."""
    t2 = tau * tau
    return (
        t2 * tau * (10.0 - 15.0 * tau + 6.0 * t2),
        30.0 * t2 * (1.0 - tau) ** 2,
        60.0 * tau * (1.0 - tau) * (1.0 - 2.0 * tau),
    )


def half_sine(seconds: float, peak: float) -> list[float]:
    steps = max(2, int(seconds / FINE_S))
    return [peak * math.sin(math.pi * (i + 0.5) / steps) for i in range(steps)] + [0.0]


@dataclass(frozen=True)
class Dome:
    """The dome's force against its travel (N, m)."""

    peak_n: float
    peak_m: float
    floor_n: float
    collapse_m: float  # travel where the collapse ends
    bottom_m: float
    damping: float  # N s/m

    def force(self, x: float) -> float:
        if x < self.peak_m:
            u = x / self.peak_m
            return self.peak_n * u * (2.0 - u)
        if x < self.collapse_m:
            u = (x - self.peak_m) / (self.collapse_m - self.peak_m)
            return self.peak_n - (self.peak_n - self.floor_n) * u * u * (3.0 - 2.0 * u)
        late = (x - self.collapse_m) / (self.bottom_m - self.collapse_m)
        return self.floor_n * (1.0 + 0.3 * late)

    def travel_at(self, force: float) -> float:
        """Travel on the rising branch where the dome pushes back with ``force``."""
        return self.peak_m * (1.0 - math.sqrt(max(0.0, 1.0 - force / self.peak_n)))


@dataclass(frozen=True)
class Unit:
    mass_kg: float
    inertia_kg_m2: float  # about its centre
    width_m: float
    height_m: float
    dome: Dome
    dome_centre_m: tuple[float, float]
    sensor_at_m: Vec  # from the middle of the bottom face
    reading_matrix: Matrix  # body frame to readings: mounting, gains, cross-axis
    board_normal: Vec
    board_hz: float
    board_zeta: float
    offset_g: Vec
    noise_g: Vec
    bandwidth_hz: float
    clock_error: float


def make_dome(rng: random.Random) -> Dome:
    snap = rng.betavariate(0.5, 0.5)  # 1 a metal snap dome, 0 a rubber dome

    def blend(rubber: Span, metal: Span) -> float:
        return (1.0 - snap) * rng.uniform(*rubber) + snap * rng.uniform(*metal)

    peak_n, peak_mm = blend((2.0, 5.0), (3.0, 8.0)), blend((0.8, 1.8), (0.4, 0.9))
    collapse_mm = peak_mm + blend((1.0, 2.5), (0.8, 1.8))
    floor, bottom_mm = blend((0.75, 0.92), (0.35, 0.6)), collapse_mm + blend((0.3, 1.0), (0.1, 0.3))
    damping = blend((3.0, 10.0), (0.3, 1.5))
    return Dome(peak_n, peak_mm / 1e3, peak_n * floor, collapse_mm / 1e3, bottom_mm / 1e3, damping)


def make_unit(unit: int) -> Unit:
    rng = random.Random(f"cushion:unit:{unit}")
    mass, width = rng.uniform(0.08, 0.22), rng.uniform(0.05, 0.09)
    height, dome = rng.uniform(0.025, 0.045), make_dome(rng)
    face = rng.choices((0.0, math.pi, math.pi / 2), (5, 3, 2))[0]  # face up, face down, on edge
    turn = rotation((0.0, 0.0, 1.0), rng.randrange(4) * math.pi / 2)
    skew = rotation(any_way(rng), math.radians(rng.uniform(0.0, 3.0)))
    mounting = product(skew, product(rotation((1.0, 0.0, 0.0), face), turn))
    gains = [1.0 + max(-0.05, min(0.05, rng.gauss(0.0, 0.02))) for _ in range(3)]
    errors = [[1.0 if i == j else rng.uniform(-0.015, 0.015) for j in range(3)] for i in range(3)]
    rows = [vec([gains[i] * errors[i][j] for j in range(3)]) for i in range(3)]
    noise, reach = rng.uniform(0.002, 0.0045), width / 2.0 - 0.008
    across = [rng.uniform(-reach, reach) for _ in range(2)]
    sensor_at = (across[0], across[1], rng.uniform(0.004, height - 0.006))
    return Unit(
        mass_kg=mass,
        inertia_kg_m2=mass * (width * width + height * height) / 12.0,
        width_m=width,
        height_m=height,
        dome=dome,
        dome_centre_m=(rng.uniform(-0.003, 0.003), rng.uniform(-0.003, 0.003)),
        sensor_at_m=sensor_at,
        reading_matrix=product((rows[0], rows[1], rows[2]), mounting),
        board_normal=mounting[2],
        board_hz=log_uniform(rng, 150.0, 700.0),
        board_zeta=rng.uniform(0.05, 0.15),
        offset_g=vec([max(-0.09, min(0.09, rng.gauss(0.0, 0.025))) for _ in range(3)]),
        noise_g=(noise, noise, noise * 1.25),
        bandwidth_hz=log_uniform(rng, 400.0 / 9.0, 400.0 / 2.0),
        clock_error=rng.uniform(-0.02, 0.02),
    )


class Mode(NamedTuple):
    """A damped mode of the unit along a body axis (0-2 along x, y, z; 3-4 tilt about x, y)."""

    axis: int
    hz: float
    zeta: float
    per_unit: float  # drive per N (N m for a tilt) on the unit
    per_hand: float = 0.0  # per N pushed back on the hand that holds it
    per_base: float = 0.0  # per m/s^2 of the support's own motion


class Motion(NamedTuple):
    """The slow motion of the unit while it is there: rms sizes (g, rad) and frequencies."""

    tremor_g: float
    tremor_hz: float
    wander_g: float
    wander_hz: float
    tilt_rad: float
    tilt_hz: float
    tilt_zeta: float = 0.7


@dataclass(frozen=True)
class Support:
    kind: str  # "hand" or one of SOFT
    modes: tuple[Mode, ...]
    pivot_m: float  # the height on the unit's axis it rocks about
    pose: Matrix  # body to world, resting there
    motion: Motion


def tilted_pose(rng: random.Random, low_deg: float, high_deg: float) -> Matrix:
    yaw = rotation((0.0, 0.0, 1.0), rng.uniform(0.0, TWO_PI))
    return product(rotation(horizontal(rng), math.radians(rng.uniform(low_deg, high_deg))), yaw)


def hertz(stiffness: float, inertia: float) -> float:
    return math.sqrt(stiffness / inertia) / TWO_PI


# N/m under the unit, and damping ratios
SOFT_STIFFNESS = {
    "sofa": (600, 3000),
    "bed": (400, 2500),
    "beanbag": (250, 1200),
    "lap": (1500, 6e3),
}
SOFT_DAMPING = {"sofa": (0.15, 0.45), "bed": (0.05, 0.2), "beanbag": (0.5, 1.2), "lap": (0.3, 0.7)}


def soft_support(kind: str, unit: Unit, rng: random.Random) -> Support:
    mass, vertical = unit.mass_kg, log_uniform(rng, *SOFT_STIFFNESS[kind])
    zeta = rng.uniform(*SOFT_DAMPING[kind])
    inertia = unit.inertia_kg_m2 + mass * unit.height_m**2 / 4  # about the bottom
    modes = [Mode(2, hertz(vertical, mass), zeta, 1.0 / mass, 0.0, -1.0)]
    for axis in (0, 1):
        sideways = hertz(vertical * rng.uniform(0.25, 0.6), mass)
        modes.append(Mode(axis, sideways, min(1.5, 1.3 * zeta), 1.0 / mass, 0.0, -1.0))
    for axis in (3, 4):
        rocking = vertical * unit.width_m**2 / rng.uniform(8.0, 16.0)
        modes.append(Mode(axis, hertz(rocking, inertia), zeta, 1.0 / inertia))
    wander_g, wander_hz = rng.uniform(0.0005, 0.002), rng.uniform(0.5, 2.0)
    if kind == "lap":
        breath = math.radians(rng.uniform(0.2, 0.8)), rng.uniform(0.2, 0.35), 0.1
        motion, pose = Motion(0.0, 10.0, 3 * wander_g, wander_hz, *breath), tilted_pose(rng, 3, 15)
    else:
        motion, pose = Motion(0.0, 10.0, wander_g, wander_hz, 5e-4, 0.3), tilted_pose(rng, 0, 8)
    return Support(kind, tuple(modes), 0.0, pose, motion)


def hand_support(unit: Unit, rng: random.Random) -> Support:
    """The unit on a grip spring on the hand on the arm: two modes per axis (a 2x2 eigenproblem)."""
    mass, hand, arm = unit.mass_kg, rng.uniform(0.3, 0.7), log_uniform(rng, 250.0, 1500.0)
    arm_zeta, grip_zeta = rng.uniform(0.3, 0.6), rng.uniform(0.2, 0.45)
    modes = []
    for axis in range(3):
        grip = log_uniform(rng, 4000.0, 15000.0) if axis == 2 else log_uniform(rng, 2500.0, 10000.0)
        b = grip * hand + (grip + arm) * mass
        root = math.sqrt(b * b - 4.0 * mass * hand * grip * arm)
        for sign, zeta in ((-1.0, arm_zeta), (1.0, grip_zeta)):
            eigen = (b + sign * root) / (2.0 * mass * hand)
            hand_share = (grip - eigen * mass) / grip  # the hand's motion for the unit's
            modal = mass + hand * hand_share**2
            modes.append(Mode(axis, math.sqrt(eigen) / TWO_PI, zeta, 1 / modal, hand_share / modal))
    for axis in (3, 4):
        rocking = hertz(log_uniform(rng, 0.4, 3.0), unit.inertia_kg_m2)
        modes.append(Mode(axis, rocking, rng.uniform(0.2, 0.45), 1.0 / unit.inertia_kg_m2))
    tremor, wander = (log_uniform(rng, 0.003, 0.03), rng.uniform(8.0, 12.0)), rng.uniform(0.3, 1.5)
    tilt = math.radians(rng.uniform(0.6, 3.0)), rng.uniform(0.15, 0.6)
    motion = Motion(*tremor, rng.uniform(0.003, 0.015), wander, *tilt)
    return Support("hand", tuple(modes), unit.height_m / 2.0, tilted_pose(rng, 10.0, 50.0), motion)


class Move(NamedTuple):
    """The unit carried: a minimum-jerk shift and turn (about a pivot), or a shake."""

    start_s: float
    duration_s: float
    shift_m: Vec = (0.0, 0.0, 0.0)
    axis: Vec = (0.0, 0.0, 1.0)  # world
    angle_rad: float = 0.0
    pivot_to_sensor_m: Vec = (0.0, 0.0, 0.0)  # world, at the start
    shake_m: Vec = (0.0, 0.0, 0.0)
    shake_hz: float = 0.0
    shake_phase: float = 0.0


@dataclass
class Load:
    """Forces on the unit and its holder, or the support's motion, from ``start_s`` at FINE_S."""

    name: str
    start_s: float
    support: Support
    gravity_body: Vec
    channels: Channels
    label_channels: Channels | None = None  # presses: the difference the press makes
    push_s: float = 0.0  # presses: from the start to the push
    release_s: float = 0.0  # presses: from the start to the release (the snap back)


@dataclass(frozen=True)
class Finger:
    mass_kg: float
    stiffness: float  # N/m: the muscles holding the tip on its course
    pad_m: float  # the fingertip's pad squeezes by up to this,
    pad_n: float  # most of it under this force
    own_thumb: bool  # the holding hand's thumb: its push comes back on that hand

    @property
    def stop(self) -> float:
        """N/m of the squeezed pad on the bottomed dome."""
        return 20.0 * self.pad_n / self.pad_m

    def squeeze(self, force: float) -> float:
        return self.pad_m * (1.0 - math.exp(-force / self.pad_n))

    def aim(self, dome: Dome, force: float) -> float:
        """Where the tip is aimed to push with ``force`` on the dome's rising branch."""
        return dome.travel_at(force) + self.squeeze(force) + force / self.stiffness


def make_finger(rng: random.Random, support: Support) -> Finger:
    own = support.kind == "hand" and rng.random() < 0.65
    pad = rng.uniform(0.001, 0.002), rng.uniform(0.5, 1.5)
    return Finger(rng.uniform(0.008, 0.025), log_uniform(rng, 400.0, 2000.0), *pad, own)


def contact_curve(dome: Dome, finger: Finger) -> tuple[list[float], list[float]]:
    """Force against the tip's travel past first touch, pad and dome in series; where the dome
    gives way faster than the pad unloads, the force drops at once (the snap)."""
    travel, force = [0.0], [0.0]
    for i in range(1, 301):
        x = dome.bottom_m * i / 300
        f = dome.force(x)
        if x + finger.squeeze(f) > travel[-1]:
            travel.append(x + finger.squeeze(f))
            force.append(f)
    return travel, force


def dome_contact(
    unit: Unit,
    support: Support,
    finger: Finger,
    course: list[float],
    travels: list[float] | None = None,
) -> tuple[list[float], float]:
    """The contact force (N) at each fine step of a fingertip following ``course`` (its aim, m
    past first touch) while the unit moves along its axis; and the deepest travel reached.
    ``travels`` collects the tip's travel past first touch at each step."""
    dome, h, m_f, k_f = unit.dome, FINE_S, finger.mass_kg, finger.stiffness
    travel, force_at = contact_curve(dome, finger)
    end, top, stop = travel[-1], force_at[-1], finger.stop
    modes = [m for m in support.modes if m.axis == 2]
    drive = [-(m.per_unit - (m.per_hand if finger.own_thumb else 0.0)) for m in modes]
    stiff, damp = [(TWO_PI * m.hz) ** 2 for m in modes], [2 * TWO_PI * m.hz * m.zeta for m in modes]
    q, v = [0.0] * len(modes), [0.0] * len(modes)
    muscle_damping, pad_damping = 1.2 * math.sqrt(k_f * m_f), 0.6 * math.sqrt(stop * m_f)
    y, vy, aim_before, deepest, forces = course[0], 0.0, course[0], 0.0, []
    for aim in course:
        x, force = y + sum(q), 0.0  # the unit's modes count up, the tip's travel down
        if travels is not None:
            travels.append(x)
        if x > 0.0:
            closing = vy + sum(v)
            i = bisect.bisect_right(travel, x)
            if i < len(travel):
                low, span = force_at[i - 1], travel[i] - travel[i - 1]
                force = low + (force_at[i] - low) * (x - travel[i - 1]) / span
            else:
                force = top + stop * (x - end) + pad_damping * closing
            force = max(0.0, force + dome.damping * closing * min(1.0, x / dome.peak_m))
            deepest = max(deepest, x)
        vy += (k_f * (aim - y) + muscle_damping * ((aim - aim_before) / h - vy) - force) / m_f * h
        y += vy * h
        aim_before = aim
        for i in range(len(modes)):
            v[i] += (drive[i] * force - damp[i] * v[i] - stiff[i] * q[i]) * h
            q[i] += v[i] * h
        forces.append(force)
    return forces, deepest


def letting_go(dome: Dome, finger: Finger, travels: list[float]) -> int:
    """The fine step at which a press lets the dome go: the first after the deepest travel
    (``travels``, from ``dome_contact``) at which the tip is back at the travel of the contact
    curve's greatest force. A snapping dome has just sprung back up to there and its force
    collapses; a rubber one's force falls away from there."""
    travel, force_at = contact_curve(dome, finger)
    greatest = travel[max(range(len(force_at)), key=force_at.__getitem__)]
    deepest = max(range(len(travels)), key=travels.__getitem__)
    after = range(deepest, len(travels))
    return next((i for i in after if travels[i] <= greatest), len(travels) - 1)


def ramp(start: float, end: float, speed: float) -> list[float]:
    steps = max(1, int(abs(end - start) / speed / FINE_S))
    return [start + (end - start) * (i + 1) / steps for i in range(steps)]


def press_course(
    unit: Unit, finger: Finger, rng: random.Random, from_rest: bool, quick: bool, effort: float
) -> tuple[list[float], int]:
    """The fingertip's aim through a press, and the fine step where the push begins."""
    dome = unit.dome
    if from_rest:
        rest = finger.aim(dome, dome.peak_n * rng.uniform(0.05, 0.3))
        settle = int(rng.uniform(0.25, 1.0) / FINE_S)
        course = [rest * min(1.0, i / (0.4 * settle)) for i in range(settle)]
    else:
        rest = -rng.uniform(0.3, 2.5 if quick else 6.0) * 1e-3
        course = [rest] * int(0.01 / FINE_S)
    push = len(course)
    held = effort * rng.uniform(1.15, 2.3) * dome.peak_n
    depth = dome.bottom_m + finger.pad_m + held * (1.0 / finger.stop + 1.0 / finger.stiffness)
    course += ramp(rest, depth, log_uniform(rng, 0.08 if quick else 0.03, 0.3))
    hold = rng.uniform(0.03, 0.15) if quick or rng.random() < 0.7 else rng.uniform(0.15, 0.6)
    lift = -rng.uniform(1.0, 5.0) * 1e-3
    course += [depth] * int(hold / FINE_S) + ramp(depth, lift, rng.uniform(0.05, 0.3))
    return course + [lift] * int(0.04 / FINE_S), push


def fidget_course(
    unit: Unit, finger: Finger, rng: random.Random, squeeze: bool, scale: float
) -> list[float]:
    """A thumb landing on the dome and resting or wiggling on it, or squeezing it short of a pop."""
    dome, gap = unit.dome, -rng.uniform(0.3, 3.0) * 1e-3
    rest = dome.peak_n * rng.uniform(0.05, 0.2) * scale
    course = [gap] * int(0.01 / FINE_S) + ramp(gap, 0.0, rng.uniform(0.02, 0.08))
    course += ramp(0.0, finger.aim(dome, rest), rng.uniform(0.005, 0.02))
    if squeeze:
        top = dome.peak_n * rng.uniform(0.6, 0.85) * scale
        steps = int(rng.uniform(0.3, 0.8) / FINE_S)
        forces = [rest + (top - rest) * math.sin(math.pi * i / steps) ** 2 for i in range(steps)]
    else:
        wiggle = max(0.0, dome.peak_n * rng.uniform(0.05, 0.6) * scale - rest)
        rate = TWO_PI * rng.uniform(1.0, 4.0) * FINE_S
        steps = int(rng.uniform(1.0, 3.0) / FINE_S)
        forces = [rest + wiggle * (0.5 - 0.5 * math.cos(rate * i)) for i in range(steps)]
    course += [finger.aim(dome, f) for f in forces]
    return course + ramp(course[-1], gap, rng.uniform(0.02, 0.1)) + [gap] * int(0.03 / FINE_S)


AXIS_CHANNELS = [("fx", "hx", "bx"), ("fy", "hy", "by"), ("fz", "hz", "bz"), ("tx",), ("ty",)]


def modal_drives(modes: tuple[Mode, ...], channels: Channels, length: int) -> list[list[float]]:
    drives = []
    for mode in modes:
        drive = [0.0] * length
        weights = (mode.per_unit, mode.per_hand, mode.per_base)
        for name, weight in zip(AXIS_CHANNELS[mode.axis], weights, strict=False):
            series = channels.get(name, [])
            if series and weight:
                mixed = [d + weight * s for d, s in zip(drive, series, strict=False)]
                drive = mixed + drive[len(series) :]
        drives.append(drive)
    return drives


def fast_blocks(series: list[tuple[list[float], float]], blocks: int) -> list[bool]:
    """Sample periods where a drive changes by more than its tolerance, and 15 ms after."""
    flags = [False] * blocks
    for values, tolerance in series:
        for b in range(min(blocks, (len(values) + FINE - 1) // FINE)):
            if not flags[b]:
                part = values[b * FINE : b * FINE + FINE + 1]
                flags[b] = max(part) - min(part) > tolerance
    return [any(flags[max(0, b - 6) : b + 1]) for b in range(blocks)]


def respond(
    load: Load, unit: Unit, clock: list[float], out: list[list[float]] | None, threshold: float = 0
) -> float | None:
    """What the sensor makes (body frame, g, before its own errors) of one load alone, added into
    ``out`` at the sample instants; or, with ``out`` None, when the press first shows: the
    instant its effect passes ``threshold`` (g)."""
    support, modes = load.support, load.support.modes
    channels = load.channels if out is not None else (load.label_channels or load.channels)
    length = max(len(series) for series in channels.values())
    drives = modal_drives(modes, channels, length)
    base = [channels.get(name, []) for name in ("bx", "by", "bz")]
    blocks = (length + FINE - 1) // FINE
    blocks += int(min(2.5, 6.0 / min(TWO_PI * m.hz * m.zeta for m in modes)) / PERIOD_S)
    watched = [(d, 0.3 if m.axis < 3 else 10.0) for d, m in zip(drives, modes, strict=True)]
    fast = fast_blocks(watched + [(b, 0.3) for b in base if b], blocks)
    fine_steps = [oscillator(m.hz, m.zeta, FINE_S) for m in modes]
    coarse_steps = [oscillator(m.hz, m.zeta, PERIOD_S) for m in modes]
    stiff, damp = [(TWO_PI * m.hz) ** 2 for m in modes], [2 * TWO_PI * m.hz * m.zeta for m in modes]
    axes, count = [m.axis for m in modes], len(modes)
    q, v = [0.0] * count, [0.0] * count
    rx, ry, rz = unit.sensor_at_m[0], unit.sensor_at_m[1], unit.sensor_at_m[2] - support.pivot_m
    gx, gy, gz = load.gravity_body
    nx, ny, nz = unit.board_normal
    b0, b1, b2, b3, b4, b5 = oscillator(unit.board_hz, unit.board_zeta, FINE_S)
    board_w = TWO_PI * unit.board_hz
    board_w2, board_2zw = board_w**2, 2 * board_w * unit.board_zeta
    board_q = board_v = 0.0
    pole = TWO_PI * unit.bandwidth_hz / 0.6436  # two equal poles: -3 dB at the bandwidth
    smooth_fine, smooth_coarse = 1 - math.exp(-pole * FINE_S), 1 - math.exp(-pole * PERIOD_S)
    f1, f2 = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    t_before, seen_before = load.start_s, (0.0, 0.0, 0.0)
    k, push_at = bisect.bisect_right(clock, load.start_s), load.start_s + load.push_s
    reference: Vec | None = None
    for block in range(blocks):
        fine = fast[block]
        steps, smooth = (fine_steps, smooth_fine) if fine else (coarse_steps, smooth_coarse)
        for index in range(block * FINE, block * FINE + FINE) if fine else (block * FINE,):
            if index >= length:
                inputs, lift = [0.0] * count, [0.0, 0.0, 0.0]
            elif fine:
                inputs, lift = [d[index] for d in drives], [b[index] if b else 0.0 for b in base]
            else:
                inputs = [sum(d[index : index + FINE]) / FINE for d in drives]
                lift = [b[min(index + FINE // 2, len(b) - 1)] if b else 0.0 for b in base]
            linear, tilt = [lift[0], lift[1], lift[2], 0.0, 0.0], [0.0, 0.0]
            for i in range(count):
                c, u = steps[i], inputs[i]
                qi, vi = c[0] * q[i] + c[1] * v[i] + c[2] * u, c[3] * q[i] + c[4] * v[i] + c[5] * u
                q[i], v[i] = qi, vi
                linear[axes[i]] += u - damp[i] * vi - stiff[i] * qi
                if axes[i] > 2:
                    tilt[axes[i] - 3] += qi
            spin_x, spin_y = linear[3], linear[4]  # the rocking's angular accelerations
            sx = (linear[0] + spin_y * rz) / G0 - tilt[1] * gz
            sy = (linear[1] - spin_x * rz) / G0 + tilt[0] * gz
            sz = (linear[2] + spin_x * ry - spin_y * rx) / G0 - tilt[0] * gy + tilt[1] * gx
            along = sx * nx + sy * ny + sz * nz
            if fine:  # the board flexes under the sensor; slowly it just follows the case
                board_q, board_v = (
                    b0 * board_q + b1 * board_v - b2 * along,
                    b3 * board_q + b4 * board_v - b5 * along,
                )
                bend = -board_2zw * board_v - board_w2 * board_q - along
                sx, sy, sz = sx + bend * nx, sy + bend * ny, sz + bend * nz
            else:
                board_q, board_v = -along / board_w2, 0.0
            for axis, value in enumerate((sx, sy, sz)):
                f1[axis] += smooth * (value - f1[axis])
                f2[axis] += smooth * (f1[axis] - f2[axis])
            t_now = load.start_s + (index + (1 if fine else FINE)) * FINE_S
            seen = (f2[0], f2[1], f2[2])
            if out is not None:
                while k < len(clock) and clock[k] <= t_now:
                    w = (clock[k] - t_before) / (t_now - t_before)
                    for axis in range(3):
                        out[axis][k] += seen_before[axis] + w * (seen[axis] - seen_before[axis])
                    k += 1
            elif t_now >= push_at:
                reference = reference or seen
                size = math.dist(seen, reference)
                if size > threshold:
                    size_before = min(threshold, math.dist(seen_before, reference))
                    rise = (threshold - size_before) / (size - size_before)
                    return t_before + (t_now - t_before) * rise
                if t_now > push_at + 0.4:
                    return None
            t_before, seen_before = t_now, seen
    return None


def carried(move: Move, t: float, orientation: Matrix) -> tuple[Vec, Matrix]:
    """The sensor's acceleration (m/s^2, world) and the unit's orientation during a move."""
    tau, seconds = (t - move.start_s) / move.duration_s, move.duration_s
    s, ds, dds = minimum_jerk(tau)
    a = list(scaled(move.shift_m, dds / seconds**2))
    if move.angle_rad:
        turn = rotation(move.axis, move.angle_rad * s)
        orientation = product(turn, orientation)
        d = apply(turn, move.pivot_to_sensor_m)
        rate, spin = move.angle_rad * ds / seconds, move.angle_rad * dds / seconds**2
        tangential, along = cross(move.axis, d), sum(move.axis[i] * d[i] for i in range(3))
        for i in range(3):
            a[i] += spin * tangential[i] + rate * rate * (move.axis[i] * along - d[i])
    if move.shake_hz:
        phase = TWO_PI * move.shake_hz * (t - move.start_s)
        size = -((TWO_PI * move.shake_hz) ** 2) * min(1.0, tau / 0.15, (1.0 - tau) / 0.15)
        size *= math.sin(phase) + 0.8 * math.sin(2.0 * phase + move.shake_phase)
        a = [a[i] + size * move.shake_m[i] for i in range(3)]
    return vec(a), orientation


def wobbles(script: Script, clock: list[float], rng: random.Random) -> list[list[float]]:
    """Seven resonators driven by uniform noise, of unit rms times their support's level (eased
    over 0.6 s at a change): tremor along and across, wander along x, y, z, tilt about x, y."""
    out, q, v = [[0.0] * len(clock) for _ in range(7)], [0.0] * 7, [0.0] * 7
    bounds = [bisect.bisect_left(clock, start) for start, _ in script.placements] + [len(clock)]
    rnd, old_levels = rng.random, None
    for segment, (start, support) in enumerate(script.placements):
        m = support.motion
        tunes = [(m.tremor_hz, rng.uniform(0.04, 0.12)), (m.tremor_hz * rng.uniform(0.9, 1.1), 0.1)]
        tunes += [(m.wander_hz, 0.7)] * 3 + [(m.tilt_hz, m.tilt_zeta)] * 2
        levels = [m.tremor_g, 0.4 * m.tremor_g] + [m.wander_g] * 3 + [m.tilt_rad] * 2
        old_levels = old_levels or levels
        for i, (hz, zeta) in enumerate(tunes):
            c0, c1, c2, c3, c4, c5 = oscillator(hz, zeta, PERIOD_S)
            push = math.sqrt(48.0 * zeta * (TWO_PI * hz) ** 3 / PERIOD_S)
            qi, vi, series, level, old = q[i], v[i], out[i], levels[i], old_levels[i]
            for k in range(bounds[segment], bounds[segment + 1]):
                u = (rnd() - 0.5) * push
                qi, vi = c0 * qi + c1 * vi + c2 * u, c3 * qi + c4 * vi + c5 * u
                share = (clock[k] - start) / 0.6
                series[k] = qi * (level if share >= 1.0 else old + (level - old) * share)
            q[i], v[i] = qi, vi
        old_levels = levels
    return out


def background(
    script: Script, unit: Unit, clock: list[float], rng: random.Random
) -> list[list[float]]:
    """Gravity and the carried motion (tremor, wander, tilt, moves) as the sensor sees it."""
    along, across, wander_x, wander_y, wander_z, tilt_x, tilt_y = wobbles(script, clock, rng)
    out = [[0.0] * len(clock) for _ in range(3)]
    ways = []
    for _ in script.placements:
        way = any_way(rng)
        ways.append((way, normalised(cross(way, horizontal(rng)))))
    starts, placed = [start for start, _ in script.placements], 0
    smooth = 1 - math.exp(-TWO_PI * unit.bandwidth_hz / 0.6436 * PERIOD_S)
    moves, moved, orientation = script.moves, 0, script.start_orientation
    f1, f2 = list(orientation[2]), list(orientation[2])
    for k, t in enumerate(clock):
        while placed + 1 < len(starts) and starts[placed + 1] <= t:
            placed += 1
        (ax, ay, az), (cx, cy, cz) = ways[placed]
        carry, rotated = (0.0, 0.0, 0.0), orientation
        while moved < len(moves) and moves[moved].start_s <= t:
            move = moves[moved]
            if t < move.start_s + move.duration_s:
                carry, rotated = carried(move, t, orientation)
                break
            orientation = rotated = product(rotation(move.axis, move.angle_rad), orientation)
            moved += 1
        a, c = along[k], across[k]
        wx = carry[0] / G0 + a * ax + c * cx + wander_x[k] + tilt_y[k]
        wy = carry[1] / G0 + a * ay + c * cy + wander_y[k] - tilt_x[k]
        wz = carry[2] / G0 + a * az + c * cz + wander_z[k] + 1.0
        for axis in range(3):
            body = rotated[0][axis] * wx + rotated[1][axis] * wy + rotated[2][axis] * wz
            f1[axis] += smooth * (body - f1[axis])
            f2[axis] += smooth * (f1[axis] - f2[axis])
            out[axis][k] = f2[axis]
    return out


class Wave(NamedTuple):
    """A piece of the support's own motion from ``start`` for ``length`` s: a shape times
    ``along`` (m/s^2, world)."""

    shape: str  # "sink" (minimum-jerk), "bump" (half sine), "dip" (a sine's cycle), "ring", "hum"
    start: float
    length: float
    along: Vec
    hz: float = 0.0
    share: float = 0.0  # ring: its damping; hum: its second harmonic

    def at(self, s: float) -> float:
        u = s - self.start
        if not 0.0 <= u < self.length:
            return 0.0
        if self.shape == "sink":
            return minimum_jerk(u / self.length)[2]
        if self.shape == "bump":
            return math.sin(math.pi * u / self.length)
        if self.shape == "dip":
            return -math.sin(TWO_PI * u / self.length)
        phase = TWO_PI * self.hz * u
        if self.shape == "ring":
            return math.exp(-self.share * phase) * math.sin(phase)
        fade = min(1.0, u / 0.05, (self.length - u) / 0.05)
        return fade * (math.sin(phase) + self.share * math.sin(2.0 * phase))


HELD = {"tap": 3, "fidget": 2, "regrip": 2, "gesture": 2, "shake": 1, "turn_over": 1.5}
HELD |= {"pass_on": 1.5, "put_down": 1.5}
SOFA = {"sit_down": 1.5, "shift": 2, "pat": 2, "bump": 1.5, "buzz": 1.5}
SOFA |= {"tap": 2, "fidget": 1.5, "pick_up": 2}
LAP = {"jiggle": 2.5, "shift": 2, "pat": 0.5, "buzz": 1, "tap": 2, "fidget": 2, "pick_up": 2}


class Script:
    """What happens in one session: where the unit is, how it is carried, what pushes on it."""

    def __init__(self, unit: Unit, rng: random.Random, seconds: float, presses: bool) -> None:
        self.unit, self.rng, self.seconds, self.presses = unit, rng, seconds, presses
        first = rng.choices(("hand", *SOFT), (4.0, 2.5, 1.5, 1.0, 1.0))[0]
        held = first == "hand"
        self.support = hand_support(unit, rng) if held else soft_support(first, unit, rng)
        self.start_orientation = self.orientation = self.support.pose
        self.home = rng.choice(SOFT) if held else first  # where it gets put down
        self.placements: list[tuple[float, Support]] = [(0.0, self.support)]
        self.moves: list[Move] = []
        self.loads: list[Load] = []
        self.events: list[tuple[float, str]] = []

    def run(self) -> None:
        rng = self.rng
        press_rate = rng.uniform(5.0, 12.0) / 60.0 / 1.8 if self.presses else 0.0
        other_gap = 60.0 / (rng.uniform(3.0, 7.0) if self.presses else rng.uniform(5.0, 12.0))
        t = rng.uniform(0.3, 1.5)
        next_press = t + rng.expovariate(press_rate) if press_rate else math.inf
        next_other = t + rng.gammavariate(2.0, other_gap / 2.0)
        while min(next_press, next_other) < self.seconds - 1.5:
            if next_press <= next_other:
                t = self.press_series(max(t, next_press))
                next_press = t + rng.expovariate(press_rate)
            else:
                kind = self.support.kind
                menu = HELD if kind == "hand" else LAP if kind == "lap" else SOFA
                name = rng.choices(list(menu), list(menu.values()))[0]
                action: Callable[[float], float] = getattr(self, name)
                t = action(max(t, next_other))
                next_other = t + rng.gammavariate(2.0, other_gap / 2.0)

    def note(self, t: float, name: str) -> None:
        self.events.append((t * 1000.0, name))

    def place(self, t: float, support: Support) -> None:
        self.support = support
        self.placements.append((t, support))

    def add_load(self, name: str, t: float, channels: Channels) -> None:
        self.loads.append(Load(name, t, self.support, self.orientation[2], channels))
        self.note(t, name)

    def add_move(
        self, t: float, seconds: float, shift: Vec = (0, 0, 0), target: Matrix | None = None,
        axis: Vec = (0, 0, 1), angle: float = 0.0, pivot: Vec = (0, 0, 0),
    ) -> float:  # fmt: skip
        """A move from ``t`` to ``target`` or by ``angle``, about a pivot ``pivot`` (world) away
        from the unit's centre; the time it ends."""
        if target is not None:
            now = self.orientation
            back = (vec([r[0] for r in now]), vec([r[1] for r in now]), vec([r[2] for r in now]))
            axis, angle = axis_angle(product(target, back))
        sensor = self.unit.sensor_at_m
        arm = apply(self.orientation, (sensor[0], sensor[1], sensor[2] - self.unit.height_m / 2))
        arm = vec([pivot[i] + arm[i] for i in range(3)])
        self.moves.append(Move(t, seconds, shift, axis, angle, arm))
        self.orientation = product(rotation(axis, angle), self.orientation)
        return t + seconds

    def push(self, forces: list[float], direction: Vec, point: Vec, on_hand: bool) -> Channels:
        """``forces`` (N) along ``direction`` (body) at ``point`` (body, from the bottom's middle),
        pushing back on the holding hand if ``on_hand``."""
        px, py, pz = point[0], point[1], point[2] - self.support.pivot_m
        dx, dy, dz = direction
        parts = {"fx": dx, "fy": dy, "fz": dz, "tx": py * dz - pz * dy, "ty": pz * dx - px * dz}
        if on_hand:
            parts.update(hx=-dx, hy=-dy, hz=-dz)
        parts = {name: part for name, part in parts.items() if abs(part) > 1e-9}
        return {name: [f * part for f in forces] for name, part in parts.items()}

    def on_dome(self, forces: list[float], on_hand: bool) -> Channels:
        """A fingertip's ``forces`` on the dome, a little off its axis and off its centre."""
        rng, unit = self.rng, self.unit
        lean, bearing = math.tan(math.radians(rng.uniform(0, 20))), rng.uniform(0, TWO_PI)
        aside = horizontal(rng, rng.uniform(0.0, 0.006))
        direction = normalised((lean * math.cos(bearing), lean * math.sin(bearing), -1.0))
        point = (unit.dome_centre_m[0] + aside[0], unit.dome_centre_m[1] + aside[1], unit.height_m)
        return self.push(forces, direction, point, on_hand)

    def press(self, t: float, quick: bool) -> float:
        rng, unit, support = self.rng, self.unit, self.support
        if t > self.seconds - 1.0:
            return t
        finger = make_finger(rng, support)
        from_rest = rng.random() < (0.1 if quick else 0.3)
        for effort in (1.0, 1.4, 2.0):
            course, push = press_course(unit, finger, rng, from_rest, quick, effort)
            travels: list[float] = []
            forces, deepest = dome_contact(unit, support, finger, course, travels)
            if deepest >= unit.dome.collapse_m:
                break
        else:
            return t + 0.3
        state = rng.getstate()
        channels, label = self.on_dome(forces, finger.own_thumb), None
        if from_rest:  # against the thumb staying where it rested
            resting = course[:push] + [course[push - 1]] * int(0.45 / FINE_S)
            still, _ = dome_contact(unit, support, finger, resting)
            rng.setstate(state)
            change = [f - s for f, s in zip(forces, still, strict=False)]
            label = self.on_dome(change, finger.own_thumb)
        gravity = self.orientation[2]
        release = letting_go(unit.dome, finger, travels) * FINE_S
        self.loads.append(
            Load("press", t, support, gravity, channels, label, push * FINE_S, release)
        )
        return t + len(course) * FINE_S

    def press_series(self, t: float) -> float:
        count = self.rng.choices((1, 2, 3, 4), (55, 20, 15, 10))[0]
        for _ in range(count):
            t = self.press(t, count > 1) + self.rng.uniform(0.02, 0.25)
        return t

    def fidget(self, t: float) -> float:
        rng, unit, support = self.rng, self.unit, self.support
        finger, squeeze = make_finger(rng, support), rng.random() < 0.35
        for scale in (1.0, 0.7, 0.45):
            course = fidget_course(unit, finger, rng, squeeze, scale)
            forces, deepest = dome_contact(unit, support, finger, course)
            if deepest < 0.95 * (unit.dome.peak_m + finger.squeeze(unit.dome.peak_n)):
                name = "dome squeezed without a pop" if squeeze else "thumb resting on the dome"
                self.add_load(name, t, self.on_dome(forces, finger.own_thumb))
                return t + len(forces) * FINE_S
        return self.tap(t)

    def tap(self, t: float) -> float:
        rng, width, height = self.rng, self.unit.width_m, self.unit.height_m
        own, period = self.support.kind == "hand" and rng.random() < 0.5, 1 / rng.uniform(3, 8)
        for i in range(rng.choice((1, 1, 2, 3, 4))):
            forces = half_sine(rng.uniform(0.0015, 0.006), rng.uniform(1.5, 8.0))
            edge = horizontal(rng)
            if rng.random() < 0.7:
                at = (edge[0] * width / 2, edge[1] * width / 2, rng.uniform(0.3, 0.9) * height)
                inward = scaled(edge, -1)
                self.add_load("side tap", t + i * period, self.push(forces, inward, at, own))
            else:
                at = (edge[0] * width * 0.45, edge[1] * width * 0.45, height)
                self.add_load("rim tap", t + i * period, self.push(forces, (0, 0, -1), at, own))
        return t + 4 * period

    def jolt(self, name: str, t: float, newtons: Span, seconds: Span, on_hand: bool) -> None:
        forces = half_sine(self.rng.uniform(*seconds), self.rng.uniform(*newtons))
        at = (0.0, 0.0, self.unit.height_m / 2)
        self.add_load(name, t, self.push(forces, any_way(self.rng), at, on_hand))

    def regrip(self, t: float) -> float:
        rng, seconds = self.rng, self.rng.uniform(0.15, 0.35)
        self.add_move(t, seconds, axis=horizontal(rng), angle=math.radians(rng.uniform(-12, 12)))
        self.jolt("regrip", t + rng.uniform(0.0, seconds / 2), (1.0, 4.0), (0.03, 0.08), True)
        return t + seconds + 0.1

    def gesture(self, t: float) -> float:
        rng = self.rng
        self.note(t, "gesture")
        shift = scaled(any_way(rng, 0.6), rng.uniform(0.1, 0.4))
        turn = math.radians(rng.uniform(-25, 25))
        return self.add_move(t, rng.uniform(0.3, 0.9), shift, axis=horizontal(rng), angle=turn)

    def shake(self, t: float) -> float:
        rng = self.rng
        hz, seconds = rng.uniform(3.0, 7.0), rng.uniform(1.0, 3.0)
        way = horizontal(rng) if rng.random() < 0.6 else any_way(rng)
        size = rng.uniform(0.8, 4.0) * G0 / (TWO_PI * hz) ** 2 / 1.6  # the wave peaks near 1.6
        self.moves.append(Move(t, seconds, shake_m=scaled(way, size), shake_hz=hz, shake_phase=t))
        self.note(t, "shaken")
        return t + seconds

    def turn_over(self, t: float) -> float:
        rng = self.rng
        axis, angle = horizontal(rng), math.radians(rng.uniform(120.0, 180.0)) * rng.choice((-1, 1))
        pivot = scaled(cross(axis, (0.0, 0.0, 1.0)), rng.uniform(0.03, 0.06))  # wrist to unit
        pivot = (pivot[0], pivot[1], -rng.uniform(0.0, 0.02))
        self.note(t, "turned over")
        over = self.add_move(t, rng.uniform(0.4, 0.9), axis=axis, angle=angle, pivot=pivot)
        back, looked = apply(rotation(axis, angle), pivot), over + rng.uniform(0.5, 2.5)
        return self.add_move(looked, rng.uniform(0.4, 0.9), axis=axis, angle=-angle, pivot=back)

    def pass_on(self, t: float) -> float:
        rng = self.rng
        new, way = hand_support(self.unit, rng), horizontal(rng, rng.uniform(0.3, 0.8))
        self.note(t, "passed to another player")
        shift = (way[0], way[1], rng.uniform(-0.1, 0.1))
        end = self.add_move(t, rng.uniform(0.5, 1.2), shift, new.pose)
        self.place(end - 0.05, new)
        self.jolt("grabbed", end - 0.05, (1.0, 5.0), (0.015, 0.04), False)
        return end + 0.2

    def put_down(self, t: float) -> float:
        rng, unit = self.rng, self.unit
        self.home = self.home if rng.random() < 0.7 else rng.choice(SOFT)
        new, way = soft_support(self.home, unit, rng), horizontal(rng, rng.uniform(0.0, 0.3))
        shift = (way[0], way[1], -rng.uniform(0.15, 0.4))
        end = self.add_move(t, rng.uniform(0.5, 1.0), shift, new.pose)
        self.place(end, new)
        seconds, speed = rng.uniform(0.01, 0.025), rng.uniform(0.02, 0.25)  # the landing
        forces = half_sine(seconds, unit.mass_kg * speed * math.pi / (2.0 * seconds))
        edge = horizontal(rng, rng.uniform(0.0, 0.5) * unit.width_m)
        landing = self.push(forces, (0, 0, -1), edge, False)
        self.add_load(f"put down on the {self.home}", end, landing)
        return end + 0.3

    def pick_up(self, t: float) -> float:
        rng = self.rng
        self.jolt("picked up", t, (0.5, 2.5), (0.02, 0.06), False)
        new, way = hand_support(self.unit, rng), horizontal(rng, rng.uniform(0.0, 0.3))
        self.place(t + 0.1, new)
        shift = (way[0], way[1], rng.uniform(0.15, 0.4))
        return self.add_move(t + 0.1, rng.uniform(0.5, 1.0), shift, new.pose) + 0.1

    def support_moves(self, name: str, t: float, waves: list[Wave]) -> float:
        """The support under the unit moving; in play, perhaps a press in the middle of it."""
        seconds = max(w.start + w.length for w in waves)
        times = [i * FINE_S for i in range(int(seconds / FINE_S))]
        world = [[sum(w.at(s) * w.along[axis] for w in waves) for s in times] for axis in range(3)]
        m = self.orientation
        triples = list(zip(*world, strict=True))
        body = [[m[0][i] * x + m[1][i] * y + m[2][i] * z for x, y, z in triples] for i in range(3)]
        self.add_load(name, t, dict(zip(("bx", "by", "bz"), body, strict=True)))
        end = t + min(seconds, 3.0)
        if self.presses and self.rng.random() < 0.35 and end > t + 0.2:
            return max(end, self.press_series(self.rng.uniform(t + 0.1, end)))
        return end

    def sit_down(self, t: float, scale: float = 1.0, name: str = "someone sits down") -> float:
        rng, bed = self.rng, self.support.kind == "bed"
        sink, fall = rng.uniform(0.005, 0.04) * scale, rng.uniform(0.2, 0.5) / math.sqrt(scale)
        jolt_s, side = rng.uniform(0.04, 0.15), horizontal(rng, rng.uniform(0.2, 0.5))
        hz = rng.uniform(1.5, 4.0) if bed else rng.uniform(2.0, 5.0)
        zeta = rng.uniform(0.05, 0.15) if bed else rng.uniform(0.15, 0.35)

        def way(size: float) -> Vec:
            return (side[0] * size, side[1] * size, size)

        jolt = rng.uniform(0.05, 0.6) * scale * G0 * rng.choice((-1, 1))
        waves = [Wave("sink", 0.0, fall, way(-sink / fall**2))]
        waves.append(Wave("bump", fall - jolt_s / 2, jolt_s, way(jolt)))
        bounce = way(rng.uniform(0.02, 0.3) * scale * G0)
        waves.append(Wave("ring", fall, min(2.5, 5.0 / (zeta * TWO_PI * hz)), bounce, hz, zeta))
        self.add_move(t, fall, axis=horizontal(rng), angle=math.radians(rng.uniform(-4, 4) * scale))
        return self.support_moves(name, t, waves)

    def shift(self, t: float) -> float:
        return self.sit_down(t, self.rng.uniform(0.1, 0.3), "someone shifts beside it")

    def pat(self, t: float) -> float:
        rng = self.rng
        period, side = rng.uniform(0.2, 0.5), horizontal(rng, rng.uniform(0.0, 0.3))
        sizes = [rng.uniform(0.05, 0.6) * G0 for _ in range(rng.randint(1, 4))]
        ways = [(side[0] * a, side[1] * a, a) for a in sizes]
        waves = [
            Wave("dip", i * period, rng.uniform(0.03, 0.08), way) for i, way in enumerate(ways)
        ]
        return self.support_moves("cushion patted", t, waves)

    def bump(self, t: float) -> float:
        rng = self.rng
        size, width = rng.uniform(0.05, 0.8) * G0, rng.uniform(0.03, 0.12)
        hz, zeta = rng.uniform(3.0, 8.0), rng.uniform(0.1, 0.3)
        way = normalised((*horizontal(rng)[:2], rng.uniform(-0.3, 0.3)))
        rock = Wave("ring", width, 4.0 / (zeta * TWO_PI * hz), scaled(way, -0.3 * size), hz, zeta)
        hit = Wave("bump", 0.0, width, scaled(way, size))
        return self.support_moves("sofa bumped", t, [hit, rock])

    def buzz(self, t: float) -> float:
        rng = self.rng
        top = 0.1 if self.support.kind == "lap" else 0.4  # a phone in a pocket, or on the cushion
        hz, size = rng.uniform(150.0, 240.0), rng.uniform(0.03, top)
        way, waves, start = scaled(any_way(rng, 3.0), size * G0), [], 0.0
        for _ in range(rng.randint(2, 4)):
            waves.append(Wave("hum", start, rng.uniform(0.2, 0.8), way, hz))
            start += waves[-1].length + rng.uniform(0.2, 0.6)
        return self.support_moves("phone buzzing", t, waves)

    def jiggle(self, t: float) -> float:
        rng = self.rng
        way = scaled(any_way(rng, 4.0), rng.uniform(0.05, 0.5) * G0)
        seconds, hz = rng.uniform(2.0, 8.0), rng.uniform(3.0, 7.0)
        hum = Wave("hum", 0.0, seconds, way, hz, rng.uniform(0.0, 0.3))
        return self.support_moves("leg jiggling", t, [hum])


def sample_clock(unit: Unit, rng: random.Random, seconds: float) -> tuple[list[float], set[int]]:
    """The sensor's sample instants (s) and the ones the firmware misses."""
    drift, period = rng.uniform(0.0, 0.002), rng.uniform(60.0, 600.0)
    phase = rng.uniform(0.0, TWO_PI)
    clock, t = [], rng.uniform(0.0, PERIOD_S)
    while t < seconds:
        clock.append(t)
        t += PERIOD_S / (1.0 + unit.clock_error + drift * math.sin(TWO_PI * t / period + phase))
    missed: set[int] = set()
    mean_gap = rng.uniform(15.0, 90.0)
    t = rng.expovariate(1.0 / mean_gap)
    while t < seconds:
        first = bisect.bisect_left(clock, t)
        missed.update(range(first, min(len(clock) - 1, first + rng.choice((1, 1, 1, 2, 3)))))
        t += rng.expovariate(1.0 / mean_gap)
    return clock, missed


def reading(value: float) -> float:
    return round(round(max(-RANGE_G, min(RANGE_G, value)) / LSB_G) * LSB_G, 3)


def session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace:
    """One session of ``seconds`` with popper ``unit``; ``seed`` picks what happens."""
    built = make_unit(unit)
    rng = random.Random(f"cushion:session:{unit}:{seed}:{presses}")
    script = Script(built, rng, seconds, presses)
    script.run()
    clock, missed = sample_clock(built, rng, seconds)
    body = background(script, built, clock, rng)
    events, labels, releases = list(script.events), [], []
    for load in script.loads:
        respond(load, built, clock, body)
        if load.name == "press":
            clear = 2.0 * math.hypot(built.noise_g[2], load.support.motion.tremor_g)
            onset = respond(load, built, clock, None, max(0.012, clear))
            if onset is None:  # never clear of the noise: mark the touch
                touch = next(i for i, f in enumerate(load.channels["fz"]) if f)
                onset = load.start_s + FINE_S * touch
            labels.append(round(onset * 1000.0, 3))
            releases.append(round((load.start_s + load.release_s) * 1000.0, 3))
            events.append((labels[-1], "press"))
    (m0, m1, m2), (o0, o1, o2) = built.reading_matrix, built.offset_g
    (n0, n1, n2), rnd = scaled(built.noise_g, 2.0), rng.random
    t_ms, samples = [], []
    for k, (x, y, z) in enumerate(zip(*body, strict=True)):
        r0 = m0[0] * x + m0[1] * y + m0[2] * z + o0 + n0 * (rnd() + rnd() + rnd() - 1.5)
        r1 = m1[0] * x + m1[1] * y + m1[2] * z + o1 + n1 * (rnd() + rnd() + rnd() - 1.5)
        r2 = m2[0] * x + m2[1] * y + m2[2] * z + o2 + n2 * (rnd() + rnd() + rnd() - 1.5)
        if k not in missed:
            t_ms.append(round(clock[k] * 1000.0, 3))
            samples.append((reading(r0), reading(r1), reading(r2)))
    events = sorted((round(t, 3), name) for t, name in events)
    pressed = sorted(zip(labels, releases, strict=True))
    onsets, lets_go = [onset for onset, _ in pressed], [release for _, release in pressed]
    return Trace(t_ms, samples, onsets, NAME, seed, events, lets_go)
