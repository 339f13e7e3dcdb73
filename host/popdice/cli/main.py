"""The `popdice` command: one subcommand per job, each with --help that teaches it.

The top-level parser is built from ``SUBCOMMANDS``: each subcommand's name, its line in
`popdice --help` and the function that adds its arguments. That function's module is
imported only when the subcommand is chosen (or its --help asked for), so `popdice --help`
loads no simulator, engine or table, and `popdice check ringer` only the rule check. Each
subcommand sets ``run``, the function that does its work and returns the exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from .. import __version__
from ..console.help_text import paragraphs
from ..console.messages import LINE_LIMIT, one_line
from ..errors import PopdiceError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: `popdice --help` needs none of it
    from typing import Any, NoReturn

EPILOG = """\
examples:
  popdice devices                      list boards and simulators, one line each
  popdice sim popper                   run a simulated popper (prints its serial port)
  popdice sim popper --rp2040          the same on MicroPython's Pico image, emulated
  popdice uf2 --board popper --out popper.uf2   one file to drag onto a Pico
  popdice bom --board popper           what to buy to build one (--csv for a spreadsheet)
  popdice wiring --board popper        what to solder to which pin (--out FILE.svg: drawn)
  popdice case --board popper --out popper.stl   its printable case: base, lid, rim
  popdice status --kind popper         health of the first popper found
  popdice flash --port /dev/ttyACM0 --board popper
  popdice demo                         the link end to end, then Lowdown at the table
  popdice fairness --rolls 100000      chi-squared test of every die of the popper
  popdice detect trace.csv --labels trace.labels.json
  popdice record --seconds 120 --out rec/presses.csv --prompt   presses, labelled
  popdice tune rec/ --out detector.json   fit the press detector to recordings
  popdice calibrate                    fit it to this popper at its table, guided
  popdice table lowdown --players "Ann,Bob,Cy" --sim   F1 at the table shows every key
  popdice table --resume               go on with the last unfinished game
  popdice history                      past games, players, winners and scores
  popdice check ringer play.json       was that card legal? (JSON in, JSON out)
  popdice score lowdown boards.json --suggest
  popdice simulate lowdown --players 3 --games 500 --seed 1
"""


# Each subcommand: its name, its line in `popdice --help`, and "module:function", the
# function that gives its parser a description and arguments and sets ``run``.
SUBCOMMANDS = (
    (
        "devices",
        "list PopDice boards and running simulators",
        "popdice.cli.devices:add_devices_arguments",
    ),
    (
        "status",
        "a device's health: uptime, heap, link counters, the board's sensors",
        "popdice.cli.devices:add_status_arguments",
    ),
    (
        "flash",
        "put the firmware on a board with mpremote",
        "popdice.cli.devices:add_flash_arguments",
    ),
    (
        "fairness",
        "roll the popper many times and test every die with chi-squared",
        "popdice.cli.devices:add_fairness_arguments",
    ),
    (
        "demo",
        "show the devices working, then play a game at the table",
        "popdice.cli.devices:add_demo_arguments",
    ),
    (
        "sim",
        "run a simulated popper or handheld (unix port, or --rp2040 for an emulated Pico)",
        "popdice.sim.cli:add_arguments",
    ),
    (
        "uf2",
        "write one UF2 image (MicroPython and the firmware) to drag onto a Pico",
        "popdice.deploy.uf2_cli:add_arguments",
    ),
    (
        "bom",
        "a board's bill of materials: parts with numbers to order, wire, hardware, tools",
        "popdice.wiring.bom_cli:add_arguments",
    ),
    (
        "wiring",
        "what goes to which pin of a board's Pico: a table, or a diagram (SVG)",
        "popdice.wiring.cli:add_arguments",
    ),
    (
        "case",
        "a board's 3D-printable enclosure as an STL file (needs the case extra)",
        "popdice.case.cli:add_arguments",
    ),
    (
        "check",
        "judge a Popalotsy race, Ringer plays or a Lowdown move (JSON in, JSON out)",
        "popdice.games.cli:add_check_arguments",
    ),
    (
        "score",
        "score Lowdown boards (JSON in, JSON out)",
        "popdice.games.cli:add_score_arguments",
    ),
    (
        "simulate",
        "play many games with bots and sum them up",
        "popdice.games.cli:add_simulate_arguments",
    ),
    (
        "table",
        "play a game at the table with the popper, scored live on the laptop",
        "popdice.cli.table:add_table_arguments",
    ),
    (
        "history",
        "past table games: players, winners, scores (--json: as JSON); --export prints "
        "one game's journal as JSON",
        "popdice.table.cli:add_history_arguments",
    ),
    (
        "detect",
        "run the firmware's press detector over an accelerometer trace",
        "popdice.traces.cli:add_arguments",
    ),
    (
        "record",
        "record the popper's accelerometer, with the presses labelled",
        "popdice.traces.record_cli:add_arguments",
    ),
    (
        "tune",
        "fit the press detector to labelled recordings of a unit",
        "popdice.traces.tune_cli:add_arguments",
    ),
    (
        "calibrate",
        "fit the press detector to this popper at its table",
        "popdice.traces.calibrate_cli:add_arguments",
    ),
)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on standard error (naming the command and
    pointing at its --help) and exit code 2, like every other bad input."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # the deepest parser chosen ("check ringer") names the command in an error
        self.set_defaults(chosen_parser=self)

    def error(self, message: str) -> NoReturn:
        first = message.strip().splitlines()[0] if message.strip() else "bad arguments"
        tail = f" (see {self.prog} --help)"
        self.exit(2, one_line(f"error: {self.prog}: {first}", LINE_LIMIT - len(tail)) + tail + "\n")


class SubcommandParser(OneLineParser):
    """A subcommand's parser that gets its arguments, from the function ``arguments``
    names ("module:function"), the first time it parses or shows its help."""

    def __init__(self, *, arguments: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.arguments = arguments
        self.has_arguments = False

    def add_arguments(self) -> None:
        """Imports the subcommand's module and lets it add its arguments (once)."""
        if not self.has_arguments:
            module, function = self.arguments.split(":")
            getattr(import_module(module), function)(self)
            self.has_arguments = True

    def add_subparsers(self, **kwargs: Any) -> Any:
        """A subcommand's own subcommands (``check ringer``) have all their arguments."""
        kwargs.setdefault("parser_class", OneLineParser)
        return super().add_subparsers(**kwargs)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self.add_arguments()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self.add_arguments()
        return super().format_usage()

    def format_help(self) -> str:
        self.add_arguments()
        return super().format_help()


def build_parser(*, complete: bool = True) -> argparse.ArgumentParser:
    """The `popdice` parser. With ``complete`` every subcommand has its arguments (for
    looking at them all); without, each gets them when it is chosen, as in ``main``."""
    parser = OneLineParser(
        prog="popdice",
        description=paragraphs(
            "PopDice on the laptop: play at the table with the popper and the handheld, check "
            "and score the rules, find and flash the devices, run simulated ones."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"popdice {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SubcommandParser)
    for name, help_line, arguments in SUBCOMMANDS:
        subcommand = sub.add_parser(name, help=help_line, arguments=arguments)
        if complete and isinstance(subcommand, SubcommandParser):
            subcommand.add_arguments()
    return parser


def _utf8_output() -> None:
    """Standard output and error in UTF-8 whatever Python chose (Windows, output redirected
    to a file or a pipe: cp1252, which has no "Ω" and would garble a player's name in JSON),
    and what UTF-8 cannot carry written as an escape, not raised."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a TextIOWrapper's
        if reconfigure is not None:
            # a lone surrogate (a board's text decoded with surrogatepass) is no UTF-8
            reconfigure(encoding="utf-8", errors="backslashreplace")


def _silence_stdout() -> None:
    """Standard output sent to the null device: whatever is still buffered is dropped
    there, not failed on again when Python flushes it at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # no standard output to silence
        pass


def main(argv: list[str] | None = None) -> int:
    _utf8_output()
    parser = build_parser(complete=False)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            chosen: argparse.ArgumentParser = getattr(args, "chosen_parser", parser)
            chosen.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exit_:
        return int(exit_.code or 0)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 0
    try:
        code = run(args)
        sys.stdout.flush()  # a full disk or a closed pipe fails here, not at exit
        return code
    except PopdiceError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (``popdice history | head``)
        return 1
    except OSError as error:  # a write to a full disk, most likely standard output's
        _silence_stdout()
        where = f" ({error.filename})" if error.filename else ""
        print(one_line(f"error: {error.strerror or error}{where}"), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
