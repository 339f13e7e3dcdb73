"""``popdice uf2``: one UF2 file that makes a Pico a popper (or a handheld) in one drag.

It holds MicroPython (the base image: ``--micropython``, ``$POPDICE_MICROPYTHON_UF2`` or the
image kept beside a checkout) and a littlefs filesystem with ``main.py``, ``board.py`` and
the firmware compiled to ``.mpy``, where MicroPython looks for its filesystem. Errors are
one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..console.arguments import file_name, output_file
from ..console.help_text import paragraphs
from ..errors import PopdiceError
from ..files import output_target, write_replacing
from ..kinds import KINDS

EPILOG = """\
examples:
  popdice uf2 --board popper --out popper.uf2
  popdice uf2 --board handheld --micropython RPI_PICO-v1.28.0.uf2 --out handheld.uf2

Then hold BOOTSEL on the Pico while plugging it in, and copy the file onto the RPI-RP2
drive that appears: the Pico restarts as the board, with its firmware and pin map. Any
files already on the Pico's filesystem are replaced.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = paragraphs(
        "Writes one UF2 file that makes a Pico a popper (or a handheld) in one "
        "drag: MicroPython and the board's firmware."
    )
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--board", required=True, choices=KINDS, help="which device the Pico is")
    parser.add_argument(
        "--micropython",
        metavar="BASE.uf2",
        type=file_name,
        help="MicroPython for the Pico (RPI_PICO, 1.23 or newer) to build on "
        "(default: $POPDICE_MICROPYTHON_UF2, else ../shared/rp2/ beside a checkout)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE.uf2",
        type=output_file,
        help="where to write it (default: popdice-BOARD.uf2)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .base_image import load_base
    from .board_image import board_segments
    from .uf2 import write_uf2

    out = Path(args.out or f"popdice-{args.board}.uf2")
    if out.suffix.lower() != ".uf2":
        raise PopdiceError(f"{out} does not end in .uf2: the Pico's BOOTSEL drive ignores it")
    output_target(out)
    base = load_base(args.micropython)
    segments = board_segments(args.board, base)
    image = write_uf2(segments)
    write_replacing(out, image)
    filesystem = segments[-1]
    print(
        f"wrote {out}: {base.describe()} ({base.path.name}) and the {args.board} firmware "
        f"in a {len(filesystem.data) // 1024} KiB littlefs at 0x{filesystem.address:08x}; "
        f"{len(image) // 512} blocks, {len(image):,} bytes",
        file=sys.stdout,
    )
    print("hold BOOTSEL while plugging the Pico in, then copy the file onto RPI-RP2")
    return 0
