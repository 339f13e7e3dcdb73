"""Press-detection benchmark, two tables.

Without arguments: the press detector (firmware/popdice_fw/press.py) across the independently
written model families (lab/popdice_lab/families), one family left out at a time
(lab/popdice_lab/crossfamily.py says exactly how). Per family three rows, all on the
family's evaluation units, none of whose sessions any fit saw:

- left out: settings fitted, popping on the release, on the other families' pools of units;
- calibrated: each unit fitted on 12 minutes of its own labelled sessions as `popdice
  calibrate` fits it (both modes, the mode chosen by popdice.traces.tune.choose on
  4-fold cross-validated scores, or the built-in settings kept where they do as well on
  those minutes), scored on its evaluation sessions;
- shipped: the firmware's built-in settings (popdice_fw/builtin_settings.py).

Each row gives recall with its 95 % interval (Wilson), false presses an hour of non-press
time with its 95 % interval (Poisson), and the latency's median and 99th percentile in ms
from the instant the pop is due (the release when popping on the release, the press's main
blow when popping on the press). Then the mode each calibrated unit chose and why, the
calibrated figures unit by unit (units differ a lot: --units N scores more of them,
--first-unit K others than the default units 1-3) with the fit's cost per family and over
all of them, the one number to compare two versions of the detector by; the presses no
detector can see within 4 samples (lab/popdice_lab/visibility.py); what the calibrated and
shipped settings' false presses and misses came with, from the events each model records
(lab/popdice_lab/causes.py); and the settings fitted on every family.

Targets: calibrated, recall >= 99.5 %, <= 1 false press an hour and a latency p99 <= 15 ms
for every family; left out, recall >= 98 % and <= 2 false presses an hour. The evaluation
side holds per family 3 units x 8 sessions of play and 8 of everything else, 5 minutes each:
4 hours, about 3.5 of them without presses, and 900 to 1,400 presses, so that 99.5 % and
98.5 % recall lie apart by more than their intervals. On 2 cores the whole run takes about
three hours (its five left-out fits 4-30 minutes each, its 150 calibration fits about 30 s
each); --quick makes a small fraction of the data (one unit per family, 2 minutes of
evaluation: a smoke test, 6-7 minutes). The families are made and the fits run in one process
per core (--jobs J); the figures do not depend on how many. --json prints one JSON object
with the same figures instead of the tables (progress still goes to stderr).

With --corpus [DIR]: the detector the popper runs, inside MicroPython, with its built-in
settings, over the fixed corpus in bench/corpus/ (made by bench/make_corpus.py from the
physical model), per kind of trace, against the calibrated targets; latency from each
press's release (or main blow) where the labels give releases, else from its onset.
How detections are matched to labels: popdice/traces/scoring.py.

    .venv/bin/python bench/detect.py [--quick] [--families a,b,c] [--units N] [--first-unit K]
        [--jobs J] [--no-left-out] [--json]
    .venv/bin/python bench/detect.py --corpus [DIR] [--json]
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from popdice.console.arguments import whole_number
from popdice.traces.files import read_labels, read_releases, read_trace
from popdice.traces.measured import defaults
from popdice.traces.runner import run_detector
from popdice.traces.scoring import (
    TARGET_FALSE_PER_HOUR,
    TARGET_LATENCY_MS,
    TARGET_RECALL,
    Score,
    score,
)
from popdice.traces.trace import Trace, main_blows_ms
from popdice.traces.tune import MOST_JOBS, Recording, Tuner, cost, worker_processes
from popdice_lab.bench import parser as bench_parser
from popdice_lab.causes import Causes, attribute
from popdice_lab.crossfamily import (
    QUICK,
    ROWS,
    FamilyData,
    FamilyRow,
    Plan,
    bench_plan,
    leave_one_out,
    make_family,
)
from popdice_lab.families import chosen
from popdice_lab.visibility import FAINT_SIGMAS, HORIZON_SAMPLES, Visibility, visibility

HERE = Path(__file__).resolve().parent
TRACE_SUFFIXES = (".csv.xz", ".csv.gz", ".csv")

# (recall at least, false presses an hour at most, latency p99 at most in ms or None)
LEFT_OUT_TARGETS = (0.98, 2.0, None)
CALIBRATED_TARGETS = (TARGET_RECALL, TARGET_FALSE_PER_HOUR, TARGET_LATENCY_MS)
TARGETS: dict[str, tuple[float, float, float | None] | None] = dict(
    zip(ROWS, (LEFT_OUT_TARGETS, CALIBRATED_TARGETS, None), strict=True)
)


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
    """The built-in detector inside MicroPython over one corpus trace, against its labels:
    latency from each press's release (popping on the release) or main blow (on the
    press) where the labels give releases, else from the onset."""
    t_ms, samples = read_trace(trace)
    onsets, releases = read_labels(labels), read_releases(labels)
    if releases is None and not onsets:
        releases = []  # no press: no release to miss
    anchors = None
    if releases is not None:
        if defaults()["pop_on"] == "release":
            anchors = releases
        else:
            anchors = main_blows_ms(Trace(t_ms, samples, onsets))
    return score(t_ms, run_detector(samples).indices, onsets, releases, anchors)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f} %"


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def interval(bounds: tuple[float, float] | None, as_percent: bool) -> str:
    if bounds is None:
        return "-"
    if as_percent:
        return f"{100 * bounds[0]:.1f}-{100 * bounds[1]:.1f}"
    return f"{bounds[0]:.2f}-{bounds[1]:.2f}"


def latency_text(result: Score) -> str:
    latency = result.latency()
    return "/".join("-" if latency[k] is None else f"{latency[k]:g}" for k in ("p50", "p99"))


def meets(result: Score, targets: tuple[float, float, float | None] | None) -> bool | None:
    """Whether ``result`` meets ``targets`` (None: there are none)."""
    if targets is None:
        return None
    recall, per_hour, latency = targets
    p99 = result.latency()["p99"]
    return (
        result.recall is not None
        and result.recall >= recall
        and (result.false_per_hour or 0.0) <= per_hour
        and (latency is None or (p99 is not None and p99 <= latency))
    )


def figures(result: Score, targets: tuple[float, float, float | None] | None = None) -> dict:
    """A score's figures, for JSON."""

    def rounded(bounds: tuple[float, float] | None, places: int) -> list[float] | None:
        return None if bounds is None else [round(bounds[0], places), round(bounds[1], places)]

    recall, per_hour = result.recall, result.false_per_hour
    return {
        "presses": result.labelled,
        "detected": result.detected,
        "recall": None if recall is None else round(recall, 5),
        "recall_95": rounded(result.recall_interval(), 5),
        "false_presses": len(result.false_ms),
        "non_press_hours": round(result.non_press_seconds / 3600, 3),
        "false_per_hour": None if per_hour is None else round(per_hour, 3),
        "false_per_hour_95": rounded(result.false_interval(), 3),
        "latency_ms": result.latency(),
        "latency_timed": result.timed,
        "popped_early": result.early,
        "met": meets(result, targets),
    }


HEADER = (
    f"{'presses':>7} {'recall':>9} {'(95 %)':>11} {'false':>5} {'non-press h':>11} "
    f"{'false/h':>7} {'(95 %)':>13}  {'latency p50/p99 ms':>18}"
)


def figures_line(result: Score) -> str:
    return (
        f"{result.labelled:7} {percent(result.recall):>9} "
        f"{interval(result.recall_interval(), True):>11} {len(result.false_ms):5} "
        f"{result.non_press_seconds / 3600:11.2f} {rate(result.false_per_hour):>7} "
        f"{interval(result.false_interval(), False):>13}  {latency_text(result):>18}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument(
        "--corpus", nargs="?", const=str(HERE / "corpus"), help="score the fixed corpus instead"
    )
    parser.add_argument("--quick", action="store_true", help="a small fraction of the data")
    parser.add_argument("--families", help="comma-separated (default: every family)")
    parser.add_argument(
        "--units",
        type=int,
        metavar="N",
        help=f"evaluation units per family (default {Plan().units}); units differ so much that "
        "a few points between two detectors on the default three can be chance: more units "
        "narrow that (each adds its sessions and ten fits per family)",
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
    parser.add_argument(
        "--no-left-out",
        action="store_true",
        help="the calibrated and shipped rows alone: none of the left-out fits, the run's "
        "longest (to compare changes to calibration)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object with the figures instead"
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
            return cross_family(names, plan, workers, args.json, not args.no_left_out)
    return corpus(Path(args.corpus), args.json)


def cross_family(
    names: list[str],
    plan: Plan,
    workers: Executor | None,
    as_json: bool = False,
    left_out: bool = True,
) -> int:
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
    rows, everything = leave_one_out(data, say, measured, workers, plan.calibration_folds, left_out)
    say("scoring the faint presses and the causes")
    report = {
        "detector": "firmware/popdice_fw/press.py",
        "plan": dataclasses.asdict(plan),
        "families": [
            family_report(family, row, measured) for family, row in zip(data, rows, strict=True)
        ],
        "every_family_settings": everything,
    }
    report["cost"] = round(sum(family["cost"] for family in report["families"]), 2)
    report["seconds"] = round(time.monotonic() - started)
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        print_cross_family(report, rows, plan)
    return 0


def family_report(family: FamilyData, row: FamilyRow, measured: dict) -> dict[str, Any]:
    """One family's figures, as JSON takes them: its rows, its units, the faint presses,
    the causes of the mistakes, the settings."""
    seen = Visibility([])
    for unit in family.units:
        for recording in unit.evaluation:
            seen.add(visibility(recording.t_ms, recording.samples_mg, recording.onsets_ms))
    causes = {}
    for label, settings in (
        ("calibrated", [unit.settings for unit in row.units]),
        ("shipped", [defaults()] * len(family.units)),
    ):
        found = Causes()
        for unit, own in zip(family.units, settings, strict=True):
            found.add(causes_of(unit.evaluation, own, measured))
        false, missed = found.summary()
        causes[label] = {"false": false, "missed": missed}
    return {
        "name": row.name,
        "summary": row.summary,
        "rows": {label: figures(result, TARGETS[label]) for label, result in row.rows()},
        "units": [
            {
                "unit": unit.unit,
                "pop_on": unit.pop_on,
                "kept_built_in": unit.kept,
                "why": unit.why,
                "cross_validated": {m: figures(s) for m, s in unit.cross_validated.items()},
                "built_in_on_calibration": figures(unit.built_in),
                "evaluation": figures(unit.evaluated, CALIBRATED_TARGETS),
                "settings": unit.settings,
            }
            for unit in row.units
        ],
        "cost": round(cost(row.calibrated), 2),
        "faint": {
            "presses": len(seen.sigmas),
            "share": None if seen.faint is None else round(seen.faint, 5),
        },
        "causes": causes,
        "left_out_settings": row.left_out_settings,
    }


def print_cross_family(report: dict[str, Any], rows: list[FamilyRow], plan: Plan) -> None:
    families = report["families"]
    left_out = report["every_family_settings"] is not None
    print(
        "press detection across model families (firmware/popdice_fw/press.py), "
        + ("each family left out in turn" if left_out else "without the left-out rows")
    )
    for row in rows:
        print(f"  {row.name}: {row.summary}")
    print(
        f"  per family: {plan.units} evaluation units (from unit {plan.first_unit}), "
        "each calibrated on "
        f"{(plan.calibration_play_s + plan.calibration_quiet_s) / 60:.3g} min of its own sessions "
        f"and scored on {plan.evaluation_sessions * 2 * plan.evaluation_s / 60:.3g} min of others"
        + (
            f"; left-out settings fitted on {plan.pool_units} units of each other family"
            if left_out
            else ""
        )
    )
    print(
        ("  left out: fitted (pop on the release) on the other families; " if left_out else "  ")
        + "calibrated: each unit fitted on its own minutes, mode chosen as popdice calibrate "
        "chooses it; shipped: the built-in settings"
    )
    print()
    print(f"{'family':11} {'row':11} {HEADER}  met")
    for row in rows:
        for label, result in row.rows():
            verdict = meets(result, TARGETS[label])
            met = "" if verdict is None else ("yes" if verdict else "NO")
            print(f"{row.name:11} {label:11} {figures_line(result)}  {met}")
    print()
    print(
        "calibrated units: the mode each chose, or the built-in settings kept "
        "(popdice.traces.tune.choose, on "
        f"{plan.calibration_folds}-fold cross-validated scores of its calibration), and its "
        "figures on its evaluation sessions (recall, false presses an hour); the fit's cost "
        "over the family's units (popdice/traces/tune.py's cost(): 1 per 0.5 % missed or "
        "late, 1 per false press an hour; 0 is perfect)"
    )
    for row, family in zip(rows, families, strict=True):
        units = [
            f"u{unit.unit} {'built-in' if unit.kept else unit.pop_on} "
            f"{percent(unit.evaluated.recall)} "
            f"{rate(unit.evaluated.false_per_hour)}/h"
            for unit in row.units
        ]
        print(f"  {row.name:11} cost {family['cost']:6.1f}   " + " | ".join(units))
    print(f"  {'every one':11} cost {report['cost']:6.1f}   (compare detector changes by this)")
    for row in rows:
        for unit in row.units:
            print(f"  {row.name} u{unit.unit}: {unit.why}")
    print()
    print(
        f"faint presses: moved the reading by under {FAINT_SIGMAS:g} times its noise within "
        f"{HORIZON_SAMPLES} samples of their label (lab/popdice_lab/visibility.py)"
    )
    for family in families:
        faint = family["faint"]["share"] or 0.0
        print(
            f"  {family['name']:11} {100 * faint:5.2f} % of {family['faint']['presses']}: recall "
            f"within 4 samples at most about {100 * (1 - faint):.2f} %"
        )
    print()
    print(
        "what the mistakes came with (lab/popdice_lab/causes.py): false presses by the nearest "
        "cause, misses/presses by what came just before"
    )
    for family in families:
        for label, found in family["causes"].items():
            print(f"  {family['name']:11} {label:11} false: {found['false']}")
            print(f"  {'':11} {'':11} missed: {found['missed']}")
    print()
    if report["every_family_settings"] is not None:
        print("settings fitted on every family, popping on the release:")
        print("  " + json.dumps(report["every_family_settings"]))
        for row in rows:
            print(f"  without {row.name}: " + json.dumps(row.left_out_settings))
        print()
    print(f"({report['seconds']} s)")


def causes_of(recordings: list[Recording], settings: dict[str, Any], measured: dict) -> Causes:
    """The causes of the mistakes the detector with ``settings`` makes on model sessions
    (``measured``: their measurements, shared with the tuners that made the table)."""
    found = Causes()
    tuner = Tuner(recordings, cache=measured)
    for index, recording in enumerate(recordings):
        result = tuner.score(settings, [index])
        found.add(attribute(result, recording.onsets_ms, recording.events, recording.releases_ms))
    return found


def corpus(folder: Path, as_json: bool = False) -> int:
    files = corpus_files(folder)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda item: score_file(item[1], item[2]), files))
    per_kind: dict[str, Score] = {}
    total = Score()
    for (kind, _, _), result in zip(files, results, strict=True):
        per_kind.setdefault(kind, Score()).add(result)
        total.add(result)
    met = total.meets_targets()
    if as_json:
        report = {
            "detector": "firmware/popdice_fw/press.py, built-in settings, inside MicroPython",
            "pop_on": defaults()["pop_on"],
            "corpus": str(folder),
            "traces": len(files),
            "hours": round(total.seconds / 3600, 3),
            "kinds": {kind: figures(result) for kind, result in per_kind.items()},
            "all": figures(total, CALIBRATED_TARGETS),
            "targets_met": met,
            "seconds": round(time.monotonic() - started),
        }
        print(json.dumps(report, indent=1))
        return 0

    print(
        f"press detection: the popper's detector (built-in settings, pop on the "
        f"{defaults()['pop_on']}) inside MicroPython over {folder} "
        f"({len(files)} traces, {total.seconds / 3600:.2f} h, {total.labelled} presses)"
    )
    anchor = "its release or main blow" if total.timed else "the onset (no releases in labels)"
    print(f"latency from {anchor}")
    print()
    print(f"{'kind':18} {HEADER}")
    for kind, result in per_kind.items():
        print(f"{kind:18} {figures_line(result)}")
    print(f"{'all':18} {figures_line(total)}")
    print()
    latency = total.latency()
    lines = [
        ("recall", percent(total.recall), f">= {100 * TARGET_RECALL:g} %", met["recall"]),
        (
            "false presses per hour",
            rate(total.false_per_hour),
            f"<= {TARGET_FALSE_PER_HOUR:g}",
            met["false_presses_per_hour"],
        ),
        ("latency, p50 (ms)", str(latency["p50"]), "", None),
        ("latency, p99 (ms)", str(latency["p99"]), f"<= {TARGET_LATENCY_MS:g}", met["latency_ms"]),
        ("latency, max (ms)", str(latency["max"]), "", None),
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
