"""What the table needs of the popper and the handheld, as Protocols: the real clients and
test doubles fit them."""

from __future__ import annotations

from typing import Protocol

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
