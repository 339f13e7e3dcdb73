"""Every model family labels each press's release (``Trace.releases_ms``): one a press, after
its onset and before the next press, after a hold the family's own press allows, where the
release blow shows for the domes that click; and recording it changed no trace."""

from __future__ import annotations

import bisect
import hashlib
import math
import random
import statistics
from functools import cache

import pytest

from popdice.sim.physics.mechanics import RELEASE_HOLD_MS, RELEASE_LONG_HOLD_MS
from popdice.traces.trace import MAIN_BLOW_WINDOW_MS, Trace, main_blows_ms, step_g
from popdice_lab.families import FAMILY_MODULES, family

# The families' sessions as they were before releases were recorded (sha256 of samples,
# instants, onsets, kind, seed and events; first 16 hex digits), keyed by (family, unit, seed,
# seconds, presses): recording a release draws no random number, so no sample changes.
# (table's: since its sensor's noise was widened to the datasheet's, which changed its
# samples and nothing else; springmass's play: since a push at an angle bends the feet
# sideways instead of reading as a box sliding away, which changed its presses' samples.)
BEFORE = {
    ("table", 1, 1, 30.0, True): "cbf1901755034793",
    ("table", 2, 5, 30.0, True): "2724b422aab625dc",
    ("table", 1, 7, 60.0, False): "311a3c97f61f3503",
    ("snapdome", 1, 1, 30.0, True): "2cb3bcf147f808fa",
    ("snapdome", 2, 5, 30.0, True): "a59de663bf894d3f",
    ("snapdome", 1, 7, 60.0, False): "dd4bc8a2d4076e93",
    ("softpress", 1, 1, 30.0, True): "01eb74ee7aa22e31",
    ("softpress", 2, 5, 30.0, True): "4e041b1b9d2a156c",
    ("softpress", 1, 7, 60.0, False): "a2f38297cbc8ecad",
    ("springmass", 1, 1, 30.0, True): "dfc4953551afd2a6",
    ("springmass", 2, 5, 30.0, True): "a85df1955dafa017",
    ("springmass", 1, 7, 60.0, False): "a5f818787d8c3357",
    ("cushion", 1, 1, 30.0, True): "0045799734cc9350",
    ("cushion", 2, 5, 30.0, True): "9414589d2d57cd84",
    ("cushion", 1, 7, 60.0, False): "57bedc9454d58238",
}

# release - onset (ms) each family's press allows, from its own model:
HOLDS = {
    # 80-600 ms, now and then 0.6-1.5 s, from the blow to the snap back (each rounded to 0.1)
    "table": (RELEASE_HOLD_MS[0] - 0.2, RELEASE_LONG_HOLD_MS[1] + 0.2),
    # held 24-350 ms from the click to the finger letting go, the snap back after that; the
    # label may come before the click, by at most the finger's ramp (0.3 s)
    "snapdome": (24.0, 1000.0),
    # the force built over 40-500 ms and held 30-800 ms, from the first visible change
    "softpress": (20.0, 2000.0),
    # ramp 4-40 ms and hold 40-400 ms, fall 10-60 ms: from the force's start (or the click) to
    # its fall (or the snap back)
    "springmass": (40.0, 500.0),
    # held 30-600 ms at the bottom, from the first visible change to the snap back on the way
    # up at 50-300 mm/s
    "cushion": (10.0, 1500.0),
}

# The median, over presses, of the largest step in the 20 ms after the release over the
# largest in the 10-40 ms before it (the hold), for the domes that click: the snap back is a
# blow. (softpress's dome does not click: its force falls away over 50-600 ms, no blow.)
SNAP_BACK_SHOWS = {"table": 5.0, "snapdome": 10.0, "springmass": 1.5, "cushion": 1.5}

UNITS = (1, 2, 3, 4)


@cache
def play(name: str, unit: int) -> Trace:
    return family(name).session(unit, 2, 60.0)


def fingerprint(found: Trace) -> str:
    made = (found.t_ms, found.samples_g, found.press_times_ms, found.kind, found.seed, found.events)
    return hashlib.sha256(repr(made).encode()).hexdigest()[:16]


def test_every_family_is_covered() -> None:
    assert set(HOLDS) == set(FAMILY_MODULES) == {key[0] for key in BEFORE}


@pytest.mark.parametrize("key", sorted(BEFORE))
def test_recording_releases_changed_no_trace(key: tuple[str, int, int, float, bool]) -> None:
    name, unit, seed, seconds, presses = key
    assert fingerprint(family(name).session(unit, seed, seconds, presses)) == BEFORE[key]


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_each_press_has_a_release_after_it_and_before_the_next(name: str) -> None:
    low, high = HOLDS[name]
    presses = 0
    for unit in UNITS:
        found = play(name, unit)
        onsets, releases = found.press_times_ms, found.releases_ms
        assert len(releases) == len(onsets), unit
        presses += len(onsets)
        for i, (onset, release) in enumerate(zip(onsets, releases, strict=True)):
            assert low <= release - onset <= high, (unit, onset, release)
            if i + 1 < len(onsets):
                assert release < onsets[i + 1], (unit, onset, release)
    assert presses >= 20


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_quiet_sessions_have_no_releases(name: str) -> None:
    found = family(name).session(1, 3, 20.0, presses=False)
    assert found.press_times_ms == [] and found.releases_ms == []


@pytest.mark.parametrize("name", sorted(SNAP_BACK_SHOWS))
def test_the_snap_back_shows_where_it_is_labelled(name: str) -> None:
    ratios = []
    for unit in UNITS:
        if name == "springmass" and not family(name).Unit(unit).snap:
            continue  # a plain spring: its force falls away, no click
        found = play(name, unit)
        for release in found.releases_ms:
            if release + 20.0 <= found.t_ms[-1]:
                after = largest_step(found, release, release + 20.0)
                before = largest_step(found, release - 40.0, release - 10.0)
                ratios.append(after / max(before, 0.004))  # 4 mg: one step of the sensor
    assert len(ratios) >= 10
    assert statistics.median(ratios) >= SNAP_BACK_SHOWS[name]


def largest_step(found: Trace, start_ms: float, end_ms: float) -> float:
    first, last = bisect.bisect_left(found.t_ms, start_ms), bisect.bisect_right(found.t_ms, end_ms)
    return max((step_g(found, i) for i in range(first, last)), default=0.0)


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_main_blows_lie_within_40_ms_after_each_onset(name: str) -> None:
    for unit in UNITS[:2]:
        found = play(name, unit)
        blows = main_blows_ms(found)
        assert len(blows) == len(found.press_times_ms)
        for onset, blow in zip(found.press_times_ms, blows, strict=True):
            assert onset <= blow <= onset + MAIN_BLOW_WINDOW_MS, (unit, onset)


def test_springmass_releases_where_its_force_lets_the_dome_go() -> None:
    """The force springmass puts on the box: a snap dome stays down (at or over its trip
    force) from its click to its release and snaps back right after; a plain spring is held at
    its peak up to its release and falls from there."""
    springmass = family("springmass")
    at, rate = 0.5, springmass.STEP_HZ
    checked = {True: 0, False: 0}
    for number in range(1, 9):
        unit, rng = springmass.Unit(number), random.Random(number)
        for _ in range(8):
            world = springmass._World(3 * rate)
            onset, release = springmass._press(world, unit, rng, at)
            pushes = zip(world.press_force, world.press_side, strict=True)
            force = [math.hypot(down, side) for down, side in pushes]
            first, last = round(onset * rate), round(release * rate)
            clicked = onset > at
            if clicked:
                assert min(force[first : last + 1]) >= unit.trip_n - 1e-9, number
                assert force[last + 1] < unit.trip_n, number
            else:
                assert force[last - 1] == pytest.approx(max(force)), number
                assert force[last + 1] < max(force), number
            checked[clicked] += 1
    assert min(checked.values()) >= 10


def test_softpress_releases_where_the_hand_starts_to_let_go() -> None:
    """A softpress press's release is where the hand's commanded height, held still at its
    deepest, starts back up."""
    softpress = family("softpress")
    unit, rng = softpress._draw_unit(1), random.Random(5)
    pieces = []
    for k in range(30):
        group = softpress._press_group(rng, unit, 10.0 * k, [1.0, 1.0, 1.0], 1 + k % 3)
        rest = softpress._hand_rest(rng, unit, 10.0 * k + 5.0, True, [1.0, 1.0, 1.0])
        for event in (group, rest):
            pieces += [piece for piece in event.episode.pieces if piece.press]
    assert len(pieces) >= 50
    for piece in pieces:
        path = piece.path
        lowest = min(path.at(path.start + 0.001 * i)[0] for i in range(3000))
        height, speed, _ = path.at(piece.release - 0.002)
        assert height == pytest.approx(lowest, abs=1e-9) and speed == 0.0
        assert path.at(piece.release + 0.002)[1] > 0.0
