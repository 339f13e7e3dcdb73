"""A stand-in popper for the table tests (the simulated popper's firmware is being finished).

It has the methods of popdice.popper.Popper the table uses; its dice come from a script, and
like the firmware it numbers its rolls and reports each pop both as the reply and as an event.
"""

from __future__ import annotations

import queue
from collections.abc import Iterable
from typing import Any

from popdice.link import DeviceInfo, Event, Notice
from popdice.popper import Pop

POPALOTSY_COLOURS = ("red", "orange", "yellow", "green", "blue")


class FakePopper:
    def __init__(self, numbers: Iterable[int] = (), session: str = "0000abcd") -> None:
        self._info = DeviceInfo("fake", "popper", "e660c0ffee", "test", 1, session)
        self.numbers = list(numbers)
        self.mode_now = "popalotsy"
        self.roll_id = 0
        self.result: list[dict[str, Any]] = []
        self.events: queue.Queue[Notice] = queue.Queue()
        self.rerolls: list[int] = []
        self.closed = False

    @property
    def info(self) -> DeviceInfo:
        return self._info

    def set_mode(self, mode: str) -> str:
        self.mode_now = mode
        return mode

    def _number(self) -> int:
        return self.numbers.pop(0) if self.numbers else 3

    def _roll_die(self, die: int) -> dict[str, Any]:
        if self.mode_now == "popalotsy":
            return {"color": POPALOTSY_COLOURS[die], "number": self._number()}
        return {"number": self._number()}

    def _announce(self, source: str, reroll: int | None) -> Pop:
        self.roll_id += 1
        data: dict[str, Any] = {
            "roll": self.roll_id,
            "mode": self.mode_now,
            "dice": [dict(die) for die in self.result],
            "source": source,
        }
        if reroll is not None:
            data["reroll"] = reroll
        self.events.put(Event("pop", data, self.roll_id, self._info.session))
        return Pop.from_data(data)

    def pop(self, source: str = "host") -> Pop:
        count = 5 if self.mode_now == "popalotsy" else 1
        self.result = [self._roll_die(die) for die in range(count)]
        return self._announce(source, None)

    def press(self) -> None:
        """The dome pressed by a player: only the event tells the host."""
        self.pop("press")

    def reroll(self, die: int) -> Pop:
        self.rerolls.append(die)
        self.result[die] = self._roll_die(die)
        return self._announce("host", die)

    def next_event(self, timeout: float | None = None) -> Notice | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True
