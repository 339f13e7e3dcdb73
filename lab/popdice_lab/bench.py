"""What the scripts in bench/ share: a command line whose --help is the script's own
docstring."""

from __future__ import annotations

import argparse


def parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser described by the first paragraph of ``doc`` (a bench script's
    module docstring), on one line for argparse to wrap."""
    first = (doc or "").split("\n\n")[0]
    return argparse.ArgumentParser(description=" ".join(first.split()))
