"""Scoring pops against labelled presses: which pop matches which press, the latency from
each pop's due instant, pops that came in the hold, and what a fit pays for each."""

from __future__ import annotations

from popdice.traces.scoring import EARLY_MS, MATCH_AFTER_RELEASE_MS, PRESS_SPAN_MS, Score, score
from popdice.traces.tune import cost

PERIOD_MS = 2.5
T_MS = [PERIOD_MS * i for i in range(4000)]  # 10 s at 400 Hz
ONSETS = [1000.0, 5000.0]
RELEASES = [1300.0, 5400.0]


def at(ms: float) -> int:
    return round(ms / PERIOD_MS)


def test_a_pop_matches_its_press_until_40_ms_after_the_release() -> None:
    late = RELEASES[1] + MATCH_AFTER_RELEASE_MS + 10
    result = score(T_MS, [at(1310), at(late)], ONSETS, RELEASES, RELEASES)
    assert result.labelled == 2 and result.detected == 1
    assert result.latencies_ms == [10.0] and result.missed_ms == [5000.0]
    assert result.false_ms == [late]


def test_a_pop_in_the_hold_counts_0_ms_late_and_is_counted_early() -> None:
    in_the_hold = RELEASES[0] - 100
    just_before = RELEASES[1] - EARLY_MS + PERIOD_MS
    result = score(T_MS, [at(in_the_hold), at(just_before)], ONSETS, RELEASES, RELEASES)
    assert result.detected == 2 and result.latencies_ms == [0.0, 0.0]
    assert result.early == 1  # the one 2.5 ms before its release is on time
    both = Score()
    both.add(result)
    both.add(result)
    assert both.early == 2


def test_a_press_held_past_the_trace_takes_only_the_traces_time() -> None:
    end = T_MS[-1]
    held = score(T_MS, [], [end - 300.0], [end + 50_000.0])
    released = score(T_MS, [], [end - 300.0], [end])
    assert held.non_press_seconds == released.non_press_seconds
    assert abs(held.non_press_seconds - (held.seconds - (300.0 + PRESS_SPAN_MS) / 1000.0)) < 1e-9


def test_without_anchors_nothing_is_early() -> None:
    result = score(T_MS, [at(RELEASES[0] - 100)], ONSETS, RELEASES)
    assert result.detected == 1 and result.early == 0 and not result.timed


def test_a_fit_pays_for_a_pop_in_the_hold_as_for_a_missed_press() -> None:
    on_time = score(T_MS, [at(1305), at(5405)], ONSETS, RELEASES, RELEASES)
    early = score(T_MS, [at(1200), at(5405)], ONSETS, RELEASES, RELEASES)
    missed = score(T_MS, [at(5405)], ONSETS, RELEASES, RELEASES)
    assert cost(on_time) < cost(early) == cost(missed)
    # a pop in the hold is a release taken from the hold's shaking, like a false press: it
    # is counted from the settings with their gates made looser
    assert cost(on_time, early) == cost(early) and cost(early, on_time) == cost(on_time)
