"""What the table needs of the popper and the handheld, as Protocols: the real clients and
test doubles fit them; and of the hands that act on a simulated device, and of whatever
opens the devices (``popdice.cli.table`` gives the command's: USB, or simulated boards)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any, Protocol

from ..devices.handheld import Reveal, SecretRoll
from ..devices.link import DeviceInfo, Notice
from ..devices.popper import Pop


class PopperLike(Protocol):
    """The popper's commands and events the table uses (popdice.devices.popper.Popper has them)."""

    @property
    def info(self) -> DeviceInfo: ...

    def set_mode(self, mode: str) -> str: ...

    def pop(self) -> Pop: ...

    def reroll(self, die: int) -> Pop: ...

    def void(self, roll: int) -> bool: ...

    def next_event(self, timeout: float | None = None) -> Notice | None: ...

    def close(self) -> None: ...


class HandheldLike(Protocol):
    """The handheld's commands and events the table uses (popdice.devices.handheld.Handheld has
    them): ``roll`` gives only a commitment, ``reveal`` the dice checked against it."""

    @property
    def info(self) -> DeviceInfo: ...

    def roll(self) -> SecretRoll: ...

    def reveal(self, roll_id: str | None = None) -> Reveal: ...

    def next_event(self, timeout: float | None = None) -> Notice | None: ...

    def close(self) -> None: ...


class Hands(Protocol):
    """A player's hands on a simulated device: what the table's keys do in place of a real
    player (popdice.sim.hands.SimulatedHands has them)."""

    def press_dome(self) -> None: ...

    def knock_table(self) -> None: ...

    def click(self, button: str, long: bool = False) -> None: ...


OpenDevice = Callable[[ExitStack, str, bool], tuple[Any, Hands | None]]
"""Opens a board for the table: ``(stack, board, simulated)`` -> its client, entered into
``stack``, and the hands on it if it is a simulated one (``None`` for a real board).
``simulated`` asks for a simulated board even when a real one is plugged in."""
