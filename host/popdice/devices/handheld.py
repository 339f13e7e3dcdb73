"""The handheld's client: Lowdown's secret dice with commit-reveal (docs/handheld.md).

The handheld sends only a commitment when it rolls (event ``secret_roll``) and the nonce and
values when it reveals (event ``reveal``, or the ``reveal`` command's reply). ``Handheld``
keeps every commitment it has seen and checks every reveal against the one it saw first:
a reveal that does not match raises ``CommitmentMismatch``; one of a roll whose commitment
never arrived raises ``UnknownRoll``. ``next_event`` turns the handheld's events into
``SecretRollEvent``, ``RevealEvent`` and ``BatteryEvent``.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from popdice_fw.commit import COLOURS, NONCE_BYTES, NUMBERS, commitment

from ..errors import DeviceError, PopdiceError
from .client import DeviceClient, Status
from .link import Event, Notice

_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_HEX_NONCE = re.compile(rf"[0-9a-f]{{{2 * NONCE_BYTES}}}")


class HandheldError(PopdiceError):
    """A secret roll or its reveal is not what the handheld committed to, or not well formed."""


class CommitmentMismatch(HandheldError):
    """A reveal does not hash to the commitment sent with the roll: the dice changed."""


class UnknownRoll(HandheldError):
    """A reveal of a roll whose commitment this client never received: it cannot be checked."""


class MalformedRoll(HandheldError):
    """A roll or reveal message lacks a field or has one out of range."""


class NoSecretRoll(DeviceError):
    """The handheld holds no secret roll to reveal."""


class StaleRoll(DeviceError):
    """The roll named is not the handheld's current one (it was rolled again)."""


class OtherLink(DeviceError):
    """The roll was made in another link session (before this host's hello, or for another
    host): the handheld reveals it by command to that session only; REVEAL still shows it."""


_DEVICE_ERRORS: dict[str, type[DeviceError]] = {
    "no_roll": NoSecretRoll,
    "stale_roll": StaleRoll,
    "other_link": OtherLink,
}


@dataclass(frozen=True)
class SecretRoll:
    """A roll as the host sees it before the reveal: its id and commitment only.
    ``replaces`` names the unrevealed roll it replaced: the holder rolled again."""

    roll_id: str
    commitment: str
    replaces: str | None = None

    @property
    def rerolled(self) -> bool:
        return self.replaces is not None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SecretRoll:
        roll_id = data.get("roll_id")
        digest = data.get("commitment")
        replaces = data.get("replaces")
        if not isinstance(roll_id, str) or not roll_id:
            raise MalformedRoll(f"a secret roll without a roll id: {data!r}")
        if not isinstance(digest, str) or not _HEX_DIGEST.fullmatch(digest):
            raise MalformedRoll(f"roll {roll_id}: the commitment is not a SHA-256 hex digest")
        if replaces is not None and not isinstance(replaces, str):
            raise MalformedRoll(f"roll {roll_id}: replaces must be a roll id or null")
        return cls(roll_id, digest, replaces)


@dataclass(frozen=True)
class Reveal:
    """The secret dice, shown: checked against their commitment before anyone sees them.
    ``by`` is "button" (the holder's REVEAL) or "host" (the ``reveal`` command)."""

    roll_id: str
    nonce: str
    colour: str
    number: int
    by: str = "host"

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Reveal:
        roll_id = data.get("roll_id")
        nonce = data.get("nonce")
        colour = data.get("colour")
        number = data.get("number")
        if not isinstance(roll_id, str) or not roll_id:
            raise MalformedRoll(f"a reveal without a roll id: {data!r}")
        if not isinstance(nonce, str) or not _HEX_NONCE.fullmatch(nonce):
            raise MalformedRoll(
                f"reveal of roll {roll_id}: the nonce is not {NONCE_BYTES} hex bytes"
            )
        if colour not in COLOURS:
            raise MalformedRoll(f"reveal of roll {roll_id}: {colour!r} is not a die colour")
        if not isinstance(number, int) or isinstance(number, bool) or number not in NUMBERS:
            raise MalformedRoll(f"reveal of roll {roll_id}: {number!r} is not a number die face")
        return cls(roll_id, nonce, str(colour), int(number), str(data.get("by", "host")))


@dataclass(frozen=True, kw_only=True)
class SecretRollEvent(Event):
    """The handheld rolled (its ROLL button or the ``roll`` command)."""

    roll: SecretRoll


@dataclass(frozen=True, kw_only=True)
class RevealEvent(Event):
    """The handheld revealed its dice, and they match their commitment."""

    reveal: Reveal


@dataclass(frozen=True, kw_only=True)
class BatteryEvent(Event):
    """The battery crossed the low threshold, one way or the other."""

    vsys: float
    low: bool


@dataclass(frozen=True, kw_only=True)
class HandheldStatus(Status):
    """``Status`` with the handheld's own fields: VSYS (volts), the low-battery flag, the
    display, and the current roll (commitment only) and whether it has been revealed."""

    vsys: float
    battery_low: bool
    display_present: bool
    display_on: bool
    roll: SecretRoll | None
    revealed: bool

    @classmethod
    def from_reply(cls, reply: dict[str, Any]) -> HandheldStatus:
        base = Status.from_reply(reply)
        display = reply.get("display") or {}
        current = reply.get("roll")
        roll = SecretRoll.from_data(current) if isinstance(current, dict) else None
        return cls(
            board=base.board,
            firmware=base.firmware,
            protocol=base.protocol,
            uptime_ms=base.uptime_ms,
            heap_free=base.heap_free,
            heap_used=base.heap_used,
            unacked_events=base.unacked_events,
            link=base.link,
            extra=base.extra,
            vsys=int(reply.get("vsys_mv", 0)) / 1000,
            battery_low=bool(reply.get("battery_low")),
            display_present=bool(display.get("present")),
            display_on=bool(display.get("on")),
            roll=roll,
            revealed=bool(isinstance(current, dict) and current.get("revealed")),
        )


class Commitments:
    """Every commitment a handheld has made, and the check of its reveals against them."""

    def __init__(self, device_id: str) -> None:
        self.device_id = device_id
        self._made: dict[str, str] = {}
        self.verified: dict[str, Reveal] = {}

    def __contains__(self, roll_id: str) -> bool:
        return roll_id in self._made

    def record(self, roll: SecretRoll) -> None:
        """Keeps the commitment of a roll; a roll id seen before must keep its commitment."""
        known = self._made.setdefault(roll.roll_id, roll.commitment)
        if known != roll.commitment:
            raise CommitmentMismatch(
                f"roll {roll.roll_id}: the handheld sent two different commitments for it"
            )

    def verify(self, reveal: Reveal) -> Reveal:
        """The reveal, if it matches the roll's commitment; otherwise a ``HandheldError``."""
        promised = self._made.get(reveal.roll_id)
        if promised is None:
            raise UnknownRoll(
                f"reveal of roll {reveal.roll_id}: its commitment never reached this host, "
                "so the dice cannot be checked"
            )
        actual = commitment(
            self.device_id, reveal.roll_id, reveal.nonce, reveal.colour, reveal.number
        )
        if not hmac.compare_digest(actual, promised):
            raise CommitmentMismatch(
                f"reveal of roll {reveal.roll_id} ({reveal.colour} {reveal.number}) does not "
                f"match its commitment {promised[:16]}...: the dice are not the ones rolled"
            )
        self.verified[reveal.roll_id] = reveal
        return reveal


class Handheld(DeviceClient):
    """The handheld: Lowdown's secret dice."""

    board = "handheld"
    _commitments: Commitments | None = None

    @property
    def commitments(self) -> Commitments:
        if self._commitments is None:
            self._commitments = Commitments(self.info.device_id)
        return self._commitments

    def status(self) -> HandheldStatus:
        """Health, battery, display and the current roll; an unrevealed roll's commitment
        is recorded, so a client that connected after the roll can still check its reveal."""
        status = HandheldStatus.from_reply(self.status_reply())
        if status.roll is not None and not status.revealed:
            self.commitments.record(status.roll)
        return status

    def roll(self) -> SecretRoll:
        """Rolls new secret dice (as ROLL does) and returns the commitment."""
        roll = SecretRoll.from_data(self._call("roll"))
        self.commitments.record(roll)
        return roll

    def reveal(self, roll_id: str | None = None) -> Reveal:
        """Asks the handheld to show its dice to the table, and checks them. The command
        names the roll: ``roll_id``, or (None) the current one, read from ``status``. The
        handheld refuses a roll that is no longer its current one (``StaleRoll``) and one
        made in another link session (``OtherLink``: before this client's hello)."""
        if roll_id is None or roll_id not in self.commitments:
            current = self.status().roll
            if current is None:
                raise NoSecretRoll("no_roll", "no secret roll to reveal: ROLL first")
            roll_id = roll_id or current.roll_id
        asked = {"roll_id": roll_id, "key": self.link.session_key}
        reveal = Reveal.from_data({**self._call("reveal", asked), "by": "host"})
        return self.commitments.verify(reveal)

    def settings(
        self, *, peek_ms: int | None = None, idle_ms: int | None = None, low_mv: int | None = None
    ) -> dict[str, int]:
        """Sets the PEEK timeout, the idle time before the display goes off and the
        low-battery threshold (until the handheld reboots); returns all three."""
        wanted = {"peek_ms": peek_ms, "idle_ms": idle_ms, "low_mv": low_mv}
        reply = self._call("settings", {k: v for k, v in wanted.items() if v is not None})
        return {k: int(v) for k, v in reply.items()}

    def next_event(self, timeout: float | None = None) -> Notice | None:
        """``DeviceClient.next_event``, typed: ``SecretRollEvent``, ``RevealEvent`` (checked
        first: ``CommitmentMismatch``, ``UnknownRoll``) or ``BatteryEvent``; ``None`` when
        ``timeout`` seconds pass and nothing came (call again to go on waiting)."""
        item = super().next_event(timeout)
        if not isinstance(item, Event):
            return item
        fields = (item.kind, item.data, item.seq, item.session, item.received)
        if item.kind == "secret_roll":
            roll = SecretRoll.from_data(item.data)
            self.commitments.record(roll)
            return SecretRollEvent(*fields, roll=roll)
        if item.kind == "reveal":
            return RevealEvent(*fields, reveal=self.commitments.verify(Reveal.from_data(item.data)))
        if item.kind == "battery":
            vsys = int(item.data.get("vsys_mv", 0)) / 1000
            return BatteryEvent(*fields, vsys=vsys, low=bool(item.data.get("low")))
        return item

    def events(self, timeout: float | None = None) -> Iterator[Notice]:
        """Typed and checked events as they come, until ``timeout`` seconds pass without one."""
        while (item := self.next_event(timeout)) is not None:
            yield item

    def _call(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            return self.link.call(command, args)
        except DeviceError as error:
            typed = _DEVICE_ERRORS.get(error.code)
            if typed is None or isinstance(error, typed):
                raise
            raise typed(error.code, error.device_message) from None
