"""Stand-in devices for the table tests: a popper and a handheld with scripted dice.

``FakePopper`` has the methods of popdice.devices.popper.Popper the table uses; its dice come from a
script, and like the firmware it numbers its rolls and reports each pop both as the reply
and as an event. In ``lowdown`` mode it pops four dice as the firmware does (modes.py):
dice 0-1 number dice, 2-3 colour dice (die 4 stays dark and is not reported).

``FakeHandheld`` has the methods of popdice.devices.handheld.Handheld the table uses. Its secret
rolls come from a script and carry real commitments (popdice_fw.commit); like the firmware
it says which unrevealed roll a new one ``replaces``, refuses to reveal a roll that is not
its current one, and sends each reveal once as an event. ``lie`` makes its next reveal show
other dice than it committed to (what a tampered handheld would do).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from popdice.devices.handheld import (
    OtherLink,
    Reveal,
    RevealEvent,
    SecretRoll,
    SecretRollEvent,
    StaleRoll,
)
from popdice.devices.link import DeviceInfo, Event, Notice
from popdice.devices.popper import Pop
from popdice.errors import DeviceDisconnected
from popdice_fw.commit import commitment

if TYPE_CHECKING:
    import pytest

    from popdice.table.app import TableApp

POPALOTSY_COLOURS = ("red", "orange", "yellow", "green", "blue")
LOWDOWN_DICE = ("number", "number", "color", "color")


class FakePopper:
    def __init__(
        self,
        numbers: Iterable[int] = (),
        session: str = "0000abcd",
        colours: Iterable[str] = (),
    ) -> None:
        self._info = DeviceInfo("fake", "popper", "e660c0ffee", "test", 1, session)
        self.numbers = list(numbers)
        self.colours = list(colours)
        self.mode_now = "popalotsy"
        self.roll_id = 0
        self.result: list[dict[str, Any]] = []
        self.events: queue.Queue[Notice] = queue.Queue()
        self.rerolls: list[int] = []
        self.voided: list[int] = []
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
        if self.mode_now == "lowdown" and LOWDOWN_DICE[die] == "color":
            return {"color": self.colours.pop(0) if self.colours else "red"}
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
        count = {"popalotsy": 5, "lowdown": len(LOWDOWN_DICE)}.get(self.mode_now, 1)
        self.result = [self._roll_die(die) for die in range(count)]
        return self._announce(source, None)

    def press(self) -> None:
        """The dome pressed by a player: only the event tells the host."""
        self.pop("press")

    def reroll(self, die: int) -> Pop:
        self.rerolls.append(die)
        self.result[die] = self._roll_die(die)
        return self._announce("host", die)

    def void(self, roll: int) -> bool:
        if roll != self.roll_id:
            return False
        self.voided.append(roll)
        return True

    def next_event(self, timeout: float | None = None) -> Notice | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True


class FakeHandheld:
    def __init__(self, dice: Iterable[tuple[str, int]] = (), session: str = "0000d1ce") -> None:
        self._info = DeviceInfo("fake", "handheld", "4a4d0001", "test", 1, session)
        self.dice = list(dice)
        self.count = 0
        self.current: Reveal | None = None
        self.revealed = False
        self.lie: tuple[str, int] | None = None
        self.other_link = False  # the reveal command refused: another link session's roll
        self.events: queue.Queue[Notice] = queue.Queue()
        self.event_seq = 0
        self.unplugged = False
        self.closed = False

    @property
    def info(self) -> DeviceInfo:
        return self._info

    def _emit(self, kind: str, data: dict[str, Any]) -> Event:
        self.event_seq += 1
        return Event(kind, data, self.event_seq, self._info.session)

    def roll(self) -> SecretRoll:
        """ROLL: a new secret roll, of which only the commitment leaves the device."""
        self._check_plugged()
        replaces = None if self.current is None or self.revealed else self.current.roll_id
        self.count += 1
        roll_id = f"{self._info.session}-{self.count}"
        colour, number = self.dice.pop(0) if self.dice else ("red", 3)
        nonce = f"{self.count:032x}"
        self.current = Reveal(roll_id, nonce, colour, number)
        self.revealed = False
        digest = commitment(self._info.device_id, roll_id, nonce, colour, number)
        roll = SecretRoll(roll_id, digest, replaces)
        fields = self._emit("secret_roll", {"roll_id": roll_id, "commitment": digest})
        self.events.put(SecretRollEvent(*_fields(fields), roll=roll))
        return roll

    def press_roll(self) -> None:
        """The holder presses ROLL: only the event tells the host."""
        self.roll()

    def reveal(self, roll_id: str | None = None, by: str = "host") -> Reveal:
        self._check_plugged()
        current = self.current
        if current is None:
            raise StaleRoll("no_roll", "no secret roll to reveal: ROLL first")
        if roll_id is not None and roll_id != current.roll_id:
            raise StaleRoll("stale_roll", f"roll {roll_id} is not the current roll")
        if by == "host" and self.other_link:
            raise OtherLink(
                "other_link", f"roll {current.roll_id} was made in another link session"
            )
        shown = Reveal(current.roll_id, current.nonce, current.colour, current.number, by)
        if self.lie is not None:
            shown = Reveal(current.roll_id, current.nonce, *self.lie, by=by)
            self.lie = None
        if not self.revealed:
            self.revealed = True
            event = self._emit("reveal", {"roll_id": shown.roll_id})
            self.events.put(RevealEvent(*_fields(event), reveal=shown))
        return shown

    def _check_plugged(self) -> None:
        if self.unplugged:
            raise DeviceDisconnected("the handheld was unplugged")

    def press_reveal(self) -> None:
        """The holder holds REVEAL: only the event tells the host."""
        self.reveal(by="button")

    def next_event(self, timeout: float | None = None) -> Notice | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True


def _fields(event: Event) -> tuple[str, dict[str, Any], int, str, float]:
    return (event.kind, event.data, event.seq, event.session, event.received)


def play_then_die(script: str, data_dir: Path) -> None:
    """Runs ``script`` (with ``{tests}`` for this folder) in a new Python that journals into
    ``data_dir`` and ends itself with SIGKILL mid-game, as a crash would."""
    code = script.format(tests=str(Path(__file__).parent))
    env = {**os.environ, "POPDICE_DATA_DIR": str(data_dir)}
    died = subprocess.run([sys.executable, "-c", code], env=env, timeout=60, check=False)
    assert died.returncode == -9, f"the game did not die by SIGKILL: {died.returncode}"


def quiet_table(monkeypatch: pytest.MonkeyPatch) -> list[TableApp]:
    """``popdice table`` without a screen or devices: as if in a terminal, the devices it opens
    are stand-ins, and its app is kept (returned list) instead of run."""
    from popdice.cli import table as table_command
    from popdice.table import cli
    from popdice.table.app import TableApp

    opened: list[TableApp] = []
    stand_ins = {"popper": FakePopper, "handheld": FakeHandheld}
    monkeypatch.setattr(cli, "has_terminal", lambda: True)
    monkeypatch.setattr(
        table_command, "open_board", lambda _stack, board, *_: (stand_ins[board](), None)
    )
    monkeypatch.setattr(TableApp, "run", lambda app: opened.append(app))
    return opened
