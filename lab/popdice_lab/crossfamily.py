"""Scoring the press detector across model families, one family left out at a time.

For each family (``families/``) three figures, each on that family's evaluation units,
whose sessions no fit ever saw:

- **uncalibrated**: settings fitted on the *other* families' pools of units (the defaults a
  popper of a kind nobody modelled would get);
- **calibrated**: for each evaluation unit, settings fitted on a dozen minutes of that unit's
  own labelled sessions (what ``popdice calibrate`` does), scored on its other sessions;
- **shipped defaults**: the settings the firmware has built in;
- **built-in**: the hand-fitted detector the popper runs without settings (``press.py``,
  inside MicroPython).

``Plan`` says how many units and minutes; ``bench/detect.py`` prints the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any

from popdice.traces.measured import Measured, defaults
from popdice.traces.scoring import Score
from popdice.traces.trace import Trace, driver_mg
from popdice.traces.tune import Fits, Recording, Tuner, score_in_micropython

from .causes import kind_of
from .families import family

POOL_UNITS_FROM = 1000  # pool units are numbered from here, evaluation units from 1


@dataclass(frozen=True)
class Plan:
    """How much of each family is made: units and minutes."""

    units: int = 3  # evaluation units per family
    calibration_play_s: float = 480.0  # a unit's calibration: play...
    calibration_quiet_s: float = 240.0  # ...and everything else, together 12 minutes
    evaluation_sessions: int = 2  # each unit's other sessions, of each kind...
    evaluation_s: float = 300.0  # ...this long
    pool_units: int = 3  # units whose sessions the defaults are fitted on
    pool_play_s: float = 360.0
    pool_quiet_s: float = 180.0
    first_unit: int = 1  # the evaluation units are numbered from here (under POOL_UNITS_FROM)


QUICK = Plan(1, 150.0, 90.0, 1, 60.0, 1, 150.0, 90.0)
MOST_UNITS = 50  # a bench's --units: 250 calibrations, a night's run
MOST_FIRST_UNIT = POOL_UNITS_FROM - 1 - MOST_UNITS


def bench_plan(base: Plan, units: int | None = None, first_unit: int | None = None) -> Plan:
    """``base`` with a bench's ``--units`` and ``--first-unit`` (None: as in ``base``);
    ValueError naming the option and its range."""
    if units is not None and not 1 <= units <= MOST_UNITS:
        raise ValueError(f"--units must be 1 to {MOST_UNITS}")
    if first_unit is not None and not 1 <= first_unit <= MOST_FIRST_UNIT:
        raise ValueError(f"--first-unit must be 1 to {MOST_FIRST_UNIT}")
    if units is not None:
        base = replace(base, units=units)
    if first_unit is not None:
        base = replace(base, first_unit=first_unit)
    return base


@dataclass
class UnitData:
    unit: int
    calibration: list[Recording]
    evaluation: list[Recording]


@dataclass
class FamilyData:
    name: str
    summary: str
    pool: list[Recording]
    units: list[UnitData]


@dataclass
class FamilyRow:
    """One family's figures (all on its evaluation units)."""

    name: str
    summary: str
    uncalibrated: Score
    calibrated: Score
    shipped: Score
    built_in: Score
    left_out_settings: dict[str, Any]
    calibrated_settings: list[dict[str, Any]] = field(default_factory=list)
    calibrated_by_unit: list[Score] = field(default_factory=list)  # ``calibrated``, unit by unit
    fitted_on: list[str] = field(default_factory=list)


def recording(name: str, trace: Trace) -> Recording:
    others = [(t, what) for t, what in trace.events if kind_of(what) != "press"]
    return Recording(
        name, trace.t_ms, driver_mg(trace.samples_g), list(trace.press_times_ms), others
    )


def make_family(name: str, plan: Plan) -> FamilyData:
    """The sessions of one family: its pool and its evaluation units."""
    module = family(name)

    def sessions(unit: int, role: str, play_s: float, quiet_s: float, seed: int) -> list[Recording]:
        made = []
        if play_s > 0:
            trace = module.session(unit, seed, play_s, True)
            made.append(recording(f"{name}/u{unit}/{role}-play-{seed}", trace))
        if quiet_s > 0:
            trace = module.session(unit, seed + 1, quiet_s, False)
            made.append(recording(f"{name}/u{unit}/{role}-quiet-{seed + 1}", trace))
        return made

    pool = []
    for k in range(plan.pool_units):
        unit = POOL_UNITS_FROM + k
        pool += sessions(unit, "pool", plan.pool_play_s, plan.pool_quiet_s, 1)
    units = []
    if not 1 <= plan.first_unit <= POOL_UNITS_FROM - plan.units:
        raise ValueError(f"evaluation units are numbered 1 to {POOL_UNITS_FROM - 1}")
    for unit in range(plan.first_unit, plan.first_unit + plan.units):
        calibration = sessions(unit, "cal", plan.calibration_play_s, plan.calibration_quiet_s, 1)
        evaluation = []
        for k in range(plan.evaluation_sessions):
            seed = 100 + 2 * k
            evaluation += sessions(unit, "eval", plan.evaluation_s, plan.evaluation_s, seed)
        units.append(UnitData(unit, calibration, evaluation))
    return FamilyData(name, module.SUMMARY, pool, units)


def _score(recordings: Sequence[Recording], settings: dict[str, Any], cache: dict) -> Score:
    return Tuner(recordings, cache=cache).score(settings)


def leave_one_out(
    data: Sequence[FamilyData],
    progress: Callable[[str], None] | None = None,
    cache: dict[tuple[str, int], Measured] | None = None,
    workers: Executor | None = None,
) -> tuple[list[FamilyRow], dict[str, Any]]:
    """Each family scored with the others' fit, with its own calibration, and with the
    shipped defaults; and the settings fitted on every family's pool. ``cache``: the
    recordings' measurements, kept for more scoring afterwards (``Tuner``'s). ``workers``
    (processes): the fits run there, the longest first, while this process scores; without,
    one after the other here. The figures are the same either way."""
    say = progress or (lambda _what: None)
    cache = {} if cache is None else cache

    def counted(done: int, total: int, what: str) -> None:
        if done:
            say(f"fitted on {what} ({done} of {total})")

    fits = Fits(workers, cache, counted)
    everything = fits.start("every family", [r for d in data for r in d.pool])
    others = {
        left_out.name: [r for d in data if d is not left_out for r in d.pool] for left_out in data
    }
    by_family = {
        name: fits.start(f"every family but {name}", pool) for name, pool in others.items()
    }
    by_unit = {
        (family.name, unit.unit): fits.start(
            f"{family.name} unit {unit.unit}'s calibration", unit.calibration
        )
        for family in data
        for unit in family.units
    }
    rows = []
    for left_out in data:
        evaluation = [r for u in left_out.units for r in u.evaluation]
        settings = fits.result(by_family[left_out.name])
        row = FamilyRow(
            left_out.name,
            left_out.summary,
            uncalibrated=_score(evaluation, settings, cache),
            calibrated=Score(),
            shipped=_score(evaluation, defaults(), cache),
            built_in=score_in_micropython(evaluation),
            left_out_settings=settings,
            fitted_on=[r.name for r in others[left_out.name]],
        )
        for unit in left_out.units:
            own = fits.result(by_unit[left_out.name, unit.unit])
            row.calibrated_settings.append(own)
            result = _score(unit.evaluation, own, cache)
            row.calibrated_by_unit.append(result)
            row.calibrated.add(result)
        rows.append(row)
    return rows, fits.result(everything)
