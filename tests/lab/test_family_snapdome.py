"""The snapdome family: deterministic, LIS3DH-shaped readings, sane sessions, labels where the
signal starts to move."""

from __future__ import annotations

import bisect
import itertools
import math
from functools import cache

import pytest

from popdice.traces.trace import Trace
from popdice_lab.families import family

snapdome = family("snapdome")


@cache
def play(unit: int, seed: int = 1, seconds: float = 90.0) -> Trace:
    return snapdome.session(unit, seed, seconds)


@cache
def quiet(unit: int, seed: int = 1, seconds: float = 90.0) -> Trace:
    return snapdome.session(unit, seed, seconds, presses=False)


def test_module_names_itself() -> None:
    assert snapdome.NAME == "snapdome"
    assert isinstance(snapdome.SUMMARY, str) and 20 < len(snapdome.SUMMARY) < 200
    assert "\n" not in snapdome.SUMMARY


def test_same_arguments_same_trace() -> None:
    assert snapdome.session(3, 5, 20.0) == snapdome.session(3, 5, 20.0)


def test_units_and_seeds_differ() -> None:
    base = snapdome.session(3, 5, 20.0)
    assert snapdome.session(4, 5, 20.0).samples_g != base.samples_g
    other_seed = snapdome.session(3, 6, 20.0)
    assert other_seed.samples_g != base.samples_g
    assert other_seed.events != base.events


def test_a_unit_is_the_same_popper_in_every_session() -> None:
    assert snapdome.build_unit(7) == snapdome.build_unit(7)
    assert snapdome.build_unit(7) != snapdome.build_unit(8)


@pytest.mark.parametrize("unit", [0, 2])
def test_readings_are_lis3dh_readings(unit: int) -> None:
    trace = play(unit)
    assert len(trace.samples_g) == len(trace.t_ms) > 0
    for sample in trace.samples_g:
        assert len(sample) == 3
        for value in sample:
            assert -8.0 <= value <= 8.0
            steps = value / 0.004
            assert abs(steps - round(steps)) < 1e-6
            assert value == round(value, 3)


@pytest.mark.parametrize("unit", [0, 2])
def test_time_increases_at_about_400_hz_with_rare_gaps(unit: int) -> None:
    trace = play(unit)
    steps = [b - a for a, b in itertools.pairwise(trace.t_ms)]
    assert min(steps) > 0
    period = sorted(steps)[len(steps) // 2]
    assert 2.5 / 1.025 < period < 2.5 / 0.975
    gaps = sum(1 for step in steps if step > 1.5 * period)
    assert gaps < 0.01 * len(steps)
    assert trace.seconds == pytest.approx(90.0, abs=0.1)


def test_some_units_miss_samples_sometimes() -> None:
    traces = [snapdome.session(unit, 2, 120.0, presses=False) for unit in range(4)]
    assert any(max(b - a for a, b in itertools.pairwise(t.t_ms)) > 4.0 for t in traces)


@pytest.mark.parametrize("unit", [0, 2])
def test_the_unit_at_rest_reads_about_1_g(unit: int) -> None:
    trace = quiet(unit)
    magnitudes = sorted(math.sqrt(x * x + y * y + z * z) for x, y, z in trace.samples_g)
    assert 0.85 < magnitudes[len(magnitudes) // 2] < 1.15
    calm = magnitudes[len(magnitudes) // 4 : 3 * len(magnitudes) // 4]
    assert calm[-1] - calm[0] < 0.05  # most of the time it just sits there


@pytest.mark.parametrize("unit", [0, 2])
def test_quiet_sessions_have_events_but_no_presses(unit: int) -> None:
    trace = quiet(unit)
    assert trace.press_times_ms == []
    assert all(what != "press" for _, what in trace.events)
    assert 2 * 3 <= len(trace.events) <= 2 * 25  # several a minute


@pytest.mark.parametrize("unit", [0, 2])
def test_play_sessions_have_a_plausible_number_of_presses(unit: int) -> None:
    trace = play(unit, seconds=240.0)
    assert 4 * 4 <= len(trace.press_times_ms) <= 4 * 18
    assert trace.press_times_ms == sorted(trace.press_times_ms)
    labelled = [t for t, what in trace.events if what == "press"]
    assert labelled == trace.press_times_ms
    assert any(what != "press" for _, what in trace.events)
    assert trace.t_ms[0] <= trace.press_times_ms[0] and trace.press_times_ms[-1] <= trace.t_ms[-1]


def test_quiet_sessions_mix_many_kinds_of_disturbance() -> None:
    kinds = {what for unit in range(4) for _, what in quiet(unit).events}
    assert len(kinds) >= 8, kinds


def test_presses_come_in_series_too() -> None:
    gaps = [
        b - a
        for unit in range(4)
        for a, b in itertools.pairwise(play(unit, seconds=240.0).press_times_ms)
    ]
    assert any(gap < 600 for gap in gaps)


def _first_move(trace: Trace, label: float, threshold: float) -> float | None:
    """Samples from ``label`` to the first reading ``threshold`` g (as a vector) off the 100 ms
    before it."""
    t, s = trace.t_ms, trace.samples_g
    i = bisect.bisect_left(t, label)
    before = s[max(0, i - 40) : max(0, i - 4)]
    if len(before) < 20:
        return None
    base = [sorted(v[axis] for v in before)[len(before) // 2] for axis in range(3)]
    for k in range(i - 4, min(i + 40, len(t))):
        if math.dist(s[k], base) > threshold:
            return (t[k] - label) / 2.5
    return math.inf


def test_labels_sit_where_the_signal_starts_to_move() -> None:
    delays = []
    for unit in range(6):
        trace = play(unit, seconds=240.0)
        others = [t for t, what in trace.events if what != "press"]
        for label in trace.press_times_ms:
            if any(label - 4000 < t < label + 100 for t in others):
                continue  # something else moving the unit too
            if any(label - 600 < t < label for t in trace.press_times_ms):
                continue  # the press before may still ring
            delay = _first_move(trace, label, 0.06)  # clearly off: the label's own bar is 40 mg
            if delay is not None:
                delays.append(delay)
    assert len(delays) >= 40
    on_time = sum(1 for d in delays if -1.0 <= d <= 4.0)
    assert on_time >= 0.8 * len(delays), sorted(delays)
    early = sum(1 for d in delays if d < -1.0)  # moving clearly before the label
    assert early <= 0.03 * len(delays), sorted(delays)


def test_presses_stand_out_from_the_noise_and_knocks_shake_the_unit_too() -> None:
    trace = play(1, seconds=240.0)
    t, s = trace.t_ms, trace.samples_g

    def peak(onset: float) -> float:
        i, j = bisect.bisect_left(t, onset - 5), bisect.bisect_left(t, onset + 150)
        base = s[max(0, i - 20)]
        return max(math.dist(s[k], base) for k in range(i, j))

    presses = sorted(peak(label) for label in trace.press_times_ms)
    assert presses[len(presses) // 2] > 0.1
    knocks = [peak(on) for on, what in trace.events if what in ("knock", "fist_bang", "slam")]
    assert knocks and max(knocks) > 0.05
