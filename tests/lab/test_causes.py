"""popdice_lab.causes: false presses and misses put next to what the model made happen."""

from __future__ import annotations

from popdice.traces.scoring import Score, score
from popdice_lab.causes import AFTER_PRESS, ALONE, NOTHING, Causes, attribute, kind_of
from popdice_lab.crossfamily import recording
from popdice_lab.families import family

T_MS = [2.5 * k for k in range(8000)]  # 20 s at 400 Hz


def at(ms: float) -> int:
    return round(ms / 2.5)


def test_false_presses_go_to_the_press_before_them_or_to_the_last_event() -> None:
    onsets = [1000.0, 9000.0]
    events = [(900.0, "knock"), (5000.0, "dice"), (9000.0, "press"), (12000.0, "slam")]
    found = [at(1002.5), at(1400.0), at(6000.0), at(12500.0), at(18000.0), at(9005.0)]
    causes = attribute(score(T_MS, found, onsets), onsets, events)
    assert causes.false_by_cause == {AFTER_PRESS: 1, "dice": 1, "slam": 1, NOTHING: 1}
    # the first press was found (at 1002.5), the second too (at 9005): no misses
    assert sum(causes.missed_by_context.values()) == 0
    assert causes.presses_by_context == {"knock": 1, ALONE: 1}


def test_a_missed_press_counts_against_its_context() -> None:
    onsets = [1000.0, 4000.0, 7000.0]
    events = [(3000.0, "knock"), (6900.0, "knock")]
    causes = attribute(score(T_MS, [at(1000.0)], onsets), onsets, events)
    assert causes.presses_by_context == {ALONE: 1, "knock": 2}
    assert causes.missed_by_context == {"knock": 2}
    false, missed = causes.summary()
    assert false == "none"
    assert missed == "knock 2/2, alone 0/1"


def test_events_count_by_kind_and_a_recorded_press_is_not_one() -> None:
    onsets, releases = [5000.0], [5200.0]
    events = [(4000.0, "knock 3.49 g"), (5000.0, "press 1.2 g"), (8000.0, "fingers drumming")]
    found = [at(4500.0), at(8500.0)]
    causes = attribute(score(T_MS, found, onsets, releases), onsets, events, releases)
    assert causes.false_by_cause == {"knock": 1, "fingers drumming": 1}
    assert causes.presses_by_context == {"knock": 1}
    assert causes.missed_by_context == {"knock": 1}


def test_a_false_press_in_a_long_hold_or_after_its_release_goes_to_that_press() -> None:
    onsets, releases = [1000.0, 10000.0], [3000.0, 10300.0]
    events = [(2000.0, "dice"), (11500.0, "knock")]
    # in the hold, 0.8 s after the release, and 1.5 s after the second release (a knock's)
    result = Score(false_ms=[2500.0, 3800.0, 11800.0])
    causes = attribute(result, onsets, events, releases)
    assert causes.false_by_cause == {AFTER_PRESS: 2, "knock": 1}
    # without the releases a press is over a second after its onset: the dice take them
    unreleased = attribute(result, onsets, events)
    assert unreleased.false_by_cause == {"dice": 2, "knock": 1}


def test_causes_add_up() -> None:
    one = attribute(score(T_MS, [at(3000.0)], []), [], [(2000.0, "cup")])
    total = Causes()
    total.add(one)
    total.add(one)
    assert total.false_by_cause == {"cup": 2}


def test_model_sessions_carry_their_events_but_not_their_presses() -> None:
    trace = family("springmass").session(1, 1, 30.0, True)
    made = recording("springmass/u1", trace)
    assert made.onsets_ms == list(trace.press_times_ms)
    assert made.releases_ms == list(trace.releases_ms)
    assert made.events and all(what != "press" for _, what in made.events)
    assert len(made.events) == sum(1 for _, what in trace.events if what != "press")
    halves = made.cut(2)
    assert sum(len(half.events) for half in halves) == len(made.events)


def test_a_model_that_sizes_its_presses_does_not_pass_them_off_as_events() -> None:
    trace = family("table").session(1, 1, 30.0, True)
    assert any(what.startswith("press ") for _, what in trace.events)  # "press 1.11 g"
    made = recording("table/u1", trace)
    assert made.events and all(kind_of(what) != "press" for _, what in made.events)
