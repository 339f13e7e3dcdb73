"""A board's wiring diagram as SVG text, drawn from its board module and parts list alone.

The Pico is drawn from above (USB at the top) with all 40 header pins numbered and named;
the parts are boxes in a column on its left, every pin of a part in a row (a chip's with its
number on the package); every wire to the Pico runs from a part's pin along a track of its
own to its header pin, labelled with what it carries. Wires to the right-hand edge (3V3,
VBUS) go over the top of the Pico. Wires between parts run on tracks left of the column,
each labelled at its first end; a pin left open is crossed out. The same board gives the
same bytes: positions are whole numbers, nothing depends on time or on the platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from itertools import pairwise

from . import pico
from .board import Board, Link, Part, Wire

PITCH = 22  # between header pins, and between a part's pins
PICO_W = 200
PICO_MARGIN = 28  # from the board's top edge to pin 1
PICO_FOOT = 48  # from pin 20 to the bottom edge, where the board's name goes
MARGIN = 20
PART_W = 250
HEADER_H = 44  # a part box's name and description
PART_GAP = 16
LABEL_W = 170  # room for a wire's label beside its part
TRACK_GAP = 9
LANE_GAP = 10
TOP = 90  # the title above
CAPTION_H = 70

OPEN_COLOUR = "#9e9e9e"
GROUND_COLOUR = "#333333"
POWER_COLOURS = {"VBUS": "#d62728", "VSYS": "#d62728", "3V3(OUT)": "#ff7f0e"}
SIGNAL_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@dataclass(frozen=True)
class _Box:
    part: Part
    x: int
    top: int
    rows: tuple[str, ...]  # the part's pins, top to bottom

    @property
    def height(self) -> int:
        return HEADER_H + PITCH * len(self.rows)

    def pin_y(self, pin: str) -> int:
        return self.top + HEADER_H + PITCH * self.rows.index(pin) + PITCH // 2


def render(board: Board) -> str:
    """The wiring diagram of ``board`` as a standalone SVG document."""
    wired = [w for w in board.wires if not w.on_board]
    pico_y = TOP + LANE_GAP * (1 + sum(1 for w in wired if _over_the_top(w)))
    tracks = _link_tracks(board, _place_boxes(board, pico_y, 0))
    part_x = MARGIN + TRACK_GAP * (max(tracks.values(), default=-1) + 2)
    boxes = _place_boxes(board, pico_y, part_x)
    tracks_x = part_x + PART_W + LABEL_W
    pico_x = tracks_x + TRACK_GAP * (len(wired) + 1) + 20
    bottom = max([pico_y + _pico_height()] + [b.top + b.height for b in boxes])
    width = pico_x + PICO_W + LANE_GAP * (2 + sum(1 for w in wired if _over_the_top(w))) + 20
    height = bottom + CAPTION_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        _text(MARGIN, 32, f"PopDice {board.kind}: wiring", size=18, weight="bold"),
        _text(MARGIN, 54, f"drawn from {board.source} and its parts.json by popdice wiring "
              f"--board {board.kind}"),
    ]  # fmt: skip
    out += _pico(board, pico_x, pico_y)
    for box in boxes:
        out += _part(box, board)
    out += _links(board, boxes, tracks)
    out += _wires(board, boxes, tracks_x, pico_x, pico_y)
    out += _caption(board, MARGIN, bottom + 24)
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


def _part_order(board: Board) -> list[Part]:
    """The parts top to bottom: in the order of the header rows they reach from the left; a
    part wired to no GPIO from the left comes after the nearest part (along the wires
    between parts) that is."""
    rows = {
        part.name: min(
            (_reach(w) for w in board.wires if w.part == part.name and _reach(w) >= 0),
            default=None,
        )
        for part in board.parts
    }
    neighbours: dict[str, list[str]] = {part.name: [] for part in board.parts}
    for link in board.links:
        neighbours[link.part].append(link.to_part)
        neighbours[link.to_part].append(link.part)

    def key(part: Part) -> tuple[int, int, int]:
        seen, frontier, distance = {part.name}, [part.name], 0
        while frontier:
            reached = [rows[name] for name in frontier if rows[name] is not None]
            if reached:
                return (min(r for r in reached if r is not None), distance, index[part.name])
            frontier = [n for name in frontier for n in neighbours[name] if n not in seen]
            seen.update(frontier)
            distance += 1
        return (len(pico.LEFT), 0, index[part.name])

    index = {part.name: i for i, part in enumerate(board.parts)}
    return sorted(board.parts, key=key)


def _place_boxes(board: Board, pico_y: int, x: int) -> list[_Box]:
    """A box per part at ``x``, each as near as it can be to where its first pin wired from
    the left lines up with its header pin; its pins wired to the Pico first (those over the
    top before those from the left), then the rest in the parts list's order."""
    boxes: list[_Box] = []
    next_top = pico_y
    for part in _part_order(board):
        wires = sorted((w for w in board.wires if w.part == part.name), key=_reach)
        to_pico = list(dict.fromkeys(w.part_pin for w in wires))
        rows = (*to_pico, *(pin for pin in part.pins if pin not in to_pico))
        reaches = [_reach(w) for w in wires]
        lined_up = next((i for i, row in enumerate(reaches) if row >= 0), None)
        top = next_top
        if lined_up is not None:
            at = to_pico.index(wires[lined_up].part_pin)
            wanted = pico_y + PICO_MARGIN + PITCH * (reaches[lined_up] - at) - HEADER_H
            top = max(next_top, wanted - PITCH // 2)
        boxes.append(_Box(part, x, top, rows))
        next_top = top + HEADER_H + PITCH * len(rows) + PART_GAP
    return boxes


def _link_ends(link: Link, boxes: list[_Box]) -> tuple[int, int]:
    by_name = {box.part.name: box for box in boxes}
    return by_name[link.part].pin_y(link.pin), by_name[link.to_part].pin_y(link.to_pin)


def _link_tracks(board: Board, boxes: list[_Box]) -> dict[Link, int]:
    """A track left of the boxes for each wire between parts: the shortest nearest the
    boxes, and no two wires whose spans overlap on one track."""
    spans = {link: sorted(_link_ends(link, boxes)) for link in board.links}
    taken: list[list[tuple[int, int]]] = []
    tracks: dict[Link, int] = {}
    for link in sorted(board.links, key=lambda link: (spans[link][1] - spans[link][0],
                                                        spans[link])):  # fmt: skip
        low, high = spans[link]
        track = next(
            (t for t, used in enumerate(taken) if all(high < a or low > b for a, b in used)),
            len(taken),
        )
        if track == len(taken):
            taken.append([])
        taken[track].append((low, high))
        tracks[link] = track
    return tracks


def _link_colour(link: Link) -> str:
    pins = {link.pin, link.to_pin}
    if pins & {"GND", "-"}:
        return GROUND_COLOUR
    if pins & {"VCC", "5V", "+"}:
        return POWER_COLOURS["VBUS"]
    return SIGNAL_COLOURS[-1]


def _links(board: Board, boxes: list[_Box], tracks: dict[Link, int]) -> list[str]:
    out: list[str] = []
    for link in board.links:
        y0, y1 = _link_ends(link, boxes)
        x = boxes[0].x
        track_x = x - TRACK_GAP * (tracks[link] + 1)
        colour = _link_colour(link)
        out.append(
            f'<polyline points="{x},{y0} {track_x},{y0} {track_x},{y1} {x},{y1}" fill="none" '
            f'stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
    return out


def _colour(wire: Wire, signals: dict[str, str]) -> str:
    if wire.pico_pin == "GND":
        return GROUND_COLOUR
    if wire.pico_pin in POWER_COLOURS:
        return POWER_COLOURS[wire.pico_pin]
    return signals.setdefault(wire.pico_pin, SIGNAL_COLOURS[len(signals) % len(SIGNAL_COLOURS)])


def _wires(board: Board, boxes: list[_Box], tracks_x: int, pico_x: int, pico_y: int) -> list[str]:
    ends = [
        (wire, box.x + PART_W, box.pin_y(wire.part_pin))
        for box in boxes
        for wire in board.wires
        if wire.part == box.part.name
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


def _part(box: _Box, board: Board) -> list[str]:
    x, part = box.x, box.part
    out = [
        f'<rect x="{x}" y="{box.top}" width="{PART_W}" height="{box.height}" rx="4" '
        'fill="#fff8e1" stroke="#795548" stroke-width="1.5"/>',
        _text(x + 8, box.top + 17, part.name, weight="bold", size=12),
        _text(x + 8, box.top + 34, part.label, size=10, fill="#5d4037"),
    ]
    to_pico = {w.part_pin for w in board.wires if w.part == part.name}
    linked = {(link.part, link.pin) for link in board.links}
    linked |= {(link.to_part, link.to_pin) for link in board.links}
    notes = {(link.part, link.pin): f"to {_end(board, link)}: {link.carries}"
             for link in board.links}  # fmt: skip
    notes.update({(o.part, o.pin): o.why for o in board.open_pins})
    for pin in box.rows:
        y = box.pin_y(pin)
        label = part.pin_label(pin)
        if pin in to_pico:
            out.append(
                f'<rect x="{x + PART_W - 4}" y="{y - 4}" width="8" height="8" fill="#795548"/>'
            )
            out.append(_text(x + PART_W - 10, y + 4, label, anchor="end"))
        if (part.name, pin) in linked:
            out.append(f'<rect x="{x - 4}" y="{y - 4}" width="8" height="8" fill="#795548"/>')
        elif pin not in to_pico:
            out.append(
                f'<path d="M{x - 14},{y - 4} l8,8 m0,-8 l-8,8" stroke="{OPEN_COLOUR}" '
                'stroke-width="2"/>'
            )
        if pin not in to_pico:
            out.append(_text(x + 10, y + 4, label))
        note = notes.get((part.name, pin))
        if note:
            out.append(_text(x + 64, y + 4, note, size=9, fill="#5d4037"))
    return out


def _end(board: Board, link: Link) -> str:
    """The far end of a wire between parts, as its near end's note says it."""
    pin = board.part(link.to_part).pin_label(link.to_pin)
    return pin if link.to_part == link.part else f"{link.to_part} {pin}"


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
