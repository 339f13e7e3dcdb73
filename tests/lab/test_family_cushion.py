"""The cushion family (a popper on a sofa cushion, a bed, a beanbag, a lap or in a hand):
determinism, the sensor's view of it, quiet sessions, how many presses, and labels where the
press starts to show in the trace."""

from __future__ import annotations

import bisect
import importlib
import math
import statistics
from types import ModuleType

import pytest

from popdice.traces.trace import Trace

cushion: ModuleType = importlib.import_module("popdice_lab.families.cushion")
SECONDS = 40.0
UNITS = range(4)


def magnitude(sample: tuple[float, float, float]) -> float:
    return math.sqrt(sum(value * value for value in sample))


@pytest.fixture(scope="module")
def play() -> list[Trace]:
    return [cushion.session(unit, 3, SECONDS) for unit in UNITS]


@pytest.fixture(scope="module")
def quiet() -> list[Trace]:
    return [cushion.session(unit, 3, SECONDS, presses=False) for unit in UNITS]


def starts_to_move(found: Trace, shift_ms: float = 0.0) -> float:
    """The share of labels (moved by ``shift_ms``) where the readings change within 4 samples
    after the label by more than twice what they did in the 5 samples before it."""
    s, moved, counted = found.samples_g, 0, 0
    for label in found.press_times_ms:
        i = bisect.bisect_left(found.t_ms, label + shift_ms)
        if 6 <= i < len(s) - 5:
            after = max(math.dist(s[j], s[i - 1]) for j in range(i, i + 5))
            before = max(math.dist(s[j], s[i - 6]) for j in range(i - 5, i))
            moved += after > 2.0 * before + 0.01
            counted += 1
    return moved / counted


def test_the_module_names_itself() -> None:
    assert cushion.NAME == "cushion"
    assert cushion.SUMMARY and "\n" not in cushion.SUMMARY


def test_same_arguments_same_trace_and_others_differ() -> None:
    first = cushion.session(2, 5, 15.0)
    assert first == cushion.session(2, 5, 15.0)
    assert first.kind == "cushion" and first.seed == 5
    assert cushion.session(3, 5, 15.0).samples_g != first.samples_g
    assert cushion.session(2, 6, 15.0).samples_g != first.samples_g


def test_quiet_sessions_have_events_and_no_presses(quiet: list[Trace]) -> None:
    for found in quiet:
        assert found.press_times_ms == []
        assert len(found.events) >= 2
        assert all(name != "press" for _, name in found.events)


def test_play_has_a_plausible_number_of_presses(play: list[Trace]) -> None:
    per_minute = [len(found.press_times_ms) * 60.0 / SECONDS for found in play]
    assert all(rate > 0 for rate in per_minute)
    assert 4.0 <= statistics.fmean(per_minute) <= 20.0
    for found in play:
        assert found.press_times_ms == sorted(found.press_times_ms)
        pressed = [t for t, name in found.events if name == "press"]
        assert pressed == found.press_times_ms
        assert found.t_ms[0] < found.press_times_ms[0] and found.press_times_ms[-1] < found.t_ms[-1]
        assert len(found.events) > len(pressed)  # disturbances among the presses


def test_readings_are_lis3dh_readings(play: list[Trace]) -> None:
    for found in play:
        assert len(found.t_ms) == len(found.samples_g)
        for sample in found.samples_g:
            for value in sample:
                assert -8.0 <= value <= 8.0
                assert abs(value / 0.004 - round(value / 0.004)) < 1e-6
                assert round(value, 3) == value


def test_instants_increase_and_gaps_are_rare(play: list[Trace], quiet: list[Trace]) -> None:
    for found in play + quiet:
        steps = [b - a for a, b in zip(found.t_ms, found.t_ms[1:], strict=False)]
        assert min(steps) > 0.0
        assert 2.5 / 1.025 < statistics.median(steps) < 2.5 / 0.975  # the clock within 2 %
        assert sum(step > 3.5 for step in steps) < 0.002 * len(steps)
        assert len(found.t_ms) == pytest.approx(SECONDS * 400, rel=0.03)


def test_at_rest_the_unit_reads_about_one_g(quiet: list[Trace]) -> None:
    for found in quiet:
        assert 0.85 < statistics.median(magnitude(s) for s in found.samples_g) < 1.15


def test_labels_sit_where_the_signal_starts_to_move(play: list[Trace]) -> None:
    assert statistics.fmean(starts_to_move(found) for found in play) > 0.85
    for shift_ms in (-20.0, 20.0):  # a label 8 samples early or late would not pass
        assert statistics.fmean(starts_to_move(found, shift_ms) for found in play) < 0.3


def test_presses_stand_clear_of_the_noise(play: list[Trace]) -> None:
    for found in play:
        s = found.samples_g
        for label in found.press_times_ms:
            i = bisect.bisect_left(found.t_ms, label)
            assert max(math.dist(s[j], s[i - 1]) for j in range(i, i + 40)) > 0.04
