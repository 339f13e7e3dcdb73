"""softpress: a big soft button pressed with the flat of the palm or several fingers, felt as
the whole unit sinking into its soft feet and coming back up.

The model. The unit is a rigid box on four soft feet: it bounces on them, rocks about both
horizontal axes and shears sideways on them (5 degrees of freedom). A foot pushes only while
squeezed and stiffens as it squeezes (the unit can hop, the feet can bottom); sideways it holds
only up to friction (the unit slides, with stick-slip). The dome is a rubber or foam cap over a
short-travel switch: a soft spring over its travel, then the palm's stiffening, damping tissue
once it bottoms; nothing clicks. The hand is a mass on a compliant arm that follows a commanded
height (approach, push, hold, release) with tremor; while it touches the dome it loads the unit
and damps it. The table is three damped bending modes and a sideways sway mode driven by all
that happens on it; the unit feels it through its feet. All of it is stepped at 2 kHz (table
modes exactly), only while something moves, through the sensor's own low-pass, and sampled at
the sensor's clock.

Unit spread (``unit`` fixes all of it): mass 0.12-0.45 kg; feet 28-55 mm from the centre, centre
of mass 12-35 mm above them, dome top 20-50 mm above that and up to 8 mm off centre; bounce on
bare feet 22-70 Hz, damping ratio 0.06-0.35, a foot twice as stiff 1-3 mm in; on a game mat
(x0.6-0.85 the bounce, +0.05-0.15 damping) or a tablecloth; shear 0.25-0.8 of the vertical
stiffness; friction 0.2-0.35 (felt) or 0.55-1.0 (silicone); cap travel 1-4.5 mm at 1.5-6 N. The
sensor board anywhere within 30 mm of the centre, face up, face down or on edge, turned by
quarter turns and 1.5 degrees (rms) askew; gains 0.97-1.03, cross-axis up to 1.5 %, zero-g
offsets up to 70 mg, noise 2-6 mg rms (z 1.2x) through its own low-pass of 44-200 Hz (ODR/9 to
ODR/2, also the signal's); its clock up to 1.7 % off plus up to 0.3 % slow drift; the firmware
late every 15-300 s, losing 1, 2-3 or 4-8 samples. The table under it: tilted up to 1.4
degrees, modes at 14-35 Hz, x2.2-3.5 that, x2-3 that again (damping 0.015-0.07, 3-40 kg), sway
3-10 Hz (15-60 kg), leaning tilts it 0.2-10 microradian per newton, 30 % of them wobble.

Presses (play, aiming at 6-13 a minute, 1.6 to a group): single or quick series of 2-4 (the next
starts 40-300 ms into the release, the hand lifting 3-15 mm or staying on lightly); slaps (the
hand, 0.08-0.35 kg on a 400-1500 N/m arm, arrives at 0.15-0.5 m/s, 6-20 N), presses (0.04-0.2
m/s, 4-15 N) and slow pushes (0.01-0.05 m/s, 3-12 N built over 0.15-0.5 s), each session its
own mix; the palm lands up to 15 mm off centre and pushes up to 25 % sideways; a third of hand
rests end in a push or two; a quarter of press groups come 0.05-0.8 s after a blow on the table.

Disturbances (1.5-6 a minute on the table, 1-4 on the unit): knocks (1-4, 0.02-0.15 N s each,
8-80 cm away), fist bangs (0.4-4 N s), dice (1-6, bouncing) into a felt tray or onto the table,
a cup (0.2-0.5 kg at 0.03-0.3 m/s) or a book (0.3-2.5 kg, dropped up to 4 cm) set down, a phone
buzzing (140-230 Hz, 0.3-1.2 N, 1-4 bursts), the table bumped (30-200 N sideways, a knee from
below at 0.1-1 N s) or shoved (40-200 N for 0.2-0.7 s), someone leaning on it (50-400 N for
1.5-8 s, elbows landing at 0.2-1.5 N s, the table tilting or rocking onto a short leg); a hand
resting on the unit (1-6 N for 1-8 s, sometimes fingers drumming), a finger nudging it, a hand
sliding it 3-30 cm, turning it on the spot, picking it up, holding or carrying it for 0.3-4 s
and putting it down (0.01-0.15 m/s, one edge first, then letting go over 0.05-0.3 s).

Label: where the press first shows in what the sensor reports. From the moment its hand starts
to move, each press is run twice, as it happens and without it (the hand carries on as before,
or stays away); the label is the first sample instant at which the two noise-free readings
differ on some axis by more than 2.5 times that unit's noise (6 mg at least). The release is
the instant the hand starts to let go after the hold (its commanded height starts back up), where
the press's force starts to fall away: nothing clicks.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from popdice.traces.trace import Trace

NAME = "softpress"
SUMMARY = (
    "Palm or fingers push a soft rubber or foam dome with no click: the whole unit sinks into soft "
    "feet and rebounds, low-frequency and hand-damped, on a table that carries every other bump"
)

G = 9.80665
SIM_HZ = 2000.0
DT = 1.0 / SIM_HZ
ODR_HZ = 400.0
LSB_G = 0.004
FULL_SCALE_G = 8.0
MAX_TAIL_STEPS = 6000  # ring-down allowed after the last input of a stretch (3 s)
LABEL_SEARCH_STEPS = 1000  # how long after a press's hand starts its label is looked for
QUIET_MS2 = 0.002  # below this everywhere (0.2 mg) the unit counts as still

Vec = tuple[float, float, float]
Fill = Callable[["_Inputs"], None]


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _rotation(roll: float, pitch: float, yaw: float) -> list[list[float]]:
    """Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (f(a) for a in (roll, pitch, yaw) for f in (math.cos, math.sin))
    return [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]


def _body_force(roll: float, pitch: float, yaw: float, ax: float, ay: float, az: float) -> Vec:
    """Specific force (m/s^2) in the unit's frame when it moves with world acceleration a."""
    c, s = math.cos(yaw), math.sin(yaw)
    x1, y1, z1 = c * ax + s * ay, -s * ax + c * ay, az + G
    c, s = math.cos(pitch), math.sin(pitch)
    x2, z2 = c * x1 - s * z1, s * x1 + c * z1
    c, s = math.cos(roll), math.sin(roll)
    return x2, c * y1 + s * z2, -s * y1 + c * z2


@dataclass(frozen=True)
class _Unit:
    mass: float
    footprint: Vec  # feet at +-x, +-y from the centre of mass, which is z above them (m)
    inertia: tuple[float, float]  # about x, y (kg m^2)
    feet: Vec  # each foot: N/m at first, N s/m, squeeze (m) at which it pushes twice as hard
    shear: tuple[float, float]  # all feet together: N/m, N s/m
    friction: tuple[float, float]  # static, sliding
    dome: Vec  # top of the dome from the centre of mass (m)
    cap: tuple[float, float, float, float]  # travel m, N at travel, tissue N/m^1.5, N s/m
    sensor_at: Vec
    reading: list[list[float]]  # body specific force (m/s^2) to reading (g)
    offset_g: Vec
    noise_g: Vec
    bandwidth_hz: float
    clock: tuple[float, float, float, float]  # rate error, drift, drift period s, gap every s
    rest_tilt: tuple[float, float]
    table_modes: list[Vec]  # Hz, damping ratio, modal kg
    sway: Vec
    tilt_per_newton: float
    wobbly: bool


def _draw_unit(unit: int) -> _Unit:
    rng = random.Random(f"softpress:unit:{unit}")
    mass = _log_uniform(rng, 0.12, 0.45)
    footprint = (rng.uniform(0.028, 0.055), rng.uniform(0.028, 0.055), rng.uniform(0.012, 0.035))
    inertia = [mass * ((2.4 * w) ** 2 + (2.2 * footprint[2]) ** 2) / 12 for w in footprint[1::-1]]
    felt = rng.random() < 0.3
    bounce_hz = _log_uniform(rng, 22.0, 70.0)
    zeta = rng.uniform(0.15, 0.35) if felt else rng.uniform(0.06, 0.25)
    mu = rng.uniform(0.2, 0.35) if felt else rng.uniform(0.55, 1.0)
    surface = rng.choices(["bare", "cloth", "mat"], [5, 2, 3])[0]
    if surface == "mat":
        bounce_hz, zeta = bounce_hz * rng.uniform(0.6, 0.85), zeta + rng.uniform(0.05, 0.15)
        mu = max(mu, rng.uniform(0.6, 1.0))
    elif surface == "cloth":
        bounce_hz, zeta = bounce_hz * rng.uniform(0.85, 0.95), zeta + rng.uniform(0.02, 0.08)
    stiffness = mass * (2 * math.pi * bounce_hz) ** 2
    shear = stiffness * rng.uniform(0.25, 0.8)
    roll, pitch = rng.choice([(0.0, 0.0)] * 6 + [(math.pi, 0.0)] * 2 + [(math.pi / 2, 0.0)] * 2)
    if rng.random() < 0.1:
        roll, pitch = 0.0, math.pi / 2
    askew = [math.radians(rng.gauss(0.0, 1.5)) for _ in range(3)]
    mount = _rotation(roll + askew[0], pitch + askew[1], rng.randrange(4) * math.pi / 2 + askew[2])
    cross = [[1.0 if r == c else rng.uniform(-0.015, 0.015) for c in range(3)] for r in range(3)]
    gains = [rng.uniform(0.97, 1.03) / G for _ in range(3)]
    reading = [  # gains x cross-axis x (body to sensor: the mount transposed)
        [gains[r] * sum(cross[r][k] * mount[c][k] for k in range(3)) for c in range(3)]
        for r in range(3)
    ]
    noise, first_mode = rng.uniform(0.002, 0.006), rng.uniform(14.0, 35.0)
    second_mode = first_mode * rng.uniform(2.2, 3.5)
    return _Unit(
        mass=mass,
        footprint=footprint,
        inertia=(inertia[0] * rng.uniform(0.8, 1.2), inertia[1] * rng.uniform(0.8, 1.2)),
        feet=(stiffness / 4, zeta * math.sqrt(stiffness * mass) / 2, rng.uniform(0.001, 0.003)),
        shear=(shear, 2 * zeta * math.sqrt(shear * mass)),
        friction=(mu, mu * rng.uniform(0.7, 0.9)),
        dome=(rng.uniform(-0.008, 0.008), rng.uniform(-0.008, 0.008), rng.uniform(0.02, 0.05)),
        cap=(
            rng.uniform(0.001, 0.0045),
            rng.uniform(1.5, 6.0),
            _log_uniform(rng, 2e4, 1e5),
            rng.uniform(15.0, 50.0),
        ),
        sensor_at=(rng.uniform(-0.03, 0.03), rng.uniform(-0.03, 0.03), rng.uniform(-0.01, 0.02)),
        reading=reading,
        offset_g=(rng.uniform(-0.07, 0.07), rng.uniform(-0.07, 0.07), rng.uniform(-0.07, 0.07)),
        noise_g=(noise * rng.uniform(0.9, 1.1), noise * rng.uniform(0.9, 1.1), noise * 1.2),
        bandwidth_hz=rng.uniform(ODR_HZ / 9, ODR_HZ / 2),
        clock=(
            rng.uniform(-0.017, 0.017),
            rng.uniform(0.0, 0.003),
            rng.uniform(60.0, 600.0),
            _log_uniform(rng, 15.0, 300.0),
        ),
        rest_tilt=(rng.uniform(-0.025, 0.025), rng.uniform(-0.025, 0.025)),
        table_modes=[
            (first_mode, rng.uniform(0.03, 0.07), rng.uniform(10.0, 40.0)),
            (second_mode, rng.uniform(0.02, 0.05), rng.uniform(5.0, 20.0)),
            (second_mode * rng.uniform(2.0, 3.0), rng.uniform(0.015, 0.04), rng.uniform(3.0, 12.0)),
        ],
        sway=(rng.uniform(3.0, 10.0), rng.uniform(0.04, 0.12), rng.uniform(15.0, 60.0)),
        tilt_per_newton=_log_uniform(rng, 2e-7, 1e-5),
        wobbly=rng.random() < 0.3,
    )


class _Path:
    """A value (a hand's height, a finger's reach, a carried unit's angle) that moves in smooth
    steps: quintic moves between given positions and speeds, or exponential glides."""

    def __init__(self, t0: float, value: float, speed: float = 0.0) -> None:
        self.start = self.end = t0
        self.initial = self.value = value
        self.speed = speed
        self.segments: list[tuple[float, float, bool, tuple[float, ...]]] = []

    def move(self, duration: float, target: float, end_speed: float = 0.0) -> _Path:
        t, p0, v0, v1 = duration, self.value, self.speed, end_speed
        h = target - p0
        c3 = (20 * h - (8 * v1 + 12 * v0) * t) / (2 * t**3)
        c4 = (-30 * h + (14 * v1 + 16 * v0) * t) / (2 * t**4)
        c5 = (12 * h - 6 * (v1 + v0) * t) / (2 * t**5)
        self.segments.append((self.end, self.end + t, False, (p0, v0, c3, c4, c5)))
        self.end, self.value, self.speed = self.end + t, target, end_speed
        return self

    def glide(self, target: float, tau: float, duration: float) -> _Path:
        self.segments.append((self.end, self.end + duration, True, (target, self.value, tau)))
        decay = math.exp(-duration / tau)
        self.end += duration
        self.speed = -(self.value - target) / tau * decay
        self.value = target + (self.value - target) * decay
        return self

    def hold(self, duration: float) -> _Path:
        if self.speed:
            return self.move(duration, self.value)
        self.end += duration
        return self

    def at(self, t: float) -> Vec:
        """Position, speed and acceleration at t (held still before and after the moves)."""
        for t0, t1, glide, c in reversed(self.segments):
            if t < t0:
                continue
            s = min(t, t1) - t0
            if glide:
                e = (c[1] - c[0]) * math.exp(-s / c[2])
                p, v, a = c[0] + e, -e / c[2], e / c[2] ** 2
            else:
                p0, v0, c3, c4, c5 = c
                p = p0 + s * (v0 + s * s * (c3 + s * (c4 + s * c5)))
                v = v0 + s * s * (3 * c3 + s * (4 * c4 + s * 5 * c5))
                a = s * (6 * c3 + s * (12 * c4 + s * 20 * c5))
            return (p, v, a) if t <= t1 else (p, 0.0, 0.0)
        return self.initial, 0.0, 0.0


@dataclass
class _Piece:
    """A stretch of a hand's commanded height above the dome's top (m), from ``path.start``;
    the hand is gone after ``path.end`` unless another piece has taken over. A press's
    ``release`` is when the hand starts to let go of it (s)."""

    path: _Path
    press: bool
    release: float = 0.0


@dataclass
class _Episode:
    """A hand on the dome from arriving to leaving; each piece takes over from the one before."""

    params: tuple[float, ...]  # kg, arm N/m, arm N s/m, palm x, y from the centre, slant x, y
    tremor: tuple[float, ...]  # m, rad/s, phase; twice (tremor, then slow wander)
    pieces: list[_Piece] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.pieces[0].path.start

    @property
    def end(self) -> float:
        return max(p.path.end for p in self.pieces)

    def fill(self, inp: _Inputs, exclude: _Piece | None = None, upto: int | None = None) -> None:
        """Write the commanded height (without ``exclude``) into ``inp`` up to step ``upto``."""
        used = [p for p in self.pieces if p is not exclude]
        first, last = inp.local(self.start), inp.n if upto is None else min(upto, inp.n)
        for i in range(max(first, 0), min(inp.local(self.end) + 1, last)):
            inp.hand[i] = None
        if 0 <= first < inp.n:
            inp.hand_par[first] = self.params
        a1, w1, f1, a2, w2, f2 = self.tremor
        for k, piece in enumerate(used):
            stop = min(used[k + 1].path.start if k + 1 < len(used) else math.inf, piece.path.end)
            for i in range(max(inp.local(piece.path.start), 0), min(inp.local(stop), last)):
                t = (inp.j0 + i) * DT
                z, v, _ = piece.path.at(t)
                inp.hand[i] = (
                    z + a1 * math.sin(w1 * t + f1) + a2 * math.sin(w2 * t + f2),
                    v + a1 * w1 * math.cos(w1 * t + f1) + a2 * w2 * math.cos(w2 * t + f2),
                )


class _Inputs:
    """Everything that drives the unit over one stretch of steps (``j0`` is the first)."""

    def __init__(self, j0: int, n: int) -> None:
        self.j0, self.n = j0, n
        self.modes = ([0.0] * n, [0.0] * n, [0.0] * n)  # table force / modal mass, m/s^2
        self.sway = ([0.0] * n, [0.0] * n)
        self.hand: list[tuple[float, float] | None] = [None] * n  # commanded height, speed
        self.hand_par: dict[int, tuple[float, ...]] = {}
        self.side: list[tuple[float, float, float, float] | None] = [None] * n  # reach x y, speed
        self.side_par: dict[int, tuple[float, ...]] = {}  # N/m, N s/m, ux, uy, height, one-way
        self.extra = ([0.0] * n, [0.0] * n, [0.0] * n)  # specific force added as it is, m/s^2
        self.push = ([0.0] * n, [0.0] * n, [0.0] * n)  # on the unit: lift (N), torques (N m)
        self.held: list[bool] | None = None
        self.touch: dict[int, Vec] = {}  # landing: vertical speed, tilt about x, y

    def local(self, t: float) -> int:
        return math.ceil(t * SIM_HZ - 1e-9) - self.j0

    def span(self, t0: float, t1: float) -> range:
        return range(max(self.local(t0), 0), min(self.local(t1), self.n))

    def without(self, episode: _Episode, piece: _Piece, upto: int) -> _Inputs:
        """The same inputs with ``piece`` taken out of ``episode``'s hand (up to ``upto``)."""
        other = _Inputs.__new__(_Inputs)
        other.__dict__.update(self.__dict__)
        other.hand, other.hand_par = list(self.hand), dict(self.hand_par)
        episode.fill(other, piece, upto)
        return other


def _oscillator_step(hz: float, zeta: float) -> tuple[float, ...]:
    """Exact step of q'' + 2 zeta w q' + w^2 q = u, u held: q' = a q + b v + c u,
    v' = d q + e v + f u."""
    w = 2 * math.pi * hz
    wd = w * math.sqrt(1 - zeta * zeta)
    decay, c, s = math.exp(-zeta * w * DT), math.cos(wd * DT), math.sin(wd * DT)
    a, b = decay * (c + zeta * w / wd * s), decay * s / wd
    d, e = -decay * w * w / wd * s, decay * (c - zeta * w / wd * s)
    return a, b, (1 - a) / (w * w), d, e, -d / (w * w)


_STATE = (
    "x y z rx ry vx vy vz wx wy anchor_x anchor_y slipping hand_on zh vh hm hk hc hcx hcy hslx "
    "hsly side_x0 side_y0 sk sc sux suy shs suni q0 v0 q1 v1 q2 v2 qx vxt qy vyt l1x l2x l1y l2y "
    "l1z l2z"
)
STATE: list[str] = [str(name) for name in _STATE.split()]


def _rest_state() -> list[float]:
    state = [0.0] * len(STATE)
    state[STATE.index("hm")] = 1.0
    return state


@dataclass
class _Out:
    """The filtered specific-force deviation (m/s^2) at each step from local step ``first``."""

    first: int
    x: list[float] = field(default_factory=list)
    y: list[float] = field(default_factory=list)
    z: list[float] = field(default_factory=list)


class _Sim:
    """One unit's equations of motion, stepped at SIM_HZ."""

    def __init__(self, unit: _Unit) -> None:
        self.unit = unit
        self.table_steps = [
            c for hz, zeta, _ in unit.table_modes for c in _oscillator_step(hz, zeta)
        ]
        self.sway_step = _oscillator_step(unit.sway[0], unit.sway[1])
        k, _, firm = unit.feet
        squeeze, load = 0.0, unit.mass * G / 4  # a foot pushes k d (1 + (d / firm)^2)
        for _ in range(30):
            force = k * squeeze * (1 + (squeeze / firm) ** 2)
            squeeze += (load - force) / (k * (1 + 3 * (squeeze / firm) ** 2))
        self.rest_squeeze = squeeze
        corner = 1.55 * unit.bandwidth_hz  # two equal poles: -3 dB at the bandwidth
        self.filter_gain = 1 - math.exp(-2 * math.pi * corner * DT)

    def still(self, state: list[float], out: _Out) -> bool:
        """Whether the unit, the table and the sensor's filter have all but stopped moving."""
        at = dict(zip(STATE, state, strict=True))
        if at["hand_on"] or len(out.x) < 200:
            return False
        if any(max(abs(v) for v in series[-200:]) > QUIET_MS2 for series in (out.x, out.y, out.z)):
            return False
        sway = self.unit.sway[0]
        swings = [
            (hz, at[f"q{k}"], at[f"v{k}"]) for k, (hz, _, _) in enumerate(self.unit.table_modes)
        ]
        swings += [(sway, at["qx"], at["vxt"]), (sway, at["qy"], at["vyt"])]
        return all(
            2 * math.pi * hz * math.hypot(2 * math.pi * hz * q, v) < QUIET_MS2
            for hz, q, v in swings
        )

    def run(self, st: list[float], inp: _Inputs, i_from: int, i_to: int, out: _Out) -> None:
        """Step from local step ``i_from`` to ``i_to``, appending what the sensor's filter gives."""
        u = self.unit
        m, weight, (ix, iy) = u.mass, u.mass * G, u.inertia
        a, b, h = u.footprint
        (fk, fc, firm), (sk_feet, sc_feet), (mus, muk) = u.feet, u.shear, u.friction
        rest_press, stiffen = self.rest_squeeze, fk / firm**2
        travel, cap_f, tis_k, cc = u.cap
        cap_k, dome_h = cap_f / travel, u.dome[2]
        psx, psy, psz = u.sensor_at
        fa = self.filter_gain
        t0a, t0b, t0c, t0d, t0e, t0f, t1a, t1b, t1c, t1d, t1e, t1f, *modes2 = self.table_steps
        t2a, t2b, t2c, t2d, t2e, t2f = modes2
        sa, sb, sc_, sd, se, sf = self.sway_step
        (m0, m1, m2), (swx, swy), (ex, ey, ez), (pz, ptx, pty) = (
            inp.modes,
            inp.sway,
            inp.extra,
            inp.push,
        )
        hand, hpar, side, spar, held, touch = (
            inp.hand,
            inp.hand_par,
            inp.side,
            inp.side_par,
            inp.held,
            inp.touch,
        )
        ox, oy, oz = out.x, out.y, out.z
        (x, y, z, rx, ry, vx, vy, vz, wx, wy, anx, any_, slipping, hand_on, zh, vh, hm, hk, hc, hcx,
         hcy, hslx, hsly, side_x0, side_y0, sk, sc, sux, suy, shs, suni, q0, v0, q1, v1, q2, v2,
         qx, vxt, qy, vyt, l1x, l2x, l1y, l2y, l1z, l2z) = st  # fmt: skip
        for i in range(i_from, i_to):
            f = m0[i]
            q0, v0 = t0a * q0 + t0b * v0 + t0c * f, t0d * q0 + t0e * v0 + t0f * f
            f = m1[i]
            q1, v1 = t1a * q1 + t1b * v1 + t1c * f, t1d * q1 + t1e * v1 + t1f * f
            f = m2[i]
            q2, v2 = t2a * q2 + t2b * v2 + t2c * f, t2d * q2 + t2e * v2 + t2f * f
            f = swx[i]
            qx, vxt = sa * qx + sb * vxt + sc_ * f, sd * qx + se * vxt + sf * f
            f = swy[i]
            qy, vyt = sa * qy + sb * vyt + sc_ * f, sd * qy + se * vyt + sf * f
            if held is not None and held[i]:  # in a hand, off the table: given as it is
                gx, gy, gz = ex[i], ey[i], ez[i]
                hand_on = 0.0
            else:
                if touch and i in touch:  # put down: the lowest foot just touches
                    vz, rx, ry = touch[i]
                    lowest = min(s1 * rx * b - s2 * ry * a for s1 in (-1, 1) for s2 in (-1, 1))
                    z = rest_press + q0 + q1 + q2 - lowest
                    x = y = vx = vy = wx = wy = 0.0
                    anx, any_ = -h * ry - qx, h * rx - qy
                zr, vr = z - q0 - q1 - q2, vz - v0 - v1 - v2
                rb, ra, wb, wa = rx * b, ry * a, wx * b, wy * a
                d = rest_press - zr - rb + ra  # foot at +x +y
                f1 = d * (fk + stiffen * d * d) - fc * (vr + wb - wa) if d > 0 else 0.0
                d = rest_press - zr - rb - ra  # -x +y
                f2 = d * (fk + stiffen * d * d) - fc * (vr + wb + wa) if d > 0 else 0.0
                d = rest_press - zr + rb + ra  # +x -y
                f3 = d * (fk + stiffen * d * d) - fc * (vr - wb - wa) if d > 0 else 0.0
                d = rest_press - zr + rb - ra  # -x -y
                f4 = d * (fk + stiffen * d * d) - fc * (vr - wb + wa) if d > 0 else 0.0
                f1, f2, f3, f4 = max(f1, 0.0), max(f2, 0.0), max(f3, 0.0), max(f4, 0.0)
                normal = f1 + f2 + f3 + f4
                tau_x, tau_y = b * (f1 + f2 - f3 - f4), a * (f2 + f4 - f1 - f3)
                foot_x, foot_y = x - h * ry - qx, y + h * rx - qy
                if normal > 0:  # the feet shear up to friction, then slip: the anchor moves
                    frac = ((f1 > 0) + (f2 > 0) + (f3 > 0) + (f4 > 0)) * 0.25
                    kx = sk_feet * frac
                    shx, shy = -kx * (foot_x - anx), -kx * (foot_y - any_)
                    limit, pull = (muk if slipping else mus) * normal, shx * shx + shy * shy
                    if pull > limit * limit:
                        scale = muk * normal / math.sqrt(pull)
                        shx, shy = shx * scale, shy * scale
                        anx, any_, slipping = foot_x + shx / kx, foot_y + shy / kx, 1.0
                    else:
                        slipping, cx = 0.0, sc_feet * frac
                        shx -= cx * (vx - h * wy - vxt)
                        shy -= cx * (vy + h * wx - vyt)
                else:
                    shx = shy = 0.0
                    anx, any_, slipping = foot_x, foot_y, 1.0
                tau_x += h * shy
                tau_y -= h * shx
                fx, fy, contact = shx, shy, 0.0
                command = hand[i]
                if command is None:
                    hand_on = 0.0
                else:
                    if i in hpar:
                        hm, hk, hc, hcx, hcy, hslx, hsly = hpar[i]
                    if not hand_on:
                        hand_on, (zh, vh) = 1.0, command
                    pen = z + rx * hcy - ry * hcx - zh
                    if pen > 0:  # the cap's travel, then palm tissue; it damps as it fills
                        contact = (
                            cap_k * pen if pen < travel else cap_f + tis_k * (pen - travel) ** 1.5
                        )
                        closing = vz + wx * hcy - wy * hcx - vh
                        contact = max(contact + cc * closing * min(pen / travel, 1.0), 0.0)
                    vh += (hk * (command[0] - zh) + hc * (command[1] - vh) + contact) / hm * DT
                    zh += vh * DT
                    if contact:
                        fx, fy = fx + hslx * contact, fy + hsly * contact
                        tau_x -= (hcy + dome_h * hsly) * contact
                        tau_y += (hcx + dome_h * hslx) * contact
                reach = side[i]
                if reach is not None:  # a finger (pushing only) or a hand (holding) on its side
                    if i in spar:
                        sk, sc, sux, suy, shs, suni = spar[i]
                        side_x0, side_y0 = x, y
                    dx, dy = (
                        reach[0] - (x + ry * shs - side_x0),
                        reach[1] - (y - rx * shs - side_y0),
                    )
                    dvx, dvy = reach[2] - (vx + wy * shs), reach[3] - (vy - wx * shs)
                    if suni:
                        into = dx * sux + dy * suy
                        along = (
                            max(sk * into + sc * (dvx * sux + dvy * suy), 0.0) if into > 0 else 0.0
                        )
                        sfx, sfy = along * sux, along * suy
                    else:
                        sfx, sfy = sk * dx + sc * dvx, sk * dy + sc * dvy
                    fx, fy = fx + sfx, fy + sfy
                    tau_x -= shs * sfy
                    tau_y += shs * sfx
                ax_, ay_, az_ = fx / m, fy / m, (normal - weight - contact + pz[i]) / m
                alx, aly = (tau_x + ptx[i]) / ix, (tau_y + pty[i]) / iy
                vx, vy, vz, wx, wy = (
                    vx + ax_ * DT,
                    vy + ay_ * DT,
                    vz + az_ * DT,
                    wx + alx * DT,
                    wy + aly * DT,
                )
                x, y, z, rx, ry = x + vx * DT, y + vy * DT, z + vz * DT, rx + wx * DT, ry + wy * DT
                gx = ax_ + aly * psz - ry * G + ex[i]
                gy = ay_ - alx * psz + rx * G + ey[i]
                gz = az_ + alx * psy - aly * psx + ez[i]
            l1x += fa * (gx - l1x)
            l2x += fa * (l1x - l2x)
            l1y += fa * (gy - l1y)
            l2y += fa * (l1y - l2y)
            l1z += fa * (gz - l1z)
            l2z += fa * (l1z - l2z)
            ox.append(l2x)
            oy.append(l2y)
            oz.append(l2z)
        st[:] = [x, y, z, rx, ry, vx, vy, vz, wx, wy, anx, any_, slipping, hand_on, zh, vh, hm, hk,
                 hc, hcx, hcy, hslx, hsly, side_x0, side_y0, sk, sc, sux, suy, shs, suni, q0, v0,
                 q1, v1, q2, v2, qx, vxt, qy, vyt, l1x, l2x, l1y, l2y, l1z, l2z]  # fmt: skip


@dataclass
class _Event:
    start: float
    end: float
    names: list[tuple[float, str]]
    fill: Fill
    episode: _Episode | None = None
    rest: tuple[float, float, float] | None = None  # from this time (s) it rests tilted so


def _couplings(rng: random.Random, u: _Unit, distance: float) -> Vec:
    """Modal acceleration per newton pushing down on the table ``distance`` (m) from the unit."""
    shapes = (
        rng.uniform(0.4, 1.0),
        rng.uniform(-1.0, 1.0) * (0.3 + 0.7 * math.exp(-distance / 0.4)),
        rng.uniform(-1.0, 1.0) * (0.15 + 0.85 * math.exp(-distance / 0.2)),
    )
    m0, m1, m2 = (mode[2] for mode in u.table_modes)
    return -shapes[0] / m0, -shapes[1] / m1, -shapes[2] / m2


def _sideways(rng: random.Random, u: _Unit, share: float) -> tuple[float, float]:
    angle = rng.uniform(0, 2 * math.pi)
    return share * math.cos(angle) / u.sway[2], share * math.sin(angle) / u.sway[2]


def _add_pulse(
    inp: _Inputs,
    t: float,
    impulse: float,
    duration: float,
    gains: Vec,
    side: tuple[float, float] = (0.0, 0.0),
) -> None:
    """A half-sine blow (``impulse`` N s over ``duration`` s) down on the table."""
    duration = max(duration, DT)
    peak = impulse * math.pi / (2 * duration)
    for i in inp.span(t, t + duration):
        f = peak * math.sin(math.pi * ((inp.j0 + i) * DT - t) / duration)
        for mode, gain in zip(inp.modes, gains, strict=True):
            mode[i] += f * gain
        inp.sway[0][i] += f * side[0]
        inp.sway[1][i] += f * side[1]


def _blows(
    name: str, blows: list[Vec], gains: Vec, side: tuple[float, float] = (0.0, 0.0)
) -> _Event:
    """An event made of blows on the table: (time, N s, duration) each."""

    def fill(inp: _Inputs) -> None:
        for t, impulse, duration in blows:
            _add_pulse(inp, t, impulse, duration, gains, side)

    start = min(t for t, _, _ in blows)
    return _Event(start, max(t + d for t, _, d in blows) + DT, [(start, name)], fill)


def _knocks(rng: random.Random, u: _Unit, t: float) -> _Event:
    gains, base, blows = (
        _couplings(rng, u, rng.uniform(0.08, 0.8)),
        _log_uniform(rng, 0.02, 0.15),
        [],
    )
    for _ in range(rng.choices([1, 2, 3, 4], [3, 4, 3, 1])[0]):
        blows.append((t, base * rng.uniform(0.7, 1.3), rng.uniform(0.0004, 0.0015)))
        t += rng.uniform(0.12, 0.3)
    return _blows("knock", blows, gains, _sideways(rng, u, 0.05))


def _fist_bangs(rng: random.Random, u: _Unit, t: float) -> _Event:
    gains, base, blows = _couplings(rng, u, rng.uniform(0.15, 0.8)), _log_uniform(rng, 0.4, 4.0), []
    for _ in range(rng.choices([1, 2, 3], [5, 2, 1])[0]):
        blows.append((t, base * rng.uniform(0.7, 1.2), rng.uniform(0.004, 0.012)))
        t += rng.uniform(0.3, 0.8)
    return _blows("fist bang", blows, gains, _sideways(rng, u, 0.2))


def _dice(rng: random.Random, u: _Unit, t: float) -> _Event:
    tray = rng.random() < 0.7  # a felt-lined tray passes on less, and slower
    g0, g1, g2 = _couplings(rng, u, rng.uniform(0.2, 0.7))
    through = rng.uniform(0.3, 0.6) if tray else 1.0
    blows = []
    for _ in range(rng.randint(1, 6)):
        mass, speed, bounce = rng.uniform(0.004, 0.02), rng.uniform(1.0, 3.0), rng.uniform(0.3, 0.6)
        when = t + rng.uniform(0.0, 0.06)
        while speed > 0.1:
            contact = rng.uniform(0.001, 0.003) if tray else rng.uniform(0.0003, 0.0008)
            blows.append((when, mass * speed * (1 + bounce), contact))
            speed *= bounce
            when += 2 * speed / G + rng.uniform(0.005, 0.05)  # in the air, tumbling
    return _blows(
        "dice thrown", blows, (g0 * through, g1 * through, g2 * through), _sideways(rng, u, 0.1)
    )


def _set_down(rng: random.Random, u: _Unit, t: float) -> _Event:
    gains = _couplings(rng, u, rng.uniform(0.1, 0.5))
    if rng.random() < 0.6:
        mass, speed, name = rng.uniform(0.2, 0.5), rng.uniform(0.03, 0.3), "cup set down"
        contact = rng.uniform(0.002, 0.008) * (3 if rng.random() < 0.3 else 1)  # on a coaster
    else:
        mass, name = rng.uniform(0.3, 2.5), "book set down"
        speed, contact = math.sqrt(2 * G * rng.uniform(0.0, 0.04)) + 0.03, rng.uniform(0.003, 0.01)
    first = (t, mass * speed * 1.1, contact)
    settle = (t + rng.uniform(0.01, 0.04), first[1] * rng.uniform(0.1, 0.3), contact)
    return _blows(name, [first, settle], gains, _sideways(rng, u, 0.1))


def _phone(rng: random.Random, u: _Unit, t: float) -> _Event:
    gains = _couplings(rng, u, rng.uniform(0.1, 0.6))
    hz, amplitude, spin_up = (
        rng.uniform(140.0, 230.0),
        rng.uniform(0.3, 1.2),
        rng.uniform(0.03, 0.06),
    )
    bursts, start = [], t
    for _ in range(rng.randint(1, 4)):
        on = rng.uniform(0.3, 1.2)
        bursts.append((start, start + on))
        start += on + rng.uniform(0.2, 0.8)

    def fill(inp: _Inputs) -> None:
        for b0, b1 in bursts:
            phase = 0.0
            for i in inp.span(b0, b1):
                s = (inp.j0 + i) * DT
                ramp = min(1.0, (s - b0) / spin_up)  # the motor spins up
                phase += 2 * math.pi * hz * (0.5 + 0.5 * ramp) * DT
                f = (
                    amplitude
                    * ramp
                    * min(1.0, (b1 - s) / 0.05)
                    * (math.sin(phase) + 0.3 * math.sin(2 * phase))
                )
                for mode, gain in zip(inp.modes, gains, strict=True):
                    mode[i] += f * gain

    return _Event(t, bursts[-1][1] + DT, [(t, "phone buzzing")], fill)


def _bump(rng: random.Random, u: _Unit, t: float) -> _Event:
    shove = rng.random() < 0.35
    peak = rng.uniform(40.0, 200.0) if shove else rng.uniform(30.0, 200.0)
    duration = rng.uniform(0.2, 0.7) if shove else rng.uniform(0.05, 0.2)
    side, gains = _sideways(rng, u, 1.0), _couplings(rng, u, rng.uniform(0.3, 0.9))
    knee, knee_contact = 0.0 if shove else rng.uniform(0.1, 1.0), rng.uniform(0.005, 0.02)

    def fill(inp: _Inputs) -> None:
        for i in inp.span(t, t + duration):
            f = peak * math.sin(math.pi * ((inp.j0 + i) * DT - t) / duration)
            inp.sway[0][i] += f * side[0]
            inp.sway[1][i] += f * side[1]
        if knee:
            _add_pulse(inp, t, -knee, knee_contact, gains)  # a knee lifts the table from below

    return _Event(t, t + duration + DT, [(t, "table shoved" if shove else "table bumped")], fill)


def _lean(rng: random.Random, u: _Unit, t: float) -> _Event:
    gains, load = _couplings(rng, u, rng.uniform(0.3, 1.0)), rng.uniform(50.0, 400.0)
    rise, hold, fall = rng.uniform(0.3, 1.2), rng.uniform(1.5, 8.0), rng.uniform(0.2, 0.8)
    end = t + rise + hold + fall
    wander = [(rng.uniform(0.05, 0.15), 2 * math.pi * rng.uniform(0.2, 1.5), rng.uniform(0, 6.3))]
    wander.append(
        (rng.uniform(0.02, 0.06), 2 * math.pi * rng.uniform(0.5, 2.0), rng.uniform(0, 6.3))
    )
    elbows = (t + rise * rng.uniform(0.0, 0.5), rng.uniform(0.2, 1.5), rng.uniform(0.015, 0.04))
    angle = rng.uniform(0, 2 * math.pi)
    tilt_x, tilt_y = -math.sin(angle) * G, math.cos(angle) * G
    rock_at = load * rng.uniform(0.3, 0.8) if u.wobbly else math.inf
    rock, rock_gains = rng.uniform(0.001, 0.005), _couplings(rng, u, rng.uniform(0.5, 1.0))

    def load_at(s: float) -> float:
        if s < t + rise:
            level = 0.5 - 0.5 * math.cos(math.pi * (s - t) / rise)
        else:
            level = 0.5 + 0.5 * math.cos(math.pi * min(1.0, max(0.0, s - t - rise - hold) / fall))
        swing = sum(a * math.sin(w * (s - t) + p) for a, w, p in wander)
        return load * level * (1 + swing * min(1.0, level * 4))

    rocks: list[tuple[float, float]] = []  # (time, +1 onto the short leg, -1 back)
    s = t
    while s < end:
        if (load_at(s) > rock_at) != (len(rocks) % 2 == 1):
            rocks.append((s, 1.0 if len(rocks) % 2 == 0 else -1.0))
        s += 0.01

    def fill(inp: _Inputs) -> None:
        _add_pulse(inp, *elbows, gains)
        for when, _ in rocks:
            _add_pulse(inp, when + 0.02, rock * 150, 0.005, rock_gains)
        m0, m1, m2 = inp.modes
        for i in inp.span(t, end + 0.03):
            s = (inp.j0 + i) * DT
            f = load_at(s) if s < end else 0.0
            m0[i] += f * gains[0]
            m1[i] += f * gains[1]
            m2[i] += f * gains[2]
            tilt = u.tilt_per_newton * f
            for when, step in rocks:
                tilt += step * rock * min(1.0, max(0.0, (s - when) / 0.02))
            inp.extra[0][i] += tilt * tilt_x
            inp.extra[1][i] += tilt * tilt_y

    names = [(t, "leaning on the table")] + [(r, "table rocks") for r, _ in rocks]
    return _Event(t, end + 0.03, names, fill)


PRESS_STYLES = {  # approach m/s, force N, force built over s, hold s, release s, arm N/m
    "slap": ((0.15, 0.5), (6.0, 20.0), (0.04, 0.1), (0.03, 0.15), (0.05, 0.12), (400.0, 1500.0)),
    "press": ((0.04, 0.2), (4.0, 15.0), (0.06, 0.2), (0.08, 0.35), (0.08, 0.25), (250.0, 800.0)),
    "push": ((0.01, 0.05), (3.0, 12.0), (0.15, 0.5), (0.15, 0.8), (0.15, 0.5), (150.0, 500.0)),
}


def _hand(rng: random.Random, u: _Unit, stiffness: tuple[float, float]) -> _Episode:
    mass, arm = rng.uniform(0.08, 0.35), rng.uniform(*stiffness)
    off, angle = 0.015 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
    slant, slant_angle = rng.uniform(0.0, 0.25), rng.uniform(0, 2 * math.pi)
    params = (
        mass,
        arm,
        2 * rng.uniform(0.5, 1.0) * math.sqrt(arm * mass),
        u.dome[0] + off * math.cos(angle),
        u.dome[1] + off * math.sin(angle),
        slant * math.cos(slant_angle),
        slant * math.sin(slant_angle),
    )
    tremor = (
        rng.uniform(0.0001, 0.0006),
        2 * math.pi * rng.uniform(7.0, 12.0),
        rng.uniform(0, 6.3),
        rng.uniform(0.0005, 0.003),
        2 * math.pi * rng.uniform(0.4, 2.5),
        rng.uniform(0, 6.3),
    )
    return _Episode(params, tremor)


def _arrive(
    rng: random.Random, t: float, speed: float, depth: float, now: Vec | None = None
) -> _Path:
    """A hand coming down onto the dome at ``speed``, aiming ``depth`` below its top: from just
    above it, or from where it is ``now`` (height, speed)."""
    height = 0.001 + speed * rng.uniform(0.01, 0.03)
    if now is None:
        path = _Path(t, height, -speed)
    else:
        path = _Path(t, now[0], now[1]).move(
            max(0.04, 1.5 * (now[0] - height) / speed), height, -speed
        )
    return path.glide(-depth, (height + depth) / speed, height / speed + rng.uniform(0.005, 0.02))


def _press_group(rng: random.Random, u: _Unit, t: float, mix: list[float], count: int) -> _Event:
    style = rng.choices(list(PRESS_STYLES), mix)[0]
    if count > 1 and style == "push":
        style = "press"
    speeds, forces, builds, holds, releases, arms = PRESS_STYLES[style]
    episode = _hand(rng, u, arms)
    arm = episode.params[1]
    for k in range(count):
        depth, now = rng.uniform(*forces) / arm, episode.pieces[-1].path.at(t) if k else None
        if now is None or now[0] > 0.0005:
            path = _arrive(rng, t, rng.uniform(*speeds), depth, now)
        else:  # still on the dome from the last press
            path = _Path(t, now[0], now[1])
        path.move(rng.uniform(*builds), -depth).hold(rng.uniform(*holds))
        letting_go = path.end
        release = rng.uniform(*releases)
        if k < count - 1 and rng.random() < 0.5:  # stay on lightly for a moment
            depth = rng.uniform(0.5, 2.5) / arm
            path.move(release, -depth).hold(rng.uniform(0.3, 1.0))
        lift = rng.uniform(0.01, 0.05) if k == count - 1 else rng.uniform(0.003, 0.015)
        release_starts = path.end
        path.move(release * (1 + lift / depth), lift)
        episode.pieces.append(_Piece(path, press=True, release=letting_go))
        t = release_starts + rng.uniform(0.04, 0.3)
    return _Event(episode.start, episode.end, [], episode.fill, episode)


def _drumming(rng: random.Random, u: _Unit, t: float) -> Fill:
    """Fingers tapping on the unit's top while the palm rests on it."""
    taps, rate = rng.randint(4, 12), rng.uniform(4.0, 8.0)
    at_x, at_y = u.dome[0] + rng.uniform(-0.02, 0.02), u.dome[1] + rng.uniform(-0.02, 0.02)
    taps_at = [
        (t + k / rate, rng.uniform(0.003, 0.012), rng.uniform(0.003, 0.008)) for k in range(taps)
    ]

    def fill(inp: _Inputs) -> None:
        for when, impulse, duration in taps_at:
            peak = impulse * math.pi / (2 * duration)
            for i in inp.span(when, when + duration):
                f = peak * math.sin(math.pi * ((inp.j0 + i) * DT - when) / duration)
                inp.push[0][i] -= f
                inp.push[1][i] -= at_y * f
                inp.push[2][i] += at_x * f

    return fill


def _hand_rest(rng: random.Random, u: _Unit, t: float, presses: bool, mix: list[float]) -> _Event:
    episode = _hand(rng, u, (150.0, 500.0))
    arm = episode.params[1]
    depth, rest, speed = rng.uniform(1.0, 6.0) / arm, rng.uniform(1.0, 8.0), rng.uniform(0.01, 0.06)
    path = _arrive(rng, t, speed, depth)
    touch = path.end
    path.glide(-depth, (depth + path.value) / max(-path.speed, 1e-3), rest)
    path.move(rng.uniform(0.15, 0.5), rng.uniform(0.01, 0.04))
    episode.pieces.append(_Piece(path, press=False))
    fills: list[Fill] = [episode.fill]
    names = [(touch, "hand resting")]
    if presses and rng.random() < 0.35:  # then pushes without lifting the hand
        _, forces, builds, holds, _, _ = PRESS_STYLES[rng.choices(list(PRESS_STYLES), mix)[0]]
        when = touch + rng.uniform(0.4, max(0.5, rest - 0.6))
        for _ in range(rng.choices([1, 2], [3, 1])[0]):
            now = episode.pieces[-1].path.at(when)
            press = _Path(when, now[0], now[1]).move(
                rng.uniform(*builds), -depth - rng.uniform(*forces) / arm
            )
            press.hold(rng.uniform(*holds))
            letting_go = press.end
            press.move(rng.uniform(0.1, 0.4), -depth)
            back = press.end
            press.hold(rng.uniform(0.3, 1.5)).move(rng.uniform(0.15, 0.5), rng.uniform(0.01, 0.04))
            episode.pieces.append(_Piece(press, press=True, release=letting_go))
            when = back + rng.uniform(0.1, 0.5)
    elif rng.random() < 0.2:
        drum_at = touch + rng.uniform(0.2, max(0.3, rest - 2.0))
        fills.append(_drumming(rng, u, drum_at))
        names.append((drum_at, "fingers drumming"))

    def fill(inp: _Inputs) -> None:
        for part in fills:
            part(inp)

    return _Event(episode.start, episode.end, names, fill, episode)


def _side(
    reach: _Path,
    direction: tuple[float, float],
    params: tuple[float, ...],
    cross: _Path | None = None,
) -> Fill:
    """A finger or a hand moving along ``direction`` (and ``cross`` across it) at the side."""
    ux, uy = direction

    def fill(inp: _Inputs) -> None:
        span = inp.span(reach.start, reach.end)
        if span and span.start == inp.local(reach.start):
            inp.side_par[span.start] = params
        for i in span:
            t = (inp.j0 + i) * DT
            (s, v, _), (c, cv, _) = reach.at(t), cross.at(t) if cross else (0.0, 0.0, 0.0)
            inp.side[i] = (s * ux - c * uy, s * uy + c * ux, v * ux - cv * uy, v * uy + cv * ux)

    return fill


def _nudge(rng: random.Random, u: _Unit, t: float) -> _Event:
    angle, height = rng.uniform(0, 2 * math.pi), rng.uniform(-0.5 * u.footprint[2], u.dome[2])
    direction = (math.cos(angle), math.sin(angle))
    params = (rng.uniform(150.0, 600.0), rng.uniform(1.0, 5.0), *direction, height, 1.0)
    gap, speed = rng.uniform(0.002, 0.005), rng.uniform(0.03, 0.2)
    reach = _Path(t, -gap, speed).move(rng.uniform(0.06, 0.25), rng.uniform(0.002, 0.012))
    reach.move(rng.uniform(0.1, 0.3), -gap - 0.01)
    return _Event(t, reach.end, [(t + gap / speed, "nudged")], _side(reach, direction, params))


def _slide(rng: random.Random, u: _Unit, t: float) -> _Event:
    episode = _hand(rng, u, (200.0, 600.0))
    depth = rng.uniform(2.0, 8.0) / episode.params[1]
    path = _arrive(rng, t, rng.uniform(0.02, 0.08), depth)
    touch = path.end
    drag_at, duration = touch + rng.uniform(0.2, 0.6), rng.uniform(0.3, 1.5)
    angle, length = rng.uniform(0, 2 * math.pi), rng.uniform(0.03, 0.3)
    reach = _Path(drag_at, 0.0).move(duration, length)
    cross = _Path(drag_at, 0.0).move(duration, length * rng.uniform(-0.2, 0.2))
    path.glide(-depth, 0.05, drag_at + duration + rng.uniform(0.1, 0.4) - path.end)
    path.move(rng.uniform(0.15, 0.4), rng.uniform(0.01, 0.04))
    episode.pieces.append(_Piece(path, press=False))
    params = (rng.uniform(800.0, 2500.0), rng.uniform(5.0, 20.0), 1.0, 0.0, u.dome[2], 0.0)
    fills = [episode.fill, _side(reach, (math.cos(angle), math.sin(angle)), params, cross)]

    def fill(inp: _Inputs) -> None:
        for part in fills:
            part(inp)

    return _Event(episode.start, episode.end, [(touch, "slid")], fill, episode)


def _turn(rng: random.Random, u: _Unit, t: float) -> _Event:
    """Turned on the spot about a point near its centre, the feet chattering."""
    duration = rng.uniform(0.3, 1.2)
    yaw = _Path(t, 0.0).move(duration, rng.choice([-1, 1]) * rng.uniform(0.3, 3.1))
    arm_x = u.sensor_at[0] - rng.uniform(-0.02, 0.02)
    arm_y = u.sensor_at[1] - rng.uniform(-0.02, 0.02)
    peak_rate = 1.875 * abs(yaw.value) / duration
    chatter = [
        (rng.uniform(0.05, 0.4), 2 * math.pi * rng.uniform(25.0, 90.0), rng.uniform(0, 6.3), axis)
        for axis in (0, 1, 0, 1)
    ]

    def fill(inp: _Inputs) -> None:
        for i in inp.span(t, t + duration):
            s = (inp.j0 + i) * DT
            _, rate, accel = yaw.at(s)
            inp.extra[0][i] += -accel * arm_y - rate * rate * arm_x
            inp.extra[1][i] += accel * arm_x - rate * rate * arm_y
            for amplitude, w, phase, axis in chatter:
                inp.extra[axis][i] += amplitude * abs(rate) / peak_rate * math.sin(w * s + phase)

    return _Event(t, t + duration, [(t, "turned")], fill)


def _carry(rng: random.Random, u: _Unit, t: float, rest: tuple[float, float]) -> _Event:
    """Gripped, lifted, held or carried about, put down again (one edge first) and let go."""
    squeeze, lifting = rng.uniform(1.0, 4.0), rng.uniform(0.05, 0.2)
    grip_at = t + rng.uniform(0.1, 0.3)
    off = grip_at + lifting
    up, hold, down = rng.uniform(0.25, 0.7), rng.uniform(0.3, 4.0), rng.uniform(0.3, 0.8)
    landing, flight = off + up + hold + down, up + hold + down
    land_speed, let_go, moved = (
        _log_uniform(rng, 0.01, 0.15),
        rng.uniform(0.05, 0.3),
        rng.uniform(0.0, 0.6),
    )
    new_rest = [r + rng.uniform(-0.004, 0.004) * (1 + 10 * moved) for r in rest]
    tip = [rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05)]
    look = 1.2 if rng.random() < 0.3 else 0.2
    height = (
        _Path(off, 0.0).move(up, rng.uniform(0.03, 0.3)).hold(hold).move(down, 0.0, -land_speed)
    )
    heading = rng.uniform(0, 2 * math.pi)
    travel = _Path(off, 0.0).move(flight, moved)
    yaw = _Path(off, 0.0).move(flight, rng.uniform(-math.pi, math.pi))
    angles = [
        _Path(off, rest[k])
        .move(up, rest[k] + rng.uniform(-look, look))
        .hold(hold)
        .move(down, new_rest[k] + tip[k])
        for k in (0, 1)
    ]
    walk = moved > 0.3 and rng.random() < 0.5
    bob, step = (rng.uniform(1.0, 2.5) if walk else 0.0), 2 * math.pi * rng.uniform(1.6, 2.2)
    sways = [
        (rng.uniform(0.002, 0.01), 2 * math.pi * rng.uniform(0.4, 2.0), rng.uniform(0, 6.3))
        for _ in range(3)
    ]
    shakes = [
        (rng.uniform(0.1, 0.6), 2 * math.pi * rng.uniform(8.0, 12.0), rng.uniform(0, 6.3))
        for _ in range(3)
    ]
    wobble, wobble_w = rng.uniform(0.01, 0.05), 2 * math.pi * rng.uniform(0.3, 1.5)
    g_rest = _body_force(new_rest[0], new_rest[1], 0.0, 0.0, 0.0, 0.0)

    def fill(inp: _Inputs) -> None:
        held = inp.held = inp.held or [False] * inp.n
        lift, weight = inp.push[0], u.mass * G
        for i in inp.span(t, off):  # fingers squeeze it, then take its weight
            s = (inp.j0 + i) * DT
            lift[i] -= squeeze * min(1.0, (s - t) / 0.1)
            if s >= grip_at:
                lift[i] += (weight + squeeze) * (
                    0.5 - 0.5 * math.cos(math.pi * (s - grip_at) / lifting)
                )
        for i in inp.span(off, landing):
            s = (inp.j0 + i) * DT
            inside = math.sin(math.pi * (s - off) / flight) ** 2
            along = travel.at(s)[2]
            acc = [along * math.cos(heading), along * math.sin(heading), height.at(s)[2]]
            acc[2] += inside * bob * math.sin(step * (s - off))
            acc[1] += inside * 0.3 * bob * math.sin(0.5 * step * (s - off))
            for k, (amp, w, phase) in enumerate(sways + shakes):
                acc[k % 3] += inside * (-amp * w * w if k < 3 else amp) * math.sin(w * s + phase)
            tilt = inside * wobble * math.sin(wobble_w * (s - off))
            f = _body_force(
                angles[0].at(s)[0] + tilt, angles[1].at(s)[0] - tilt, yaw.at(s)[0], *acc
            )
            held[i] = True
            for axis in range(3):
                inp.extra[axis][i] += f[axis] - g_rest[axis]
        if 0 <= inp.local(landing) < inp.n:
            inp.touch[inp.local(landing)] = (-land_speed, tip[0], tip[1])
        for i in inp.span(landing, landing + let_go):
            s = (inp.j0 + i) * DT
            lift[i] += weight * (0.5 + 0.5 * math.cos(math.pi * (s - landing) / let_go))

    names = [(t, "picked up"), (landing, "put down")] + ([(off, "carried")] if walk else [])
    return _Event(t, landing + let_go, names, fill, rest=(off, new_rest[0], new_rest[1]))


TABLE_EVENTS: dict[Callable[[random.Random, _Unit, float], _Event], float] = {
    _knocks: 3.0,
    _fist_bangs: 1.2,
    _dice: 3.0,
    _set_down: 2.5,
    _phone: 1.2,
    _bump: 2.0,
    _lean: 1.5,
}
HAND_EVENTS = {"rest": 3.0, "nudge": 2.0, "slide": 1.2, "turn": 1.2, "carry": 1.0}
BLOWS = ("knock", "fist bang", "dice thrown", "book set down", "table bumped", "table shoved")


def _plan(rng: random.Random, u: _Unit, seconds: float, presses: bool) -> list[_Event]:
    """What happens: things on the table one after another, and what hands do to the unit."""
    table: list[_Event] = []
    rate, t = rng.uniform(1.5, 4.0) if presses else rng.uniform(3.0, 6.0), rng.uniform(0.5, 6.0)
    while (
        event := rng.choices(list(TABLE_EVENTS), list(TABLE_EVENTS.values()))[0](rng, u, t)
    ).end < seconds - 0.5:
        table.append(event)
        t = event.end + rng.expovariate(rate / 60)
    blows = [e.start for e in table if e.names[0][1] in BLOWS]
    mix = [rng.uniform(0.0, 1.0), rng.uniform(0.5, 1.5), rng.uniform(0.0, 1.0)]
    press_rate = rng.uniform(6.0, 13.0) / 1.5 if presses else 0.0
    other_rate = rng.uniform(1.0, 2.5) if presses else rng.uniform(2.0, 4.0)
    rest, hands, t = u.rest_tilt, [], rng.uniform(0.5, 4.0)
    while True:
        if rng.random() < press_rate / (press_rate + other_rate):
            later = [s for s in blows if t <= s < t + 8.0]
            if later and rng.random() < 0.25:  # while the table still moves
                t = later[0] + rng.uniform(0.05, 0.8)
            event = _press_group(rng, u, t, mix, rng.choices([1, 2, 3, 4], [6.0, 2.5, 1.0, 0.5])[0])
        else:
            kind = rng.choices(list(HAND_EVENTS), list(HAND_EVENTS.values()))[0]
            if kind == "rest":
                event = _hand_rest(rng, u, t, presses, mix)
            elif kind == "carry":
                event = _carry(rng, u, t, rest)
            else:
                event = {"nudge": _nudge, "slide": _slide, "turn": _turn}[kind](rng, u, t)
        if event.end > seconds - 0.5:
            return table + hands
        rest = event.rest[1:] if event.rest else rest
        hands.append(event)
        t = event.end + rng.expovariate((press_rate + other_rate) / 60)


def _at(out: _Out, pos: float) -> Vec:
    """``out`` at a fractional local step, linear between steps."""
    i = int(pos)
    frac, k = pos - i, i - out.first
    xs, ys, zs = out.x, out.y, out.z
    return (
        xs[k] + frac * (xs[k + 1] - xs[k]),
        ys[k] + frac * (ys[k + 1] - ys[k]),
        zs[k] + frac * (zs[k + 1] - zs[k]),
    )


def _label(
    sim: _Sim,
    inp: _Inputs,
    out: _Out,
    snapshot: list[float],
    first: int,
    press: tuple[_Episode, _Piece],
    times: list[float],
) -> float:
    """The first sample instant (s) at which the readings with and without the press differ by
    clearly more than the noise (failing that, where the difference reaches half its most)."""
    u = sim.unit
    threshold = max(2.5 * max(u.noise_g), 0.006)
    limit = min(len(out.x) - 1, first + LABEL_SEARCH_STEPS, inp.n)
    without, state, other = inp.without(*press, limit), list(snapshot), _Out(first)
    k = bisect.bisect_left(times, (inp.j0 + first) * DT)
    seen: list[tuple[float, float]] = []
    for i in range(first, limit, 40):
        stop = min(i + 40, limit)
        sim.run(state, without, i, stop, other)
        while k < len(times) and (pos := times[k] * SIM_HZ - inp.j0) < stop - 1:
            a, b = _at(out, pos), _at(other, pos)
            change = max(abs(sum(r[c] * (a[c] - b[c]) for c in range(3))) for r in u.reading)
            if change > threshold:
                return times[k]
            seen.append((times[k], change))
            k += 1
    most = max((c for _, c in seen), default=0.0)
    return next((t for t, c in seen if c >= 0.5 * most), (inp.j0 + first) * DT)


def _simulate(
    sim: _Sim, events: list[_Event], times: list[float], seconds: float
) -> tuple[list[tuple[int, _Out]], list[tuple[float, float]]]:
    """Run the unit through each stretch in which something happens; label the presses (their
    onset and release, s)."""
    total = int(seconds * SIM_HZ) + 1
    groups: list[tuple[int, int, list[_Event]]] = []
    for event in sorted(events, key=lambda e: e.start):
        j0, j1 = math.floor(event.start * SIM_HZ), math.ceil(event.end * SIM_HZ) + 1
        if groups and j0 <= groups[-1][1]:
            groups[-1] = (groups[-1][0], max(groups[-1][1], j1), [*groups[-1][2], event])
        else:
            groups.append((j0, j1, [event]))
    state, stretches, labels = _rest_state(), [], []
    for g, (j0, j1, group) in enumerate(groups):
        following = groups[g + 1][0] if g + 1 < len(groups) else total
        inp = _Inputs(j0, min(following, j1 + MAX_TAIL_STEPS, total) - j0)
        for event in group:
            event.fill(inp)
        presses = sorted(
            (
                (min(max(inp.local(p.path.start), 0), inp.n), (e.episode, p))
                for e in group
                if e.episode
                for p in e.episode.pieces
                if p.press
            ),
            key=lambda item: item[0],
        )
        out, snapshots, i = _Out(0), [], 0
        for first, _ in presses:
            sim.run(state, inp, i, first, out)
            snapshots.append(list(state))
            i = first
        sim.run(state, inp, i, min(j1 - j0, inp.n), out)
        i = min(j1 - j0, inp.n)
        while i < inp.n and not sim.still(state, out):
            sim.run(state, inp, i, min(i + 100, inp.n), out)
            i = min(i + 100, inp.n)
        if i < following - j0:  # it has settled (or rung long enough): back to rest
            state = _rest_state()
        stretches.append((j0, out))
        for (first, press), snapshot in zip(presses, snapshots, strict=True):
            onset = _label(sim, inp, out, snapshot, first, press, times)
            labels.append((onset, press[1].release))
    return stretches, labels


def _sample_instants(u: _Unit, rng: random.Random, seconds: float) -> list[float]:
    """When the sensor samples (s): on its own clock, off and drifting."""
    error, drift, period, _ = u.clock
    times, t, phase = [], rng.uniform(0.0, 1.0 / ODR_HZ), rng.uniform(0, 2 * math.pi)
    while t < seconds:
        times.append(t)
        t += (1 + error + drift * math.sin(2 * math.pi * t / period + phase)) / ODR_HZ
    return times


def _kept(u: _Unit, rng: random.Random, count: int) -> list[bool]:
    """Which samples the firmware read in time: now and then it is late and some are lost."""
    kept, mean = [True] * count, u.clock[3] * ODR_HZ
    k = int(rng.expovariate(1 / mean))
    while k < count:
        lost = rng.choices([1, rng.randint(2, 3), rng.randint(4, 8)], [70, 25, 5])[0]
        kept[k : k + lost] = [False] * len(kept[k : k + lost])
        k += lost + int(rng.expovariate(1 / mean))
    return kept


def _readings(
    u: _Unit,
    rng: random.Random,
    times: list[float],
    stretches: list[tuple[int, _Out]],
    rests: list[tuple[float, float, float]],
) -> list[Vec]:
    """What the LIS3DH reports at each instant: gravity and motion through its gains and offsets,
    with its noise (through its own low-pass), in 4 mg steps within +-8 g."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = u.reading
    o0, o1, o2 = u.offset_g
    rho = math.exp(-2 * math.pi * u.bandwidth_hz / ODR_HZ)
    s0, s1, s2 = (s * math.sqrt(1 - rho * rho) for s in u.noise_g)
    gauss = rng.gauss
    n0, n1, n2 = (gauss(0.0, s) for s in u.noise_g)
    counts, full = 1 / LSB_G, round(FULL_SCALE_G / LSB_G)
    changes, gravity = sorted(rests), _body_force(*u.rest_tilt, 0.0, 0.0, 0.0, 0.0)
    bounds = [(j0, j0 + len(out.x) - 1) for j0, out in stretches]
    readings: list[Vec] = []
    s = c = 0
    for t in times:
        while c < len(changes) and changes[c][0] <= t:
            gravity = _body_force(changes[c][1], changes[c][2], 0.0, 0.0, 0.0, 0.0)
            c += 1
        pos = t * SIM_HZ
        while s < len(bounds) and pos >= bounds[s][1]:
            s += 1
        fx, fy, fz = gravity
        if s < len(bounds) and pos >= bounds[s][0]:
            dx, dy, dz = _at(stretches[s][1], pos - bounds[s][0])
            fx, fy, fz = fx + dx, fy + dy, fz + dz
        n0 = rho * n0 + s0 * gauss(0.0, 1.0)
        n1 = rho * n1 + s1 * gauss(0.0, 1.0)
        n2 = rho * n2 + s2 * gauss(0.0, 1.0)
        c0 = round((m00 * fx + m01 * fy + m02 * fz + o0 + n0) * counts)
        c1 = round((m10 * fx + m11 * fy + m12 * fz + o1 + n1) * counts)
        c2 = round((m20 * fx + m21 * fy + m22 * fz + o2 + n2) * counts)
        readings.append(
            (
                max(-full, min(full, c0)) / counts,
                max(-full, min(full, c1)) / counts,
                max(-full, min(full, c2)) / counts,
            )
        )
    return readings


def session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace:
    """``seconds`` of one popper (``unit``) at a table; ``seed`` picks what happens."""
    u = _draw_unit(unit)
    happening = "play" if presses else "quiet"
    events = _plan(random.Random(f"softpress:session:{seed}:{happening}"), u, seconds, presses)
    sensor = random.Random(f"softpress:sensor:{unit}:{seed}:{happening}")
    times = _sample_instants(u, sensor, seconds)
    stretches, labels = _simulate(_Sim(u), events, times, seconds)
    readings = _readings(u, sensor, times, stretches, [e.rest for e in events if e.rest])
    kept = _kept(u, sensor, len(times))
    names = [(t, name) for e in events for t, name in e.names] + [(t, "press") for t, _ in labels]
    labels.sort()
    return Trace(
        t_ms=[round(t * 1000, 3) for t, k in zip(times, kept, strict=True) if k],
        samples_g=[r for r, k in zip(readings, kept, strict=True) if k],
        press_times_ms=[round(t * 1000, 3) for t, _ in labels],
        kind=NAME,
        seed=seed,
        events=sorted((round(t * 1000, 3), name) for t, name in names),
        releases_ms=[round(release * 1000, 3) for _, release in labels],
    )
