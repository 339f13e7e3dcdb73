"""Labelled traces: sessions at the table put together from the events of ``mechanics.py``
and read through a LIS3DH (``sensor.py``).

``trace(kind, seed, seconds)`` is deterministic: the same arguments give the same trace (on
another platform's maths library a rare sample may differ by a 4 mg step). A trace opens with
a second of the unit resting, so a detector can settle. ``press_trace`` and ``knock_trace``
and ``carry_trace`` give one event on an upright unit at exactly 400 Hz, for the simulated
LIS3DH.

Kinds with presses (labelled with each press's onset and its release, the instant the dome
snaps back: ``Trace.releases_ms``):
- ``presses``: single presses, 1-5 s after the last one's release (one per turn);
- ``bursts``: 2-5 presses in quick succession (the next 0.1-0.5 s after the release);
- ``press_after_knock``: a knock on the table (at most 2 g), then a press 0.2-1 s later;
- ``press_in_buzz``: a press while a phone buzzes beside the unit;
- ``press_in_lean``: a press while someone leans on the table.
In all of these a quarter of the steps are something else instead (any of the kinds below).

Kinds without presses: ``knocks``, ``bumps``, ``handling`` (pick up, hold or carry, put
down), ``buzzing`` (calls and notifications), ``leaning``, and ``mixed`` (all of these, and
the phone buzzing through some of the knocks).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from ...traces.trace import Trace
from . import mechanics
from .geometry import UP, Vec
from .mechanics import Motion
from .sensor import IDEAL_NOISE_G, Lis3dh, sample_times

PRESS_KINDS = (
    "presses",
    "bursts",
    "press_after_knock",
    "press_in_buzz",
    "press_in_lean",
)
OTHER_KINDS = ("knocks", "bumps", "handling", "buzzing", "leaning", "mixed")
KINDS = PRESS_KINDS + OTHER_KINDS
LEAD_IN_MS = 1000.0
LEAD_OUT_MS = 2000.0
PRESS_SECONDS = 1.6  # a single press's trace, at least
AFTER_RELEASE_MS = 200.0  # and at least this long after its release (its pop and ringing)
OTHER_SHARE = 0.25
TIME_DECIMALS = 1


class _Session:
    """One trace being made: the motion, the presses so far, and a clock of what is next."""

    def __init__(
        self, rng: random.Random, seconds: float, up: Vec, steady_clock: bool = False
    ) -> None:
        self.rng = rng
        times = sample_times(rng, seconds, steady_clock)
        self.motion = Motion(times, up, mechanics.Mount.random(rng))
        self.presses: list[float] = []
        self.releases: list[float] = []
        self.events: list[tuple[float, str]] = []
        self.end_ms = self.motion.end_ms - LEAD_OUT_MS

    def press(self, at_ms: float, peak_g: float | None = None) -> float:
        if peak_g is None:
            peak_g = mechanics.press_strength(self.rng)
        self.presses.append(round(at_ms, TIME_DECIMALS))
        release = mechanics.press(self.motion, self.rng, at_ms, peak_g)
        self.releases.append(round(release, TIME_DECIMALS))
        self.note(at_ms, f"press {peak_g:.2f} g")
        self.note(release, "release")
        return release

    def knock(self, at_ms: float, peak_g: float | None = None) -> float:
        if peak_g is None:
            peak_g = mechanics.knock_strength(self.rng)
        self.note(at_ms, f"knock {peak_g:.2f} g")
        return mechanics.knock(self.motion, self.rng, at_ms, peak_g)

    def buzz(self, at_ms: float, length_ms: float, level_g: float | None = None) -> None:
        if level_g is None:
            level_g = mechanics.buzz_level(self.rng)
        self.note(at_ms, f"buzz {level_g:.2f} g")
        mechanics.buzz(self.motion, self.rng, at_ms, length_ms, level_g)

    def lean(self, at_ms: float) -> float:
        self.note(at_ms, "lean")
        return mechanics.lean(self.motion, self.rng, at_ms)

    def note(self, at_ms: float, what: str) -> None:
        self.events.append((round(at_ms, TIME_DECIMALS), what))

    def gap(self, low_ms: float, high_ms: float) -> float:
        return self.rng.uniform(low_ms, high_ms)


# --- the steps of a session: each starts at ``at`` and returns when the next may start


def _single_press(s: _Session, at: float) -> float:
    return s.press(at) + s.gap(1000.0, 5000.0)


def _burst(s: _Session, at: float) -> float:
    strength = mechanics.press_strength(s.rng)
    for _ in range(s.rng.randint(2, 5)):
        at = s.press(at, strength) + s.gap(100.0, 500.0)
        strength = mechanics.burst_strength(s.rng, strength)
    return at + s.gap(300.0, 2000.0)


def _press_after_knock(s: _Session, at: float) -> float:
    s.knock(at, min(mechanics.knock_strength(s.rng), 2.0))
    return s.press(at + s.gap(200.0, 1000.0)) + s.gap(300.0, 2500.0)


def _press_in_buzz(s: _Session, at: float) -> float:
    length = s.gap(800.0, 4000.0)
    s.buzz(at, length)
    released = s.press(at + s.gap(100.0, length - 100.0))
    return max(at + length, released) + s.gap(300.0, 2500.0)


def _press_in_lean(s: _Session, at: float) -> float:
    over = s.lean(at)
    s.press(at + s.gap(2500.0, 4000.0))
    return over + s.gap(300.0, 2000.0)


def _knock(s: _Session, at: float) -> float:
    return s.knock(at) + s.gap(100.0, 3000.0)


def _bump(s: _Session, at: float) -> float:
    s.note(at, "bump")
    return mechanics.bump(s.motion, s.rng, at) + s.gap(500.0, 4000.0)


def _handling(s: _Session, at: float) -> float:
    s.note(at, "pick up")
    landed = mechanics.handle(s.motion, s.rng, at)
    s.note(landed, "put down")
    return landed + s.gap(800.0, 5000.0)


def _buzzing(s: _Session, at: float) -> float:
    level = mechanics.buzz_level(s.rng)
    if s.rng.random() < 0.5:
        bursts, on, off = s.rng.randint(2, 8), (400.0, 1500.0), (300.0, 1000.0)
    else:
        bursts, on, off = s.rng.randint(1, 3), (80.0, 400.0), (100.0, 400.0)
    for _ in range(bursts):
        length = s.gap(*on)
        s.buzz(at, length, level)
        at += length + s.gap(*off)
    return at + s.gap(500.0, 6000.0)


def _leaning(s: _Session, at: float) -> float:
    return s.lean(at) + s.gap(500.0, 4000.0)


def _knocks_in_buzz(s: _Session, at: float) -> float:
    length = s.gap(1000.0, 5000.0)
    s.buzz(at, length)
    s.knock(at + s.gap(0.0, length))
    return at + length + s.gap(500.0, 3000.0)


Step = Callable[[_Session, float], float]
_OTHERS: list[tuple[Step, float]] = [
    (_knock, 0.45),
    (_bump, 0.05),
    (_handling, 0.12),
    (_buzzing, 0.18),
    (_leaning, 0.10),
    (_knocks_in_buzz, 0.10),
]
_STEPS: dict[str, list[tuple[Step, float]]] = {
    "presses": [(_single_press, 1.0)],
    "bursts": [(_burst, 1.0)],
    "press_after_knock": [(_press_after_knock, 1.0)],
    "press_in_buzz": [(_press_in_buzz, 1.0)],
    "press_in_lean": [(_press_in_lean, 1.0)],
    "knocks": [(_knock, 1.0)],
    "bumps": [(_bump, 0.7), (_knock, 0.3)],
    "handling": [(_handling, 1.0)],
    "buzzing": [(_buzzing, 1.0)],
    "leaning": [(_leaning, 1.0)],
    "mixed": _OTHERS,
}


def _pick(rng: random.Random, steps: list[tuple[Step, float]]) -> Step:
    return rng.choices([step for step, _ in steps], [weight for _, weight in steps])[0]


def trace(kind: str, seed: int, seconds: float = 60.0) -> Trace:
    """``seconds`` of a session of ``kind`` (see ``KINDS``), the same for the same seed."""
    if kind not in _STEPS:
        raise ValueError(f"unknown trace kind {kind!r} (choose from {', '.join(KINDS)})")
    rng = random.Random(f"popdice-traces:{kind}:{seed}")
    session = _Session(rng, seconds, mechanics.slope_up(rng))
    sensor = Lis3dh.random(rng)
    at = LEAD_IN_MS + rng.uniform(0.0, 500.0)
    while at < session.end_ms:
        if kind in PRESS_KINDS and rng.random() < OTHER_SHARE:
            step = _pick(rng, _OTHERS)
        else:
            step = _pick(rng, _STEPS[kind])
        at = step(session, at)
    labelled = [i for i, t in enumerate(session.presses) if t < session.motion.end_ms]
    return Trace(
        session.motion.t_ms,
        sensor.read(session.motion, rng),
        [session.presses[i] for i in labelled],
        kind,
        seed,
        sorted(session.events),
        [session.releases[i] for i in labelled],
    )


def _one_event(
    seed: int,
    seconds: float,
    kind: str,
    event: Callable[[_Session], None],
    noise_g: float = IDEAL_NOISE_G,
) -> Trace:
    rng = random.Random(f"popdice-traces:{kind}:{seed}")
    session = _Session(rng, seconds, UP, steady_clock=True)
    event(session)
    samples = Lis3dh.ideal(noise_g).read(session.motion, rng)
    return Trace(
        session.motion.t_ms,
        samples,
        session.presses,
        kind,
        seed,
        session.events,
        session.releases,
    )


def press_trace(
    seed: int = 0,
    peak_g: float | None = None,
    onset_ms: float = 800.0,
    seconds: float | None = None,
    noise_g: float = IDEAL_NOISE_G,
) -> Trace:
    """One press (and its release) on a unit resting upright on a level table: sensor z up,
    reading (0, 0, 1) g at rest like the simulated LIS3DH's resting vector, sampled at
    exactly 400 Hz (sample ``i`` at ``2.5 * i`` ms): feed ``samples_g`` to the simulated
    part. ``peak_g=None`` draws the strength like any press's (1-6 g, now and then a slam).
    ``seconds=None``: ``PRESS_SECONDS``, or longer where the hold is long, so that the trace
    holds the release and ``AFTER_RELEASE_MS`` after it (the first samples are the same).
    ``noise_g``: the part's noise, rms."""

    def press(s: _Session) -> None:
        s.press(onset_ms, peak_g)

    if seconds is not None:
        return _one_event(seed, seconds, "press", press, noise_g)
    longest_ms = onset_ms + mechanics.RELEASE_LONG_HOLD_MS[1] + AFTER_RELEASE_MS
    made = _one_event(seed, max(PRESS_SECONDS, longest_ms / 1000.0), "press", press, noise_g)
    end_ms = max(PRESS_SECONDS * 1000.0, made.releases_ms[0] + AFTER_RELEASE_MS)
    kept = sum(1 for t in made.t_ms if t < end_ms)
    return dataclasses.replace(made, t_ms=made.t_ms[:kept], samples_g=made.samples_g[:kept])


def knock_trace(
    seed: int = 0, peak_g: float | None = 2.0, onset_ms: float = 800.0, seconds: float = 1.6
) -> Trace:
    """One knock on the table beside a unit resting upright (as ``press_trace``), by default
    a strong one (2 g at the unit); ``peak_g=None`` draws it like any knock (0.02-6 g)."""

    def knock(s: _Session) -> None:
        s.knock(onset_ms, peak_g)

    return _one_event(seed, seconds, "knock", knock)


def carry_trace(seed: int = 0, onset_ms: float = 800.0, seconds: float = 6.0) -> Trace:
    """The unit beside ``press_trace``'s picked up, held or carried for 0.5-8 s and put down
    at a new heading (``mechanics.handle``); a trace that ends first cuts the carry short."""

    def carry(s: _Session) -> None:
        s.note(onset_ms, "pick up")
        s.note(mechanics.handle(s.motion, s.rng, onset_ms), "put down")

    return _one_event(seed, seconds, "carry", carry)
