"""The `popdice` command: one subcommand per job, each with --help that teaches it."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import PopdiceError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="popdice",
        description="PopDice on the laptop: find the popper and the handheld, "
        "run simulated ones, flash firmware.",
    )
    parser.add_argument("--version", action="version", version=f"popdice {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except PopdiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
