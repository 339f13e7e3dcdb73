"""A board read on the laptop: its board module's wires to the Pico (``boards/<kind>/board.py``),
each wire's end on the Pico's header resolved, and its parts, their pins and the wires between
parts (``boards/<kind>/parts.json``).

A board module is MicroPython, but it imports ``machine`` only inside its functions, so it
loads here as it is: the pin numbers stay in that one file. A wiring that does not hold
together (a wire to a part or a pin the parts list lacks, a GPIO the Pico lacks, a pin of a
part that goes nowhere and is not marked open) is a ``PopdiceError``.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ..deploy.files import BOARDS_DIR, KINDS
from ..errors import PopdiceError
from ..files import MB, read_limited
from . import pico

ON_THE_PICO = "Pico"
"""The part name of a connection the Pico makes itself (no wire)."""


@dataclass(frozen=True)
class Wire:
    """One wire: from a pin of the Pico (``header``: 1-40, or None on the Pico itself) to a
    pin of a part."""

    gpio: int | None
    pico_pin: str
    header: int | None
    part: str
    part_pin: str
    carries: str

    @property
    def on_board(self) -> bool:
        return self.part == ON_THE_PICO


@dataclass(frozen=True)
class Part:
    """A part of the wiring: its name in the diagrams, what it is, and every pin it has (with
    their numbers on the package, for a chip)."""

    name: str
    label: str
    pins: tuple[str, ...]
    numbers: tuple[int, ...] = ()

    def pin_label(self, pin: str) -> str:
        """``pin`` as the builder finds it: ``1A (2)`` on a chip, the name alone elsewhere."""
        if not self.numbers:
            return pin
        return f"{pin} ({self.numbers[self.pins.index(pin)]})"


@dataclass(frozen=True)
class Link:
    """A wire from one part's pin to another's (or to another pin of the same part)."""

    part: str
    pin: str
    to_part: str
    to_pin: str
    carries: str


@dataclass(frozen=True)
class OpenPin:
    """A pin of a part that is left unconnected, and why."""

    part: str
    pin: str
    why: str


@dataclass(frozen=True)
class Board:
    kind: str
    source: str
    parts: tuple[Part, ...]
    wires: tuple[Wire, ...]
    module: ModuleType
    links: tuple[Link, ...] = ()
    open_pins: tuple[OpenPin, ...] = ()

    def part(self, name: str) -> Part:
        return next(part for part in self.parts if part.name == name)

    def setting(self, name: str) -> Any:
        """A constant of the board module (``ACCEL_ADDRESSES``, ``LED_COUNT``...)."""
        if not hasattr(self.module, name):
            raise PopdiceError(f"{self.source} has no {name}")
        return getattr(self.module, name)

    def gpio(self, name: str) -> int:
        value = self.setting(name)
        if not isinstance(value, int):
            raise PopdiceError(f"{self.source}: {name} is not a pin number")
        return value


@cache
def load(kind: str) -> Board:
    """The board module of ``kind`` (popper or handheld), read and checked once."""
    if kind not in KINDS:
        raise PopdiceError(f"unknown board kind {kind!r} (choose from {', '.join(KINDS)})")
    path = BOARDS_DIR / kind / "board.py"
    source = f"boards/{kind}/board.py"
    spec = importlib.util.spec_from_file_location(f"popdice_board_{kind}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise PopdiceError(f"{source}: no such board module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the module's own mistake: say which file, in one line
        raise PopdiceError(f"{source} does not load: {error}") from None
    parts_source = f"boards/{kind}/parts.json"
    listing = read_parts_list(path.with_name("parts.json"), parts_source)
    parts = _parts(listing, parts_source)
    by_name = {part.name: part for part in parts}
    rows: Any = getattr(module, "WIRES", ())
    wires = tuple(_wire(row, by_name, source) for row in rows)
    links = tuple(_link(row, by_name, parts_source) for row in listing.get("links", []))
    open_pins = tuple(_open(row, by_name, parts_source) for row in listing.get("open", []))
    _check_every_pin(parts, wires, links, open_pins, source, parts_source)
    return Board(kind, source, parts, _grounded(wires), module, links, open_pins)


PARTS_LIMIT = MB
"""The largest parts list read: the real ones are a few kilobytes."""


def read_parts_list(path: Path, source: str) -> dict[str, Any]:
    """A board's ``parts.json``, checked to be a JSON object with a list of parts."""
    if not path.is_file():
        raise PopdiceError(f"{source}: no such parts list")
    try:
        listing = json.loads(read_limited(str(path), PARTS_LIMIT, "parts list"))
    except (ValueError, UnicodeDecodeError) as error:
        raise PopdiceError(f"{source} is not JSON: {error}") from None
    if not isinstance(listing, dict) or not isinstance(listing.get("parts"), list):
        raise PopdiceError(f"{source}: not an object with a list of parts")
    for key in ("links", "open"):
        if not isinstance(listing.get(key, []), list):
            raise PopdiceError(f"{source}: {key} is not a list")
    return listing


def _parts(listing: dict[str, Any], source: str) -> tuple[Part, ...]:
    """The wiring's parts: one for each name in a line's ``wired_as``."""
    parts: list[Part] = []
    for line in listing["parts"]:
        names = line.get("wired_as", []) if isinstance(line, dict) else None
        if not names:
            continue
        pins, label, numbers = line.get("pins"), line.get("label"), line.get("pin_numbers", [])
        if not (
            isinstance(names, list)
            and all(isinstance(n, str) and n for n in names)
            and isinstance(label, str)
            and isinstance(pins, list)
            and pins
            and all(isinstance(p, str) and p for p in pins)
            and len(set(pins)) == len(pins)
            and isinstance(numbers, list)
            and all(isinstance(n, int) for n in numbers)
            and len(numbers) in (0, len(pins))
        ):
            raise PopdiceError(
                f"{source}: a wired part needs wired_as (names), label, pins (each once) and "
                f"pin_numbers (one a pin, or none): {line.get('part', line)!r}"
            )
        parts += [Part(name, label, tuple(pins), tuple(numbers)) for name in names]
    names = [part.name for part in parts]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise PopdiceError(f"{source}: {', '.join(twice)} wired as more than one part")
    return tuple(parts)


def _pin_of(part: str, pin: Any, parts: dict[str, Part], source: str, what: str) -> None:
    if part not in parts:
        raise PopdiceError(f"{source}: {what} to {part!r}, which is not in the parts list")
    if pin not in parts[part].pins:
        known = ", ".join(parts[part].pins)
        raise PopdiceError(f"{source}: {what} to {part} pin {pin!r}, which it lacks ({known})")


def _link(row: Any, parts: dict[str, Part], source: str) -> Link:
    if not (isinstance(row, list) and len(row) == 5 and all(isinstance(x, str) for x in row)):
        raise PopdiceError(f"{source}: a link is [part, pin, part, pin, carries]: {row!r}")
    part, pin, to_part, to_pin, carries = row
    _pin_of(part, pin, parts, source, "a link")
    _pin_of(to_part, to_pin, parts, source, "a link")
    if (part, pin) == (to_part, to_pin):
        raise PopdiceError(f"{source}: a link from {part} pin {pin} to itself")
    return Link(part, pin, to_part, to_pin, carries)


def _open(row: Any, parts: dict[str, Part], source: str) -> OpenPin:
    if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
        raise PopdiceError(f"{source}: an open pin is [part, pin, why]: {row!r}")
    _pin_of(row[0], row[1], parts, source, "an open pin")
    return OpenPin(*row)


def _check_every_pin(
    parts: tuple[Part, ...],
    wires: tuple[Wire, ...],
    links: tuple[Link, ...],
    open_pins: tuple[OpenPin, ...],
    source: str,
    parts_source: str,
) -> None:
    """Every part is wired, and each of its pins goes somewhere or is open."""
    ends = {(w.part, w.part_pin) for w in wires}
    ends |= {(link.part, link.pin) for link in links}
    ends |= {(link.to_part, link.to_pin) for link in links}
    unwired = [p.name for p in parts if not any(part == p.name for part, _ in ends)]
    if unwired:
        raise PopdiceError(f"{source}: no wire to {', '.join(sorted(unwired))}")
    left_open = {(o.part, o.pin) for o in open_pins}
    for part in parts:
        for pin in part.pins:
            if (part.name, pin) in ends and (part.name, pin) in left_open:
                raise PopdiceError(f"{parts_source}: {part.name} pin {pin} is both wired and open")
            if (part.name, pin) not in ends | left_open:
                raise PopdiceError(
                    f"{parts_source}: {part.name} pin {pin} goes nowhere (wire it, or list it "
                    "in open with why)"
                )


def _wire(row: Any, parts: dict[str, Part], source: str) -> Wire:
    if not isinstance(row, tuple) or len(row) != 4:
        raise PopdiceError(f"{source}: a wire is (Pico pin, part, part's pin, carries): {row!r}")
    pin, part, part_pin, carries = row
    if part != ON_THE_PICO:
        _pin_of(part, part_pin, parts, source, "a wire")
    if isinstance(pin, int):
        if not 0 <= pin < pico.GPIO_COUNT:
            raise PopdiceError(f"{source}: GP{pin} is not a GPIO of the RP2040")
        header = pico.pin_of_gpio(pin)
        if header is None and pin not in pico.ON_BOARD:
            raise PopdiceError(f"{source}: GP{pin} is not on the Pico's header")
        return Wire(pin, f"GP{pin}", header, part, part_pin, carries)
    if pin == "GND":
        return Wire(None, pin, None, part, part_pin, carries)  # which GND: see _grounded
    if pin not in pico.POWER:
        known = ", ".join([*pico.POWER, "GND"])
        raise PopdiceError(f"{source}: {pin!r} is not a Pico pin (a GPIO number, or {known})")
    return Wire(None, pico.name(pico.POWER[pin]), pico.POWER[pin], part, part_pin, carries)


def _grounded(wires: tuple[Wire, ...]) -> tuple[Wire, ...]:
    """Each part's ground wire goes to the GND pin nearest its first wire to a GPIO."""
    first: dict[str, int] = {}
    for wire in wires:
        if wire.gpio is not None and wire.header is not None:
            first.setdefault(wire.part, wire.header)
    return tuple(
        replace(w, header=pico.nearest_ground(first.get(w.part, 1))) if w.pico_pin == "GND" else w
        for w in wires
    )


def table(board: Board) -> list[tuple[str, str, str, str, str]]:
    """The wiring as rows of text: Pico pin, its name, part, the part's pin, what it carries."""
    return [
        (
            "-" if wire.header is None else str(wire.header),
            wire.pico_pin,
            "on the Pico" if wire.on_board else wire.part,
            wire.part_pin if wire.on_board else board.part(wire.part).pin_label(wire.part_pin),
            wire.carries,
        )
        for wire in board.wires
    ]


def links_table(board: Board) -> list[tuple[str, str, str, str, str]]:
    """The wires between parts, and the pins left open, as rows of text: part, its pin, the
    part at the other end and its pin (``-`` for none), what it carries or why open."""
    rows = [
        (
            link.part,
            board.part(link.part).pin_label(link.pin),
            link.to_part,
            board.part(link.to_part).pin_label(link.to_pin),
            link.carries,
        )
        for link in board.links
    ]
    rows += [
        (o.part, board.part(o.part).pin_label(o.pin), "-", "-", o.why) for o in board.open_pins
    ]
    return rows
