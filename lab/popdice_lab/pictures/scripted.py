"""A popper and a handheld whose dice are written down beforehand: the table picture plays a
game on them, so its screen is the same every time.

They answer the table's commands as the devices do (``table/devices.py``): the popper
numbers its pops and reports each in its reply; the handheld's rolls carry real SHA-256
commitments (``popdice_fw.commit``), with roll ids and nonces of the firmware's form, and a
reveal shows the dice committed to. Neither sends events: the table takes every roll from
the replies.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from popdice.devices.handheld import Reveal, SecretRoll
from popdice.devices.link import DeviceInfo, Notice
from popdice.devices.popper import Pop
from popdice.errors import DeviceError
from popdice_fw.commit import NONCE_BYTES, commitment

PICTURE_PORT = "(scripted)"


class ScriptedPopper:
    def __init__(self, pops: Iterable[list[dict[str, Any]]], session: str = "5ce1e001") -> None:
        self._info = DeviceInfo(PICTURE_PORT, "popper", "00000000000000a1", "scripted", 1, session)
        self._pops = list(pops)
        self._mode = "popalotsy"
        self._rolled = 0
        self._closed = threading.Event()

    @property
    def info(self) -> DeviceInfo:
        return self._info

    def set_mode(self, mode: str) -> str:
        self._mode = mode
        return mode

    def pop(self) -> Pop:
        if not self._pops:
            raise DeviceError("no_roll", "the script has no more pops")
        self._rolled += 1
        dice = self._pops.pop(0)
        return Pop.from_data({"roll": self._rolled, "mode": self._mode, "dice": dice})

    def reroll(self, die: int) -> Pop:
        raise DeviceError("no_roll", "the script has no rerolls")

    def void(self, roll: int) -> bool:
        return roll == self._rolled

    def next_event(self, timeout: float | None = None) -> Notice | None:
        self._closed.wait(timeout)
        return None

    def close(self) -> None:
        self._closed.set()


class ScriptedHandheld:
    def __init__(self, rolls: Iterable[tuple[str, int]], session: str = "5ce1e002") -> None:
        self._info = DeviceInfo(
            PICTURE_PORT, "handheld", "00000000000000b2", "scripted", 1, session
        )
        self._rolls = list(rolls)
        self._count = 0
        self._current: Reveal | None = None
        self._revealed = False
        self._closed = threading.Event()

    @property
    def info(self) -> DeviceInfo:
        return self._info

    def roll(self) -> SecretRoll:
        if not self._rolls:
            raise DeviceError("no_roll", "the script has no more secret rolls")
        replaces = None
        if self._current is not None and not self._revealed:
            replaces = self._current.roll_id
        self._count += 1
        roll_id = f"{self._info.session}-{self._count}"
        nonce = f"{self._count:0{2 * NONCE_BYTES}x}"
        colour, number = self._rolls.pop(0)
        self._current = Reveal(roll_id, nonce, colour, number)
        self._revealed = False
        digest = commitment(self._info.device_id, roll_id, nonce, colour, number)
        return SecretRoll(roll_id, digest, replaces)

    def reveal(self, roll_id: str | None = None) -> Reveal:
        current = self._current
        if current is None or (roll_id is not None and roll_id != current.roll_id):
            raise DeviceError("stale_roll", f"roll {roll_id} is not the current roll")
        self._revealed = True
        return current

    def next_event(self, timeout: float | None = None) -> Notice | None:
        self._closed.wait(timeout)
        return None

    def close(self) -> None:
        self._closed.set()
