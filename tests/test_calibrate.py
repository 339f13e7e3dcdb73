"""``popdice calibrate`` against the simulated popper: the guided steps in order, a fit on
their recordings, the settings in the popper's flash and in the kept folder; ``--apply``,
``--reset`` and the one-line refusals. (The recordings themselves are made by the physical
model here: ``tests/test_record.py`` tests recording through the stream.)"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from popdice.cli.main import main
from popdice.devices.popper import DetectorSettings, Popper
from popdice.sim.physics import trace
from popdice.traces import calibrate_cli
from popdice.traces import tune as tune_module
from popdice.traces.calibrate_cli import STEPS, Step, calibrate, steps
from popdice.traces.files import TraceError, write_labels, write_trace
from popdice.traces.measured import defaults
from popdice.traces.scoring import Score
from popdice.traces.tune import TuneResult, tune

KINDS = {"presses": "presses", "knocks": "knocks", "lifting": "handling"}


@pytest.mark.runs_long
def test_calibrate_records_each_step_fits_and_writes_the_popper(
    popper_dut, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    popper: Popper = popper_dut.client
    # cross-validated over two stretches, not four: six fits instead of ten; and on less
    # than tuning asks for (an hour's worth of fitting is the bench's): the test is of the
    # steps, not of the fit's figures
    # and without the built-in settings competing: on the model they serve they would be kept
    monkeypatch.setattr(calibrate_cli, "tune", functools.partial(tune, folds=2, keep_in_use=False))
    monkeypatch.setattr(tune_module, "check_enough", lambda _recordings, _where: None)
    asked: list[str] = []

    def model_recorder(_popper: Popper, step: Step, out: Path) -> None:
        made = trace(KINDS[step.name], 40 + len(asked), 40.0 if step.prompt else 8.0)
        write_trace(out, made)
        write_labels(out.with_name(out.name.replace(".csv", ".labels.json")), made)

    keep = tmp_path / "calibration"
    questions: list[str] = []

    def confirm(question: str) -> bool:
        questions.append(question)
        return True

    assert calibrate(popper, keep, lambda s, _n: asked.append(s.name), model_recorder, confirm) == 0
    assert asked == [step.name for step in STEPS]
    written = json.loads((keep / "detector.json").read_text())
    now = popper.detector()
    assert now == DetectorSettings("detector.json", written["settings"])
    out = capsys.readouterr().out
    assert "fitted, cross-validated: recall" in out
    assert f"pops on the {written['settings']['pop_on']}: this dome's releases " in out
    assert "the popper's built-in detector on the same recordings: recall" in out
    # asked only if the fit misses a target (on a minute, it does)
    assert len(questions) <= 1 and all(q.startswith("the fit misses ") for q in questions)
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
    bad.write_text('{"settings": {"hold_max_ms": -1}}')
    assert main(["calibrate", "--apply", str(bad), "--port", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hold_max_ms is out of range" in err
    assert main(["calibrate", "--port", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a person at a terminal" in err
    assert main(["calibrate", "--reset", "--keep", str(tmp_path / "kept")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not with --reset or --apply" in err
    assert main(["calibrate", "--reset", "--minutes", "6"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--minutes is how long the guided calibration takes" in err
    for minutes in ("3", "31", "x"):
        assert main(["calibrate", "--minutes", minutes]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "argument --minutes: expected a whole number from 4" in err


def test_the_guided_steps_last_the_minutes_asked_for_in_the_same_proportions(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [step.seconds for step in steps()] == [480, 150, 90]  # 12 minutes by default
    assert [step.seconds for step in steps(4)] == [160, 50, 30]
    assert [step.seconds for step in steps(30)] == [1200, 375, 225]
    assert [step.prompt for step in steps(4)] == [True, False, False]
    monkeypatch.setattr("builtins.input", lambda _prompt: "")
    calibrate_cli._ask_person(steps()[0], 1)
    calibrate_cli._ask_person(steps(5)[2], 3)
    out = capsys.readouterr().out
    assert "step 1 of 3, presses (8 min): Press the dome" in out
    assert "step 3 of 3, lifting (38 s): Do NOT press" in out


def test_input_that_ends_at_a_step_stops_in_one_line_and_leaves_no_empty_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def ended(_prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", ended)
    keep = tmp_path / "calibration"
    never = Popper.__new__(Popper)  # not reached: the person stopped before the first step
    with pytest.raises(TraceError, match=r"^calibration stopped before step 1 \(presses\)$"):
        calibrate(never, keep, calibrate_cli._ask_person)
    assert not keep.exists()
    assert calibrate_cli._ask_yes("write it anyway?") is False
    assert "step 1 of 3, presses" in capsys.readouterr().out


def test_a_keep_folder_that_exists_is_refused_before_any_step(tmp_path: Path) -> None:
    keep = tmp_path / "calibration"
    keep.mkdir()
    asked: list[str] = []
    with pytest.raises(TraceError, match=r"calibration already exists: --keep takes a new folder"):
        calibrate(Popper.__new__(Popper), keep, lambda s, _n: asked.append(s.name))
    assert asked == [] and keep.is_dir()


recorded: list[float] = []  # the seconds each step ``model_recordings`` made was asked for


def canned_fit(recall_misses: int) -> TuneResult:
    """A fit's result as ``tune`` gives it: 40 presses over an hour, ``recall_misses`` of
    them missed, no false press, 5 ms late each."""
    found = 40 - recall_misses
    result = Score(40, [5.0] * found, [0.0] * recall_misses, [], 3600.0, 3500.0)
    return TuneResult(defaults(), result, result, ["presses"], 40, 3600.0)


def model_recordings(_popper: Popper, step: Step, out: Path) -> None:
    recorded.append(step.seconds)
    made = trace(KINDS[step.name], 7, 25.0 if step.prompt else 10.0)
    write_trace(out, made)
    write_labels(out.with_name(out.name.replace(".csv", ".labels.json")), made)


@pytest.mark.parametrize(("misses", "answer"), [(3, False), (0, None)])
def test_a_fit_that_misses_a_target_is_written_only_if_the_person_says_so(
    popper_dut, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, misses, answer
) -> None:
    popper: Popper = popper_dut.client
    monkeypatch.setattr(calibrate_cli, "tune", lambda *_args, **_kw: canned_fit(misses))
    questions: list[str] = []

    def confirm(question: str) -> bool:
        questions.append(question)
        return bool(answer)

    keep = tmp_path / "calibration"
    code = calibrate(popper, keep, lambda _s, _n: None, model_recordings, confirm)
    out = capsys.readouterr().out
    assert (keep / "detector.json").is_file()
    if answer is False:
        assert code == 1
        assert questions == [
            "the fit misses recall 92.50 % (target 99.5 %): write it to the popper anyway?"
        ]
        assert popper.detector().source == "built-in"
        assert "not written: the popper keeps its built-in detector" in out
    else:
        assert code == 0 and questions == []  # every target met: nothing to ask
        assert popper.detector() == DetectorSettings("detector.json", defaults())


def test_a_fit_that_finds_no_press_is_not_offered(
    popper_dut, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    popper: Popper = popper_dut.client
    monkeypatch.setattr(calibrate_cli, "tune", lambda *_args, **_kw: canned_fit(40))
    questions: list[str] = []

    def confirm(question: str) -> bool:
        questions.append(question)
        return True

    keep = tmp_path / "calibration"
    code = calibrate(popper, keep, lambda _s, _n: None, model_recordings, confirm)
    out = capsys.readouterr().out
    assert code == 1 and questions == []
    assert "not written: these settings find none of the presses" in out
    assert popper.detector().source == "built-in"
    assert (keep / "detector.json").is_file()


def test_a_fit_no_better_than_the_popper_s_detector_leaves_it_in_place(
    popper_dut, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    popper: Popper = popper_dut.client
    asked: dict[str, object] = {}

    def kept(*_args, **given) -> TuneResult:
        asked.update(given)
        result = canned_fit(0)
        result.kept, result.why = True, "keeps the popper's built-in settings: ..."
        return result

    monkeypatch.setattr(calibrate_cli, "tune", kept)
    keep = tmp_path / "calibration"
    recorded.clear()
    code = calibrate(
        popper, keep, lambda _s, _n: None, model_recordings, lambda _q: True, minutes=6
    )
    assert recorded == [240, 75, 45]
    out = capsys.readouterr().out
    assert code == 0
    assert asked["in_use"] == popper.detector().settings == defaults()
    assert asked["in_use_name"] == "popper's built-in"
    assert "keeps the popper's built-in settings" in out
    assert (
        f"not written: the popper keeps its built-in detector (the recordings are in {keep})" in out
    )
    assert popper.detector().source == "built-in"
    assert json.loads((keep / "detector.json").read_text())["kept"] is True
