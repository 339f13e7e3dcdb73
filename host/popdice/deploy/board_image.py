"""A board's whole flash: the MicroPython base, plus a littlefs filesystem holding ``main.py``,
``board.py`` and the firmware compiled to ``.mpy``, where the base says its filesystem lies.

MicroPython on the RP2040 mounts that range at boot as littlefs v2 with 4 KiB blocks (one
flash sector) and 256-byte programs (one page), and runs ``main.py``: so a Pico given this
image is a popper (or a handheld) from its first boot, with nothing else to copy.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from .base_image import MicroPythonBase
from .files import FlashFile, board_folders, compiled_files, fingerprint
from .uf2 import Segment, Uf2Error, write_uf2

BLOCK_SIZE = 4096  # an RP2040 flash sector, MicroPython's littlefs block
PROG_SIZE = 256  # a flash page (rp2's _boot.py mounts with progsize=256)
READ_SIZE = 32
LFS_DISK_VERSION = 0x00020000  # littlefs 2.0: every MicroPython with littlefs v2 mounts it


def filesystem_image(files: list[FlashFile], size: int) -> bytes:
    """A littlefs image of ``size`` bytes holding ``files`` at their targets."""
    from littlefs import LittleFS, LittleFSError

    if size % BLOCK_SIZE:
        raise Uf2Error(f"a filesystem of {size} bytes is not whole {BLOCK_SIZE}-byte blocks")
    try:
        fs = LittleFS(
            block_size=BLOCK_SIZE,
            block_count=size // BLOCK_SIZE,
            read_size=READ_SIZE,
            prog_size=PROG_SIZE,
            lookahead_size=32,
            disk_version=LFS_DISK_VERSION,
        )
        for folder in board_folders(files):
            fs.mkdir(folder)
        for item in files:
            with fs.open(item.target, "wb") as out:
                out.write(item.source.read_bytes())
        fs.unmount()
    except LittleFSError as error:
        needed = sum(item.source.stat().st_size for item in files)
        raise Uf2Error(
            f"the firmware's {len(files)} files ({needed:,} bytes) do not fit in a filesystem "
            f"of {size:,} bytes (littlefs: {error})"
        ) from None
    image = bytes(fs.context.buffer)
    if len(image) != size:
        raise Uf2Error(f"littlefs made {len(image)} bytes, not {size}")
    return image


def board_segments(kind: str, base: MicroPythonBase) -> list[Segment]:
    """Every byte of flash a board of ``kind`` needs: the base and the filesystem."""
    with tempfile.TemporaryDirectory(prefix="popdice-uf2-") as tmp:
        files = compiled_files(kind, Path(tmp))
        filesystem = filesystem_image(files, base.fs_size)
    return [*base.segments, Segment(base.fs_address, filesystem)]


def board_uf2(kind: str, base: MicroPythonBase) -> bytes:
    return write_uf2(board_segments(kind, base))


def flash_image(segments: list[Segment], size: int = 2 * 1024 * 1024) -> bytearray:
    """The chip's flash as a byte array (erased bytes 0xff), from flash address 0x10000000."""
    flash = bytearray(b"\xff" * size)
    for segment in segments:
        offset = segment.address - 0x10000000
        if offset < 0 or segment.end - 0x10000000 > size:
            raise Uf2Error(f"0x{segment.address:08x}..0x{segment.end:08x} is outside the flash")
        flash[offset : offset + len(segment.data)] = segment.data
    return flash


def board_flash(kind: str, base: MicroPythonBase, cache_dir: Path | None = None) -> bytes:
    """The 2 MiB flash of a freshly flashed board of ``kind``, built once per firmware and
    base (kept in ``cache_dir``: compiling the firmware takes about a second)."""
    digest = hashlib.sha256(base.path.read_bytes())
    digest.update(fingerprint(kind).encode())
    key = digest.hexdigest()[:16]
    cached = cache_dir / f"flash-{kind}-{key}.bin" if cache_dir is not None else None
    if cached is not None and cached.is_file():
        return cached.read_bytes()
    image = bytes(flash_image(board_segments(kind, base)))
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        temporary = cached.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(image)
        temporary.replace(cached)
    return image


def read_filesystem(image: bytes) -> dict[str, bytes]:
    """Every file in a littlefs image made as MicroPython makes it: path -> contents."""
    from littlefs import LittleFS, LittleFSError

    try:
        fs = LittleFS(
            block_size=BLOCK_SIZE,
            block_count=len(image) // BLOCK_SIZE,
            read_size=READ_SIZE,
            prog_size=PROG_SIZE,
            lookahead_size=32,
            mount=False,
        )
        fs.context.buffer = bytearray(image)
        fs.mount()
    except LittleFSError as error:
        raise Uf2Error(f"no littlefs filesystem there: {error}") from None
    files: dict[str, bytes] = {}
    for folder, _dirs, names in fs.walk("/"):
        for name in names:
            path = f"{folder.rstrip('/')}/{name}".lstrip("/")
            with fs.open(path, "rb") as handle:
                files[path] = handle.read()
    return files
