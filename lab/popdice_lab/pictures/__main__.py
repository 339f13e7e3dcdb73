"""``python -m popdice_lab.pictures``: draws the README's pictures into docs/images/, or with
``--check`` says which there are missing or stale (exit code 1). ``make pictures`` runs it.

Every picture comes out the same bytes on every run: seeds are fixed, nothing records the
time, and each module says how its picture stays the same (``catalog.py`` lists them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from popdice.console.messages import one_line
from popdice.errors import PopdiceError

from .catalog import KINDS, draw, out_of_date, write

REFRESH = "make pictures"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m popdice_lab.pictures",
        description="Draws the README's pictures (LED dice, fairness, the detector, the "
        "table, the handheld's screens, the wiring, the printed cases, the phones) from the "
        "project's own code.",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("docs/images"), help="the folder (docs/images)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming what is out of date"
    )
    parser.add_argument(
        "--only", action="append", choices=KINDS, metavar="KIND", help=f"one of {', '.join(KINDS)}"
    )
    args = parser.parse_args(argv)
    try:
        files = draw(args.only or KINDS)
        if args.check:
            problems = out_of_date(args.out, files)
            for line in problems:
                print(line)
            if problems:
                print(f"{len(problems)} of {len(files)} pictures out of date: run `{REFRESH}`")
                return 1
            print(f"all {len(files)} pictures in {args.out} are up to date")
            return 0
        changed = write(args.out, files)
    except (PopdiceError, OSError) as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    for path in changed:
        print(f"wrote {path}")
    print(f"{len(files)} pictures in {args.out}, {len(changed)} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
