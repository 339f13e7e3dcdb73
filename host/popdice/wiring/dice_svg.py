"""The popper's LED dice as an SVG drawing: one die's nine pixels and the order the data runs
through them, and the five dice where they sit under the dome with the number the firmware
gives every pixel. Whole-number positions only: the same layout gives the same bytes."""

from __future__ import annotations

from .dice import COLOURS, PIXELS_PER_DIE, DiceLayout
from .svg import _text as text

DIE_SCALE = 9  # pixels of the drawing per millimetre, for the one die
TOP_SCALE = 3  # for the view from above
MARGIN = 20
TOP = 80
FILLS = {
    "red": "#ffcdd2",
    "orange": "#ffe0b2",
    "yellow": "#fff9c4",
    "green": "#c8e6c9",
    "blue": "#bbdefb",
}
DATA = "#1565c0"


def render_dice(dice: DiceLayout) -> str:
    """The drawing of ``dice`` as a standalone SVG document."""
    die_size = round(3 * dice.pitch * DIE_SCALE)
    left_w = die_size + 2 * 120
    radius = round(dice.dome_diameter / 2 * TOP_SCALE)
    top_x = MARGIN + left_w + 40 + radius  # the lid's centre in the view from above
    top_y = TOP + 30 + radius
    width = top_x + radius + MARGIN + 20
    height = top_y + radius + 110
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        "<defs>"
        '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{DATA}"/></marker></defs>',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        text(MARGIN, 32, "PopDice popper: the LED dice", size=18, weight="bold"),
        text(MARGIN, 54, "drawn from boards/popper/case.json by popdice wiring --board "
             "popper --dice"),
    ]  # fmt: skip
    out += _one_die(dice, MARGIN + 120, TOP + 60)
    out += _from_above(dice, top_x, top_y, radius)
    notes = [
        "One chain of 45 WS2812B: DIN of pixel 0 comes from R1; each pixel's DOUT feeds the "
        "next pixel's DIN, row by row,",
        "each row left to right (from the end of a row back to the start of the next: do not "
        "snake), then on to the next die.",
        "5 V and ground go to every pixel in parallel; the 1000 µF capacitor sits where they "
        "enter die 0.",
    ]
    out += [
        text(MARGIN, height - 70 + 16 * i, line, size=11, fill="#424242")
        for i, line in enumerate(notes)
    ]
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _arrow(x0: int, y0: int, x1: int, y1: int, *, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5,4"' if dashed else ""
    return (
        f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{DATA}" stroke-width="2"'
        f'{dash} marker-end="url(#arrow)"/>'
    )


def _one_die(dice: DiceLayout, x: int, y: int) -> list[str]:
    """One die, large: its pixels numbered 0-8, and the data's path through them."""
    pitch = round(dice.pitch * DIE_SCALE)
    board = round(10 * DIE_SCALE / 2)  # the 10 mm round board under each pixel
    size = 3 * pitch
    out = [
        text(x + size // 2, y - 30, "one die, seen from above", anchor="middle", weight="bold",
             size=13),
        f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="10" fill="#fafafa" '
        'stroke="#757575" stroke-width="1.5"/>',
    ]  # fmt: skip
    centres = [
        (x + pitch // 2 + pitch * (i % 3), y + pitch // 2 + pitch * (i // 3))
        for i in range(PIXELS_PER_DIE)
    ]
    for i, (cx, cy) in enumerate(centres):
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{board - 4}" fill="#eeeeee" stroke="#616161"/>')
        out.append(text(cx, cy - 4, str(i), anchor="middle", size=16, weight="bold"))
        out.append(text(cx, cy + 14, "WS2812B", anchor="middle", size=8, fill="#616161"))
    edge = board - 4
    for i in range(PIXELS_PER_DIE - 1):
        (ax, ay), (bx, by) = centres[i], centres[i + 1]
        if ay == by:
            out.append(_arrow(ax + edge, ay + 22, bx - edge, by + 22))
        else:  # back to the start of the next row
            out.append(_arrow(ax - 10, ay + edge, bx + 10, by - edge, dashed=True))
    (fx, fy), (lx, ly) = centres[0], centres[-1]
    out.append(_arrow(fx - edge - 90, fy + 22, fx - edge, fy + 22))
    out.append(text(fx - edge - 92, fy + 10, "DIN", size=11, weight="bold", fill=DATA))
    out.append(text(fx - edge - 92, fy + 40, "from R1, or the", size=9, fill=DATA))
    out.append(text(fx - edge - 92, fy + 51, "previous die", size=9, fill=DATA))
    out.append(_arrow(lx + edge, ly + 22, lx + edge + 90, ly + 22))
    out.append(text(lx + edge + 30, ly + 10, "DOUT", size=11, weight="bold", fill=DATA))
    out.append(text(lx + edge + 10, ly + 40, "to the next die's", size=9, fill=DATA))
    out.append(text(lx + edge + 10, ly + 51, "pixel 0", size=9, fill=DATA))
    out.append(
        text(x + size // 2, y + size + 24, "pixel i: row i // 3, column i % 3; die d's pixel i "
             "is number 9 d + i", anchor="middle", size=10, fill="#424242")
    )  # fmt: skip
    return out


def _from_above(dice: DiceLayout, cx: int, cy: int, radius: int) -> list[str]:
    """The five dice under the dome, each pixel with its number in the chain."""

    def at(point: tuple[float, float]) -> tuple[int, int]:
        return (round(cx + point[0] * TOP_SCALE), round(cy - point[1] * TOP_SCALE))

    half = round(1.5 * dice.pitch * TOP_SCALE)
    hole = round(dice.pip_hole / 2 * TOP_SCALE)
    out = [
        text(cx, cy - radius - 14, f"the lid from above: a dome of {dice.dome_diameter:g} mm",
             anchor="middle", weight="bold", size=13),
        f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="#f5fbff" stroke="#90a4ae" '
        'stroke-width="2" stroke-dasharray="8,4"/>',
    ]  # fmt: skip
    for die in range(dice.count):
        x, y = at(dice.centre(die))
        colour = COLOURS[die]
        out.append(
            f'<rect x="{x - half}" y="{y - half}" width="{2 * half}" height="{2 * half}" '
            f'rx="6" fill="{FILLS[colour]}" stroke="#616161"/>'
        )
        label_y = y - half - 6 if y <= cy else y + half + 14
        out.append(text(x, label_y, f"die {die}: {colour}", anchor="middle", size=10,
                        weight="bold"))  # fmt: skip
        for index in range(PIXELS_PER_DIE):
            px, py = at(dice.pixel(die, index))
            out.append(f'<circle cx="{px}" cy="{py}" r="{hole}" fill="white" stroke="#9e9e9e"/>')
            out.append(text(px, py + 3, str(dice.number(die, index)), anchor="middle", size=8))
    for die in range(dice.count - 1):
        x0, y0 = at(dice.pixel(die, PIXELS_PER_DIE - 1))
        x1, y1 = at(dice.pixel(die + 1, 0))
        out.append(_arrow(x0, y0, x1, y1, dashed=True))
    fx, fy = at(dice.pixel(0, 0))
    out.append(_arrow(fx - 60, fy - 30, fx - hole, fy - 2))
    out.append(text(fx - 62, fy - 34, "DIN from R1", anchor="end", size=10, fill=DATA))
    out.append(
        f'<rect x="{cx - 30}" y="{cy + radius + 8}" width="60" height="14" fill="#bdbdbd" '
        'stroke="#616161"/>'
    )
    out.append(text(cx, cy + radius + 36, "USB opening (towards you)", anchor="middle",
                    size=10))  # fmt: skip
    return out
