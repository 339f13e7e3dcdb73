"""``popdice case``: writes a board's 3D-printable enclosure as one binary STL file.

The dimensions come from ``boards/<board>/case.json``; a few options override them. The
geometry library (manifold3d, with numpy: the ``case`` extra) is imported only when a case
is built, so ``popdice --help`` and ``popdice case --help`` work without it. Errors are one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import replace

from ..console.arguments import OutputFile, whole_number
from ..console.messages import quoted
from ..errors import PopdiceError
from ..files import write_replacing
from ..kinds import KINDS
from . import dimensions, placement

STL_FILE = OutputFile(".stl", "the case is written as STL")

EXTRA = "popdice case needs the case extra: pip install 'popdice[case]'"
PARTS = ("all", "base", "lid", "rim")
LARGEST_DOME = 300.0  # mm: a dome's body, up to a large bubble

DESCRIPTION = """\
Writes a board's 3D-printable enclosure as a binary STL file (millimetres): the popper's
round base, lid with the five dice windows, and the rim that clamps its dome; the
handheld's box and its lid with the screen's window and three buttons."""

EPILOG = """\
examples:
  popdice case --board popper --out popper-case.stl      base, lid and rim, side by side
  popdice case --board popper --dome-diameter 140 --out popper-case.stl   a 140 mm dome
  popdice case --board handheld --out handheld-case.stl  base and lid
  popdice case --board handheld --part lid --clearance 0.4 --out lid.stl   a looser lid

Every body lies flat on the bed the way it prints without supports (the lids and the
popper's rim upside down), in millimetres, side by side along x. The dimensions, and what
to buy for the case (screws, feet, the popper's dome), are in boards/<board>/case.json.
Needs the case extra: pip install 'popdice[case]'.
"""


def millimetres(low: float, high: float) -> Callable[[str], float]:
    """A type for ``add_argument``: a length in mm from ``low`` to ``high``."""

    def parse(text: str) -> float:
        value = None
        if len(text.strip()) <= 30:
            try:
                value = float(text)
            except ValueError:
                pass
        if value is None or not low <= value <= high:  # NaN is never in range
            raise argparse.ArgumentTypeError(
                f"expected a length from {low:g} to {high:g} mm, not {quoted(text)}"
            )
        return value

    return parse


def dome_help() -> tuple[float, str]:
    """The smallest --dome-diameter, the one that covers the dice as the popper's case.json
    places them, and the option's help. (If that case.json cannot be read, any dome up to
    ``LARGEST_DOME``: `popdice case --board popper` says what is wrong with it.)"""
    what = "the popper's dome: its body's outside diameter at its flange"
    try:
        case = dimensions.load("popper")
    except PopdiceError:
        return 0.0, f"{what}, up to {LARGEST_DOME:g} mm (default: case.json's)"
    assert isinstance(case, dimensions.PopperCase)
    smallest = placement.smallest_dome(case)
    return smallest, (
        f"{what}, {smallest:g} (the smallest that covers the dice) to {LARGEST_DOME:g} mm "
        f"(default: case.json's, {case.dome.diameter:g})"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    smallest_dome, dome_diameter_help = dome_help()
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--board", required=True, choices=KINDS, help="which board's case")
    parser.add_argument(
        "--out", required=True, metavar="FILE.stl", type=STL_FILE, help="the STL file to write"
    )
    parser.add_argument(
        "--part",
        choices=PARTS,
        default="all",
        help="one body only (the handheld has no rim); default: all of them",
    )
    parser.add_argument(
        "--dome-diameter",
        metavar="MM",
        type=millimetres(smallest_dome, LARGEST_DOME),
        help=dome_diameter_help,
    )
    parser.add_argument(
        "--clearance",
        metavar="MM",
        type=millimetres(0.0, dimensions.MOST_CLEARANCE),
        help="the gap on each side between mating parts and around bought ones (default: "
        "case.json's, 0.3)",
    )
    low, high = dimensions.SEGMENTS
    parser.add_argument(
        "--segments",
        metavar="N",
        type=whole_number(low, high),
        help=f"sides of the largest circles, {low:,} to {high:,}; smaller ones get fewer "
        "(default: case.json's, 96 for the popper, 64 for the handheld)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    _require_geometry()
    from . import bed, handheld, popper, stl

    case = with_options(
        dimensions.load(args.board),
        dome_diameter=args.dome_diameter,
        clearance=args.clearance,
        segments=args.segments,
    )
    if isinstance(case, dimensions.PopperCase):
        placement.popper_plan(case)
        bodies = popper.bodies(case)
    else:
        placement.handheld_plan(case)
        bodies = handheld.bodies(case)
    names = [body.name for body in bodies]
    if args.part != "all":
        if args.part not in names:
            choices = _choices([*names, "all"])
            raise PopdiceError(f"the {args.board} has no {args.part}: --part {choices}")
        bodies = [body for body in bodies if body.name == args.part]
    placed = bed.lay_out(bodies, case.bed_gap)
    header = f"popdice case: {args.board} {', '.join(p.name for p in placed)} (mm)"
    write_replacing(args.out, stl.write(bed.triangles(placed), header))
    x, y, z = bed.extent(placed)
    volumes = ", ".join(f"{p.name} {p.volume_cm3:.1f}" for p in placed)
    total = sum(p.volume_cm3 for p in placed)
    count = f"{len(placed)} bodies" if len(placed) > 1 else "1 body"
    print(
        f"wrote {args.out}: the {args.board}'s case, {count} as printed ({volumes} cm³), "
        f"{x:.1f} x {y:.1f} x {z:.1f} mm, {total:.1f} cm³ of plastic"
    )
    return 0


def with_options(
    case: dimensions.Case,
    *,
    dome_diameter: float | None = None,
    clearance: float | None = None,
    segments: int | None = None,
) -> dimensions.Case:
    """``case`` with what the command line gave in place of its own values."""
    if dome_diameter is not None:
        if not isinstance(case, dimensions.PopperCase):
            raise PopdiceError("--dome-diameter is for the popper: the handheld has no dome")
        case = replace(case, dome=replace(case.dome, diameter=dome_diameter))
    fit = case.fit
    if clearance is not None:
        fit = replace(fit, clearance=clearance)
    if segments is not None:
        fit = replace(fit, segments=segments)
    return replace(case, fit=fit)


def _require_geometry() -> None:
    for module in ("numpy", "manifold3d"):
        try:
            importlib.import_module(module)
        except ImportError:
            raise PopdiceError(f"{EXTRA} ({module} is not installed)") from None


def _choices(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
