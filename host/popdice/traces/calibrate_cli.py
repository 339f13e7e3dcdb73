"""``popdice calibrate``: fits the press detector to one popper at its table, with a person
walking through presses, knocks and lifting; ``--reset`` goes back to the built-in detector."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..console.arguments import file_name, folder_name, serial_port, whole_number
from ..console.help_text import paragraphs
from ..console.progress import ProgressBar
from ..devices.connect import connect
from ..devices.popper import Popper
from ..files import write_replacing
from .files import TraceError
from .record_cli import record_to
from .scoring import TARGET_FALSE_PER_HOUR, TARGET_RECALL
from .tune import document, load_recordings, score_as_the_popper, tune
from .tune_cli import FINDS_NOTHING, finds_nothing, missed_targets, summary


@dataclass(frozen=True)
class Step:
    name: str
    seconds: float  # at the default length; ``steps`` scales them
    prompt: bool
    what: str


DEFAULT_MINUTES = 12  # what the calibrated figures in the README are measured with
LEAST_MINUTES, MOST_MINUTES = 4, 30

STEPS = (
    Step(
        "presses",
        480.0,
        True,
        "Press the dome each time the terminal beeps and let it go, the way players will: "
        "some soft, some hard, some quick, some held a moment.",
    ),
    Step(
        "knocks",
        150.0,
        False,
        "Do NOT press the dome. Knock on the table near the popper, bang it with a fist, drop "
        "dice on it, set a cup down.",
    ),
    Step(
        "lifting",
        90.0,
        False,
        "Do NOT press the dome. Lift the popper, carry it about, turn it, put it down again, "
        "slide it across the table.",
    ),
)


def steps(minutes: float = DEFAULT_MINUTES) -> tuple[Step, ...]:
    """The guided steps, lasting ``minutes`` in all, in the same proportions."""
    scale = minutes * 60.0 / sum(step.seconds for step in STEPS)
    return tuple(replace(step, seconds=round(step.seconds * scale)) for step in STEPS)


TARGETS = f"recall {100 * TARGET_RECALL:g} %, at most {TARGET_FALSE_PER_HOUR:g} false press an hour"

DESCRIPTION = paragraphs(f"""\
Fits the popper's press detector to this unit, on this table: a guided series of
recordings (presses when the terminal beeps, then knocks and dice on the table, then
lifting and moving the unit: --minutes in all, {DEFAULT_MINUTES} by default, as the
calibrated figures of the documentation were measured; a shorter calibration fits on fewer
presses and knocks, and does less well), then `popdice tune` on them. It
measures whether this dome's releases stand clear of everything else, and chooses whether
the dice pop on the release (as the printed game's popper does) or on the press, saying
which and why. It shows the cross-validated figures beside those of the popper's detector
now on the same recordings, and writes the settings to the popper, which keeps them in
its flash (detector.json) and detects with them at once and after every boot. Where the
popper's detector now does as well on the recordings as the fit does cross-validated, it
is kept and nothing is written: minutes of recordings are little to fit on. A fit that
misses a target ({TARGETS}) is written only if you say
so, and one that finds none of the presses is not written at all. The recordings and the
settings are kept in --keep DIR, so the fit can be checked or done again.

--reset deletes the settings from the popper: it goes back to its built-in settings.
--apply DETECTOR.json writes settings made earlier with `popdice tune`.""")

EPILOG = """\
examples:
  popdice calibrate                      the guided calibration on the first popper found
  popdice calibrate --minutes 6          a shorter calibration (it fits on less)
  popdice calibrate --apply detector.json   settings made earlier with popdice tune
  popdice calibrate --reset              back to the built-in detector
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--port", type=serial_port, help="the popper's serial port (default: the first found)"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--reset", action="store_true", help="back to the built-in settings")
    group.add_argument(
        "--apply", metavar="DETECTOR.json", type=file_name, help="write settings from a file"
    )
    parser.add_argument(
        "--minutes",
        type=whole_number(LEAST_MINUTES, MOST_MINUTES),
        metavar="M",
        help=f"how long the guided steps take in all, {LEAST_MINUTES}-{MOST_MINUTES} (default "
        f"{DEFAULT_MINUTES})",
    )
    parser.add_argument(
        "--keep",
        metavar="DIR",
        type=folder_name,
        help="where to keep the recordings (default: a new folder here)",
    )
    parser.set_defaults(run=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
    from ..devices.discovery import pick_port
    from .tune import read_config

    if args.keep and (args.reset or args.apply):
        raise TraceError(
            "--keep is where the guided calibration keeps its recordings: not with "
            "--reset or --apply"
        )
    if args.minutes and (args.reset or args.apply):
        raise TraceError(
            "--minutes is how long the guided calibration takes: not with --reset or --apply"
        )
    settings = read_config(args.apply) if args.apply else None
    if not (args.reset or settings) and not sys.stdin.isatty():
        raise TraceError("the guided calibration needs a person at a terminal")
    port = pick_port(args.port, "popper")
    with connect(port) as client:
        if not isinstance(client, Popper):
            raise TraceError(f"{port} is a {client.info.board}, not a popper")
        if args.reset:
            now = client.reset_detector()
            print(f"the popper on {port} uses its {now.source} detector again")
            return 0
        if settings is not None:
            client.set_detector(settings)
            print(f"settings from {args.apply} written to the popper on {port}")
            return 0
        keep = Path(args.keep or time.strftime("calibration-%Y%m%d-%H%M%S"))
        return calibrate(client, keep, _ask_person, minutes=args.minutes or DEFAULT_MINUTES)


def _ask_person(step: Step, number: int) -> None:
    print(f"\nstep {number} of {len(STEPS)}, {step.name} ({_duration(step.seconds)}): {step.what}")
    try:
        input("press Enter to start ")
    except EOFError:  # Ctrl-D, or Ctrl-Z Enter on Windows
        print()
        raise TraceError(f"calibration stopped before step {number} ({step.name})") from None


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    parts = [f"{minutes} min"] if minutes else []
    if seconds or not minutes:
        parts.append(f"{seconds} s")
    return " ".join(parts)


def _ask_yes(question: str) -> bool:
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:  # no answer: no
        print()
        return False


def calibrate(
    popper: Popper,
    keep: Path,
    before_step: Callable[[Step, int], None],
    recorder: Callable[[Popper, Step, Path], None] | None = None,
    confirm: Callable[[str], bool] = _ask_yes,
    minutes: float = DEFAULT_MINUTES,
) -> int:
    """Records every step (``minutes`` in all) into ``keep``, tunes, shows the figures
    beside the detector's in use and writes the settings to the popper, asking ``confirm``
    first if they miss a target (1: not written); writes nothing where the detector in use
    does as well. ``recorder`` records one step (default: the popper's stream, prompts for
    the presses)."""
    try:
        keep.mkdir(parents=True, exist_ok=False)
    except FileExistsError:
        raise TraceError(
            f"{keep} already exists: --keep takes a new folder, so that no recording is "
            "mixed with another calibration's"
        ) from None
    except OSError as error:
        raise TraceError(f"cannot make {keep}: {error.strerror or error}") from None
    record_step = recorder or _record_step
    try:
        for number, step in enumerate(steps(minutes), 1):
            before_step(step, number)
            record_step(popper, step, keep / f"{step.name}.csv")
    except BaseException:  # stopped (Ctrl-C included): a folder left empty goes too
        if not any(keep.iterdir()):
            keep.rmdir()
        raise
    recordings = load_recordings(keep)
    in_use = popper.detector()
    result = tune(
        recordings,
        where=str(keep),
        progress=ProgressBar("tuning"),
        in_use=in_use.settings,
        in_use_name=f"popper's {in_use.source}",
    )
    write_replacing(keep / "detector.json", json.dumps(document(result), indent=2) + "\n")
    print(result.why)
    if result.kept:
        print(
            f"not written: the popper keeps its {in_use.source} detector (the recordings are "
            f"in {keep})"
        )
        return 0
    print("fitted, cross-validated: " + summary(result.cross_validated))
    before = score_as_the_popper(recordings, in_use.settings)
    print(f"the popper's {in_use.source} detector on the same recordings: " + summary(before))
    if finds_nothing(result):
        print(
            f"not written: {FINDS_NOTHING}; the popper keeps its {in_use.source} detector (the "
            f"recordings and the fit are in {keep})"
        )
        return 1
    missed = missed_targets(result.cross_validated)
    if missed and not confirm(
        f"the fit misses {', '.join(missed)}: write it to the popper anyway?"
    ):
        print(
            f"not written: the popper keeps its {in_use.source} detector; the fit is in "
            f"{keep / 'detector.json'} (popdice calibrate --apply FILE writes it)"
        )
        return 1
    now = popper.set_detector(result.settings)
    print(f"settings written to the popper ({now.source}); kept with the recordings in {keep}")
    return 0


def _record_step(popper: Popper, step: Step, out: Path) -> None:
    record_to(popper, step.seconds, out, prompt=step.prompt, keys=False)
