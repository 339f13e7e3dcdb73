"""The UF2 file format (Microsoft's USB flashing format, which the RP2040's BOOTSEL drive reads).

A UF2 file is a run of 512-byte blocks, each carrying up to 476 bytes (256 for the RP2040)
for one flash address, with magic numbers at both ends and a family id that says which chip
it is for. ``read_uf2`` checks every block and returns the payloads as contiguous
``Segment``s; ``write_uf2`` turns segments back into blocks.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import PopdiceError

BLOCK_SIZE = 512
PAYLOAD_SIZE = 256  # what the RP2040 bootrom writes per block (one flash page)
MAGIC_START0 = 0x0A324655  # "UF2\n"
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID = 0x00002000
FAMILY_RP2040 = 0xE48BFF56
FAMILIES = {
    0xE48BFF56: "RP2040",
    0xE48BFF57: "RP2XXX absolute",
    0xE48BFF58: "RP2XXX data",
    0xE48BFF59: "RP2350 (ARM, secure)",
    0xE48BFF5A: "RP2350 (RISC-V)",
    0xE48BFF5B: "RP2350 (ARM, non-secure)",
    0x16573617: "ATSAMD21",
    0x68ED2B88: "ATSAMD51",
    0x1C5F21B0: "ESP32",
    0xADA52840: "nRF52840",
}
_HEADER = struct.Struct("<8I")


class Uf2Error(PopdiceError):
    """A file that is not a UF2 image, or not one for the chip it should be for."""


@dataclass
class Segment:
    """Bytes for contiguous flash from ``address`` on."""

    address: int
    data: bytes

    @property
    def end(self) -> int:
        return self.address + len(self.data)


def family_name(family: int) -> str:
    return FAMILIES.get(family, f"family 0x{family:08x}")


def read_uf2(raw: bytes, name: str = "the file", family: int = FAMILY_RP2040) -> list[Segment]:
    """The flash contents of a UF2 image for ``family``, as sorted contiguous segments."""
    if len(raw) < BLOCK_SIZE or struct.unpack_from("<2I", raw) != (MAGIC_START0, MAGIC_START1):
        raise Uf2Error(f"{name} is not a UF2 image (no UF2 magic at its start)")
    if len(raw) % BLOCK_SIZE:
        raise Uf2Error(
            f"{name} is not a UF2 image ({len(raw)} bytes is not a whole number of blocks)"
        )
    pages: dict[int, bytes] = {}
    for offset in range(0, len(raw), BLOCK_SIZE):
        block = raw[offset : offset + BLOCK_SIZE]
        start0, start1, flags, address, size, _number, _count, block_family = _HEADER.unpack_from(
            block
        )
        end = struct.unpack_from("<I", block, BLOCK_SIZE - 4)[0]
        where = f"{name}, block {offset // BLOCK_SIZE}"
        if (start0, start1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise Uf2Error(f"{where}: damaged (bad UF2 magic)")
        if flags & FLAG_NOT_MAIN_FLASH:
            continue
        if not flags & FLAG_FAMILY_ID or block_family != family:
            seen = family_name(block_family) if flags & FLAG_FAMILY_ID else "no family id"
            raise Uf2Error(f"{name} is for {seen}, not the {family_name(family)}")
        if size > 476:
            raise Uf2Error(f"{where}: damaged (payload of {size} bytes)")
        if address in pages and pages[address] != block[32 : 32 + size]:
            raise Uf2Error(f"{where}: writes 0x{address:08x} twice with different data")
        pages[address] = block[32 : 32 + size]
    if not pages:
        raise Uf2Error(f"{name} holds no flash data")
    segments: list[Segment] = []
    run = bytearray()
    run_start = -1
    for address in sorted(pages):
        if run and address < run_start + len(run):
            raise Uf2Error(f"{name}: blocks overlap at 0x{address:08x}")
        if run and address != run_start + len(run):
            segments.append(Segment(run_start, bytes(run)))
            run = bytearray()
        if not run:
            run_start = address
        run += pages[address]
    segments.append(Segment(run_start, bytes(run)))
    return segments


def write_uf2(segments: Iterable[Segment], family: int = FAMILY_RP2040) -> bytes:
    """UF2 blocks of ``PAYLOAD_SIZE`` bytes for ``segments`` (page aligned, as the RP2040 needs)."""
    payloads: list[tuple[int, bytes]] = []
    for segment in segments:
        if segment.address % PAYLOAD_SIZE:
            raise Uf2Error(f"segment at 0x{segment.address:08x} is not page aligned")
        for offset in range(0, len(segment.data), PAYLOAD_SIZE):
            page = segment.data[offset : offset + PAYLOAD_SIZE]
            payloads.append((segment.address + offset, page.ljust(PAYLOAD_SIZE, b"\xff")))
    payloads.sort()
    out = bytearray()
    for number, (address, page) in enumerate(payloads):
        header = _HEADER.pack(
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY_ID,
            address,
            PAYLOAD_SIZE,
            number,
            len(payloads),
            family,
        )
        block = header + page
        out += block.ljust(BLOCK_SIZE - 4, b"\x00") + struct.pack("<I", MAGIC_END)
    return bytes(out)
