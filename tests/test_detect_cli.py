"""``popdice detect``: the firmware's detector (inside MicroPython) over trace files, its JSON
report with and without labels, one-line errors with exit code 2, and a guard on the built-in
settings over a slice of the fixed corpus."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from popdice.cli.main import main
from popdice.sim.physics import knock_trace, press_trace
from popdice.traces.files import write_labels, write_trace
from popdice.traces.scoring import TARGET_LATENCY_MS

CORPUS = Path(__file__).resolve().parents[1] / "bench" / "corpus"
SLICE = ["presses-01", "press_in_buzz-02", "knocks-01", "handling-01"]


def detect(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["detect", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["detect", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


@pytest.fixture
def press_files(tmp_path: Path) -> tuple[Path, Path]:
    made = press_trace(seed=3)
    write_trace(tmp_path / "press.csv", made)
    write_labels(tmp_path / "press.labels.json", made)
    return tmp_path / "press.csv", tmp_path / "press.labels.json"


def test_detect_prints_when_it_pops(
    capsys: pytest.CaptureFixture[str], press_files: tuple[Path, Path], tmp_path: Path
) -> None:
    released = press_trace(seed=3).releases_ms[0]
    report = detect(capsys, str(press_files[0]))
    assert list(report) == ["presses_ms"]
    assert len(report["presses_ms"]) == 1
    assert released <= report["presses_ms"][0] <= released + TARGET_LATENCY_MS
    (tmp_path / "on-press.json").write_text('{"settings": {"pop_on": "press"}}')
    report = detect(capsys, str(press_files[0]), "--config", str(tmp_path / "on-press.json"))
    assert len(report["presses_ms"]) == 1 and 800.0 <= report["presses_ms"][0] <= 815.0


def test_detect_with_labels_scores(
    capsys: pytest.CaptureFixture[str], press_files: tuple[Path, Path]
) -> None:
    report = detect(capsys, str(press_files[0]), "--labels", str(press_files[1]))
    assert report["labelled"] == report["detected"] == 1
    assert report["recall"] == 1.0 and report["missed"] == [] and report["false"] == []
    assert report["false_presses_per_hour"] == 0.0
    assert 0 < report["latency_ms"]["max"] <= TARGET_LATENCY_MS, "from the release"
    assert set(report["latency_ms"]) == {"p50", "p99", "max"}


def test_a_knock_is_no_press_and_a_missed_label_shows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write_trace(tmp_path / "knock.csv.gz", knock_trace(seed=1, peak_g=1.5))
    (tmp_path / "wrong.json").write_text("[800.0]")
    report = detect(
        capsys, str(tmp_path / "knock.csv.gz"), "--labels", str(tmp_path / "wrong.json")
    )
    assert report["presses_ms"] == [] and report["recall"] == 0.0
    assert report["missed"] == [800.0]


def test_bad_input_is_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, press_files: tuple[Path, Path]
) -> None:
    assert "cannot read" in fails(capsys, str(tmp_path / "missing.csv"))
    (tmp_path / "bad.csv").write_text("t_ms,x_g,y_g,z_g\n0,0,0,1\n2.5,0,0,one\n")
    assert fails(capsys, str(tmp_path / "bad.csv")).endswith(
        "bad.csv:3: z_g is not a number: 'one'"
    )
    (tmp_path / "bad.json").write_text('{"presses_ms": [800, null]}')
    assert "is not a number" in fails(
        capsys, str(press_files[0]), "--labels", str(tmp_path / "bad.json")
    )
    assert "not JSON" in fails(capsys, str(press_files[0]), "--labels", str(press_files[0]))
    assert "cannot read" in fails(capsys, str(press_files[0]), "--labels", str(tmp_path / "x.json"))


def test_help_explains_the_files_and_the_scoring(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["detect", "--help"]) == 0
    text = capsys.readouterr().out
    assert "t_ms,x_g,y_g,z_g" in text and "presses_ms" in text and "latency" in text


def test_the_built_in_settings_on_a_slice_of_the_corpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A guard on the built-in settings, on traces they were not fitted on: plain presses pop,
    on their release and soon after it; knocks and handling make few pops. (How far the
    whole corpus is from the targets: ``bench/detect.py --corpus``.)"""
    reports = {
        name: detect(
            capsys,
            str(CORPUS / f"{name}.csv.xz"),
            "--labels",
            str(CORPUS / f"{name}.labels.json"),
        )
        for name in SLICE
    }
    presses = reports["presses-01"]
    assert presses["labelled"] >= 60 and presses["detected"] / presses["labelled"] >= 0.98
    assert presses["false"] == [] and presses["latency_ms"]["max"] <= TARGET_LATENCY_MS
    buzz = reports["press_in_buzz-02"]
    assert buzz["detected"] / buzz["labelled"] >= 0.75
    false = sum(len(report["false"]) for report in reports.values())
    hours = sum(report["non_press_hours"] for report in reports.values())
    assert false <= 3 and hours > 0.25


def test_the_single_press_bench_counts_pops_in_the_hold_and_knocks() -> None:
    bench = Path(__file__).resolve().parents[1] / "bench" / "presses.py"
    run = [sys.executable, str(bench), "--presses", "6", "--knocks", "2", "--json"]
    figures = json.loads(subprocess.run(run, capture_output=True, text=True, check=True).stdout)
    assert figures["presses"] == 6 and figures["first_seed"] == 5001 and figures["noise_mg"] == 3
    assert figures["popped"] == 6 - len(figures["missed"]) >= 5
    assert set(figures["in_the_hold"]) <= set(range(5001, 5007)) - set(figures["missed"])
    assert figures["latency_ms_p99"] is not None and figures["latency_ms_p99"] <= 15
    assert figures["knocks"] == 2 and set(figures["knocks_popped"]) <= {0, 1}
    bad = subprocess.run([*run[:2], "--noise-mg", "-1"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == "error: --noise-mg is 0 to 100\n"


def test_labels_of_another_trace_are_refused(
    capsys: pytest.CaptureFixture[str], press_files: tuple[Path, Path], tmp_path: Path
) -> None:
    trace = str(press_files[0])
    for onsets in ([-100.0], [800.0, 1e308]):
        other = tmp_path / "other.labels.json"
        other.write_text(json.dumps({"presses_ms": onsets}))
        err = fails(capsys, trace, "--labels", str(other))
        assert f"a press at {onsets[-1]:g} ms is outside the trace (0 to " in err
    late = tmp_path / "late.labels.json"
    late.write_text(json.dumps({"presses_ms": [800.0], "releases_ms": [1e300]}))
    err = fails(capsys, trace, "--labels", str(late))
    assert "a release at 1e+300 ms is over a minute after the trace ends (" in err


def test_a_labels_or_config_file_that_is_not_text_is_said_so(
    capsys: pytest.CaptureFixture[str], press_files: tuple[Path, Path], tmp_path: Path
) -> None:
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xb1\xb2{}")
    for option in ("--labels", "--config"):
        err = fails(capsys, str(press_files[0]), option, str(binary))
        assert err.startswith("error: /") and err.endswith(
            "/binary.json: not JSON (not UTF-8 text)"
        )
