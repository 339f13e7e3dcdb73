"""The physical model and its traces: determinism, the sensor's view (4 mg steps, +-8 g,
jittered instants, any orientation), the physics of presses against knocks, the files, and
the firmware's detector inside MicroPython over single-event traces."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from popdice.sim.physics import KINDS, knock_trace, press_trace, trace
from popdice.sim.physics.scenes import AFTER_RELEASE_MS
from popdice.sim.physics.sensor import quantise_g
from popdice.traces.files import (
    TraceError,
    read_labels,
    read_trace,
    write_labels,
    write_trace,
)
from popdice.traces.runner import CUE, run_detector
from popdice.traces.scoring import score
from popdice.traces.trace import Trace, driver_mg

SECONDS = 12.0


def magnitude(sample: tuple[float, float, float]) -> float:
    return math.sqrt(sum(value * value for value in sample))


def along_and_sideways(found: Trace, start_ms: float, span_ms: float) -> tuple[float, float]:
    """Energy along the resting up axis and across it, over a span after ``start_ms``."""
    rest = [s for t, s in zip(found.t_ms, found.samples_g, strict=True) if t < start_ms - 50]
    up = [statistics.fmean(axis) for axis in zip(*rest[-100:], strict=True)]
    norm = magnitude((up[0], up[1], up[2]))
    up = [value / norm for value in up]
    along = sideways = 0.0
    for t, sample in zip(found.t_ms, found.samples_g, strict=True):
        if start_ms <= t < start_ms + span_ms:
            motion = [value - norm * axis for value, axis in zip(sample, up, strict=True)]
            a = sum(m * u for m, u in zip(motion, up, strict=True))
            along += a * a
            sideways += sum(m * m for m in motion) - a * a
    return along, sideways


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_deterministic_and_reads_like_the_sensor(kind: str) -> None:
    first = trace(kind, 3, SECONDS)
    assert first == trace(kind, 3, SECONDS)
    assert first.samples_g != trace(kind, 4, SECONDS).samples_g
    assert first.kind == kind and first.seed == 3
    assert len(first.t_ms) == len(first.samples_g) == pytest.approx(SECONDS * 400, rel=0.03)
    for sample in first.samples_g:
        for value in sample:
            assert -8.0 <= value <= 8.0
            assert quantise_g(value) == value  # 4 mg steps, 3 decimals
    steps = [b - a for a, b in zip(first.t_ms, first.t_ms[1:], strict=False)]
    assert min(steps) > 1.8 and max(steps) < 3.2
    assert len(set(steps)) > 1, "timestamps are not exactly 2.5 ms apart"
    resting = [magnitude(s) for s in first.samples_g[:300]]
    assert 0.9 < statistics.median(resting) < 1.1
    assert all(first.t_ms[0] <= t <= first.t_ms[-1] for t in first.press_times_ms)


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown trace kind"):
        trace("juggling", 1, 5.0)


def test_presses_are_labelled_and_other_kinds_have_none() -> None:
    assert trace("presses", 1, 60.0).press_times_ms
    assert trace("bursts", 1, 30.0).press_times_ms
    for kind in ("knocks", "handling", "buzzing", "leaning", "bumps", "mixed"):
        assert trace(kind, 1, 30.0).press_times_ms == []


def test_the_sensor_is_mounted_every_which_way() -> None:
    resting_z = [trace("knocks", seed, 2.0).samples_g[0][2] for seed in range(30)]
    assert any(z > 0.95 for z in resting_z)
    assert sum(z < 0.8 for z in resting_z) >= 5, "gravity is not always on z"


def test_press_trace_for_the_simulated_lis3dh() -> None:
    found = press_trace()
    assert found == press_trace()
    assert found.press_times_ms == [800.0]
    assert found.samples_g[0] == pytest.approx((0.0, 0.0, 1.0), abs=0.02)
    assert all(abs(t - 2.5 * i) < 0.5 for i, t in enumerate(found.t_ms))
    onset = found.t_ms.index(next(t for t in found.t_ms if t >= 800.0))
    dip = min(s[2] for s in found.samples_g[onset : onset + 4])
    assert dip < 0.85, "a press reads as a dip along up within 10 ms"
    strong = press_trace(seed=1, peak_g=5.0)
    assert min(s[2] for s in strong.samples_g) < min(s[2] for s in press_trace(1, 1.5).samples_g)


def test_a_press_held_long_lasts_until_after_its_release() -> None:
    """A trace of 1.6 s ended before a long hold's release, so the press could never pop."""
    for seed in (31, 5004):  # held 0.6-1.5 s
        found = press_trace(seed)
        assert found.releases_ms[0] > 1400.0
        assert found.t_ms[-1] >= found.releases_ms[0] + AFTER_RELEASE_MS - 2.5
        short = press_trace(seed, seconds=1.6)
        assert found.samples_g[: len(short.samples_g)] == short.samples_g
    assert len(press_trace(0).t_ms) == 640  # a short hold: 1.6 s, as before


def test_knock_trace_for_the_simulated_lis3dh() -> None:
    found = knock_trace(seed=2, peak_g=2.0)
    assert found.press_times_ms == []
    assert [what for _, what in found.events] == ["knock 2.00 g"]
    assert max(magnitude(s) for s in found.samples_g) > 1.2


def test_presses_stay_along_up_and_knocks_rock_the_unit_sideways() -> None:
    press_share, knock_share = [], []
    for seed in range(12):
        along, sideways = along_and_sideways(press_trace(seed, 3.0), 800.0, 15.0)
        press_share.append(sideways / along)
        along, sideways = along_and_sideways(knock_trace(seed, 3.0), 800.0, 60.0)
        knock_share.append(sideways / along)
    assert max(press_share) < 0.2
    assert statistics.median(knock_share) > 5 * statistics.median(press_share)


def test_driver_view_clips_and_steps_like_the_simulated_part() -> None:
    samples = [(9.0, -9.0, 0.0061), (0.002, -0.002, 1.0), (8.0, -8.0, 0.5)]
    assert list(driver_mg(samples)) == [8000, -8000, 8, 4, -4, 1000, 8000, -8000, 500]


def test_files_round_trip(tmp_path: Path) -> None:
    made = trace("presses", 2, 20.0)
    for name in ("t.csv", "t.csv.gz", "t.csv.xz"):
        write_trace(tmp_path / name, made)
        t_ms, samples = read_trace(tmp_path / name)
        assert t_ms == made.t_ms and samples == made.samples_g
    write_labels(tmp_path / "t.labels.json", made)
    assert read_labels(tmp_path / "t.labels.json") == made.press_times_ms
    (tmp_path / "list.json").write_text("[1, 2.5]")
    assert read_labels(tmp_path / "list.json") == [1.0, 2.5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "t_ms,x_g,y_g,z_g\n0,0,0,1\n2.5,0,0\n",
            "3: expected t_ms,x_g,y_g,z_g, got 3 fields",
        ),
        ("0,0,0,1\n2.5,0,zero,1\n", "2: y_g is not a number: 'zero'"),
        ("0,0,0,1\n2.5,0,0,inf\n", "2: z_g is not finite"),
        ("0,0,0,1\n0,0,0,1\n", "2: time 0.0 ms is not after 0.0 ms"),
        ("t_ms,x_g,y_g,z_g\n", "no samples"),
    ],
)
def test_bad_traces_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(TraceError, match=message):
        read_trace(path)


def test_a_spreadsheets_byte_order_mark_is_read_past_and_other_bytes_are_named(
    tmp_path: Path,
) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbft_ms,x_g,y_g,z_g\r\n0,0,0,1\r\n2.5,0,0,1\r\n")
    assert read_trace(path) == ([0.0, 2.5], [(0.0, 0.0, 1.0), (0.0, 0.0, 1.0)])
    path.write_bytes(b"t_ms,x_g,y_g,z_g\n0,0,0,1\n2.5,0,\xb1,1\n")
    with pytest.raises(TraceError, match=r"excel.csv:3: not a CSV trace \(byte 0xb1 is not plain"):
        read_trace(path)


def test_bad_files_are_trace_errors(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="cannot read"):
        read_trace(tmp_path / "missing.csv")
    (tmp_path / "fake.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(TraceError, match="not a CSV trace"):
        read_trace(tmp_path / "fake.csv.gz")
    for text, message in [
        ("{", "not JSON"),
        ('{"presses": []}', "expected"),
        ('{"presses_ms": [1, "2"]}', "is not a number"),
        ('{"presses_ms": [true]}', "is not a number"),
    ]:
        (tmp_path / "l.json").write_text(text)
        with pytest.raises(TraceError, match=message):
            read_labels(tmp_path / "l.json")


def test_the_firmware_detector_pops_on_each_release_once_and_not_on_a_knock() -> None:
    for seed in range(4):
        made = press_trace(seed)
        found = run_detector(made.samples_g)
        pops = found.indices
        result = score(made.t_ms, pops, made.press_times_ms, made.releases_ms, made.releases_ms)
        assert result.recall == 1.0 and not result.false_ms, seed
        assert len(found.of(CUE)) == 1 and found.of(CUE)[0] < pops[0], "a cue, then the pop"
        assert made.t_ms[pops[0]] >= made.releases_ms[0], "it popped before the release"
        slowest = result.latency()["max"]
        assert slowest is not None and slowest <= 20.0, seed
    # A hard knock beside the unit (1 g at it) now and then passes for a press blow, and the
    # noise of the hold that follows for its release: 6 of these 100 with the built-in
    # settings (bench/NOTES.md, section 9).
    popped = [seed for seed in range(100) if run_detector(knock_trace(seed, 1.0).samples_g).indices]
    assert len(popped) <= 8, popped
