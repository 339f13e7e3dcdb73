"""Scoring across model families with one left out: the left-out family's sessions are in no
fit that scores it, each evaluation unit is calibrated on its own sessions only, with the
mode ``popdice tune`` would choose, and every figure is over the left-out family's
evaluation units, in three rows: left out, calibrated, shipped."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import pickle

import pytest

from popdice.traces import tune as tune_module
from popdice.traces.measured import check_settings, defaults
from popdice.traces.trace import MAIN_BLOW_WINDOW_MS, Trace, main_blows_ms
from popdice.traces.tune import POP_ON, tune, worker_processes
from popdice_lab.crossfamily import (
    MOST_FIRST_UNIT,
    MOST_UNITS,
    ROWS,
    FamilyData,
    FamilyRow,
    Plan,
    bench_plan,
    leave_one_out,
    make_family,
    recording,
)
from popdice_lab.families import available, chosen, family

# Small: the test is of what each fit saw, not of its figures (each pool holds five presses,
# each calibration four to six, each evaluation two to five); calibrations cross-validated
# over two folds, not four, to keep the fits few.
TINY = Plan(1, 25.0, 10.0, 1, 30.0, 1, 25.0, 10.0, calibration_folds=2)
FAMILIES = ("table", "springmass")
# every family, every family but each, and each unit's two modes on everything and on
# all but each of its folds
FITS = 1 + len(FAMILIES) + len(FAMILIES) * TINY.units * len(POP_ON) * (1 + TINY.calibration_folds)


Tiny = tuple[list[FamilyData], list[FamilyRow], dict, list[str]]


def fit_tiny() -> Tiny:
    """The fits in two worker processes, as the bench makes them: the tests below compare
    some of them with the same fits made here."""
    data = [make_family(name, TINY) for name in FAMILIES]
    steps: list[str] = []
    with worker_processes(2) as workers:
        assert workers is not None
        rows, everything = leave_one_out(
            data, steps.append, workers=workers, folds=TINY.calibration_folds
        )
    assert everything is not None
    return data, rows, everything, steps


@pytest.fixture(scope="session")
def tiny_fits(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    """The tiny plan's fits, made once for the whole run: the first of the test processes
    to need them fits them (~40 s), and the others read what it kept."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the folder every worker's own folder is in
    kept = shared / "crossfamily-tiny.pickle"
    with open(shared / "crossfamily-tiny.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            temporary = kept.with_suffix(".tmp")
            temporary.write_bytes(pickle.dumps(fit_tiny()))
            temporary.replace(kept)
        return pickle.loads(kept.read_bytes())


@pytest.mark.runs_long
def test_each_family_is_scored_with_fits_that_never_saw_it(tiny_fits: Tiny) -> None:
    data, rows, everything, steps = tiny_fits
    assert [row.name for row in rows] == list(FAMILIES)
    counted = [step.rsplit("(", 1)[1] for step in steps if step.startswith("fitted on")]
    assert counted == [f"{k} of {FITS})" for k in range(1, FITS + 1)]
    assert sum(step.startswith("fitted on every family (") for step in steps) == 1
    for row, own in zip(rows, data, strict=True):
        assert row.fitted_on and not any(name.startswith(own.name + "/") for name in row.fitted_on)
        evaluated = sum(len(r.onsets_ms) for u in own.units for r in u.evaluation)
        assert [label for label, _ in row.rows()] == list(ROWS)
        assert ROWS == ("left out", "calibrated", "shipped")
        for _label, result in row.rows():
            assert result.labelled == evaluated > 0
            assert result.timed  # every press has its release: latency from it
        assert len(row.units) == len(own.units)
        assert sum(u.evaluated.labelled for u in row.units) == row.calibrated.labelled
        assert row.left_out_settings is not None
        assert check_settings(row.left_out_settings) == row.left_out_settings
        assert row.left_out_settings["pop_on"] == "release"
    assert check_settings(everything) == everything
    assert everything["pop_on"] == "release"


def test_the_shipped_row_is_the_built_in_settings(tiny_fits: Tiny) -> None:
    data, rows, _everything, _steps = tiny_fits
    for row, own in zip(rows, data, strict=True):
        evaluation = [r for u in own.units for r in u.evaluation]
        shipped = tune_module.Tuner(evaluation).score(defaults())
        assert row.shipped == shipped


def test_a_calibrated_unit_pops_on_the_mode_tune_chooses_for_its_minutes(
    tiny_fits: Tiny, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, rows, _everything, _steps = tiny_fits
    # tune refuses minutes this few; the bench does not: the choice is what is compared
    monkeypatch.setattr(tune_module, "check_enough", lambda _recordings, _where: None)
    for row, own in zip(rows, data, strict=True):
        for unit, made in zip(row.units, own.units, strict=True):
            assert unit.unit == made.unit
            assert unit.pop_on in ("release", "press")
            assert unit.settings["pop_on"] == unit.pop_on
            if unit.kept:
                assert unit.settings == defaults()
                assert unit.why.startswith("keeps the built-in settings: ")
            else:
                assert unit.why.startswith(f"pops on the {unit.pop_on}")
            assert set(unit.cross_validated) == set(POP_ON)
            if (row.name, unit.unit) != ("table", 1):
                continue  # one unit against tune itself is enough
            result = tune(made.calibration, folds=TINY.calibration_folds, jobs=1)
            assert (result.settings, result.why, result.kept) == (
                unit.settings,
                unit.why,
                unit.kept,
            )
            chosen = unit.built_in if unit.kept else unit.cross_validated[unit.pop_on]
            assert result.cross_validated == chosen
    assert rows[0].modes == [unit.pop_on for unit in rows[0].units]


def test_a_models_session_carries_each_press_release_and_main_blow() -> None:
    trace = family("snapdome").session(1, 1, 30.0, True)
    made = recording("snapdome/u1", trace)
    assert len(made.onsets_ms) >= 3
    assert made.releases_ms == list(trace.releases_ms)
    assert made.blows_ms == main_blows_ms(trace)
    assert made.releases_ms is not None and made.blows_ms is not None
    for onset, release, blow in zip(made.onsets_ms, made.releases_ms, made.blows_ms, strict=True):
        assert onset < release
        assert onset <= blow <= onset + MAIN_BLOW_WINDOW_MS
    quiet = recording("snapdome/u1/quiet", family("snapdome").session(1, 2, 20.0, False))
    assert quiet.onsets_ms == quiet.releases_ms == quiet.blows_ms == []
    # a trace that does not say when its presses let go: no releases, latency from the onset
    unknown = recording("unknown", Trace(trace.t_ms, trace.samples_g, trace.press_times_ms))
    assert unknown.releases_ms is None and unknown.blows_ms == made.blows_ms
    assert not unknown.score([], "release").timed and unknown.score([], "press").timed


def test_a_families_option_names_known_families_or_says_which_is_not() -> None:
    assert chosen(None) == chosen("") == available()
    assert chosen("cushion, table") == ["cushion", "table"]
    with pytest.raises(ValueError, match="no model family 'tabel' \\(there are: table, "):
        chosen("table,tabel")


def test_evaluation_units_can_be_others_than_the_default_ones() -> None:
    tiny_plan = dataclasses.replace(TINY, pool_units=0, units=2, first_unit=21)
    made = make_family("table", tiny_plan)
    assert [unit.unit for unit in made.units] == [21, 22]
    assert all("/u21/" in r.name for r in made.units[0].calibration + made.units[0].evaluation)
    first = make_family("table", dataclasses.replace(tiny_plan, units=1, first_unit=1))
    assert first.units[0].evaluation[0].samples_mg != made.units[0].evaluation[0].samples_mg
    with pytest.raises(ValueError, match="numbered 1 to 999"):
        make_family("table", dataclasses.replace(tiny_plan, first_unit=999))


def test_the_full_plan_evaluates_enough_to_tell_a_point_of_recall() -> None:
    plan = Plan()
    # of play and of everything else alike: 4 hours a family, 3.4 to 3.6 without presses
    minutes = 2 * plan.units * plan.evaluation_sessions * plan.evaluation_s / 60
    assert minutes == 4 * 60
    assert plan.calibration_play_s + plan.calibration_quiet_s == 12 * 60
    assert plan.calibration_folds == tune_module.FOLDS


def test_a_benchs_unit_options_are_checked_before_anything_is_made() -> None:
    assert bench_plan(TINY) == TINY
    chosen_plan = bench_plan(TINY, units=MOST_UNITS, first_unit=MOST_FIRST_UNIT)
    assert (chosen_plan.units, chosen_plan.first_unit) == (MOST_UNITS, MOST_FIRST_UNIT)
    assert chosen_plan.evaluation_s == TINY.evaluation_s
    for units, first_unit, message in (
        (0, None, "--units must be 1 to 50"),
        (MOST_UNITS + 1, None, "--units must be 1 to 50"),
        (None, 0, "--first-unit must be 1 to 949"),
        (None, MOST_FIRST_UNIT + 1, "--first-unit must be 1 to 949"),
    ):
        with pytest.raises(ValueError, match=message):
            bench_plan(TINY, units, first_unit)
    make_family("table", dataclasses.replace(chosen_plan, units=1, pool_units=0))


def test_fits_in_worker_processes_give_the_fits_made_here(tiny_fits: Tiny) -> None:
    """The left-out fit of springmass (on table's pool alone), made here: the same settings
    as the worker gave. (A calibration's fits are compared with tune's, made here, above.)"""
    data, rows, _everything, _steps = tiny_fits
    table = data[0]
    assert (table.name, rows[1].name) == ("table", "springmass")
    assert tune_module.Tuner(table.pool).fit() == rows[1].left_out_settings


def test_without_the_left_out_rows_no_left_out_fit_is_made(tiny_fits: Tiny) -> None:
    data, rows, _everything, _steps = tiny_fits
    steps: list[str] = []
    alone, everything = leave_one_out(
        data, steps.append, folds=TINY.calibration_folds, left_out=False
    )
    assert everything is None
    assert not any("every family" in step for step in steps)
    assert sum("fitted on " in step for step in steps) == FITS - 1 - len(FAMILIES)
    for row, full in zip(alone, rows, strict=True):
        assert [label for label, _ in row.rows()] == ["calibrated", "shipped"]
        assert row.left_out is None and row.left_out_settings is None
        assert (row.calibrated, row.shipped) == (full.calibrated, full.shipped)
