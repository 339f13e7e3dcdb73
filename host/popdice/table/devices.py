"""What the table needs of the popper, as a Protocol: the real client and test doubles fit it."""

from __future__ import annotations

from typing import Protocol

from ..link import DeviceInfo, Notice
from ..popper import Pop


class PopperLike(Protocol):
    """The popper's commands and events the table uses (popdice.popper.Popper has them)."""

    @property
    def info(self) -> DeviceInfo: ...

    def set_mode(self, mode: str) -> str: ...

    def pop(self) -> Pop: ...

    def reroll(self, die: int) -> Pop: ...

    def next_event(self, timeout: float | None = None) -> Notice | None: ...

    def close(self) -> None: ...
