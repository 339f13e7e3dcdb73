"""Fitting the press detector's settings to labelled recordings of one popper, and telling
how well they will do on recordings they were not fitted on.

The fit is a search on a grid of meaningful values (``GRID``): for every band, polarity and
window it fits the threshold first, keeps the most promising few, and then goes round every
setting in turn (coordinate descent) until nothing improves. What it minimises is how much of
each target's budget is used: missed presses against 0.5 %, false presses against one an hour
of non-press time, and, where the recordings say when each press's pop was due (its release,
or its main blow), pops later than 15 ms, or earlier than 5 ms before it (dice that pop while
the dome is held), against 0.5 %; each counted with a margin
(``MARGIN``): presses with the gates (threshold, contrast, lead, sideways, and the release's
size, contrast and sideways) made that much stricter, false presses with them made that much
looser. A dozen minutes of recordings hold few of the knocks and bangs that make false
presses, and a press that only just passes is the one a slightly softer press fails: so the
settings are pushed to the middle of the gap between presses and everything else, not to the
edge of what the recordings allowed. Of the values that do equally well it takes the middle
of the widest run, for the same reason; a gate's values at its strict end, which its margin
cannot make stricter within the firmware's range, are not tried.

The settings are fitted for popping on the release, on the press, or both (``POP_ON``);
``choose_pop_on`` picks the release unless it finds clearly fewer presses, or more false
ones, than popping on the press, and says why. The settings in use (the built-in ones,
unless a caller says otherwise) compete too: they were not fitted on these recordings, so
their score on them is as honest as the fit's cross-validated one, and where it is at least
as good they are kept (``choose``). A dozen minutes is little to fit on, and a fit that does
no better than settings fitted on far more is not worth the change.

The figures ``tune`` reports are cross-validated: every recording is cut into ``folds``
stretches of time, and each stretch is scored with settings fitted on all the others.
"""

from __future__ import annotations

import bisect
import math
import multiprocessing
import os
import signal
import sys
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import MB
from .files import TraceError, read_json_file, read_presses, read_trace
from .measured import Measured, check_settings, defaults, detections, firmware_settings
from .runner import DetectorError, micropython_command, run_detector_mg
from .scoring import PRESS_SPAN_MS, TARGET_LATENCY_MS, Score, score
from .trace import driver_mg

TRACE_SUFFIXES = (".csv.xz", ".csv.gz", ".csv")
MIN_PRESSES = 20
MIN_SECONDS = 120.0
MIN_QUIET_SECONDS = 60.0
FOLDS = 4
FORMAT = "popdice-detector"
FORMAT_VERSION = 1
KEPT_AFTER_FIRST_PASS = 3
ROUNDS = 2
BLOW_SAMPLES = 16  # 40 ms after an onset: where its blow is
MARGIN = 1.25
# The gates a margin applies to, and which way is stricter for a press: a higher threshold
# and contrast, a lower lead and sideways allowance; a larger and clearer release, with less
# of it sideways.
STRICTER_UP = {
    "threshold_mg": True,
    "contrast": True,
    "lead_ratio": False,
    "max_sideways": False,
    "release_ratio": True,
    "release_contrast": True,
    "release_sideways": False,
}
POP_ON = ("release", "press")
# Popping on the release is kept unless it finds this much less of the presses, or this many
# more false presses an hour, than popping on the press.
RELEASE_RECALL_GIVE = 0.005
RELEASE_FALSE_GIVE = 0.5


def _geometric(low: float, high: float, ratio: float, whole: bool) -> tuple[Any, ...]:
    values = []
    value = low
    while value <= high * 1.0001:
        values.append(round(value) if whole else round(value, 3))
        value *= ratio
    return tuple(dict.fromkeys(values))


GRID: dict[str, tuple[Any, ...]] = {
    "band_samples": (1, 2, 3, 4),
    "polarity": (-1, 0, 1),
    "window_samples": (1, 2, 3),
    "threshold_mg": _geometric(20, 4000, 1.2, whole=True),
    "contrast": _geometric(1.0, 30.0, 1.25, whole=False),
    "max_sideways": _geometric(0.02, 8.0, 1.4, whole=False),
    "lead_ratio": _geometric(0.05, 4.0, 1.4, whole=False),
    "refractory_ms": (0, 25, 50, 75, 100, 150, 200, 300, 500, 800),
    "moving_mg": (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192),
    "settle_ms": (0, 50, 100, 200, 300, 500, 800, 1200, 2000),
    "hold_min_ms": (0, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300),
    "hold_max_ms": (100, 200, 300, 500, 800, 1200, 1500, 2000, 3000, 5000),
    "release_ratio": (0.0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5),
    "release_contrast": _geometric(1.0, 30.0, 1.25, whole=False),
    "release_sideways": _geometric(0.02, 8.0, 1.4, whole=False),
    "release_polarity": (-1, 0, 1),
}
STRUCTURE = ("band_samples", "polarity", "window_samples")
TUNED_IN_TURN = (
    "threshold_mg",
    "contrast",
    "lead_ratio",
    "max_sideways",
    "moving_mg",
    "settle_ms",
    "refractory_ms",
    "release_polarity",
    "release_ratio",
    "release_contrast",
    "release_sideways",
    "hold_min_ms",
    "hold_max_ms",
)


class TuneError(TraceError):
    """The recordings cannot be tuned on (missing, too short, too few presses)."""


@dataclass
class Recording:
    """One labelled recording: its instants (ms), samples (flat x, y, z, mg) and press
    onsets (ms); where known, each press's release and main blow (ms), when a pop on the
    release and on the press is due; for a model's session, also what else happened,
    (onset ms, what)."""

    name: str
    t_ms: list[float]
    samples_mg: Sequence[int]
    onsets_ms: list[float]
    events: list[tuple[float, str]] = field(default_factory=list)
    releases_ms: list[float] | None = None
    blows_ms: list[float] | None = None

    def score(self, found: Sequence[int], pop_on: str) -> Score:
        """``found`` (the samples popped on) against this recording's presses."""
        anchors = self.releases_ms if pop_on == "release" else self.blows_ms
        return score(self.t_ms, found, self.onsets_ms, self.releases_ms, anchors)

    @property
    def seconds(self) -> float:
        return score(self.t_ms, [], []).seconds

    def cut(self, parts: int) -> list[Recording]:
        """The recording cut into ``parts`` stretches of equal length."""
        count = len(self.t_ms)
        bounds = [count * k // parts for k in range(parts + 1)]
        pieces = []
        for k in range(parts):
            first, last = bounds[k], bounds[k + 1]
            if last - first < 2:
                continue
            start, end = self.t_ms[first], self.t_ms[last - 1]
            kept = [j for j, t in enumerate(self.onsets_ms) if start <= t <= end]
            events = [(t, what) for t, what in self.events if start <= t <= end]
            pieces.append(
                Recording(
                    f"{self.name}#{k + 1}",
                    self.t_ms[first:last],
                    self.samples_mg[3 * first : 3 * last],
                    [self.onsets_ms[j] for j in kept],
                    events,
                    None if self.releases_ms is None else [self.releases_ms[j] for j in kept],
                    None if self.blows_ms is None else [self.blows_ms[j] for j in kept],
                )
            )
        return pieces


def load_recordings(folder: str | Path) -> list[Recording]:
    """Every ``NAME.csv`` (or ``.csv.xz``, ``.csv.gz``) in ``folder`` with ``NAME.labels.json``
    beside it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TuneError(f"{folder} is not a folder of recordings")
    recordings = []
    for labels in sorted(folder.glob("*.labels.json")):
        stem = labels.name[: -len(".labels.json")]
        trace = next(
            (folder / (stem + s) for s in TRACE_SUFFIXES if (folder / (stem + s)).exists()),
            None,
        )
        if trace is None:
            raise TuneError(f"{labels} has no recording beside it ({stem}.csv)")
        t_ms, samples = read_trace(trace)
        onsets, releases = read_presses(labels, (t_ms[0], t_ms[-1]))
        recordings.append(Recording(stem, t_ms, driver_mg(samples), onsets, releases_ms=releases))
    if not recordings:
        raise TuneError(f"no labelled recordings in {folder} (NAME.csv with NAME.labels.json)")
    return recordings


def score_in_micropython(
    recordings: Sequence[Recording], settings: dict[str, Any] | None = None
) -> Score:
    """How the firmware's detector does on ``recordings``, run inside MicroPython as on the
    popper: with its built-in settings, or with ``settings``."""
    pop_on = check_settings(settings or {})["pop_on"]
    total = Score()
    for recording in recordings:
        found = run_detector_mg(array("h", recording.samples_mg), settings)
        total.add(recording.score(found.indices, pop_on))
    return total


def score_as_the_popper(
    recordings: Sequence[Recording], settings: dict[str, Any] | None = None
) -> Score:
    """How the firmware's detector does on ``recordings``: inside MicroPython as on the
    popper where the unix port is installed (the sim extra), else the same source run here,
    as the tuner runs it."""
    try:
        micropython_command()
    except DetectorError:
        return Tuner(recordings).score(check_settings(settings or {}))
    return score_in_micropython(recordings, settings)


def check_enough(recordings: Sequence[Recording], where: str) -> None:
    """TuneError, saying what is missing, unless the recordings are enough to fit on."""
    presses = sum(len(r.onsets_ms) for r in recordings)
    seconds = sum(r.seconds for r in recordings)
    quiet = seconds - presses * PRESS_SPAN_MS / 1000.0
    if presses < MIN_PRESSES:
        raise TuneError(f"{where}: {presses} labelled presses; tuning needs at least {MIN_PRESSES}")
    if seconds < MIN_SECONDS:
        raise TuneError(
            f"{where}: {seconds:.0f} s of recordings; tuning needs at least {MIN_SECONDS:.0f} s"
        )
    if quiet < MIN_QUIET_SECONDS:
        raise TuneError(
            f"{where}: {quiet:.0f} s without presses; tuning needs at least "
            f"{MIN_QUIET_SECONDS:.0f} s of other things (knocks, lifting the unit)"
        )


def cost(strict: Score, loose: Score | None = None) -> float:
    """How much of the targets' budgets the scores use (0 is perfect, 3 is all three at their
    limits): missed and late presses from ``strict``; false presses, and presses popped in
    their hold (a release taken from the hold's own shaking, a false release), from
    ``loose`` (the same settings with their margins, or without: ``strict`` alone).
    Lateness and earliness count only where the recordings say when each pop was due."""
    loose = loose or strict
    missed = strict.labelled - strict.detected
    untimely = 0
    if strict.timed:
        untimely = sum(1 for lat in strict.latencies_ms if lat > TARGET_LATENCY_MS)
    if loose.timed:
        untimely += loose.early
    labelled = max(strict.labelled, 1)
    per_hour = loose.false_per_hour or 0.0
    return (missed + untimely) / labelled / 0.005 + per_hour / 1.0


def with_margin(settings: dict[str, Any], stricter: bool, margin: float = MARGIN) -> dict[str, Any]:
    """``settings`` with each gate ``margin`` times stricter for a press (or looser), kept
    within the firmware's ranges."""
    ranges = {name: (low, high) for name, low, high in firmware_settings()}
    moved = dict(settings)
    for name, up in STRICTER_UP.items():
        low, high = ranges[name]
        value = moved[name] * (margin if up == stricter else 1 / margin)
        value = min(max(value, low), high)
        moved[name] = round(value) if isinstance(low, int) else value
    return moved


class Tuner:
    """Fits settings to recordings, keeping each recording's measurements per band."""

    def __init__(
        self,
        recordings: Sequence[Recording],
        progress: Callable[[str], None] | None = None,
        cache: dict[tuple[str, int], Measured] | None = None,
        groups: Sequence[str] | None = None,
    ) -> None:
        """``cache``: measurements shared between tuners, by recording name (unique) and
        band. ``groups``: a name for each recording (poppers of different kinds); the fit
        then minimises the worst group's cost, so that no kind of popper is given up for the
        others."""
        self.recordings = list(recordings)
        self._measured = {} if cache is None else cache
        self._progress = progress or (lambda _what: None)
        self._groups = None if groups is None else list(groups)

    def measured(self, index: int, band: int) -> Measured:
        key = (self.recordings[index].name, band)
        if key not in self._measured:
            self._measured[key] = Measured.of(self.recordings[index].samples_mg, band)
        return self._measured[key]

    def score(self, settings: dict[str, Any], which: Sequence[int] | None = None) -> Score:
        total = Score()
        for index in range(len(self.recordings)) if which is None else which:
            recording = self.recordings[index]
            found = detections(self.measured(index, settings["band_samples"]), settings)
            total.add(recording.score(found, settings["pop_on"]))
        return total

    def margin_cost(self, settings: dict[str, Any], which: Sequence[int] | None) -> float:
        """The cost of ``settings`` with their margins (the worst group's, with groups):
        what the fit minimises."""
        chosen = list(range(len(self.recordings)) if which is None else which)
        parts = [chosen]
        if self._groups is not None:
            names = sorted({self._groups[i] for i in chosen})
            parts = [[i for i in chosen if self._groups[i] == name] for name in names]
        stricter = with_margin(settings, stricter=True)
        looser = with_margin(settings, stricter=False)
        return max(cost(self.score(stricter, part), self.score(looser, part)) for part in parts)

    def fit(self, which: Sequence[int] | None = None, pop_on: str = "release") -> dict[str, Any]:
        """The settings that do best on the recordings ``which`` (all by default), popping
        on ``pop_on``."""
        floor = self._noise_floor(which)
        starts = []
        for band in GRID["band_samples"]:
            self._progress(f"band {band}")
            for polarity in self._polarities(which):
                for window in GRID["window_samples"]:
                    settings = defaults()
                    settings.update(
                        band_samples=band, polarity=polarity, window_samples=window, pop_on=pop_on
                    )
                    value = self._descend(settings, ("threshold_mg",), which, floor, rounds=1)
                    starts.append((value, band, polarity, window, settings))
        starts.sort(key=lambda item: item[:4])
        best: tuple[float, dict[str, Any]] | None = None
        for value, *_structure, settings in starts[:KEPT_AFTER_FIRST_PASS]:
            self._progress("settings")
            value = self._descend(settings, TUNED_IN_TURN, which, floor, rounds=ROUNDS)
            if best is None or value < best[0]:
                best = (value, settings)
        assert best is not None
        return check_settings(best[1])

    def _polarities(self, which: Sequence[int] | None) -> tuple[int, ...]:
        """The polarities worth trying: the way the labelled presses' blows go along up (the
        largest impulse of the 40 ms after each onset), if nine in ten agree, and either way;
        else either way alone."""
        signs = []
        for index in range(len(self.recordings)) if which is None else which:
            recording = self.recordings[index]
            impulse = self.measured(index, 2).impulse
            for onset in recording.onsets_ms:
                first = bisect.bisect_left(recording.t_ms, onset)
                blow = impulse[first : first + BLOW_SAMPLES]
                if len(blow):
                    largest = max(blow, key=abs)
                    signs.append(1 if largest > 0 else -1)
        for sign in (-1, 1):
            if signs and signs.count(sign) >= 0.9 * len(signs):
                return (sign, 0)
        return (0,)

    def _noise_floor(self, which: Sequence[int] | None) -> int:
        """Thresholds below three times the typical impulse at the finest band are never
        tried: every sample would be a candidate."""
        sizes: list[int] = []
        for index in range(len(self.recordings)) if which is None else which:
            impulse = self.measured(index, 1).impulse
            sizes.extend(abs(v) for v in impulse[:: max(1, len(impulse) // 2000)])
        sizes.sort()
        median = sizes[len(sizes) // 2] if sizes else 0
        return max(GRID["threshold_mg"][0], 3 * median)

    def _descend(
        self,
        settings: dict[str, Any],
        names: Sequence[str],
        which: Sequence[int] | None,
        floor: int,
        rounds: int,
    ) -> float:
        current = self.margin_cost(settings, which)
        for _ in range(rounds):
            changed = False
            for name in names:
                values = _with_room(name, GRID[name])
                if name == "threshold_mg":
                    values = tuple(v for v in values if v >= floor) or values[-1:]
                elif name in _HOLD_BOUNDS:  # the firmware refuses a hold that ends before it starts
                    values = _within_hold(name, values, settings)
                costs = []
                for value in values:
                    costs.append(self.margin_cost(dict(settings, **{name: value}), which))
                chosen = _middle_of_best(costs)
                if values[chosen] != settings[name]:
                    changed = changed or costs[chosen] < current
                    settings[name] = values[chosen]
                current = costs[chosen]
            if not changed:
                break
        return current


_HOLD_BOUNDS = ("hold_min_ms", "hold_max_ms")


def _within_hold(name: str, values: tuple[Any, ...], settings: dict[str, Any]) -> tuple[Any, ...]:
    """``values`` of one of the hold's bounds that keep it no later than its end (or no
    earlier than its start) as ``settings`` has the other."""
    if name == "hold_min_ms":
        kept = tuple(v for v in values if v <= settings["hold_max_ms"])
    else:
        kept = tuple(v for v in values if v >= settings["hold_min_ms"])
    return kept or (settings[name],)


def _with_room(name: str, values: tuple[Any, ...], margin: float = MARGIN) -> tuple[Any, ...]:
    """``values`` of a gate less those at its strict end, which its margin cannot make
    stricter within the firmware's range: there presses would be scored without their
    margin. (At its loose end a gate lets everything through, and looser is the same.)"""
    if name not in STRICTER_UP:
        return values
    low, high = next((lo, hi) for n, lo, hi in firmware_settings() if n == name)
    if STRICTER_UP[name]:
        return tuple(v for v in values if v * margin <= high * 1.0001)
    return tuple(v for v in values if v / margin >= low * 0.9999)


def _middle_of_best(costs: Sequence[float]) -> int:
    """The index in the middle of the widest run of the lowest cost."""
    lowest = min(costs)
    best_start, best_length, start = 0, 0, None
    for i, value in enumerate([*costs, math.inf]):
        if value <= lowest + 1e-9:
            if start is None:
                start = i
        elif start is not None:
            if i - start > best_length:
                best_start, best_length = start, i - start
            start = None
    return best_start + (best_length - 1) // 2


@dataclass
class TuneResult:
    settings: dict[str, Any]
    cross_validated: Score
    fitted: Score
    recordings: list[str]
    presses: int
    seconds: float
    why: str = ""  # why the settings pop on what they pop on
    other: Score | None = None  # cross-validated, popping on the other, where both were fitted
    kept: bool = False  # the settings in use did at least as well as the fit, and are kept


def tune(
    recordings: Sequence[Recording],
    folds: int = FOLDS,
    where: str = "recordings",
    progress: Callable[[int, int, str], None] | None = None,
    jobs: int | None = None,
    pop_on: str = "auto",
    in_use: dict[str, Any] | None = None,
    in_use_name: str = "built-in",
    keep_in_use: bool = True,
) -> TuneResult:
    """Fits settings on all the recordings, and scores settings fitted on all but each fold
    of time on that fold: popping on ``pop_on`` (``release``, ``press``, or ``auto``: both,
    then ``choose_pop_on``). The settings ``in_use`` (default: the built-in ones) are kept
    instead where they do as well (``choose``), unless ``keep_in_use`` is false. The fits
    run at once in ``jobs`` processes (default: one per core; ``worker_processes``,
    ``Fits``); with 1, or where no process can be started, here one after the other. The
    result is the same either way."""
    check_enough(recordings, where)
    modes = POP_ON if pop_on == "auto" else (pop_on,)
    pieces = [piece for r in recordings for piece in r.cut(folds)]
    fold_of = [int(piece.name.rsplit("#", 1)[1]) - 1 for piece in pieces]
    tests = [[i for i, f in enumerate(fold_of) if f == fold] for fold in range(folds)]
    measured: dict[tuple[str, int], Measured] = {}
    tuner = Tuner(pieces, cache=measured)
    whole = Tuner(recordings, cache=measured)
    with worker_processes(jobs) as workers:
        fits = Fits(workers, measured, progress)
        started = {}
        for mode in modes:
            named = f" (pop on the {mode})" if len(modes) > 1 else ""
            everything = fits.start(f"all recordings{named}", recordings, mode)  # largest first
            by_fold = [
                fits.start(
                    f"fold {fold + 1} of {folds}{named}",
                    [piece for piece, f in zip(pieces, fold_of, strict=True) if f != fold],
                    mode,
                )
                for fold in range(folds)
            ]
            started[mode] = (everything, by_fold)
        chosen = {
            mode: ([fits.result(i) for i in by_fold], fits.result(everything))
            for mode, (everything, by_fold) in started.items()
        }
    held_out = {}
    for mode, (by_fold, _settings) in chosen.items():
        held_out[mode] = Score()
        for fold in range(folds):
            held_out[mode].add(tuner.score(by_fold[fold], tests[fold]))
    standing = check_settings(in_use or {})
    theirs = tuner.score(standing) if keep_in_use and standing["pop_on"] in modes else None
    mode, why = choose(held_out, theirs, in_use_name)
    if mode is None:
        assert theirs is not None
        settings, cross_validated, other = standing, theirs, None
    else:
        settings, cross_validated = chosen[mode][1], held_out[mode]
        other = next((held_out[m] for m in modes if m != mode), None)
    return TuneResult(
        settings,
        cross_validated,
        whole.score(settings),
        [r.name for r in recordings],
        sum(len(r.onsets_ms) for r in recordings),
        sum(r.seconds for r in recordings),
        why,
        other,
        kept=mode is None,
    )


def choose(
    held_out: dict[str, Score], in_use: Score | None = None, in_use_name: str = "built-in"
) -> tuple[str | None, str]:
    """What to detect with, from the fits' cross-validated scores (one mode's, or both's) and
    the score of the settings in use on the same recordings (None: they pop on a mode not
    fitted, and do not compete), and why, in a sentence: the mode to pop on (with both,
    ``choose_pop_on``'s), or None to keep the settings in use, where they cost no more."""
    if len(held_out) > 1:
        mode, why = choose_pop_on(held_out["release"], held_out["press"])
    else:
        mode = next(iter(held_out))
        why = f"pops on the {mode}, as asked"
    fit = held_out[mode]
    if in_use is not None and cost(in_use) <= cost(fit):
        return None, (
            f"keeps the {in_use_name} settings: on these recordings, none of which they were "
            f"fitted on, they find {_said(in_use)}; settings fitted on them would find "
            f"{_said(fit)}, popping on the {mode} (cross-validated)"
        )
    return mode, why


def _said(result: Score) -> str:
    recall = 100.0 * (result.recall or 0.0)
    per_hour = result.false_per_hour
    false = "?" if per_hour is None else f"{per_hour:.1f}"
    return f"{recall:.1f} % of the presses at {false} false presses an hour"


def choose_pop_on(release: Score, press: Score) -> tuple[str, str]:
    """Whether to pop on the release or on the press, from each one's cross-validated score,
    and why, in a sentence: the release, unless its presses do not stand clear (it finds
    clearly fewer of them, or makes clearly more false presses, than popping on the press)."""

    recall_lost = (press.recall or 0.0) - (release.recall or 0.0)
    false_more = (release.false_per_hour or 0.0) - (press.false_per_hour or 0.0)
    if recall_lost <= RELEASE_RECALL_GIVE and false_more <= RELEASE_FALSE_GIVE:
        return "release", (
            f"pops on the release: this dome's releases stand clear (on the release "
            f"{_said(release)}; on the press {_said(press)})"
        )
    return "press", (
        f"pops on the press: this dome's releases do not stand clear of the rest "
        f"(on the release {_said(release)}; on the press {_said(press)})"
    )


MOST_JOBS = 64  # a --jobs option's largest value
WINDOWS_MOST_WORKERS = 61  # a process pool's most workers on Windows (its wait handles)
STOP_WAIT_S = 10.0  # the longest a Ctrl-C waits for ended workers to be reaped
WAIT_STEP_S = 0.25  # a fit's result is waited for in steps this long


@contextmanager
def worker_processes(jobs: int | None = None) -> Iterator[ProcessPoolExecutor | None]:
    """A pool of ``jobs`` fresh interpreters for fits (default: one per core), or None with
    one job or where no process can be started (a sandbox without semaphores). Started,
    not forked, as on macOS and Windows, so no lock a thread of this one holds (the serial
    link's reader) is copied into them. Left by an exception (Ctrl-C, or SIGTERM or SIGHUP
    while inside), it ends its workers at once instead of after every fit queued."""
    jobs = jobs or os.cpu_count() or 1
    if sys.platform == "win32":
        jobs = min(jobs, WINDOWS_MOST_WORKERS)
    if jobs <= 1:
        yield None
        return
    try:
        workers = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    except (OSError, NotImplementedError, ImportError):
        yield None
        return
    try:
        with _ended_by_signals():
            yield workers
    except BaseException:
        stop_workers(workers)
        raise
    finally:
        workers.shutdown()


@contextmanager
def _ended_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (a ``kill``, a terminal closed) raised as SystemExit(128 + the
    signal's number) while inside, so that they end a pool's workers as Ctrl-C does instead
    of leaving them to finish their fits. Only signals still at their default are taken (a
    SIGHUP ``nohup`` ignores stays ignored), only in the main thread (the only one that may
    set them), and the handlers before are put back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def ended(number: int, _frame: object) -> None:
        raise SystemExit(128 + number)

    present = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    taken = [number for number in present if signal.getsignal(number) == signal.SIG_DFL]
    for number in taken:
        signal.signal(number, ended)
    try:
        yield
    finally:
        for number in taken:
            signal.signal(number, signal.SIG_DFL)


def waited(future: Future) -> Any:
    """``future``'s result, waited for in short steps: a SIGTERM the kernel hands to another
    thread of this process reaches the main thread's handler only when its wait returns,
    and a wait without a timeout returns only when the fit ends."""
    while True:
        try:
            return future.result(timeout=WAIT_STEP_S)
        except WaitedTooLong:
            continue


def fitted(recordings: Sequence[Recording], pop_on: str = "release") -> dict[str, Any]:
    """Settings fitted on ``recordings``: one fit, as a task for a worker process."""
    return Tuner(recordings).fit(pop_on=pop_on)


class Fits:
    """Fits started now and collected later: in ``workers`` (from ``worker_processes``),
    or without them, or once a worker has died (out of memory), here when their result is
    asked for, sharing ``cache``'s measurements. The settings are the same either way.
    ``progress(done, total, what)``: 0 before the first result, then after each."""

    def __init__(
        self,
        workers: Executor | None,
        cache: dict[tuple[str, int], Measured],
        progress: Callable[[int, int, str], None] | None = None,
    ) -> None:
        self._workers = workers
        self._cache = cache
        self._progress = progress or (lambda _done, _total, _what: None)
        self._started: list[tuple[str, Sequence[Recording], str, Future | None]] = []
        self._done = 0

    def start(self, what: str, recordings: Sequence[Recording], pop_on: str = "release") -> int:
        future = self._workers.submit(fitted, recordings, pop_on) if self._workers else None
        self._started.append((what, recordings, pop_on, future))
        return len(self._started) - 1

    def result(self, index: int) -> dict[str, Any]:
        what, recordings, pop_on, future = self._started[index]
        if self._done == 0:
            self._progress(0, len(self._started), "fitting")
        settings = None
        if future is not None:
            try:
                settings = waited(future)
            except BrokenProcessPool:
                pass
        if settings is None:
            settings = Tuner(recordings, cache=self._cache).fit(pop_on=pop_on)
        self._done += 1
        self._progress(self._done, len(self._started), what)
        return settings


def stop_workers(workers: ProcessPoolExecutor) -> None:
    """Cancels the fits not started, ends the workers (with the method Python 3.14 has for
    it, or before it through the pool's own table of its processes, read before
    ``shutdown`` clears it) and waits, at most ``STOP_WAIT_S``, for the pool's manager
    thread to reap them: left to it, a caller's own ``join`` would race it for the same
    child and could see a dead worker as alive."""
    manager = getattr(workers, "_executor_manager_thread", None)
    terminate = getattr(workers, "terminate_workers", None)
    if terminate is not None:
        terminate()
    else:
        processes: dict[int, Any] = dict(getattr(workers, "_processes", None) or {})
        workers.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            process.terminate()
    if manager is not None:
        manager.join(timeout=STOP_WAIT_S)


def figures(result: Score) -> dict[str, Any]:
    """Recall, false presses per hour and latency of a score, for JSON and for people."""
    recall, per_hour = result.recall, result.false_per_hour
    return {
        "presses": result.labelled,
        "recall": None if recall is None else round(recall, 4),
        "false_presses_per_hour": None if per_hour is None else round(per_hour, 2),
        "latency_ms": result.latency() if result.timed else None,
        "popped_early": result.early if result.timed else None,
    }


def document(result: TuneResult) -> dict[str, Any]:
    """What ``--out`` holds: the settings (the part the popper reads) and how they were got."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "settings": result.settings,
        "fitted_on": {
            "recordings": result.recordings,
            "presses": result.presses,
            "seconds": round(result.seconds, 1),
        },
        "pop_on": result.settings["pop_on"],
        "kept": result.kept,
        "why": result.why,
        "cross_validated": figures(result.cross_validated),
        "on_the_fitted_recordings": figures(result.fitted),
    }


DETECTOR_FILE_MOST = MB
"""The largest detector settings file read (``--config``, ``--apply``): 1 MB; `popdice tune`
writes one of about 1 KB."""


def read_config(path: str | Path) -> dict[str, Any]:
    """The settings in a detector file (from ``popdice tune``, or a bare settings object),
    checked by the firmware's own rules; TraceError naming the file and the problem."""
    loaded = read_json_file(path, DETECTOR_FILE_MOST, "detector settings file")
    if isinstance(loaded, dict) and "format" in loaded:
        kind, version = loaded["format"], loaded.get("version")
        if kind != FORMAT:
            raise TraceError(f"{path}: a file of format {str(kind)[:40]!r}, not {FORMAT!r}")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise TraceError(f"{path}: its version is not a whole number from 1")
        if version > FORMAT_VERSION:
            raise TraceError(
                f"{path}: version {version} of {FORMAT}, written by a newer popdice (this one "
                f"reads version {FORMAT_VERSION})"
            )
    settings = loaded.get("settings", loaded) if isinstance(loaded, dict) else loaded
    try:
        return check_settings(settings)
    except ValueError as error:
        raise TraceError(f"{path}: {error}") from None
