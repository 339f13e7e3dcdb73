"""The MicroPython base image a board's UF2 is built on: where it is, and whether it will do.

A base is an RP2040 UF2 of MicroPython 1.23 or newer (the firmware's ``.mpy`` files are of
the format those releases load). Its binary info says its version, its board and where its
filesystem lies in flash; the board's files go there. Without ``--micropython`` the base is
``$POPDICE_MICROPYTHON_UF2``, else the image kept beside a checkout of this project
(``../shared/rp2/RPI_PICO-micropython.uf2``, or that path a level or two further up).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..files import MB, read_limited
from . import bininfo
from .files import CHECKOUT_DIR, FIRMWARE_DIR, OLDEST_MICROPYTHON, oldest_micropython
from .uf2 import FAMILY_RP2040, Segment, Uf2Error, read_uf2

ENV_BASE = "POPDICE_MICROPYTHON_UF2"
CHECKOUT_BASE = Path("shared") / "rp2" / "RPI_PICO-micropython.uf2"  # beside a checkout
CHECKOUT_LEVELS = 3  # how far above the checkout to look for it
FLASH_ADDRESS = 0x10000000
FLASH_MOST = 16 * MB  # the RP2040 maps at most 16 MiB of flash from FLASH_ADDRESS
SECTOR = 4096  # the flash's erase sector: a filesystem's block, its start and size
DOWNLOAD_HINT = (
    "download MicroPython for the Raspberry Pi Pico (RPI_PICO, a .uf2) from "
    "https://micropython.org/download/RPI_PICO/ and pass it with --micropython FILE "
    f"or ${ENV_BASE}"
)


@dataclass(frozen=True)
class MicroPythonBase:
    """A checked MicroPython image for the RP2040."""

    path: Path
    segments: list[Segment]
    version: str
    board: str
    fs_address: int
    fs_size: int

    @property
    def fs_offset(self) -> int:
        """Where the filesystem starts, counted from the start of flash."""
        return self.fs_address - FLASH_ADDRESS

    def describe(self) -> str:
        return f"MicroPython {self.version} for {self.board}"


def default_base_path() -> Path:
    explicit = os.environ.get(ENV_BASE)
    if explicit:
        return Path(explicit)
    if FIRMWARE_DIR == CHECKOUT_DIR:  # a checkout, not an installed wheel
        for folder in CHECKOUT_DIR.parent.parents[:CHECKOUT_LEVELS]:
            candidate = folder / CHECKOUT_BASE
            if candidate.is_file():
                return candidate
    raise Uf2Error(f"no MicroPython base image: {DOWNLOAD_HINT}")


IMAGE_MOST = 4 * MB
"""The largest base image read: 4 MB, the Pico's 2 MB of flash as UF2 (each 512-byte block
carries 256 bytes of flash)."""


def load_base(path: str | os.PathLike[str] | None = None) -> MicroPythonBase:
    """The base at ``path`` (or the default one), checked; Uf2Error says what is wrong."""
    where = Path(path) if path is not None else default_base_path()
    try:
        raw = read_limited(str(where), IMAGE_MOST, "MicroPython image", Uf2Error)
    except OSError as error:
        raise Uf2Error(f"cannot read the MicroPython image {where}: {error.strerror}") from None
    segments = read_uf2(raw, str(where), FAMILY_RP2040)
    image = segments[0]
    if image.address != FLASH_ADDRESS:
        raise Uf2Error(f"{where} does not start at the start of flash: not a bootable image")
    info = bininfo.read_binary_info(image.data, FLASH_ADDRESS)
    if info is None:
        raise Uf2Error(f"{where} is an RP2040 image without binary info: not MicroPython")
    program = info.string(bininfo.ID_PROGRAM_NAME)
    if program != "MicroPython":
        raise Uf2Error(
            f"{where} is an RP2040 image of {program or 'an unnamed program'}, not MicroPython"
        )
    version = info.string(bininfo.ID_PROGRAM_VERSION) or "(no version)"
    found = re.match(r"v?(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) < OLDEST_MICROPYTHON:
        raise Uf2Error(
            f"{where} is MicroPython {version}: the firmware needs {oldest_micropython()} or newer"
        )
    filesystems = [d for d in info.block_devices if d.name == "MicroPython"]
    if not filesystems:
        raise Uf2Error(f"{where} does not say where MicroPython's filesystem lies in flash")
    fs = filesystems[0]
    _check_filesystem(where, fs.address, fs.size)
    code_end = max(s.end for s in segments)
    if fs.address < code_end:
        raise Uf2Error(f"{where}: the image runs into its own filesystem at 0x{fs.address:08x}")
    return MicroPythonBase(
        path=where,
        segments=segments,
        version=version,
        board=info.string(bininfo.ID_PICO_BOARD) or "an unnamed board",
        fs_address=fs.address,
        fs_size=fs.size,
    )


def _check_filesystem(where: Path, address: int, size: int) -> None:
    """Uf2Error unless the filesystem the base gives lies in flash, in whole sectors."""
    if size <= 0 or size % SECTOR or address % SECTOR:
        raise Uf2Error(
            f"{where}: MicroPython's filesystem ({size} bytes at 0x{address:08x}) is not in "
            f"whole {SECTOR}-byte flash sectors"
        )
    if address < FLASH_ADDRESS or address + size > FLASH_ADDRESS + FLASH_MOST:
        raise Uf2Error(
            f"{where}: MicroPython's filesystem (0x{address:08x}..0x{address + size:08x}) is "
            f"outside the RP2040's flash (0x{FLASH_ADDRESS:08x}..0x"
            f"{FLASH_ADDRESS + FLASH_MOST:08x})"
        )
