"""The pico-sdk's binary info: what an RP2040 image says about itself (what picotool shows).

Near the start of the image, after the vector table, a header (two markers around three
pointers) leads to a table of pointers to entries: strings with an id (program name,
version, board), integers with an id (where the binary ends) and block devices (MicroPython
declares its filesystem's flash range this way). Entries copied to RAM at boot are found
through the header's address mapping table.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

MARKER_START = 0x7188EBF2
MARKER_END = 0xE71AA390
HEADER_SEARCH = (0x100, 0x200)  # the header lies within 256 bytes after boot2

TYPE_ID_AND_INT = 5
TYPE_ID_AND_STRING = 6
TYPE_BLOCK_DEVICE = 7

ID_PROGRAM_NAME = 0x02031C86
ID_PROGRAM_VERSION = 0x11A9BC3A
ID_PROGRAM_BUILD_DATE = 0x9DA22254
ID_BINARY_END = 0x68F465DE
ID_PICO_BOARD = 0xB63CFFBB
ID_SDK_VERSION = 0x5360B3AB


@dataclass(frozen=True)
class BlockDevice:
    name: str
    address: int
    size: int


@dataclass
class BinaryInfo:
    strings: dict[int, list[str]] = field(default_factory=dict)
    ints: dict[int, int] = field(default_factory=dict)
    block_devices: list[BlockDevice] = field(default_factory=list)

    def string(self, id_: int) -> str | None:
        values = self.strings.get(id_)
        return values[0] if values else None


class _Image:
    """Reads words and strings of an image loaded at ``base``, through the RAM mappings."""

    def __init__(self, data: bytes, base: int) -> None:
        self.data = data
        self.base = base
        self.mappings: list[tuple[int, int, int]] = []

    def to_image(self, address: int) -> int:
        for source, start, end in self.mappings:
            if start <= address < end:
                return address - start + source
        return address

    def u32(self, address: int) -> int:
        offset = self.to_image(address) - self.base
        if not 0 <= offset <= len(self.data) - 4:
            raise ValueError(f"0x{address:08x} is outside the image")
        return struct.unpack_from("<I", self.data, offset)[0]

    def u16(self, address: int) -> int:
        offset = self.to_image(address) - self.base
        if not 0 <= offset <= len(self.data) - 2:
            raise ValueError(f"0x{address:08x} is outside the image")
        return struct.unpack_from("<H", self.data, offset)[0]

    def text(self, address: int, limit: int = 256) -> str:
        offset = self.to_image(address) - self.base
        if not 0 <= offset < len(self.data):
            raise ValueError(f"0x{address:08x} is outside the image")
        end = self.data.find(b"\0", offset, offset + limit)
        if end < 0:
            raise ValueError(f"no string at 0x{address:08x}")
        return self.data[offset:end].decode("utf-8", "replace")


def read_binary_info(data: bytes, base: int = 0x10000000) -> BinaryInfo | None:
    """The binary info of an image loaded at ``base``; None if it has none (or it is damaged)."""
    image = _Image(data, base)
    try:
        for offset in range(*HEADER_SEARCH, 4):
            if image.u32(base + offset) != MARKER_START:
                continue
            if image.u32(base + offset + 16) != MARKER_END:
                continue
            start, end, mapping = (image.u32(base + offset + 4 * i) for i in (1, 2, 3))
            return _entries(image, start, end, mapping)
    except ValueError:
        return None
    return None


def _entries(image: _Image, start: int, end: int, mapping: int) -> BinaryInfo:
    while image.u32(mapping):
        image.mappings.append((image.u32(mapping), image.u32(mapping + 4), image.u32(mapping + 8)))
        mapping += 12
    info = BinaryInfo()
    if not start <= end or end - start > 4096 * 4:
        raise ValueError("implausible binary info table")
    for pointer in range(start, end, 4):
        entry = image.u32(pointer)
        kind = image.u16(entry)
        if kind == TYPE_ID_AND_STRING:
            info.strings.setdefault(image.u32(entry + 4), []).append(
                image.text(image.u32(entry + 8))
            )
        elif kind == TYPE_ID_AND_INT:
            info.ints[image.u32(entry + 4)] = image.u32(entry + 8)
        elif kind == TYPE_BLOCK_DEVICE:
            name = image.text(image.u32(entry + 4))
            info.block_devices.append(
                BlockDevice(name, image.u32(entry + 8), image.u32(entry + 12))
            )
    return info
