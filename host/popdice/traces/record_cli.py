"""``popdice record --seconds N --out FILE.csv [--prompt]``: the popper's accelerometer
recorded to a trace file, with the presses a person marks written beside it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..console.arguments import output_file, serial_port
from ..console.messages import quoted
from ..console.progress import ProgressBar
from ..devices.connect import connect
from ..devices.popper import Popper
from ..files import output_target, write_replacing
from .files import TraceError, write_trace
from .record import (
    KEY_WINDOW_S,
    MAX_SECONDS,
    PROMPT_WINDOW_S,
    KeyMarks,
    Mark,
    RecordError,
    place_presses,
    record,
)

# --every: seconds between prompts, each prompt's press looked for in PROMPT_WINDOW_S after it
EVERY_S = (3.0, 60.0)

DESCRIPTION = f"""\
Records the popper's accelerometer (every sample, 400 a second, from its raw stream) into
FILE.csv (t_ms,x_g,y_g,z_g: what `popdice detect` and `popdice tune` read; a sample the
link lost is a gap in t_ms) and labels the presses in FILE.labels.json.

Marking presses: press any key (space, enter) just after each press of the dome; q ends
the recording early. The label goes on the press itself: the sharpest change of the
reading in the {KEY_WINDOW_S[0]:g} s before the key (to {KEY_WINDOW_S[1]:g} s after it), \
at the sample where it starts.
With --prompt the terminal beeps and asks for a press every --every seconds, and the
label goes on the press found in the {PROMPT_WINDOW_S[1]:g} s after each prompt; \
a mark with no press near it
is reported and left out. Record the other things the unit will feel too (knocks on the
table, dice landing, lifting it), unmarked: `popdice tune` learns from both."""

EPILOG = """\
examples:
  popdice record --seconds 120 --out recordings/presses.csv --prompt
  popdice record --seconds 60 --out recordings/knocks.csv      (knock, do not mark)
  popdice tune recordings/ --out detector.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--port", type=serial_port, help="the popper's serial port (default: the first found)"
    )
    parser.add_argument(
        "--seconds",
        type=_seconds,
        required=True,
        metavar="N",
        help=f"how long to record, 1 to {MAX_SECONDS} s",
    )
    parser.add_argument(
        "--out", type=output_file, required=True, metavar="FILE.csv", help="the trace to write"
    )
    parser.add_argument("--prompt", action="store_true", help="ask for each press with a beep")
    parser.add_argument(
        "--every",
        type=_every,
        default=4.0,
        metavar="S",
        help=f"with --prompt: seconds between prompts, {EVERY_S[0]:g} to {EVERY_S[1]:g} "
        "(default 4)",
    )
    parser.set_defaults(run=run_record)


def _seconds(text: str) -> float:
    """A type for ``--seconds``: how long to record, from 1 s to ``MAX_SECONDS``."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 1 <= value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 1 to {MAX_SECONDS}, not {quoted(text)}"
        )
    return value


def _every(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    low, high = EVERY_S
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"expected {low:g} to {high:g} seconds, not {quoted(text)}"
        )
    return value


def labels_path(out: Path) -> Path:
    name = out.name
    for suffix in (".csv.xz", ".csv.gz", ".csv"):
        if name.endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".labels.json")
    return out.with_name(name + ".labels.json")


def run_record(args: argparse.Namespace) -> int:
    from ..devices.discovery import pick_port

    out = Path(args.out)
    output_target(out, TraceError)
    output_target(labels_path(out), TraceError)
    if not args.prompt and not sys.stdin.isatty():
        raise TraceError("marking presses with keys needs a terminal; use --prompt")
    port = pick_port(args.port, "popper")
    with connect(port) as client:
        if not isinstance(client, Popper):
            raise TraceError(f"{port} is a {client.info.board}, not a popper")
        return record_to(client, args.seconds, out, args.prompt, args.every)


def record_to(
    popper: Popper,
    seconds: float,
    out: Path,
    prompt: bool,
    every_s: float = 4.0,
    keys: bool = True,
    on_prompt: Any = None,
) -> int:
    """Records to ``out`` and its labels file; ``keys`` reads marks from the terminal,
    ``on_prompt`` replaces the beep (tests press the simulated dome there)."""
    marks: list[Mark] = []
    bar = ProgressBar("recording")
    counted = {"marks": 0}

    def progress(done_s: float) -> None:
        bar(int(done_s), int(seconds), f"{counted['marks']} marked")

    def beep() -> None:
        counted["marks"] += 1
        if on_prompt is not None:
            on_prompt()
        else:
            sys.stderr.write("\a\npress the dome now\n")
            sys.stderr.flush()

    def marked(count: int) -> None:
        counted["marks"] = count

    try:
        if keys and not prompt:
            with KeyMarks(marks, marked) as reader:
                recording = record(popper, seconds, marks, progress, stop=reader.quit)
        else:
            recording = record(popper, seconds, marks, progress, beep if prompt else None, every_s)
    except RecordError as error:
        raise TraceError(str(error)) from None
    onsets, unplaced = place_presses(recording)
    trace = recording.trace(onsets)
    labels = labels_path(out)
    write_trace(out, trace)
    document = {"presses_ms": onsets, "kind": "recorded", "marked": "prompt" if prompt else "keys"}
    write_replacing(labels, json.dumps(document) + "\n", TraceError)
    print(
        f"{len(trace.t_ms)} samples ({trace.seconds:.1f} s, {recording.gaps} gaps) to {out}; "
        f"{len(onsets)} presses labelled in {labels}"
    )
    for mark in unplaced:
        print(f"  a {mark.kind} mark had no press near it: left out", file=sys.stderr)
    return 0
