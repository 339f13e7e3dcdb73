"""A board's wiring diagram as SVG text, drawn from its board module alone.

The Pico is drawn from above (USB at the top) with all 40 header pins numbered and named;
the parts are boxes in a column on its left, each pin in a row; every wire runs from a part's
pin along a track of its own to its header pin, labelled with what it carries. Wires to the
right-hand edge (3V3, VBUS) go over the top of the Pico. The same board gives the same
bytes: positions are whole numbers, nothing depends on time or on the platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from itertools import pairwise

from . import pico
from .board import Board, Wire

PITCH = 22  # between header pins, and between a part's pins
PICO_W = 200
PICO_MARGIN = 28  # from the board's top edge to pin 1
PICO_FOOT = 48  # from pin 20 to the bottom edge, where the board's name goes
PART_X = 20
PART_W = 250
HEADER_H = 44  # a part box's name and description
PART_GAP = 16
LABEL_W = 170  # room for a wire's label beside its part
TRACK_GAP = 9
LANE_GAP = 10
TOP = 90  # the title above
CAPTION_H = 70

GROUND_COLOUR = "#333333"
POWER_COLOURS = {"VBUS": "#d62728", "VSYS": "#d62728", "3V3(OUT)": "#ff7f0e"}
SIGNAL_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@dataclass(frozen=True)
class _Box:
    name: str
    about: str
    top: int
    wires: tuple[Wire, ...]

    @property
    def height(self) -> int:
        return HEADER_H + PITCH * len(self.wires)

    def pin_y(self, index: int) -> int:
        return self.top + HEADER_H + PITCH * index + PITCH // 2


def render(board: Board) -> str:
    """The wiring diagram of ``board`` as a standalone SVG document."""
    wired = [w for w in board.wires if not w.on_board]
    tracks_x = PART_X + PART_W + LABEL_W
    pico_x = tracks_x + TRACK_GAP * (len(wired) + 1) + 20
    pico_y = TOP + LANE_GAP * (1 + sum(1 for w in wired if _over_the_top(w)))
    boxes = _place_boxes(board, pico_y)
    bottom = max([pico_y + _pico_height()] + [b.top + b.height for b in boxes])
    width = pico_x + PICO_W + LANE_GAP * (2 + sum(1 for w in wired if _over_the_top(w))) + 20
    height = bottom + CAPTION_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        _text(PART_X, 32, f"PopDice {board.kind}: wiring", size=18, weight="bold"),
        _text(PART_X, 54, f"drawn from {board.source} by popdice wiring --board {board.kind}"),
    ]
    out += _pico(board, pico_x, pico_y)
    for box in boxes:
        out += _part(box)
    out += _wires(boxes, tracks_x, pico_x, pico_y)
    out += _caption(board, PART_X, bottom + 24)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _over_the_top(wire: Wire) -> bool:
    return wire.header is not None and not pico.on_left(wire.header)


def _pin_y(pico_y: int, header: int) -> int:
    return pico_y + PICO_MARGIN + PITCH * pico.row(header)


def _pico_height() -> int:
    return PICO_MARGIN + PITCH * (len(pico.LEFT) - 1) + PICO_FOOT


def _reach(wire: Wire) -> int:
    """The header row a wire arrives at from the left: -1 over the top or on the Pico."""
    if wire.header is None or _over_the_top(wire):
        return -1
    return pico.row(wire.header)


def _first_row(board: Board, part: str) -> int:
    """The highest header row a part reaches from the left (rows over the top come last)."""
    rows = [_reach(w) for w in board.wires if w.part == part and _reach(w) >= 0]
    return min(rows, default=len(pico.LEFT))


def _place_boxes(board: Board, pico_y: int) -> list[_Box]:
    """A box per part, in the order of the header rows they reach, each as near as it can be
    to where its first pin wired from the left lines up with its header pin; a part's pins in
    the same order, those wired over the top first."""
    boxes: list[_Box] = []
    next_top = pico_y
    for name, about in sorted(board.parts, key=lambda part: _first_row(board, part[0])):
        wires = tuple(sorted((w for w in board.wires if w.part == name), key=_reach))
        rows = [_reach(w) for w in wires]
        lined_up = next((i for i, row in enumerate(rows) if row >= 0), 0)
        row = max(rows[lined_up], 0)
        wanted = pico_y + PICO_MARGIN + PITCH * (row - lined_up) - HEADER_H - PITCH // 2
        top = max(next_top, wanted)
        boxes.append(_Box(name, about, top, wires))
        next_top = top + HEADER_H + PITCH * len(wires) + PART_GAP
    return boxes


def _colour(wire: Wire, signals: dict[str, str]) -> str:
    if wire.pico_pin == "GND":
        return GROUND_COLOUR
    if wire.pico_pin in POWER_COLOURS:
        return POWER_COLOURS[wire.pico_pin]
    return signals.setdefault(wire.pico_pin, SIGNAL_COLOURS[len(signals) % len(SIGNAL_COLOURS)])


def _wires(boxes: list[_Box], tracks_x: int, pico_x: int, pico_y: int) -> list[str]:
    ends = [
        (wire, PART_X + PART_W, box.pin_y(index))
        for box in boxes
        for index, wire in enumerate(box.wires)
        if not wire.on_board
    ]
    over = [w for w, _, _ in ends if _over_the_top(w)]
    over.sort(key=lambda w: pico.row(w.header or 0))

    def path(end: tuple[Wire, int, int], track: int) -> list[tuple[int, int]]:
        """The corners of a wire's path, from its part to its header pin."""
        wire, x0, y0 = end
        assert wire.header is not None
        y1 = _pin_y(pico_y, wire.header)
        x1 = tracks_x + TRACK_GAP * (track + 1)
        if _over_the_top(wire):
            lane = over.index(wire) + 1
            lane_y, right = pico_y - LANE_GAP * lane, pico_x + PICO_W + LANE_GAP * lane
            return [(x0, y0), (x1, y0), (x1, lane_y), (right, lane_y), (right, y1),
                    (pico_x + PICO_W, y1)]  # fmt: skip
        if y0 == y1:
            return [(x0, y0), (pico_x, y1)]
        return [(x0, y0), (x1, y0), (x1, y1), (pico_x, y1)]

    def crossings(order: list[int]) -> int:
        paths = [(ends[i][0].pico_pin, path(ends[i], t)) for t, i in enumerate(order)]
        return sum(
            _crossed(a, b)
            for n, (net_a, a) in enumerate(paths)
            for net_b, b in paths[n + 1 :]
            if net_a != net_b
        )

    order: list[int] = []
    for i in range(len(ends)):  # each wire on the track where it crosses the fewest
        tries = [[*order[:at], i, *order[at:]] for at in range(len(order) + 1)]
        order = min(tries, key=crossings)
    out: list[str] = []
    signals: dict[str, str] = {}
    for track, i in enumerate(order):
        wire, x0, y0 = ends[i]
        colour = _colour(wire, signals)
        corners = " ".join(f"{x},{y}" for x, y in path(ends[i], track))
        out.append(
            f'<polyline points="{corners}" fill="none" stroke="{colour}" stroke-width="2" '
            'stroke-linejoin="round"/>'
        )
        out.append(_text(x0 + 8, y0 - 4, wire.carries, fill=colour, size=10))
    return out


def _crossed(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """How often two paths of horizontal and vertical segments cross."""
    count = 0
    for (ax0, ay0), (ax1, ay1) in pairwise(a):
        for (bx0, by0), (bx1, by1) in pairwise(b):
            if ay0 == ay1 and bx0 == bx1:
                h, v = ((ax0, ax1), ay0), ((by0, by1), bx0)
            elif ax0 == ax1 and by0 == by1:
                h, v = ((bx0, bx1), by0), ((ay0, ay1), ax0)
            else:
                continue
            (hx0, hx1), hy = h
            (vy0, vy1), vx = v
            if min(hx0, hx1) < vx < max(hx0, hx1) and min(vy0, vy1) < hy < max(vy0, vy1):
                count += 1
    return count


def _pico(board: Board, x: int, y: int) -> list[str]:
    used = {w.header for w in board.wires if w.header is not None}
    height = _pico_height()
    out = [
        f'<rect x="{x}" y="{y}" width="{PICO_W}" height="{height}" rx="8" fill="#e8f5e9" '
        'stroke="#2e7d32" stroke-width="2"/>',
        f'<rect x="{x + PICO_W // 2 - 20}" y="{y - 6}" width="40" height="16" rx="2" '
        'fill="#bdbdbd" stroke="#616161"/>',
        _text(x + PICO_W // 2, y + 22, "USB", anchor="middle", size=9),
        _text(x + PICO_W // 2, y + height - 22, "Raspberry Pi Pico", anchor="middle",
              weight="bold"),
        _text(x + PICO_W // 2, y + height - 9, "seen from above", anchor="middle", size=9),
    ]  # fmt: skip
    for pin in range(1, pico.PINS + 1):
        left = pico.on_left(pin)
        pad_x = x if left else x + PICO_W
        pin_y = _pin_y(y, pin)
        fill = "#212121" if pin in used else "white"
        out.append(
            f'<rect x="{pad_x - 4}" y="{pin_y - 4}" width="8" height="8" fill="{fill}" '
            'stroke="#212121"/>'
        )
        weight = "bold" if pin in used else "normal"
        number_x, name_x = (x + 8, x + 28) if left else (x + PICO_W - 8, x + PICO_W - 28)
        anchor = "start" if left else "end"
        out.append(_text(number_x, pin_y + 4, str(pin), anchor=anchor, size=9, fill="#616161"))
        out.append(_text(name_x, pin_y + 4, pico.name(pin), anchor=anchor, weight=weight))
    return out


def _part(box: _Box) -> list[str]:
    out = [
        f'<rect x="{PART_X}" y="{box.top}" width="{PART_W}" height="{box.height}" rx="4" '
        'fill="#fff8e1" stroke="#795548" stroke-width="1.5"/>',
        _text(PART_X + 8, box.top + 17, box.name, weight="bold", size=12),
        _text(PART_X + 8, box.top + 34, box.about, size=10, fill="#5d4037"),
    ]
    for index, wire in enumerate(box.wires):
        y = box.pin_y(index)
        out.append(
            f'<rect x="{PART_X + PART_W - 4}" y="{y - 4}" width="8" height="8" fill="#795548"/>'
        )
        out.append(_text(PART_X + PART_W - 10, y + 4, wire.part_pin, anchor="end"))
    return out


def _caption(board: Board, x: int, y: int) -> list[str]:
    lines = [
        "Pins are numbered as on the Pico: 1 is top left beside the USB connector, 40 top right.",
        "Every GND pin is the same ground; the diagram takes the one nearest each part.",
    ]
    lines += [
        f"{w.pico_pin} on the Pico itself: {pico.ON_BOARD[w.gpio]}, {w.carries}."
        for w in board.wires
        if w.on_board and w.gpio is not None
    ]
    return [_text(x, y + 16 * i, line, size=10, fill="#424242") for i, line in enumerate(lines)]


def _text(
    x: int,
    y: int,
    text: str,
    *,
    anchor: str = "start",
    size: int = 11,
    weight: str = "normal",
    fill: str = "#212121",
) -> str:
    style = f' font-weight="{weight}"' if weight != "normal" else ""
    return (
        f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="{size}" fill="{fill}"{style}>'
        f"{escape(text, quote=False)}</text>"
    )
