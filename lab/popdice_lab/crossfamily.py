"""Scoring the press detector across model families, one family left out at a time.

For each family (``families/``) three rows (``ROWS``), each over that family's evaluation
units, whose sessions no fit ever saw:

- **left out**: settings fitted, popping on the release, on the *other* families' pools of
  units (``Plan.pool_*``): what a popper of a kind nobody modelled would get from built-in
  settings fitted on the kinds that were;
- **calibrated**: for each evaluation unit, what ``popdice calibrate`` would give it. Its own
  twelve labelled minutes (``Plan.calibration_*``) are fitted on twice, popping on the
  release and popping on the press, and ``choose`` picks the mode from the two
  *cross-validated* scores, or keeps the built-in settings where they do as well on those
  minutes, as ``popdice tune`` does: the minutes are cut into
  ``Plan.calibration_folds`` stretches of time and each is scored with settings fitted on
  the others (``tune``'s procedure, done here with the bench's shared fits so that every
  unit's ten fits run in the same pool of processes; unlike ``tune`` it does not refuse a
  unit with too few presses or minutes). The chosen mode's settings, fitted on all twelve
  minutes (or the built-in ones, where kept), are scored on the unit's evaluation sessions;
  the row adds up the units. Each unit's mode, and why, is kept (``UnitCalibration``);
- **shipped**: the firmware's built-in settings (``defaults()``), what a popper does before
  anyone calibrates it.

``Plan`` says how many units and minutes; ``bench/detect.py`` prints the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any

from popdice.traces.measured import Measured, defaults
from popdice.traces.scoring import Score
from popdice.traces.trace import Trace, driver_mg, main_blows_ms
from popdice.traces.tune import FOLDS, POP_ON, Fits, Recording, Tuner, choose

from .causes import kind_of
from .families import family

POOL_UNITS_FROM = 1000  # pool units are numbered from here, evaluation units from 1
ROWS = ("left out", "calibrated", "shipped")


@dataclass(frozen=True)
class Plan:
    """How much of each family is made: units and minutes.

    The default evaluation side holds, per family, 3 units x 8 sessions of play and 8 of
    everything else, 5 minutes each: 4 hours, 3.4 to 3.6 of them without presses, and 1,050
    to 1,700 presses (units 1-3: the families press 7 to 12 times a minute in play). That is
    enough to tell 99.5 % recall from 98.5 % (over 1,000 presses their 95 % intervals are
    98.8-99.8 % and 97.5-99.1 %: neither holds the other) and 1 false press an hour from 3
    (over 3.4 hours, 0.2-2.6 and 1.4-5.4)."""

    units: int = 3  # evaluation units per family
    calibration_play_s: float = 480.0  # a unit's calibration: play...
    calibration_quiet_s: float = 240.0  # ...and everything else, together 12 minutes
    evaluation_sessions: int = 8  # each unit's other sessions, of each kind...
    evaluation_s: float = 300.0  # ...this long
    pool_units: int = 3  # units whose sessions the left-out settings are fitted on
    pool_play_s: float = 360.0
    pool_quiet_s: float = 180.0
    first_unit: int = 1  # the evaluation units are numbered from here (under POOL_UNITS_FROM)
    calibration_folds: int = FOLDS  # stretches a calibration is cross-validated over


QUICK = Plan(1, 150.0, 90.0, 1, 60.0, 1, 150.0, 90.0)
MOST_UNITS = 50  # a bench's --units: 250 calibrations, days of running
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
class UnitCalibration:
    """One evaluation unit calibrated as ``popdice calibrate`` does it."""

    unit: int
    pop_on: str  # what ``settings`` pop on: "release" or "press"
    why: str  # ``choose``'s sentence
    settings: dict[str, Any]  # fitted on all the calibration minutes, or the built-in ones
    cross_validated: dict[str, Score]  # each mode's, on the calibration minutes
    evaluated: Score  # ``settings`` on the unit's evaluation sessions
    built_in: Score = field(default_factory=Score)  # the built-in settings on those minutes
    kept: bool = False  # the built-in settings did as well there, and are kept


@dataclass
class FamilyRow:
    """One family's figures (all on its evaluation units)."""

    name: str
    summary: str
    left_out: Score | None  # None: not fitted (``leave_one_out(left_out=False)``)
    calibrated: Score
    shipped: Score
    left_out_settings: dict[str, Any] | None
    units: list[UnitCalibration] = field(default_factory=list)
    fitted_on: list[str] = field(default_factory=list)  # the left-out settings' recordings

    def rows(self) -> list[tuple[str, Score]]:
        """(``ROWS``' name, its score) of each row made, in ``ROWS``' order."""
        scores = (self.left_out, self.calibrated, self.shipped)
        return [
            (name, score) for name, score in zip(ROWS, scores, strict=True) if score is not None
        ]

    @property
    def modes(self) -> list[str]:
        """The mode each calibrated unit pops on, unit by unit."""
        return [unit.pop_on for unit in self.units]


def recording(name: str, trace: Trace) -> Recording:
    """A model's session as the tuner takes it: its presses with their releases (if the
    model gave one a press) and main blows, and everything else it made happen."""
    others = [(t, what) for t, what in trace.events if kind_of(what) != "press"]
    onsets = list(trace.press_times_ms)
    releases = list(trace.releases_ms) if len(trace.releases_ms) == len(onsets) else None
    return Recording(
        name,
        trace.t_ms,
        driver_mg(trace.samples_g),
        onsets,
        others,
        releases_ms=releases,
        blows_ms=main_blows_ms(trace),
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


@dataclass
class _Calibration:
    """A unit's calibration fits, started: per mode, on everything and on all but each
    fold, as ``tune`` starts them."""

    pieces: list[Recording]  # the calibration's recordings cut into folds
    fold_of: list[int]  # each piece's fold
    whole: dict[str, int] = field(default_factory=dict)
    by_fold: dict[str, list[int]] = field(default_factory=dict)


def _cut(recordings: Sequence[Recording], folds: int) -> _Calibration:
    pieces = [piece for r in recordings for piece in r.cut(folds)]
    return _Calibration(pieces, [int(piece.name.rsplit("#", 1)[1]) - 1 for piece in pieces])


def _calibrated(
    unit: UnitData,
    started: _Calibration,
    fits: Fits,
    cache: dict[tuple[str, int], Measured],
) -> UnitCalibration:
    """The unit's mode chosen on the cross-validated scores, and its settings scored on its
    evaluation sessions."""
    tuner = Tuner(started.pieces, cache=cache)
    held_out: dict[str, Score] = {}
    for mode in POP_ON:
        held_out[mode] = Score()
        for fold, index in enumerate(started.by_fold[mode]):
            tests = [i for i, f in enumerate(started.fold_of) if f == fold]
            held_out[mode].add(tuner.score(fits.result(index), tests))
    built_in = tuner.score(defaults())
    mode, why = choose(held_out, built_in)
    whole = {m: fits.result(started.whole[m]) for m in POP_ON}
    settings = defaults() if mode is None else whole[mode]
    evaluated = _score(unit.evaluation, settings, cache)
    return UnitCalibration(
        unit.unit, settings["pop_on"], why, settings, held_out, evaluated, built_in, mode is None
    )


def leave_one_out(
    data: Sequence[FamilyData],
    progress: Callable[[str], None] | None = None,
    cache: dict[tuple[str, int], Measured] | None = None,
    workers: Executor | None = None,
    folds: int = FOLDS,
    left_out: bool = True,
) -> tuple[list[FamilyRow], dict[str, Any] | None]:
    """Each family scored with the others' fit (left out), with each unit's own
    calibration (cross-validated over ``folds`` stretches), and with the built-in settings
    (shipped); and the settings fitted on every family's pool, popping on the release.
    ``cache``: the recordings' measurements, kept for more scoring afterwards (``Tuner``'s).
    ``workers`` (processes): the fits run there, the largest first, while this process
    scores; without, one after the other here. The figures are the same either way.
    ``left_out`` false: the calibrated and shipped rows alone, without the longest fits
    (the left-out rows and the settings on every family are None)."""
    say = progress or (lambda _what: None)
    cache = {} if cache is None else cache

    def counted(done: int, total: int, what: str) -> None:
        if done:
            say(f"fitted on {what} ({done} of {total})")

    fits = Fits(workers, cache, counted)
    everything, by_family = None, {}
    others = {
        dropped.name: [r for d in data if d is not dropped for r in d.pool] for dropped in data
    }
    if left_out:
        everything = fits.start("every family", [r for d in data for r in d.pool])
        by_family = {
            name: fits.start(f"every family but {name}", pool) for name, pool in others.items()
        }
    calibrations = {
        (made.name, unit.unit): _cut(unit.calibration, folds)
        for made in data
        for unit in made.units
    }
    for made in data:  # every unit's fits on all its minutes, then those on its folds
        for unit in made.units:
            started = calibrations[made.name, unit.unit]
            for mode in POP_ON:
                started.whole[mode] = fits.start(
                    f"{made.name} unit {unit.unit}'s calibration (pop on the {mode})",
                    unit.calibration,
                    mode,
                )
    for made in data:
        for unit in made.units:
            started = calibrations[made.name, unit.unit]
            pieces = list(zip(started.pieces, started.fold_of, strict=True))
            for mode in POP_ON:
                started.by_fold[mode] = [
                    fits.start(
                        f"{made.name} unit {unit.unit}'s calibration, fold {fold + 1} of "
                        f"{folds} (pop on the {mode})",
                        [piece for piece, f in pieces if f != fold],
                        mode,
                    )
                    for fold in range(folds)
                ]
    rows = []
    for dropped in data:
        evaluation = [r for u in dropped.units for r in u.evaluation]
        settings = fits.result(by_family[dropped.name]) if left_out else None
        row = FamilyRow(
            dropped.name,
            dropped.summary,
            left_out=None if settings is None else _score(evaluation, settings, cache),
            calibrated=Score(),
            shipped=_score(evaluation, defaults(), cache),
            left_out_settings=settings,
            fitted_on=[r.name for r in others[dropped.name]] if left_out else [],
        )
        for unit in dropped.units:
            own = _calibrated(unit, calibrations[dropped.name, unit.unit], fits, cache)
            row.units.append(own)
            row.calibrated.add(own.evaluated)
        rows.append(row)
    return rows, None if everything is None else fits.result(everything)
