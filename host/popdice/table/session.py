"""A game at the table, apart from any UI: the referee, the devices and the journal together.

Journal first, then apply: a move, roll, secret roll or reveal is tried on a copy of the
referee, journaled (and committed) if the copy takes it, and only then applied to the game
and reported. One the journal cannot keep (a full disk) is refused (``journal_failed``, with
the journal's reason) and changes nothing; the same move, or a secret roll's repeat, is
taken once the journal can keep it. A pop the game did not count (refused, or not kept) is
never counted later: the popper shows a bar on each die in its place (``void``), and the
dome is pressed again. The referees change nothing when they refuse,
and a refused one is journaled as ``refused`` with its reason (or only shown, with the
journal's reason, if the journal cannot keep that either); a move ``move`` is told not to
journal (a phone's, sent as often as its page's limit allows) is only answered when refused.

Pops come from the popper's events or from its command replies (both carry the device's roll
number, so a pop is taken once); the handheld's secret rolls and reveals likewise (by device
session and roll id). When the referee needs a secret roll revealed (Lowdown, once the
active player has chosen), the session asks the handheld for it at once; a reveal it did
not ask for (the holder's REVEAL before the choice) is journaled with ``asked: false``, and
the referee voids that pair. ``resume``
rebuilds a game from its journal (and records the end of a game over whose end the journal
could not keep).

A device that goes away (unplugged, crashed) is ``missing`` until ``device_back`` hands in
its new client: meanwhile what needs it is refused with ``device_missing``, and the game
goes on with typed moves. A popper that comes back is put in the game's mode again.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..devices.handheld import (
    BatteryEvent,
    CommitmentMismatch,
    Commitments,
    MalformedRoll,
    Reveal,
    RevealEvent,
    SecretRoll,
    SecretRollEvent,
    UnknownRoll,
)
from ..devices.link import DeviceReboot, Event, EventGap, Notice
from ..devices.popper import Pop
from ..errors import DeviceDisconnected, DeviceError, PopdiceError
from .devices import HandheldLike, PopperLike
from .journal import GameRecord, Journal, JournalError
from .referee import Move, Referee, Refused, Settings
from .replay import Replayed, new_referee, rebuild

RINGER_DIE = 0
HANDHELD_CODES: dict[type[PopdiceError], str] = {
    CommitmentMismatch: "commitment_mismatch",
    UnknownRoll: "unknown_roll",
    MalformedRoll: "malformed_roll",
}


@dataclass(frozen=True)
class Outcome:
    """What became of a move, a pop or a device notice: accepted or not, and one line why."""

    accepted: bool
    text: str
    code: str = ""


class TableSession:
    """One game being played: call ``move``, ``take_pop``, ``take_notice``, ``press_dome``,
    and for the handheld ``roll_hidden``, ``take_handheld_notice``, ``ask_reveal``."""

    def __init__(
        self,
        journal: Journal,
        record: GameRecord,
        referee: Referee,
        popper: PopperLike | None,
        seen_rolls: set[str] | None = None,
        log: list[str] | None = None,
        *,
        handheld: HandheldLike | None = None,
    ) -> None:
        self.journal = journal
        self.record = record
        self.referee = referee
        self.popper = popper
        self.handheld = handheld
        self.seen_rolls = seen_rolls or set()
        self.log = log or []
        self.pressed = False  # the popper cued a press and waits for its release
        self.missing: set[str] = set()
        """The boards whose link went and that have not come back yet."""
        self.finished = record.finished is not None
        """Whether the journal has the game's end."""

    @classmethod
    def start(
        cls,
        journal: Journal,
        game: str,
        players: list[str],
        popper: PopperLike | None,
        handheld: HandheldLike | None = None,
        settings: Settings | None = None,
    ) -> TableSession:
        referee = new_referee(game, players, settings)
        game_id = journal.new_game(game, players, referee.settings)
        session = cls(journal, journal.game(game_id), referee, popper, handheld=handheld)
        session.note("game started: " + ", ".join(players))
        session.prepare_popper()
        return session

    @classmethod
    def resume(
        cls,
        journal: Journal,
        popper: PopperLike | None,
        game_id: int | None = None,
        handheld: HandheldLike | None = None,
    ) -> TableSession:
        """The game ``game_id`` (by default the last unfinished one) as its journal left it."""
        return cls.resumed(journal, *rebuild(journal, game_id), popper, handheld)

    @classmethod
    def resumed(
        cls,
        journal: Journal,
        record: GameRecord,
        rebuilt: Replayed,
        popper: PopperLike | None,
        handheld: HandheldLike | None = None,
    ) -> TableSession:
        """The game of ``record`` as ``rebuild`` replayed it, played on with these devices."""
        session = cls(
            journal,
            record,
            rebuilt.referee,
            popper,
            rebuilt.seen_rolls,
            rebuilt.log,
            handheld=handheld,
        )
        session.note("game resumed")
        session.prepare_popper()
        session.share_commitment()
        session.ask_reveal()
        return session

    @property
    def game_id(self) -> int:
        return self.record.id

    def share_commitment(self) -> None:
        """Tell a fresh handheld client the journaled commitment of the roll still hidden, so
        that it can check the holder's REVEAL of a roll made before it connected."""
        promised: dict[str, str] | None = getattr(self.referee, "commitment", None)
        book = getattr(self.handheld, "commitments", None)
        if promised is None or not isinstance(book, Commitments):
            return
        if promised["device_id"] == book.device_id and promised["roll_id"] not in book:
            book.record(SecretRoll(promised["roll_id"], promised["commitment"]))

    def prepare_popper(self) -> None:
        if self.popper is not None:
            self.popper.set_mode(self.referee.game)

    def _unusable(self, board: str) -> Refused | None:
        """Why ``board`` cannot be used now (none at this table, or unplugged), if it cannot."""
        if board in self.missing:
            return Refused("device_missing", f"the {board} is unplugged: plug it back in")
        if (self.popper if board == "popper" else self.handheld) is None:
            return Refused(f"no_{board}", f"no {board} at this table")
        return None

    def device_lost(self, board: str, reason: str) -> Outcome:
        """``board``'s link went: the table waits for it (``device_back``)."""
        self.missing.add(board)
        return self.note(f"the {board} is gone ({reason}): waiting for it to return")

    def device_back(self, board: str, client: Any) -> Outcome:
        """``board`` answered again, found by its id: use ``client`` from now on."""
        self.missing.discard(board)
        outcome = self.note(
            f"the {board} is back (device {client.info.device_id}, session {client.info.session})"
        )
        if board == "popper":
            self.popper = client
            try:
                self.prepare_popper()
            except PopdiceError as error:
                return self.popper_failed(error)
        else:
            self.handheld = client
            self.share_commitment()
            self.ask_reveal()
        return outcome

    def popper_failed(self, error: PopdiceError) -> Outcome:
        """A popper command failed: gone (unplugged), or refused, journaled as refused."""
        if isinstance(error, DeviceDisconnected):
            return self.device_lost("popper", str(error))
        code = error.code if isinstance(error, DeviceError) else "popper_error"
        return self._refuse({"source": "popper"}, Refused(code, f"popper: {error}"))

    # --- moves --------------------------------------------------------------------------

    def move(self, move: Move, *, keep_refusal: bool = True) -> Outcome:
        """Play ``move`` (journaled first), or report and journal why it is refused; without
        ``keep_refusal``, a move the referee refuses is only answered (neither journaled nor
        logged). A ``reveal`` while the game waits for one asks the handheld again."""
        if move.get("type") == "reveal" and self.referee.wants_reveal() is not None:
            asked = self.ask_reveal()
            if asked is not None:
                return asked
        outcome = self._journal_then_apply(
            "move",
            lambda referee: referee.apply(move),
            {"move": move},
            keep_refusal=keep_refusal,
        )
        if outcome.accepted:
            self.ask_reveal()
        return outcome

    def refuse_command(self, command: str, refusal: Refused) -> Outcome:
        """A typed command that is not a move at all: journaled and reported like a refusal."""
        return self._refuse({"command": command}, refusal)

    def reroll(self, seat: int) -> Outcome:
        """Ringer's Reroll power: the move, then the popper re-rolls its die."""
        unusable = self._unusable("popper")
        if unusable is not None and unusable.code == "device_missing":
            return self._refuse({"move": {"type": "reroll", "seat": seat}}, unusable)
        outcome = self.move({"type": "reroll", "seat": seat})
        if outcome.accepted and self.popper is not None:
            try:
                pop = self.popper.reroll(RINGER_DIE)
            except PopdiceError as error:
                return self.popper_failed(error)
            rolled = self.take_pop(pop, self.popper.info.session)
            if rolled is not None:
                return rolled
        return outcome

    # --- the popper ---------------------------------------------------------------------

    def press_dome(self) -> Outcome | None:
        """Pop by command, as if the dome were pressed (a stuck dome, tests)."""
        unusable = self._unusable("popper")
        if unusable is not None:
            return self._refuse({"source": "table"}, unusable)
        assert self.popper is not None  # _unusable says so
        try:
            pop = self.popper.pop()
        except PopdiceError as error:
            return self.popper_failed(error)
        return self.take_pop(pop, self.popper.info.session)

    def take_pop(self, pop: Pop, device_session: str) -> Outcome | None:
        """The popper's dice as the game's roll, once per pop (None: this pop was taken)."""
        key = f"{device_session}:{pop.roll}"
        if key in self.seen_rolls:
            return None
        dice = [dict(die) for die in pop.dice]
        text = "popped: " + " ".join(_die_text(die) for die in dice)

        def roll(referee: Referee) -> str:
            if pop.mode != referee.game:
                raise Refused("wrong_mode", f"the popper is in {pop.mode} mode")
            referee.roll(dice)
            return text

        outcome = self._journal_then_apply("roll", roll, {"dice": dice, "key": key}, key=key)
        if not outcome.accepted:
            self.seen_rolls.add(key)  # not counted, and never counted later: try again
            self._void(pop, device_session)
        return outcome

    def _void(self, pop: Pop, device_session: str) -> None:
        """The popper shows a bar in place of ``pop``, a roll the game did not count."""
        popper = self.popper
        if popper is None or "popper" in self.missing or popper.info.session != device_session:
            return
        try:
            voided = popper.void(pop.roll)
        except PopdiceError as error:
            self.log.append(f"the popper still shows that roll, not counted: {error}")
            return
        if voided:
            self.log.append("the popper shows a bar on each die: that roll is not counted")

    def take_notice(self, notice: Notice) -> Outcome | None:
        """A device event: a pop becomes the roll; reboots and gaps go to the log."""
        if isinstance(notice, DeviceReboot):
            return self.note(f"the popper restarted (session {notice.new_session})")
        if isinstance(notice, EventGap):
            return self.note(f"popper events {notice.first}-{notice.last} were lost")
        if isinstance(notice, Event) and notice.kind == "cue":
            self.pressed = bool(notice.data.get("on"))
            if not self.pressed:  # a candidate the popper let go: shown, not journaled
                self.log.append("the dome was let go without a release the popper could tell")
            return None
        pop = Pop.from_event(notice)
        if pop is not None:
            self.pressed = False
            return self.take_pop(pop, notice.session)
        return None

    # --- the handheld ---------------------------------------------------------------------

    def roll_hidden(self) -> Outcome | None:
        """Roll the handheld as if its ROLL were pressed (simulated devices, tests)."""
        unusable = self._unusable("handheld")
        if unusable is not None:
            return self._refuse({"source": "table"}, unusable)
        assert self.handheld is not None  # _unusable says so
        try:
            roll = self.handheld.roll()
        except PopdiceError as error:
            return self.handheld_failed(error)
        return self.take_secret(roll, self.handheld.info.session, self.handheld.info.device_id)

    def take_secret(self, roll: SecretRoll, device_session: str, device_id: str) -> Outcome | None:
        """A secret roll's commitment, once (None: taken before). It holds no dice values."""
        key = f"secret:{device_session}:{roll.roll_id}"
        if key in self.seen_rolls:
            return None
        data: dict[str, Any] = {
            "roll_id": roll.roll_id,
            "commitment": roll.commitment,
            "device_id": device_id,
            "replaces": roll.replaces,
        }
        outcome = self._journal_then_apply(
            "secret",
            lambda referee: referee.secret(data),
            {**data, "key": key},
            key=key,
            refused_data={"secret": data, "key": key},
        )
        if outcome.accepted:
            self.ask_reveal()
        return outcome

    def take_reveal(self, reveal: Reveal, device_session: str) -> Outcome | None:
        """A secret roll shown, once (None: taken before); the referee checks it. Whether
        the game asked for it (the active player chose) is journaled: one it did not ask
        for binds nobody."""
        key = f"reveal:{device_session}:{reveal.roll_id}"
        if key in self.seen_rolls:
            return None
        data: dict[str, Any] = {
            "roll_id": reveal.roll_id,
            "colour": reveal.colour,
            "number": reveal.number,
            "nonce": reveal.nonce,
            "by": reveal.by,
            "asked": self.referee.wants_reveal() is not None,
        }
        return self._journal_then_apply(
            "reveal",
            lambda referee: referee.reveal(data),
            {**data, "key": key},
            key=key,
            refused_data={"reveal": data, "key": key},
        )

    def ask_reveal(self) -> Outcome | None:
        """If the game needs the hidden roll now, ask the handheld to reveal it."""
        roll_id = self.referee.wants_reveal()
        if roll_id is None or self.handheld is None or "handheld" in self.missing:
            return None
        try:
            reveal = self.handheld.reveal(roll_id)
        except PopdiceError as error:
            if isinstance(error, DeviceError) and error.code == "no_roll":
                return self.lose_secret(roll_id)
            return self.handheld_failed(error)
        return self.take_reveal(reveal, self.handheld.info.session)

    def lose_secret(self, roll_id: str) -> Outcome:
        """The handheld has no roll ``roll_id`` any more (it restarted, or it is another
        handheld): the pair is lost, journaled so, and the turn asks for a new one."""
        data = {"roll_id": roll_id}
        return self._journal_then_apply(
            "lost", lambda referee: referee.lose_secret(data), data, refused_data={"lost": data}
        )

    def take_handheld_notice(self, notice: Notice) -> Outcome | None:
        """A handheld event: a secret roll or a reveal goes to the game; the rest to the log."""
        if isinstance(notice, DeviceReboot):
            return self.note(f"the handheld restarted (session {notice.new_session})")
        if isinstance(notice, EventGap):
            return self.note(f"handheld events {notice.first}-{notice.last} were lost")
        if isinstance(notice, SecretRollEvent):
            device_id = self.handheld.info.device_id if self.handheld is not None else ""
            return self.take_secret(notice.roll, notice.session, device_id)
        if isinstance(notice, RevealEvent):
            return self.take_reveal(notice.reveal, notice.session)
        if isinstance(notice, BatteryEvent):
            state = "low" if notice.low else "fine again"
            return self.note(f"the handheld's battery is {state} ({notice.vsys:.2f} V)")
        return None

    def handheld_failed(self, error: PopdiceError) -> Outcome:
        """The handheld refused, or sent what does not check out: journaled as refused."""
        if isinstance(error, DeviceDisconnected):
            return self.device_lost("handheld", str(error))
        code = HANDHELD_CODES.get(type(error), "handheld_error")
        if isinstance(error, DeviceError):
            code = error.code
        return self._refuse({"source": "handheld"}, Refused(code, f"handheld: {error}"))

    # --- bookkeeping ----------------------------------------------------------------------

    def _journal_then_apply(
        self,
        kind: str,
        change: Callable[[Referee], str],
        data: dict[str, Any],
        *,
        key: str | None = None,
        refused_data: dict[str, Any] | None = None,
        keep_refusal: bool = True,
    ) -> Outcome:
        """``change`` (it says what it did) tried on a copy of the referee, journaled as
        ``kind`` with ``data``, then made on the referee; ``key`` (a device's report) is
        taken unless the journal cannot keep it. Refused, it is journaled and logged as
        refused, or without ``keep_refusal`` only answered."""
        try:
            text = change(copy.deepcopy(self.referee))
        except Refused as refusal:
            if key is not None:
                self.seen_rolls.add(key)
            if not keep_refusal:
                return Outcome(False, refused_text(refusal), refusal.code)
            return self._refuse(data if refused_data is None else refused_data, refusal)
        try:
            self.journal.append(self.game_id, kind, {**data, "text": text})
        except JournalError as error:
            text = f"refused: {error}; nothing changed, try again (journal_failed)"
            self.log.append(text)
            return Outcome(False, text, "journal_failed")
        if key is not None:
            self.seen_rolls.add(key)
        change(self.referee)
        return self._accepted(text)

    def _accepted(self, text: str) -> Outcome:
        self.log.append(text)
        if self.referee.over and not self.finished:
            winners = [self.referee.players[seat] for seat in self.referee.winners()]
            try:
                self.journal.finish(self.game_id, winners, self.referee.scores())
                self.finished = True
            except JournalError as error:
                self.log.append(
                    f"the game's end is not recorded: {error}; "
                    "`popdice table --resume` records it (journal_failed)"
                )
        return Outcome(True, text)

    def _refuse(self, data: dict[str, Any], refusal: Refused) -> Outcome:
        text = refused_text(refusal)
        self.log.append(text)
        self._log_entry("refused", {**data, "code": refusal.code, "text": text})
        return Outcome(False, text, refusal.code)

    def note(self, text: str) -> Outcome:
        """A line for the log and the journal (a ``device`` entry) that changes no game."""
        self.log.append(text)
        self._log_entry("device", {"text": text})
        return Outcome(True, text)

    def _log_entry(self, kind: str, data: dict[str, Any]) -> None:
        """A log-only entry; one the journal cannot keep is only shown, with why."""
        try:
            self.journal.append(self.game_id, kind, data)
        except JournalError as error:
            self.log.append(f"not in the journal: {error} (journal_failed)")


def refused_text(refusal: Refused) -> str:
    """``refusal`` as the log and the answer say it."""
    return f"refused: {refusal.detail} ({refusal.code})"


def _die_text(die: dict[str, Any]) -> str:
    return " ".join(str(die[key]) for key in ("color", "number") if key in die)
