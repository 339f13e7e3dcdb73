"""The handheld's screens, drawn on any 128x64 ``framebuf.FrameBuffer`` (docs/handheld.md).

- ``home``: no dice values, ever: two dice drawn with "?" once a secret roll is held
  (outlines before), a line of guidance or a hint, and the battery; a low battery turns
  the top line into an inverted "LOW BATTERY" banner with the voltage.
- ``peek``: the secret dice for the holder's eyes: the colour die (its initial, name below)
  and the number die (pips, digit below).
- ``reveal``: the same dice large, for the whole table; the colour die is filled.

Text is framebuf's 8x8 font, scaled up pixel by pixel for large letters through one
8x8 scratch buffer allocated here.
"""

import framebuf
from micropython import const

WIDTH = const(128)
HEIGHT = const(64)
BANNER_ROWS = const(10)  # rows 0-9: the title line, or the low-battery banner (all lit)

_EMPTY_MV = const(3300)
_FULL_MV = const(4200)
_GAUGE = const(11)  # pixels of charge inside the battery outline

_glyph = bytearray(8)
_glyph_fb = framebuf.FrameBuffer(_glyph, 8, 8, framebuf.MONO_HLSB)

# Pips on a 3x3 grid, (column, row), for faces 1-6.
_PIPS = (
    (),
    ((1, 1),),
    ((2, 0), (0, 2)),
    ((2, 0), (1, 1), (0, 2)),
    ((0, 0), (2, 0), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
)


def big_text(fb, text, x, y, scale, c=1):
    """``text`` in the 8x8 font, each pixel a ``scale`` x ``scale`` square."""
    for i in range(len(text)):
        _glyph_fb.fill(0)
        _glyph_fb.text(text[i], 0, 0, 1)
        left = x + i * 8 * scale
        for row in range(8):
            bits = _glyph[row]
            column = 0
            while bits:
                if bits & 0x80:
                    fb.fill_rect(left + column * scale, y + row * scale, scale, scale, c)
                bits = (bits << 1) & 0xFF
                column += 1
    _glyph_fb.fill(0)  # a module's buffer outlives the app: no letter of the dice stays in it


def centred_text(fb, text, centre_x, y, scale=1, c=1):
    left = centre_x - len(text) * 4 * scale
    if scale == 1:
        fb.text(text, left, y, c)
    else:
        big_text(fb, text, left, y, scale, c)


def _die(fb, x, y, size, filled):
    """A die's face: a rounded square, filled or with a 2-pixel border."""
    if filled:
        fb.fill_rect(x, y, size, size, 1)
    else:
        fb.rect(x, y, size, size, 1)
        fb.rect(x + 1, y + 1, size - 2, size - 2, 1)
    far_x = x + size - 1
    far_y = y + size - 1
    corners = ((x, y, 1, 1), (far_x, y, -1, 1), (x, far_y, 1, -1), (far_x, far_y, -1, -1))
    for cx, cy, dx, dy in corners:
        fb.pixel(cx, cy, 0)
        fb.pixel(cx + dx, cy, 0)
        fb.pixel(cx, cy + dy, 0)
        if not filled:
            fb.pixel(cx + dx, cy + dy, 1)


def number_die(fb, x, y, size, number):
    _die(fb, x, y, size, False)
    step = size // 4
    radius = size // 10
    for column, row in _PIPS[number]:
        cx = x + step * (column + 1)
        cy = y + step * (row + 1)
        fb.ellipse(cx, cy, radius, radius, 1, True)


def colour_die(fb, x, y, size, colour, named=False):
    """A filled face with the colour's initial (the six initials differ) cut out of it."""
    _die(fb, x, y, size, True)
    scale = size * 3 // 5 // 8
    letter = 8 * scale
    top = y + 5 if named else y + (size - letter) // 2
    big_text(fb, colour[0].upper(), x + (size - letter) // 2, top, scale, 0)
    if named:
        centred_text(fb, colour.upper(), x + size // 2, y + size - 13, 1, 0)


def battery(fb, x, y, mv):
    """A 15x7 battery gauge, empty at 3.3 V and full at 4.2 V."""
    fb.rect(x, y, _GAUGE + 2, 7, 1)
    fb.fill_rect(x + _GAUGE + 2, y + 2, 2, 3, 1)
    charge = (mv - _EMPTY_MV) * _GAUGE // (_FULL_MV - _EMPTY_MV)
    if charge > 0:
        fb.fill_rect(x + 1, y + 1, min(charge, _GAUGE), 5, 1)


def volts(mv):
    return "%d.%dV" % (mv // 1000, mv % 1000 // 100)


def _title(fb, title, mv, low):
    if low:
        fb.fill_rect(0, 0, WIDTH, BANNER_ROWS, 1)
        fb.text("LOW BATTERY", 1, 1, 0)
        fb.text(volts(mv), WIDTH - 32, 1, 0)
    else:
        fb.text(title, 0, 1, 1)
        battery(fb, WIDTH - 15, 1, mv)


def home(fb, rolled, line, mv, low):
    """No values: the secret is shown as two "?" dice; ``line`` guides or hints."""
    fb.fill(0)
    _title(fb, "LOWDOWN", mv, low)
    for x in (28, 70):
        _die(fb, x, 16, 30, False)
        if rolled:
            big_text(fb, "?", x + 7, 23, 2)
    centred_text(fb, line, WIDTH // 2, 54)


def peek(fb, colour, number, mv, low):
    fb.fill(0)
    _title(fb, "SECRET", mv, low)
    colour_die(fb, 14, 12, 40, colour)
    number_die(fb, 74, 12, 40, number)
    centred_text(fb, colour.upper(), 34, 56)
    centred_text(fb, str(number), 94, 56)


def reveal(fb, colour, number):
    fb.fill(0)
    colour_die(fb, 2, 2, 60, colour, True)
    number_die(fb, 66, 2, 60, number)
