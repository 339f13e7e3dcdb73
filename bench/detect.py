"""Press-detection benchmark, two tables.

Without arguments: the settings-driven detector (firmware/popdice_fw/impulse.py) across the
independently written model families (lab/popdice_lab/families), one family left out at a
time: per family, recall, false presses per hour and latency on its evaluation units with
settings fitted on the other families (uncalibrated), with settings fitted on a dozen
minutes of each unit's own labelled sessions (calibrated), with the shipped defaults, and
the hand-fitted detector the popper runs without settings (built-in, press.py); the
calibrated figures unit by unit (units differ a lot: --units N scores more of them, and
--first-unit K others than the default units 1-3) and the fit's cost per family and over
all of them, the one number to compare two versions of the detector by; the
presses no detector can see at that latency (lab/popdice_lab/visibility.py); what the
calibrated and shipped settings' false presses and misses came with, from the events each
model records (lab/popdice_lab/causes.py); then the settings fitted on every family, the
candidates for the firmware's defaults.
Targets (issue 11): calibrated, recall >= 99.5 %, <= 1 false press an hour, latency <= 4
samples for every family; uncalibrated on a family left out, recall >= 95 % and <= 5 false
presses an hour. How the fit works: popdice/traces/tune.py; the protocol:
lab/popdice_lab/crossfamily.py. --quick makes a tenth of the data (a smoke test). The
families are made and the fits run in one process per core (--jobs J); the figures do not
depend on how many.

With --corpus [DIR]: the detector the popper runs, inside MicroPython, over the fixed corpus
in bench/corpus/ (made by bench/make_corpus.py from the first model family), per kind of
trace, against the same targets.
How detections are matched to labels: popdice/traces/scoring.py.

    .venv/bin/python bench/detect.py [--quick] [--families a,b,c] [--units N] [--first-unit K]
        [--jobs J]
    .venv/bin/python bench/detect.py --corpus [DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from popdice.console.arguments import whole_number
from popdice.traces.files import read_labels, read_trace
from popdice.traces.measured import defaults
from popdice.traces.runner import run_detector
from popdice.traces.scoring import (
    TARGET_FALSE_PER_HOUR,
    TARGET_LATENCY_SAMPLES,
    TARGET_RECALL,
    Score,
    score,
)
from popdice.traces.tune import MOST_JOBS, Recording, Tuner, cost, worker_processes
from popdice_lab.causes import Causes, attribute
from popdice_lab.crossfamily import QUICK, Plan, bench_plan, leave_one_out, make_family
from popdice_lab.families import chosen
from popdice_lab.visibility import FAINT_SIGMAS, Visibility, visibility

HERE = Path(__file__).resolve().parent
TRACE_SUFFIXES = (".csv.xz", ".csv.gz", ".csv")


def corpus_files(folder: Path) -> list[tuple[str, Path, Path]]:
    """(kind, trace, labels) for every labelled trace in ``folder``, by name."""
    found = []
    for labels in sorted(folder.glob("*.labels.json")):
        stem = labels.name[: -len(".labels.json")]
        traces = [folder / (stem + suffix) for suffix in TRACE_SUFFIXES]
        trace = next((path for path in traces if path.exists()), None)
        if trace is None:
            raise SystemExit(f"error: {labels} has no trace next to it")
        kind = json.loads(labels.read_text()).get("kind") or stem.rsplit("-", 1)[0]
        found.append((kind, trace, labels))
    if not found:
        raise SystemExit(f"error: no labelled traces in {folder} (run bench/make_corpus.py)")
    return found


def score_file(trace: Path, labels: Path) -> Score:
    t_ms, samples = read_trace(trace)
    return score(t_ms, run_detector(samples).indices, read_labels(labels))


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f} %"


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def row(name: str, result: Score) -> str:
    latency = result.latency()
    spread = "/".join("-" if latency[k] is None else str(latency[k]) for k in latency)
    return (
        f"{name:18} {result.labelled:7} {percent(result.recall):>9} {len(result.false_ms):6} "
        f"{result.non_press_seconds / 3600:8.2f} {rate(result.false_per_hour):>7}   {spread}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--corpus", nargs="?", const=str(HERE / "corpus"), help="score the fixed corpus instead"
    )
    parser.add_argument("--quick", action="store_true", help="a tenth of the data")
    parser.add_argument("--families", help="comma-separated (default: every family)")
    parser.add_argument(
        "--units",
        type=int,
        metavar="N",
        help=f"evaluation units per family (default {Plan().units}); units differ so much that "
        "a few points between two detectors on the default three can be chance: more units "
        "narrow that (each adds its sessions and a fit per family)",
    )
    parser.add_argument(
        "--first-unit",
        type=int,
        metavar="K",
        help="number the evaluation units from K (default 1): units nobody tuned a detector "
        "change on, to check that a gain holds beyond the units it was found on",
    )
    parser.add_argument(
        "--jobs",
        type=whole_number(1, MOST_JOBS),
        metavar="J",
        help="processes that make the families' sessions and fit settings at once (default: "
        "one per core, here %(default)s); 1 runs everything in this one",
        default=os.cpu_count() or 1,
    )
    args = parser.parse_args(argv)
    if args.corpus is None:
        try:
            names = chosen(args.families)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        try:
            plan = bench_plan(QUICK if args.quick else Plan(), args.units, args.first_unit)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        with worker_processes(args.jobs) as workers:
            return cross_family(names, plan, workers)
    return corpus(Path(args.corpus))


def cross_family(names: list[str], plan: Plan, workers: Executor | None) -> int:
    started = time.monotonic()

    def say(what: str) -> None:
        print(f"[{time.monotonic() - started:5.0f} s] {what}", file=sys.stderr, flush=True)

    data = []
    if workers is None:
        for name in names:
            say(f"making {name}")
            data.append(make_family(name, plan))
    else:
        say(f"making {', '.join(names)}")
        for made in workers.map(make_family, names, [plan] * len(names)):
            say(f"made {made.name}")
            data.append(made)
    measured: dict = {}  # each recording measured once, for the table and the causes
    rows, everything = leave_one_out(data, say, measured, workers)
    print(
        "press detection across model families (firmware/popdice_fw/impulse.py), "
        "each family left out in turn"
    )
    for row in rows:
        print(f"  {row.name}: {row.summary}")
    print(
        f"  per family: {plan.units} evaluation units (from unit {plan.first_unit}), "
        "each calibrated on "
        f"{(plan.calibration_play_s + plan.calibration_quiet_s) / 60:g} min of its own sessions "
        f"and scored on {plan.evaluation_sessions * 2 * plan.evaluation_s / 60:g} min of others; "
        f"defaults fitted on {plan.pool_units} other units of each other family"
    )
    print()
    print(
        "family      settings        presses    recall  false  non-press h  false/h   "
        "latency mean/p95/max  met"
    )
    for row in rows:
        for label, result, targets in (
            ("left out", row.uncalibrated, UNCALIBRATED_TARGETS),
            ("calibrated", row.calibrated, CALIBRATED_TARGETS),
            ("shipped", row.shipped, None),
            ("built-in", row.built_in, None),
        ):
            verdict = "" if targets is None else ("yes" if meets(result, *targets) else "NO")
            print(f"{row.name:11} {label:11} {family_row(result)}  {verdict}")
    print()
    print(
        "calibrated, unit by unit (recall, false presses an hour): how far units differ; and "
        "the fit's cost over the family's units (popdice/traces/tune.py's cost(): 1 per 0.5 % "
        "missed or late, 1 per false press an hour; 0 is perfect)"
    )
    total = 0.0
    for row in rows:
        units = [
            f"{percent(result.recall)} {rate(result.false_per_hour)}/h"
            for result in row.calibrated_by_unit
        ]
        family_cost = cost(row.calibrated)
        total += family_cost
        print(f"  {row.name:11} cost {family_cost:6.1f}   " + " | ".join(units))
    print(f"  {'every one':11} cost {total:6.1f}   (compare detector changes by this)")
    print()
    print(
        f"faint presses: moved the reading by under {FAINT_SIGMAS:g} times its noise within "
        f"{TARGET_LATENCY_SAMPLES} samples of their label (lab/popdice_lab/visibility.py)"
    )
    for family in data:
        seen = Visibility([])
        for unit in family.units:
            for recording in unit.evaluation:
                seen.add(visibility(recording.t_ms, recording.samples_mg, recording.onsets_ms))
        faint = seen.faint or 0.0
        print(
            f"  {family.name:11} {100 * faint:5.2f} % of {len(seen.sigmas)}: recall at that "
            f"latency at most about {100 * (1 - faint):.2f} %"
        )
    print()
    print(
        "what the mistakes came with (lab/popdice_lab/causes.py): false presses by the nearest "
        "cause, misses/presses by what came just before"
    )
    for family, row in zip(data, rows, strict=True):
        for label, settings in (
            ("calibrated", row.calibrated_settings),
            ("shipped", [defaults()] * len(family.units)),
        ):
            found = Causes()
            for unit, own in zip(family.units, settings, strict=True):
                found.add(causes_of(unit.evaluation, own, measured))
            false, missed = found.summary()
            print(f"  {family.name:11} {label:11} false: {false}")
            print(f"  {'':11} {'':11} missed: {missed}")
    print()
    print("settings fitted on every family (the defaults' candidates):")
    print("  " + json.dumps(everything))
    for row in rows:
        print(f"  without {row.name}: " + json.dumps(row.left_out_settings))
    print()
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


UNCALIBRATED_TARGETS = (0.95, 5.0, None)
CALIBRATED_TARGETS = (TARGET_RECALL, TARGET_FALSE_PER_HOUR, TARGET_LATENCY_SAMPLES)


def causes_of(recordings: list[Recording], settings: dict[str, Any], measured: dict) -> Causes:
    """The causes of the mistakes the detector with ``settings`` makes on model sessions
    (``measured``: their measurements, shared with the tuners that made the table)."""
    found = Causes()
    tuner = Tuner(recordings, cache=measured)
    for index, recording in enumerate(recordings):
        result = tuner.score(settings, [index])
        found.add(attribute(result, recording.onsets_ms, recording.events))
    return found


def meets(result: Score, recall: float, per_hour: float, latency: int | None) -> bool:
    worst = max(result.latencies) if result.latencies else None
    return (
        result.recall is not None
        and result.recall >= recall
        and (result.false_per_hour or 0.0) <= per_hour
        and (latency is None or (worst is not None and worst <= latency))
    )


def family_row(result: Score) -> str:
    latency = result.latency()
    spread = "/".join("-" if latency[k] is None else str(latency[k]) for k in latency)
    return (
        f"{result.labelled:7} {percent(result.recall):>9} {len(result.false_ms):6} "
        f"{result.non_press_seconds / 3600:8.2f} {rate(result.false_per_hour):>9}   {spread:20}"
    )


def corpus(folder: Path) -> int:
    files = corpus_files(folder)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda item: score_file(item[1], item[2]), files))
    per_kind: dict[str, Score] = {}
    total = Score()
    for (kind, _, _), result in zip(files, results, strict=True):
        per_kind.setdefault(kind, Score()).add(result)
        total.add(result)

    print(
        f"press detection: the popper's detector inside MicroPython over {folder} "
        f"({len(files)} traces, {total.seconds / 3600:.2f} h, {total.labelled} presses)"
    )
    print()
    print(
        "kind               presses    recall  false  non-press h  false/h   latency mean/p95/max"
    )
    for kind, result in per_kind.items():
        print(row(kind, result))
    print(row("all", total))
    print()
    latency = total.latency()
    met = total.meets_targets()
    lines = [
        (
            "recall",
            percent(total.recall),
            f">= {100 * TARGET_RECALL:g} %",
            met["recall"],
        ),
        (
            "false presses per hour",
            rate(total.false_per_hour),
            f"<= {TARGET_FALSE_PER_HOUR:g}",
            met["false_presses_per_hour"],
        ),
        ("latency, mean (samples)", str(latency["mean"]), "", None),
        ("latency, p95 (samples)", str(latency["p95"]), "", None),
        (
            "latency, max (samples)",
            str(latency["max"]),
            f"<= {TARGET_LATENCY_SAMPLES}",
            met["latency_samples"],
        ),
    ]
    print(f"{'measure':26} {'value':>9}   {'target':10} met")
    for name, value, target, ok in lines:
        verdict = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:26} {value:>9}   {target:10} {verdict}")
    print()
    verdict = "all targets met" if all(met.values()) else "targets NOT met"
    print(f"{verdict} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
