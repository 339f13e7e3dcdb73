"""``popdice detect TRACE [--labels LABELS] [--config DETECTOR.json]``: the firmware's press
detector over a recorded or generated accelerometer trace, run inside MicroPython, with
figures against labels.

``add_arguments(parser)`` gives the command's parser its arguments and sets ``run`` to
``run_detect`` (the parsed arguments in, the exit code out). A trace or labels file that
cannot be read raises ``TraceError``: one ``error:`` line, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from ..console.arguments import file_name
from ..console.help_text import HELP_WIDTH, paragraphs
from .files import read_presses, read_trace
from .measured import check_settings
from .runner import run_detector
from .scoring import MATCH_AFTER_RELEASE_MS, MATCH_BEFORE_MS, PRESS_SPAN_MS, UNRELEASED_MS, score
from .tune import read_config

DESCRIPTION = paragraphs(
    """\
Runs the popper's press detector (firmware/popdice_fw/press.py) inside MicroPython (the
unix port of the sim extra: pip install 'popdice[sim]') over an accelerometer trace and
prints, as JSON, the times at which it decided to pop: {"presses_ms": [...]}, with its
built-in settings or those in DETECTOR.json (--config, as written by `popdice tune`).
Popping on the release, that is the release's time; popping on the press, the press
blow's. The samples reach it as the LIS3DH driver gives them: clipped to +-8 g, in 4 mg
steps, as integer milli-g.

With --labels it also prints recall, false presses per hour of non-press time, the latency
in ms (from each press's release, if the labels give releases, else from its onset) and
the missed presses and false pops (ms)."""
)

SCORING = (
    f"a pop from {MATCH_BEFORE_MS:g} ms before a press's onset to "
    f"{MATCH_AFTER_RELEASE_MS:g} ms after its release (without releases, "
    f"{UNRELEASED_MS / 1000:g} s after the onset) matches it, each press once; non-press time "
    f"is the trace less each press's hold and {PRESS_SPAN_MS / 1000:g} s more."
)

EPILOG = f"""\
files:
  TRACE    CSV, t_ms,x_g,y_g,z_g (header optional), one sample a line; .gz or .xz
           compressed files are read as such
  LABELS   JSON, {{"presses_ms": [onset, ...], "releases_ms": [...]}} (releases
           optional) or a plain list of onsets (ms)
  DETECTOR JSON, {{"settings": {{...}}}} from `popdice tune`, or a bare settings object

scoring:
{textwrap.fill(SCORING, HELP_WIDTH, initial_indent="  ", subsequent_indent="  ")}

examples:
  popdice detect bench/corpus/presses-01.csv.xz
  popdice detect presses.csv.xz --labels presses.labels.json
  popdice detect bench/corpus/presses-01.csv.xz --config detector.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("trace", metavar="TRACE", type=file_name, help="the trace (CSV)")
    parser.add_argument(
        "--labels", metavar="LABELS", type=file_name, help="press onsets to score against"
    )
    parser.add_argument(
        "--config",
        metavar="DETECTOR",
        type=file_name,
        help="settings for the detector (from popdice tune)",
    )
    parser.set_defaults(run=run_detect)


def run_detect(args: argparse.Namespace) -> int:
    settings = read_config(args.config) if args.config else None
    t_ms, samples = read_trace(args.trace)
    span = (t_ms[0], t_ms[-1])
    onsets, releases = read_presses(args.labels, span) if args.labels else (None, None)
    found = run_detector(samples, settings)
    print(json.dumps(detect_report(t_ms, found.indices, onsets, releases, settings)))
    return 0


def detect_report(
    t_ms: list[float],
    indices: list[int],
    onsets: list[float] | None,
    releases: list[float] | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report: pop times, and the figures against labels if there are any."""
    report: dict[str, Any] = {"presses_ms": [t_ms[i] for i in indices]}
    if onsets is None:
        return report
    on_release = check_settings(settings or {})["pop_on"] == "release"
    anchors = releases if on_release else None
    result = score(t_ms, indices, onsets, releases, anchors)
    per_hour = result.false_per_hour
    report.update(
        {
            "labelled": result.labelled,
            "detected": result.detected,
            "recall": None if result.recall is None else round(result.recall, 4),
            "false_presses_per_hour": None if per_hour is None else round(per_hour, 2),
            "non_press_hours": round(result.non_press_seconds / 3600, 4),
            "latency_ms": result.latency(),
            "missed": result.missed_ms,
            "false": result.false_ms,
        }
    )
    return report
