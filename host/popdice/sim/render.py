"""Pictures of what the simulated boards show: the popper's dice in ANSI truecolor, the
handheld's OLED in half-block characters or as a PNG (written by hand: zlib and struct),
one screen or several side by side.

The display's buffer is the SSD1306's RAM (framebuf.MONO_VLSB, 128x64); ``visible`` turns
it into the lit pixels as seen on a module mounted the usual way (upright once the driver
set segment remap and reversed COM scan, as MicroPython's ssd1306 driver does).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from .wiring import DICE, DISPLAY_HEIGHT, DISPLAY_WIDTH

_RESET = "\x1b[0m"
_UNLIT = (40, 40, 40)  # how a dark LED is drawn, so the dice stay visible
_PIXELS_PER_DIE = 9
_GAP_GREY = 0x60  # between pictures of the display set side by side


def pixel(buffer: bytes, x: int, y: int) -> bool:
    """Whether a pixel of the frame buffer (MONO_VLSB, 128 wide) is set."""
    return bool(buffer[(y // 8) * DISPLAY_WIDTH + x] >> (y % 8) & 1)


def visible(state: Mapping[str, Any]) -> list[list[bool]]:
    """The panel's lit pixels, rows top to bottom, from a ``SimControl.display()`` state."""
    buffer = state["buffer"]
    if not state.get("on"):
        return [[False] * DISPLAY_WIDTH for _ in range(DISPLAY_HEIGHT)]
    if state.get("entire_on"):
        return [[True] * DISPLAY_WIDTH for _ in range(DISPLAY_HEIGHT)]
    mirror_x = not state.get("segment_remap", True)
    mirror_y = not state.get("com_reverse", True)
    invert = bool(state.get("invert"))
    rows = []
    for y in range(DISPLAY_HEIGHT):
        source_y = DISPLAY_HEIGHT - 1 - y if mirror_y else y
        row = []
        for x in range(DISPLAY_WIDTH):
            source_x = DISPLAY_WIDTH - 1 - x if mirror_x else x
            row.append(pixel(buffer, source_x, source_y) != invert)
        rows.append(row)
    return rows


def display_text(state: Mapping[str, Any]) -> str:
    """The panel in half blocks: 64 lines of text for 128 pixel rows."""
    rows = visible(state)
    glyphs = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
    lines = []
    for y in range(0, DISPLAY_HEIGHT, 2):
        lines.append(
            "".join(glyphs[(top, bottom)] for top, bottom in zip(rows[y], rows[y + 1], strict=True))
        )
    border = "+" + "-" * DISPLAY_WIDTH + "+"
    return "\n".join([border, *(f"|{line}|" for line in lines), border])


def dice_text(pixels: Sequence[Sequence[int]]) -> str:
    """The popper's five 3x3 dice side by side, each LED two truecolor blocks wide."""
    if not pixels:
        return "(no LED frame yet)"
    lines = []
    for row in range(3):
        dice = []
        for die in range(DICE):
            cells = []
            for column in range(3):
                index = die * _PIXELS_PER_DIE + row * 3 + column
                colour = tuple(pixels[index][:3]) if index < len(pixels) else (0, 0, 0)
                r, g, b = colour if any(colour) else _UNLIT
                cells.append(f"\x1b[38;2;{r};{g};{b}m██")
            dice.append("".join(cells) + _RESET)
        lines.append("  ".join(dice))
    return "\n".join(lines)


def display_png(state: Mapping[str, Any], scale: int = 4) -> bytes:
    """The panel as a greyscale PNG, each pixel ``scale`` x ``scale``."""
    return displays_png([state], scale)


def displays_png(states: Sequence[Mapping[str, Any]], scale: int = 4, gap: int = 0) -> bytes:
    """Several panel states side by side in one greyscale PNG, ``gap`` grey pixels apart."""
    pictures = [visible(state) for state in states]
    spacer = bytes([_GAP_GREY]) * gap
    width = len(pictures) * DISPLAY_WIDTH * scale + (len(pictures) - 1) * gap
    height = DISPLAY_HEIGHT * scale
    raw = bytearray()
    for y in range(DISPLAY_HEIGHT):
        line = spacer.join(
            bytes(0xFF if lit else 0x00 for lit in rows[y] for _ in range(scale))
            for rows in pictures
        )
        for _ in range(scale):
            raw.append(0)  # filter: none
            raw += line
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(bytes(raw), 9)),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)
