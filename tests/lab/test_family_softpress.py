"""The softpress model family: deterministic sessions of LIS3DH readings, quiet sessions without
presses, a plausible number of presses in play, and labels where the press starts to show."""

from __future__ import annotations

import bisect
import math
import statistics

import pytest

from popdice.traces.trace import Trace
from popdice_lab.families import family

softpress = family("softpress")

SECONDS = 120.0


@pytest.fixture(scope="module")
def play() -> list[Trace]:
    return [softpress.session(unit, 40 + unit, SECONDS) for unit in (0, 3, 7)]


@pytest.fixture(scope="module")
def quiet() -> list[Trace]:
    return [softpress.session(unit, 40 + unit, SECONDS, presses=False) for unit in (0, 3, 7)]


def test_the_family_names_itself() -> None:
    assert softpress.NAME == "softpress"
    assert softpress.SUMMARY and "\n" not in softpress.SUMMARY


def test_the_same_arguments_give_the_same_trace() -> None:
    assert softpress.session(2, 9, 20.0) == softpress.session(2, 9, 20.0)
    quiet = softpress.session(2, 9, 20.0, presses=False)
    assert quiet == softpress.session(2, 9, 20.0, presses=False)


def test_units_differ_and_seeds_differ() -> None:
    first = softpress.session(1, 5, 20.0)
    other_unit = softpress.session(2, 5, 20.0)
    other_seed = softpress.session(1, 6, 20.0)
    assert first.samples_g != other_unit.samples_g
    assert first.samples_g[:400] != other_unit.samples_g[:400]  # a different popper at rest
    assert first.events != other_seed.events


def test_quiet_sessions_have_events_but_no_presses(quiet: list[Trace]) -> None:
    for trace in quiet:
        assert trace.press_times_ms == []
        assert all(name != "press" for _, name in trace.events)
        assert len(trace.events) >= 2 * SECONDS / 60  # several a minute


def test_play_has_a_plausible_number_of_presses(play: list[Trace]) -> None:
    rates = [len(trace.press_times_ms) / (SECONDS / 60) for trace in play]
    assert all(2 <= rate <= 25 for rate in rates), rates
    assert 5 <= statistics.mean(rates) <= 15, rates
    for trace in play:
        pressed = sorted(t for t, name in trace.events if name == "press")
        assert pressed == trace.press_times_ms
        assert any(name != "press" for _, name in trace.events)


def test_readings_are_lis3dh_readings(play: list[Trace], quiet: list[Trace]) -> None:
    for trace in play + quiet:
        assert len(trace.samples_g) == len(trace.t_ms)
        for sample in trace.samples_g:
            assert len(sample) == 3
            for value in sample:
                assert -8.0 <= value <= 8.0
                assert abs(value * 250 - round(value * 250)) < 1e-6  # 4 mg steps
                assert round(value, 3) == value


def test_time_increases_at_the_sensor_rate_and_gaps_are_rare(
    play: list[Trace], quiet: list[Trace]
) -> None:
    for trace in play + quiet:
        steps = [b - a for a, b in zip(trace.t_ms, trace.t_ms[1:], strict=False)]
        assert all(step > 0 for step in steps)
        period = statistics.median(steps)
        assert 2.5 * 0.98 <= period <= 2.5 * 1.02
        gaps = sum(1 for step in steps if step > 1.5 * period)
        assert gaps <= 0.002 * len(steps)
        assert 0.0 <= trace.t_ms[0] < 2.6 and trace.t_ms[-1] < SECONDS * 1000
        assert len(trace.t_ms) > 0.97 * SECONDS * 400


def test_the_unit_at_rest_reads_about_one_g(quiet: list[Trace]) -> None:
    for trace in quiet:
        magnitudes = [math.hypot(*sample) for sample in trace.samples_g]
        assert 0.88 <= statistics.median(magnitudes) <= 1.12
        axes = [statistics.median(s[axis] for s in trace.samples_g) for axis in range(3)]
        calm = [s for s in trace.samples_g if max(abs(s[a] - axes[a]) for a in range(3)) < 0.05]
        assert len(calm) > 0.8 * len(trace.samples_g)  # mostly still
        spread = statistics.pstdev(s[2] - axes[2] for s in calm)
        assert 0.001 < spread < 0.012  # the sensor's noise, not motion


def _departure(trace: Trace, label: float) -> int | None:
    """Samples from the label to where the reading first leaves its level before the label by
    clearly more than its noise there (None: it never does within 100 ms)."""
    k = bisect.bisect_left(trace.t_ms, label)
    before = trace.samples_g[k - 43 : k - 3]
    level = [statistics.median(s[a] for s in before) for a in range(3)]
    noise = max(statistics.pstdev(s[a] for s in before) for a in range(3))
    threshold = max(3.5 * noise, 0.012)
    for j in range(k - 10, min(k + 40, len(trace.samples_g))):
        if max(abs(trace.samples_g[j][a] - level[a]) for a in range(3)) > threshold:
            return j - k
    return None


def test_labels_sit_where_the_signal_starts_to_move(play: list[Trace]) -> None:
    offsets = []
    for trace in play:
        others = [t for t, name in trace.events if name != "press"]
        for label in trace.press_times_ms:
            near = [t for t in others + trace.press_times_ms if t != label]
            if any(-1500 < label - t < 300 for t in near) or label < 1000:
                continue
            offsets.append(_departure(trace, label))
    assert len(offsets) >= 15
    on_time = sum(1 for d in offsets if d is not None and -1 <= d <= 1)
    early = sum(1 for d in offsets if d is not None and d < -1)
    assert on_time >= 0.7 * len(offsets), offsets
    assert early <= 0.15 * len(offsets), offsets


def test_presses_are_mostly_soft_but_felt(play: list[Trace]) -> None:
    peaks = []
    for trace in play:
        for label in trace.press_times_ms:
            k = bisect.bisect_left(trace.t_ms, label)
            level = [
                statistics.median(s[a] for s in trace.samples_g[k - 43 : k - 3]) for a in range(3)
            ]
            window = trace.samples_g[k : k + 120]
            peaks.append(max(math.dist(s, level) for s in window))
    assert statistics.median(peaks) < 1.0  # often well under 1 g
    assert sum(1 for p in peaks if p > 0.03) > 0.8 * len(peaks)


def test_short_sessions_work() -> None:
    trace = softpress.session(4, 1, 1.0)
    assert trace.kind == "softpress" and trace.seed == 1
    assert 380 <= len(trace.t_ms) <= 420
    assert softpress.session(4, 1, 0.0).t_ms == []
