"""``popdice calibrate`` against the simulated popper: the guided steps in order, a fit on
their recordings, the settings in the popper's flash and in the kept folder; ``--apply``,
``--reset`` and the one-line refusals. (The recordings themselves are made by the physical
model here: ``tests/test_record.py`` tests recording through the stream.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popdice.cli.main import main
from popdice.devices.popper import DetectorSettings, Popper
from popdice.traces import trace
from popdice.traces.calibrate_cli import STEPS, Step, calibrate
from popdice.traces.files import write_labels, write_trace

KINDS = {"presses": "presses", "knocks": "knocks", "lifting": "handling"}


def test_calibrate_records_each_step_fits_and_writes_the_popper(
    popper_dut, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    popper: Popper = popper_dut.client
    asked: list[str] = []

    def model_recorder(_popper: Popper, step: Step, out: Path) -> None:
        # About the least tuning takes (20 presses, 120 s): the test is of the steps, not of
        # the fit's figures.
        made = trace(KINDS[step.name], 40 + len(asked), 110.0 if step.prompt else 15.0)
        write_trace(out, made)
        write_labels(out.with_name(out.name.replace(".csv", ".labels.json")), made)

    keep = tmp_path / "calibration"
    calibrate(popper, keep, lambda step, _n: asked.append(step.name), model_recorder)
    assert asked == [step.name for step in STEPS]
    written = json.loads((keep / "detector.json").read_text())
    now = popper.detector()
    assert now == DetectorSettings("detector.json", written["settings"])
    assert "cross-validated: recall" in capsys.readouterr().out
    assert sorted(p.name for p in keep.glob("*.csv")) == [
        "knocks.csv",
        "lifting.csv",
        "presses.csv",
    ]

    popper_dut.release()
    assert main(["calibrate", "--reset", "--port", popper_dut.port]) == 0
    assert "built-in detector again" in capsys.readouterr().out
    assert (
        main(["calibrate", "--apply", str(keep / "detector.json"), "--port", popper_dut.port]) == 0
    )
    assert popper_dut.connect().detector().source == "detector.json"


def test_calibrate_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"settings": {"hold_ms": -1}}')
    assert main(["calibrate", "--apply", str(bad), "--port", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hold_ms is out of range" in err
    assert main(["calibrate", "--port", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a person at a terminal" in err
