"""A game at the table, apart from any UI: the referee, the popper and the journal together.

Every accepted move and roll is journaled (and committed) before it is reported; the
referees change nothing when they refuse, and a refused move or roll is journaled as
``refused`` with its reason. Pops come from the popper's events or from its command
replies (both carry the device's roll number, so a pop is taken once). ``resume`` rebuilds
a game from its journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..link import DeviceReboot, EventGap, Notice
from ..popper import Pop
from .devices import PopperLike
from .journal import GameRecord, Journal, JournalError
from .referee import Move, Referee, Refused
from .replay import new_referee, replay

RINGER_DIE = 0


@dataclass(frozen=True)
class Outcome:
    """What became of a move, a pop or a device notice: accepted or not, and one line why."""

    accepted: bool
    text: str
    code: str = ""


class TableSession:
    """One game being played: call ``move``, ``take_pop``, ``take_notice``, ``press_dome``."""

    def __init__(
        self,
        journal: Journal,
        record: GameRecord,
        referee: Referee,
        popper: PopperLike | None,
        seen_rolls: set[str] | None = None,
        log: list[str] | None = None,
    ) -> None:
        self.journal = journal
        self.record = record
        self.referee = referee
        self.popper = popper
        self.seen_rolls = seen_rolls or set()
        self.log = log or []

    @classmethod
    def start(
        cls, journal: Journal, game: str, players: list[str], popper: PopperLike | None
    ) -> TableSession:
        referee = new_referee(game, players)
        game_id = journal.new_game(game, players, {})
        session = cls(journal, journal.game(game_id), referee, popper)
        session._record_device("game started: " + ", ".join(players))
        session.prepare_popper()
        return session

    @classmethod
    def resume(
        cls, journal: Journal, popper: PopperLike | None, game_id: int | None = None
    ) -> TableSession:
        """The game ``game_id`` (by default the last unfinished one) as its journal left it."""
        record = journal.game(game_id) if game_id is not None else journal.last_unfinished()
        if record is None:
            raise JournalError("no unfinished game to resume")
        if record.finished is not None:
            raise JournalError(f"game {record.id} is finished")
        rebuilt = replay(record, journal.entries(record.id))
        session = cls(journal, record, rebuilt.referee, popper, rebuilt.seen_rolls, rebuilt.log)
        session._record_device("game resumed")
        session.prepare_popper()
        return session

    @property
    def game_id(self) -> int:
        return self.record.id

    def prepare_popper(self) -> None:
        if self.popper is not None:
            self.popper.set_mode(self.referee.game)

    # --- moves --------------------------------------------------------------------------

    def move(self, move: Move) -> Outcome:
        """Play ``move`` (journaled first), or report and journal why it is refused."""
        try:
            text = self.referee.apply(move)
        except Refused as refusal:
            return self._refuse({"move": move}, refusal)
        self.journal.append(self.game_id, "move", {"move": move, "text": text})
        return self._accepted(text)

    def refuse_command(self, command: str, refusal: Refused) -> Outcome:
        """A typed command that is not a move at all: journaled and reported like a refusal."""
        return self._refuse({"command": command}, refusal)

    def reroll(self, seat: int) -> Outcome:
        """Ringer's Reroll power: the move, then the popper re-rolls its die."""
        outcome = self.move({"type": "reroll", "seat": seat})
        if outcome.accepted and self.popper is not None:
            rolled = self.take_pop(self.popper.reroll(RINGER_DIE), self.popper.info.session)
            if rolled is not None:
                return rolled
        return outcome

    # --- the popper ---------------------------------------------------------------------

    def press_dome(self) -> Outcome | None:
        """Pop as if the dome were pressed (simulated devices, or a stuck dome)."""
        if self.popper is None:
            return self._refuse({"source": "table"}, Refused("no_popper", "no popper attached"))
        return self.take_pop(self.popper.pop(), self.popper.info.session)

    def take_pop(self, pop: Pop, device_session: str) -> Outcome | None:
        """The popper's dice as the game's roll, once per pop (None: this pop was taken)."""
        key = f"{device_session}:{pop.roll}"
        if key in self.seen_rolls:
            return None
        self.seen_rolls.add(key)
        dice = [dict(die) for die in pop.dice]
        if pop.mode != self.referee.game:
            refusal = Refused("wrong_mode", f"the popper is in {pop.mode} mode")
            return self._refuse({"dice": dice, "key": key}, refusal)
        try:
            self.referee.roll(dice)
        except Refused as refusal:
            return self._refuse({"dice": dice, "key": key}, refusal)
        text = "popped: " + " ".join(_die_text(die) for die in dice)
        self.journal.append(self.game_id, "roll", {"dice": dice, "key": key, "text": text})
        return self._accepted(text)

    def take_notice(self, notice: Notice) -> Outcome | None:
        """A device event: a pop becomes the roll; reboots and gaps go to the log."""
        if isinstance(notice, DeviceReboot):
            return self._record_device(f"the popper restarted (session {notice.new_session})")
        if isinstance(notice, EventGap):
            return self._record_device(f"popper events {notice.first}-{notice.last} were lost")
        pop = Pop.from_event(notice)
        if pop is not None:
            return self.take_pop(pop, notice.session)
        return None

    def device_lost(self, what: str) -> Outcome:
        return self._record_device(what)

    # --- bookkeeping ----------------------------------------------------------------------

    def _accepted(self, text: str) -> Outcome:
        self.log.append(text)
        if self.referee.over and self.journal.game(self.game_id).finished is None:
            winners = [self.referee.players[seat] for seat in self.referee.winners()]
            self.journal.finish(self.game_id, winners, self.referee.scores())
        return Outcome(True, text)

    def _refuse(self, data: dict[str, Any], refusal: Refused) -> Outcome:
        text = f"refused: {refusal.detail} ({refusal.code})"
        self.journal.append(self.game_id, "refused", {**data, "code": refusal.code, "text": text})
        self.log.append(text)
        return Outcome(False, text, refusal.code)

    def _record_device(self, text: str) -> Outcome:
        self.journal.append(self.game_id, "device", {"text": text})
        self.log.append(text)
        return Outcome(True, text)


def _die_text(die: dict[str, Any]) -> str:
    return " ".join(str(die[key]) for key in ("color", "number") if key in die)
