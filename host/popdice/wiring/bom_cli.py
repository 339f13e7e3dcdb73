"""``popdice bom``: a board's bill of materials, as a table, CSV or Markdown.

Errors are one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import textwrap

from ..kinds import KINDS
from .bom import FIELDS, SECTIONS, Line, lines
from .cli import markdown

DESCRIPTION = """\
Prints what to buy to build a board: its electronics, wire and board, the case's hardware,
and the tools."""

EPILOG = """\
examples:
  popdice bom --board popper              what to order for a popper, by section
  popdice bom --board handheld --csv > handheld.csv   for a spreadsheet or a supplier
  popdice bom --board popper --markdown   the tables of docs/build.md

Each line: how many, the part, a manufacturer's part number or a widely sold module, its
key rating, and what it is for. The list comes from boards/<board>/parts.json (the parts
and their pins, which `popdice wiring` draws) and boards/<board>/case.json (the screws and
feet of the case `popdice case` prints).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--board", required=True, choices=KINDS, help="which board")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--csv", action="store_true", help="print CSV, a line a part")
    how.add_argument("--markdown", action="store_true", help="print a Markdown table a section")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found = lines(args.board)
    if args.csv:
        print(as_csv(found), end="")
    elif args.markdown:
        print(as_markdown(found))
    else:
        print(as_text(found))
    return 0


def as_csv(found: list[Line]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("section", *FIELDS))
    writer.writerows((line.section, *line.cells()) for line in found)
    return out.getvalue()


def _by_section(found: list[Line]) -> list[tuple[str, list[Line]]]:
    return [(s, [line for line in found if line.section == s]) for s in SECTIONS]


def as_markdown(found: list[Line]) -> str:
    blocks = [
        f"**{section.capitalize()}**\n\n" + markdown([FIELDS, *(line.cells() for line in some)])
        for section, some in _by_section(found)
        if some
    ]
    return "\n\n".join(blocks)


def as_text(found: list[Line], width: int | None = None) -> str:
    """Each line as a short block that fits the terminal: how many and what, then what to
    order and its rating, then what it is for."""
    if width is None:
        width = min(shutil.get_terminal_size((100, 24)).columns, 100)
    out: list[str] = []
    for section, some in _by_section(found):
        if not some:
            continue
        out.append(f"{section.upper()}")
        for line in some:
            out += textwrap.wrap(f"{line.qty:>4} x {line.part}", width, subsequent_indent=" " * 7)
            order = f"{line.number}; {line.rating}" if line.rating else line.number
            for text in (order, f"for: {line.purpose}"):
                out += textwrap.wrap(text, width, initial_indent=" " * 7,
                                     subsequent_indent=" " * 9)  # fmt: skip
        out.append("")
    return "\n".join(out).rstrip()
