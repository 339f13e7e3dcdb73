"""``popdice wiring``: a board's wiring, from its board module: a table, or a diagram (SVG).

Errors are one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse

from ..console.arguments import OutputFile
from ..errors import PopdiceError
from ..files import write_replacing
from ..kinds import KINDS
from . import board as boards
from . import dice
from .dice_svg import render_dice
from .svg import render

DESCRIPTION = """\
Prints a board's wiring as a table, or draws it as an SVG diagram: the Pico with its 40
pins, each part as a box, each wire labelled with what it carries."""

EPILOG = """\
examples:
  popdice wiring --board popper            the table: each Pico pin and what it goes to
  popdice wiring --board handheld --markdown    the same table in Markdown
  popdice wiring --board popper --out docs/images/wiring-popper.svg   the diagram
  popdice wiring --board popper --dice     where each die sits, and its pixels' numbers
  popdice wiring --board popper --dice --out docs/images/dice-popper.svg   drawn

Pins are the Pico's header pins (1 top left beside the USB connector, 40 top right) and
its GPIO names; a chip's pins carry their number on the package, as 1A (2). The wires to
the Pico come from boards/<board>/board.py, the pin map the firmware itself is built on;
the parts, their pins and the wires between them from boards/<board>/parts.json. The
diagrams in docs/images/ are refreshed with the last example.
"""

COLUMNS = ("Pico pin", "name", "part", "part's pin", "carries")
LINK_COLUMNS = ("part", "pin", "to part", "its pin", "carries")


svg_file = OutputFile(".svg", "the diagram is drawn as SVG")
"""``--out``: the one format drawn (``-`` is no file name here: the diagram goes to a file)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--board", required=True, choices=KINDS, help="which board")
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--out", metavar="FILE.svg", type=svg_file, help="draw the diagram (SVG) into this file"
    )
    what.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument(
        "--dice",
        action="store_true",
        help="the popper's LED dice instead: where each sits under the dome, and the number "
        "the firmware gives each pixel (with --out: drawn)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.dice:
        return _dice(args)
    board = boards.load(args.board)
    if args.out is None:
        layout = markdown if args.markdown else aligned
        print(layout([COLUMNS, *boards.table(board)]))
        links = boards.links_table(board)
        if links:
            print("\nBetween the parts:\n" if args.markdown else "\nbetween the parts:")
            print(layout([LINK_COLUMNS, *links]))
        return 0
    write_replacing(args.out, render(board))
    print(f"wrote {args.out}: the {args.board}'s wiring, from {board.source}")
    return 0


def _dice(args: argparse.Namespace) -> int:
    if args.markdown:
        raise PopdiceError("--dice prints text or, with --out, draws SVG: not Markdown")
    layout = dice.layout(args.board)
    if args.out is None:
        print(dice.text(layout))
        return 0
    write_replacing(args.out, render_dice(layout))
    print(f"wrote {args.out}: the {args.board}'s LED dice, from boards/{args.board}/case.json")
    return 0


def markdown(rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)


def aligned(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
