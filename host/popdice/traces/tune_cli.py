"""``popdice tune DIR --out DETECTOR.json``: fits the press detector's settings to labelled
recordings of one popper, prints cross-validated figures and writes the settings."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..console.arguments import folder_name, output_file, whole_number
from ..console.help_text import paragraphs
from ..console.progress import ProgressBar
from ..files import output_target, write_replacing
from .files import TraceError
from .scoring import TARGET_FALSE_PER_HOUR, TARGET_LATENCY_MS, TARGET_RECALL, Score
from .tune import (
    FOLDS,
    MIN_PRESSES,
    MIN_QUIET_SECONDS,
    MIN_SECONDS,
    MOST_JOBS,
    POP_ON,
    TuneResult,
    document,
    load_recordings,
    tune,
)

DESCRIPTION = paragraphs(f"""\
Fits the popper's press detector (firmware/popdice_fw/press.py) to labelled recordings of
one unit, and writes its settings to DETECTOR.json for `popdice detect --config` and for the
popper itself (`popdice calibrate` does all of it at the table).

DIR holds NAME.csv (or NAME.csv.xz, NAME.csv.gz) recordings, `popdice record`'s format
t_ms,x_g,y_g,z_g, each with NAME.labels.json beside it ({{"presses_ms": [...]}}, the press
marks as a person gives them; "releases_ms" beside it, if known, times the pops too); every
moment not labelled as a press counts as not a press. With --pop-on auto (the default) it
fits the settings for popping on the release and on the press, and keeps the release
unless this unit's releases do not stand clear; it says which and why. Where the popper's
built-in settings do as well on the recordings as the fit does cross-validated, it writes
those instead, and says so (--no-built-in writes the fit all the same). Record presses,
and just as much of everything else the unit will feel: knocks on the table, dice landing,
lifting it and putting it down. Tuning needs at least {MIN_PRESSES} presses, \
{MIN_SECONDS:.0f} s of recordings
and {MIN_QUIET_SECONDS:.0f} s without presses; a dozen minutes is better.

The figures printed are cross-validated: each recording is cut into --folds stretches of
time and each stretch is scored with settings fitted on the others, so they say how the
settings will do on presses they have not seen. Targets: recall at least \
{100 * TARGET_RECALL:.1f} %, at most
{TARGET_FALSE_PER_HOUR:g} false press an hour, and where releases are labelled, 99 % of the \
pops at most
{TARGET_LATENCY_MS:g} ms after the release (or the press's blow). The fits run at once, one \
process per core
(--jobs); the settings are the same with any number.""")

EPILOG = """\
examples:
  popdice tune recordings/ --out detector.json
  popdice detect recordings/knocks.csv --config detector.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "folder", metavar="DIR", type=folder_name, help="labelled recordings (NAME.csv + labels)"
    )
    parser.add_argument(
        "--out",
        metavar="DETECTOR.json",
        type=output_file,
        required=True,
        help="where to write the settings",
    )
    parser.add_argument(
        "--folds",
        type=whole_number(2, 10),
        default=FOLDS,
        metavar="K",
        help=f"stretches of time for cross-validation, 2-10 (default {FOLDS})",
    )
    parser.add_argument(
        "--pop-on",
        choices=("auto", *POP_ON),
        default="auto",
        help="pop on the dome's release, on the press, or fit both and choose (default auto)",
    )
    parser.add_argument(
        "--no-built-in",
        action="store_true",
        help="write the fit even where the built-in settings do as well on the recordings",
    )
    parser.add_argument(
        "--jobs",
        type=whole_number(1, MOST_JOBS),
        metavar="J",
        help=f"fits made at once, each in a process of its own, 1-{MOST_JOBS} (default: one per "
        "core; there are --folds + 1 fits, twice over with --pop-on auto)",
    )
    parser.set_defaults(run=run_tune)


def run_tune(args: argparse.Namespace) -> int:
    out = Path(args.out)
    output_target(out, TraceError)
    recordings = load_recordings(args.folder)
    result = tune(
        recordings,
        args.folds,
        str(args.folder),
        ProgressBar("tuning"),
        args.jobs,
        args.pop_on,
        keep_in_use=not args.no_built_in,
    )
    write_replacing(out, json.dumps(document(result), indent=2) + "\n", TraceError)
    print(
        f"fitted on {len(recordings)} recordings, {result.presses} presses, "
        f"{result.seconds / 60:.1f} min"
    )
    print(result.why)
    if result.kept:
        print("the built-in settings on these recordings: " + summary(result.fitted))
        print(f"the built-in settings written to {out}: keep the popper's built-in detector")
        return 0
    print("cross-validated: " + summary(result.cross_validated))
    print("on the recordings it was fitted on: " + summary(result.fitted))
    missed = missed_targets(result.cross_validated)
    if finds_nothing(result):
        print(f"{FINDS_NOTHING}: keep the popper's built-in detector")
    elif missed:
        print(
            f"targets missed: {', '.join(missed)}; more recordings of this unit's presses and of "
            "what it feels besides may help, or keep the popper's built-in detector"
        )
    else:
        print("every target met (cross-validated)")
    print(f"settings written to {out}")
    return 0


FINDS_NOTHING = (
    "these settings find none of the presses, not even on the recordings they were fitted on "
    "(nothing the detector measures tells these presses from the rest of the recordings)"
)


def finds_nothing(result: TuneResult) -> bool:
    """The fit gave up on the presses: every setting that found some also found so many
    false presses that finding none cost less."""
    return result.presses > 0 and result.fitted.detected == 0


def summary(result: Score) -> str:
    recall, per_hour = result.recall, result.false_per_hour
    latency = result.latency()
    parts = [
        "recall -" if recall is None else f"recall {100 * recall:.2f} %",
        "false presses -" if per_hour is None else f"{per_hour:.1f} false presses an hour",
    ]
    if result.timed and latency["p99"] is not None:
        parts.append(f"latency p50 {latency['p50']:g} / p99 {latency['p99']:g} ms")
    if result.timed and result.early:
        parts.append(f"{result.early} popped before they were due (in the hold)")
    return ", ".join(parts)


def missed_targets(result: Score) -> list[str]:
    """The targets ``result`` misses, each with its figure, for people."""
    met = result.meets_targets()
    recall, per_hour = result.recall, result.false_per_hour
    p99 = result.latency()["p99"]
    missed = []
    if not met["recall"]:
        shown = "-" if recall is None else f"{100 * recall:.2f} %"
        missed.append(f"recall {shown} (target {100 * TARGET_RECALL:g} %)")
    if not met["false_presses_per_hour"]:
        shown = "-" if per_hour is None else f"{per_hour:.1f}"
        missed.append(f"{shown} false presses an hour (target {TARGET_FALSE_PER_HOUR:g})")
    if result.timed and not met["latency_ms"]:
        missed.append(f"latency p99 {p99} ms (target {TARGET_LATENCY_MS:g})")
    return missed
