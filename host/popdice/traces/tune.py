"""Fitting the press detector's settings to labelled recordings of one popper, and telling
how well they will do on recordings they were not fitted on.

The fit is a search on a grid of meaningful values (``GRID``): for every band, polarity and
window it fits the threshold first, keeps the most promising few, and then goes round every
setting in turn (coordinate descent) until nothing improves. What it minimises is how much of
each target's budget is used: missed presses against 0.5 %, false presses against one an hour
of non-press time, detections later than 4 samples against 0.5 %, each counted with a margin
(``MARGIN``): presses with the four gates (threshold, contrast, lead, sideways) made that much
stricter, false presses with them made that much looser. A dozen minutes of recordings hold
few of the knocks and bangs that make false presses, and a press that only just passes is
the one a slightly softer press fails: so the settings are pushed to the middle of the gap
between presses and everything else, not to the edge of what the recordings allowed. Of the
values that do equally well it takes the middle of the widest run, for the same reason.

The figures ``tune`` reports are cross-validated: every recording is cut into ``folds``
stretches of time, and each stretch is scored with settings fitted on all the others.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
from array import array
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import TraceError, read_labels, read_trace
from .measured import Measured, check_settings, defaults, detections, firmware_settings
from .runner import run_detector_mg
from .scoring import PRESS_SPAN_MS, TARGET_LATENCY_SAMPLES, Score, score
from .trace import driver_mg

TRACE_SUFFIXES = (".csv.xz", ".csv.gz", ".csv")
MIN_PRESSES = 20
MIN_SECONDS = 120.0
MIN_QUIET_SECONDS = 60.0
FOLDS = 4
FORMAT = "popdice-detector"
FORMAT_VERSION = 1
KEPT_AFTER_FIRST_PASS = 3
ROUNDS = 3
MARGIN = 1.25
# The gates a margin applies to, and which way is stricter for a press: a higher threshold
# and contrast, a lower lead and sideways allowance.
STRICTER_UP = {"threshold_mg": True, "contrast": True, "lead_ratio": False, "max_sideways": False}


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
    "release_ratio": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "hold_ms": (0, 250, 500, 1000, 1500, 2000, 3000),
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
    "release_ratio",
    "hold_ms",
)


class TuneError(TraceError):
    """The recordings cannot be tuned on (missing, too short, too few presses)."""


@dataclass
class Recording:
    """One labelled recording: its instants (ms), samples (flat x, y, z, mg) and press
    onsets (ms); for a model's session, also what else happened, (onset ms, what)."""

    name: str
    t_ms: list[float]
    samples_mg: Sequence[int]
    onsets_ms: list[float]
    events: list[tuple[float, str]] = field(default_factory=list)

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
            onsets = [t for t in self.onsets_ms if start <= t <= end]
            events = [(t, what) for t, what in self.events if start <= t <= end]
            pieces.append(
                Recording(
                    f"{self.name}#{k + 1}",
                    self.t_ms[first:last],
                    self.samples_mg[3 * first : 3 * last],
                    onsets,
                    events,
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
        recordings.append(Recording(stem, t_ms, driver_mg(samples), read_labels(labels)))
    if not recordings:
        raise TuneError(f"no labelled recordings in {folder} (NAME.csv with NAME.labels.json)")
    return recordings


def score_in_micropython(
    recordings: Sequence[Recording], settings: dict[str, Any] | None = None
) -> Score:
    """How the firmware's detector does on ``recordings``, run inside MicroPython as on the
    popper: the built-in one, or with ``settings`` the settings-driven one."""
    total = Score()
    for recording in recordings:
        found = run_detector_mg(array("h", recording.samples_mg), settings)
        total.add(score(recording.t_ms, found.indices, recording.onsets_ms))
    return total


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
    limits): missed and late presses from ``strict``, false presses from ``loose`` (the same
    settings with their margins, or without: ``strict`` alone)."""
    missed = strict.labelled - strict.detected
    late = sum(1 for lat in strict.latencies if lat > TARGET_LATENCY_SAMPLES)
    labelled = max(strict.labelled, 1)
    per_hour = (loose or strict).false_per_hour or 0.0
    return (missed + late) / labelled / 0.005 + per_hour / 1.0


def with_margin(settings: dict[str, Any], stricter: bool, margin: float = MARGIN) -> dict[str, Any]:
    """``settings`` with each gate ``margin`` times stricter for a press (or looser), kept
    within the firmware's ranges."""
    ranges = {name: (low, high) for name, low, high, _default in firmware_settings()}
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
    ) -> None:
        """``cache``: measurements shared between tuners, by recording name (unique) and
        band."""
        self.recordings = list(recordings)
        self._measured = {} if cache is None else cache
        self._progress = progress or (lambda _what: None)

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
            total.add(score(recording.t_ms, found, recording.onsets_ms))
        return total

    def margin_cost(self, settings: dict[str, Any], which: Sequence[int] | None) -> float:
        """The cost of ``settings`` with their margins: what the fit minimises."""
        strict = self.score(with_margin(settings, stricter=True), which)
        loose = self.score(with_margin(settings, stricter=False), which)
        return cost(strict, loose)

    def fit(self, which: Sequence[int] | None = None) -> dict[str, Any]:
        """The settings that do best on the recordings ``which`` (all by default)."""
        floor = self._noise_floor(which)
        starts = []
        for band in GRID["band_samples"]:
            self._progress(f"band {band}")
            for polarity in GRID["polarity"]:
                for window in GRID["window_samples"]:
                    settings = defaults()
                    settings.update(band_samples=band, polarity=polarity, window_samples=window)
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
                values = GRID[name]
                if name == "threshold_mg":
                    values = tuple(v for v in values if v >= floor) or values[-1:]
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


def tune(
    recordings: Sequence[Recording],
    folds: int = FOLDS,
    where: str = "recordings",
    progress: Callable[[int, int, str], None] | None = None,
    jobs: int | None = None,
) -> TuneResult:
    """Fits settings on all the recordings, and scores settings fitted on all but each fold
    of time on that fold. The fits run at once in ``jobs`` processes (default: one per core;
    ``worker_processes``, ``Fits``); with 1, or where no process can be started, here one
    after the other. The result is the same either way."""
    check_enough(recordings, where)
    pieces = [piece for r in recordings for piece in r.cut(folds)]
    fold_of = [int(piece.name.rsplit("#", 1)[1]) - 1 for piece in pieces]
    tests = [[i for i, f in enumerate(fold_of) if f == fold] for fold in range(folds)]
    measured: dict[tuple[str, int], Measured] = {}
    tuner = Tuner(pieces, cache=measured)
    whole = Tuner(recordings, cache=measured)
    with worker_processes(jobs) as workers:
        fits = Fits(workers, measured, progress)
        everything = fits.start("all recordings", recordings)  # the largest first
        by_fold = [
            fits.start(
                f"fold {fold + 1} of {folds}",
                [piece for piece, f in zip(pieces, fold_of, strict=True) if f != fold],
            )
            for fold in range(folds)
        ]
        chosen = [fits.result(index) for index in by_fold]
        chosen.append(fits.result(everything))
    held_out = Score()
    for fold in range(folds):
        held_out.add(tuner.score(chosen[fold], tests[fold]))
    settings = chosen[-1]
    return TuneResult(
        settings,
        held_out,
        whole.score(settings),
        [r.name for r in recordings],
        sum(len(r.onsets_ms) for r in recordings),
        sum(r.seconds for r in recordings),
    )


MOST_JOBS = 64  # a --jobs option's largest value
STOP_WAIT_S = 10.0  # the longest a Ctrl-C waits for ended workers to be reaped


@contextmanager
def worker_processes(jobs: int | None = None) -> Iterator[ProcessPoolExecutor | None]:
    """A pool of ``jobs`` fresh interpreters for fits (default: one per core), or None with
    one job or where no process can be started (a sandbox without semaphores). Started,
    not forked, as on macOS and Windows, so no lock a thread of this one holds (the serial
    link's reader) is copied into them. Left by an exception (Ctrl-C), it ends its workers
    at once instead of after every fit queued."""
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1:
        yield None
        return
    try:
        workers = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    except (OSError, NotImplementedError, ImportError):
        yield None
        return
    try:
        yield workers
    except BaseException:
        stop_workers(workers)
        raise
    finally:
        workers.shutdown()


def fitted(recordings: Sequence[Recording]) -> dict[str, Any]:
    """Settings fitted on ``recordings``: one fit, as a task for a worker process."""
    return Tuner(recordings).fit()


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
        self._started: list[tuple[str, Sequence[Recording], Future | None]] = []
        self._done = 0

    def start(self, what: str, recordings: Sequence[Recording]) -> int:
        future = self._workers.submit(fitted, recordings) if self._workers else None
        self._started.append((what, recordings, future))
        return len(self._started) - 1

    def result(self, index: int) -> dict[str, Any]:
        what, recordings, future = self._started[index]
        if self._done == 0:
            self._progress(0, len(self._started), "fitting")
        settings = None
        if future is not None:
            try:
                settings = future.result()
            except BrokenProcessPool:
                pass
        if settings is None:
            settings = Tuner(recordings, cache=self._cache).fit()
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
        "latency_samples": result.latency(),
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
        "cross_validated": figures(result.cross_validated),
        "on_the_fitted_recordings": figures(result.fitted),
    }


def read_config(path: str | Path) -> dict[str, Any]:
    """The settings in a detector file (from ``popdice tune``, or a bare settings object),
    checked by the firmware's own rules; TraceError naming the file and the problem."""
    path = Path(path)
    try:
        loaded: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TraceError(f"cannot read {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TraceError(f"{path}: not JSON ({error})") from None
    except RecursionError:
        raise TraceError(f"{path}: not JSON (nested too deeply)") from None
    except ValueError:  # Python refuses integers of over 4,300 digits
        raise TraceError(f"{path}: not JSON (a number with too many digits)") from None
    settings = loaded.get("settings", loaded) if isinstance(loaded, dict) else loaded
    try:
        return check_settings(settings)
    except ValueError as error:
        raise TraceError(f"{path}: {error}") from None
