"""Scoring across model families with one left out: the left-out family's sessions are in no
fit that scores it, each evaluation unit is calibrated on its own sessions only, and every
figure is over the left-out family's evaluation units."""

from __future__ import annotations

import dataclasses

import pytest

from popdice.traces.measured import check_settings
from popdice.traces.tune import worker_processes
from popdice_lab.crossfamily import (
    MOST_FIRST_UNIT,
    MOST_UNITS,
    Plan,
    bench_plan,
    leave_one_out,
    make_family,
)
from popdice_lab.families import available, chosen

# Small: the test is of what each fit saw, not of its figures (each pool holds five presses).
TINY = Plan(1, 30.0, 15.0, 1, 40.0, 1, 30.0, 15.0)


def test_each_family_is_scored_with_fits_that_never_saw_it() -> None:
    data = [make_family(name, TINY) for name in ("table", "springmass")]
    steps: list[str] = []
    rows, everything = leave_one_out(data, steps.append)
    assert [row.name for row in rows] == ["table", "springmass"]
    assert steps[-1] == "fitted on every family (5 of 5)"
    for row, own in zip(rows, data, strict=True):
        assert row.fitted_on and not any(name.startswith(own.name + "/") for name in row.fitted_on)
        evaluated = sum(len(r.onsets_ms) for u in own.units for r in u.evaluation)
        assert row.uncalibrated.labelled == row.calibrated.labelled == evaluated > 0
        assert row.built_in.labelled == row.shipped.labelled == evaluated
        assert len(row.calibrated_settings) == len(row.calibrated_by_unit) == len(own.units)
        assert sum(u.labelled for u in row.calibrated_by_unit) == row.calibrated.labelled
        assert check_settings(row.left_out_settings) == row.left_out_settings
    assert check_settings(everything) == everything


def test_a_families_option_names_known_families_or_says_which_is_not() -> None:
    assert chosen(None) == chosen("") == available()
    assert chosen("cushion, table") == ["cushion", "table"]
    with pytest.raises(ValueError, match="no model family 'tabel' \\(there are: table, "):
        chosen("table,tabel")


def test_evaluation_units_can_be_others_than_the_default_ones() -> None:
    tiny = dataclasses.replace(TINY, pool_units=0, units=2, first_unit=21)
    made = make_family("table", tiny)
    assert [unit.unit for unit in made.units] == [21, 22]
    assert all("/u21/" in r.name for r in made.units[0].calibration + made.units[0].evaluation)
    first = make_family("table", dataclasses.replace(tiny, units=1, first_unit=1))
    assert first.units[0].evaluation[0].samples_mg != made.units[0].evaluation[0].samples_mg
    with pytest.raises(ValueError, match="numbered 1 to 999"):
        make_family("table", dataclasses.replace(tiny, first_unit=999))


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


def test_fits_in_worker_processes_give_the_same_figures() -> None:
    data = [make_family(name, TINY) for name in ("table", "springmass")]
    here, everything_here = leave_one_out(data)
    steps: list[str] = []
    with worker_processes(2) as workers:
        there, everything_there = leave_one_out(data, steps.append, workers=workers)
    assert everything_there == everything_here
    assert there == here
    counted = [step.rsplit("(", 1)[1] for step in steps if step.startswith("fitted on")]
    assert counted == [f"{k} of 5)" for k in range(1, 6)]
