"""The spring-mass model family: deterministic, one unit the same in every session, quiet
sessions without presses, readings as the LIS3DH gives them, rare gaps, and labels that sit
where the signal starts to move (most within six samples)."""

from __future__ import annotations

import math

from popdice_lab.families import family

springmass = family("springmass")


def test_the_same_arguments_give_the_same_trace_and_units_differ() -> None:
    first = springmass.session(3, 7, 20.0)
    assert first == springmass.session(3, 7, 20.0)
    assert springmass.Unit(3).__dict__ == springmass.Unit(3).__dict__
    assert springmass.Unit(3).__dict__ != springmass.Unit(4).__dict__
    assert springmass.session(3, 8, 20.0).samples_g != first.samples_g


def test_quiet_sessions_have_no_presses_and_play_has_some() -> None:
    quiet = springmass.session(2, 1, 60.0, presses=False)
    assert quiet.press_times_ms == [] and len(quiet.events) >= 4
    counts = [len(springmass.session(u, 1, 60.0).press_times_ms) for u in range(1, 5)]
    assert all(5 <= count <= 30 for count in counts), counts


def test_readings_are_the_sensors_and_gaps_are_rare() -> None:
    made = springmass.session(5, 2, 60.0)
    for sample in made.samples_g[:2000]:
        for value in sample:
            assert abs(value) <= 8.0 and abs(value * 250 - round(value * 250)) < 1e-6
    steps = [b - a for a, b in zip(made.t_ms, made.t_ms[1:], strict=False)]
    assert all(step > 0 for step in steps)
    assert sum(step > 4.0 for step in steps) <= 10
    still = made.samples_g[:200]
    assert all(0.85 < math.dist(s, (0, 0, 0)) < 1.15 for s in still)


def test_labels_sit_where_the_signal_starts_to_move() -> None:
    moved_late = 0
    checked = 0
    for unit in range(1, 7):
        made = springmass.session(unit, 3, 40.0)
        t = made.t_ms
        for onset in made.press_times_ms:
            i = next(k for k, when in enumerate(t) if when >= onset)
            if i < 12:
                continue
            before = made.samples_g[i - 10 : i]
            after = made.samples_g[i : i + 6]
            base = before[-1]
            calm = max(math.dist(s, base) for s in before[-3:])
            moved = max(math.dist(s, base) for s in after)
            checked += 1
            moved_late += moved < max(0.03, 3 * calm)
    # A soft press whose force ramps up over tens of ms shows only later: about one in five.
    assert checked >= 30 and moved_late <= checked // 4


def test_a_steady_sideways_push_leaves_no_steady_sideways_reading() -> None:
    # Held still on its feet, the box does not accelerate: a steady push at an angle bends
    # the feet once and then reads nothing (before, it read as a box sliding away).
    unit = springmass.Unit(3)
    world = springmass._World(springmass.STEP_HZ)
    ramp = springmass.STEP_HZ // 50
    for k in range(len(world.press_side)):
        world.press_side[k] = 3.0 * min(1.0, max(0.0, (k - ramp) / ramp))
    motion = springmass._simulate(unit, world)
    settled = motion[3 * len(motion) // 4 :]
    assert max(abs(x) for x, _y, _z in settled) < 0.01
    assert max(abs(x) for x, _y, _z in motion[ramp : 2 * ramp]) > 0.1
