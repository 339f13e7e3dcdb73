"""A board module (``boards/<kind>/board.py``) read on the laptop: its parts and its wires, each
wire's end on the Pico's header resolved, and any other setting it holds.

A board module is MicroPython, but it imports ``machine`` only inside its functions, so it
loads here as it is: the pin numbers stay in that one file. A table that does not hold
together (a wire to a part it does not list, a GPIO the Pico lacks) is a ``PopdiceError``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, replace
from functools import cache
from types import ModuleType
from typing import Any

from ..deploy.files import BOARDS_DIR, KINDS
from ..errors import PopdiceError
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
class Board:
    kind: str
    source: str
    parts: tuple[tuple[str, str], ...]
    wires: tuple[Wire, ...]
    module: ModuleType

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
    parts = _parts(module, source)
    names = {part for part, _ in parts}
    rows: Any = getattr(module, "WIRES", ())
    wires = tuple(_wire(row, names, source) for row in rows)
    unwired = names - {wire.part for wire in wires}
    if unwired:
        raise PopdiceError(f"{source}: no wire to {', '.join(sorted(unwired))}")
    return Board(kind, source, parts, _grounded(wires), module)


def _parts(module: ModuleType, source: str) -> tuple[tuple[str, str], ...]:
    rows: Any = getattr(module, "PARTS", ())
    for row in rows:
        if not (isinstance(row, tuple) and len(row) == 2 and all(isinstance(x, str) for x in row)):
            raise PopdiceError(f"{source}: a part is (name, what it is): {row!r}")
    return tuple(rows)


def _wire(row: Any, parts: set[str], source: str) -> Wire:
    if not isinstance(row, tuple) or len(row) != 4:
        raise PopdiceError(f"{source}: a wire is (Pico pin, part, part's pin, carries): {row!r}")
    pin, part, part_pin, carries = row
    if part not in parts and part != ON_THE_PICO:
        raise PopdiceError(f"{source}: a wire to {part!r}, which is not in PARTS")
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
            wire.part_pin,
            wire.carries,
        )
        for wire in board.wires
    ]
