"""Rebuilding a game from its journal: the referee is a pure function of the entries.

Entry kinds that change the game, replayed in order:
- ``move``: ``{"move", "text"}``, a move as the referee takes it;
- ``roll``: ``{"dice", "key", "text"}``, the popper's dice (``key``: device session and roll);
- ``secret``: ``{"roll_id", "commitment", "device_id", "replaces", "key", "text"}``, the
  handheld's commitment to a hidden roll (Lowdown), without its values;
- ``reveal``: ``{"roll_id", "colour", "number", "nonce", "by", "asked", "key", "text"}``,
  the hidden roll shown, checked again against its commitment as it is replayed (``asked``
  false: the game had not asked for it, and it voided the pair; older journals have none).
``refused`` and ``device`` are the log only. The game record's ``settings`` go to the referee.
The entries come checked (``journal_rows``); one the referee refuses does not replay, and
raises ``DamagedGame`` naming the game and the entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .journal import Entry, GameRecord, Journal, JournalError
from .journal_rows import TABLE_GAMES, DamagedGame, one_line
from .lowdown_table import LowdownTable
from .popalotsy_table import PopalotsyTable
from .referee import Referee, Refused, Settings
from .ringer_table import RingerTable

REFEREES: dict[str, type[Referee]] = {
    referee.game: referee for referee in (RingerTable, PopalotsyTable, LowdownTable)
}
SEEN_KINDS = ("roll", "secret", "reveal")
"""The entry kinds whose ``key`` marks a device report as taken."""


def new_referee(game: str, players: list[str], settings: Settings | None = None) -> Referee:
    referee_class = REFEREES.get(game)
    if referee_class is None:
        raise Refused("bad_game", f"the table plays {', '.join(TABLE_GAMES)}, not {game!r}")
    return referee_class(players, settings)


@dataclass
class Replayed:
    """A game rebuilt: its referee, the pops already taken, and the log lines so far."""

    referee: Referee
    seen_rolls: set[str] = field(default_factory=set)
    log: list[str] = field(default_factory=list)


def replay(record: GameRecord, entries: list[Entry]) -> Replayed:
    """Apply every ``move``, ``roll``, ``secret``, ``reveal`` and ``lost`` of ``entries`` in
    order to a new referee."""
    try:
        result = Replayed(new_referee(record.game, list(record.players), record.settings))
    except Refused as refusal:
        raise DamagedGame(record.id, refusal.detail) from None
    for entry in entries:
        try:
            if entry.kind == "move":
                result.referee.apply(entry.data["move"])
            elif entry.kind == "roll":
                result.referee.roll(entry.data["dice"])
            elif entry.kind == "secret":
                result.referee.secret(entry.data)
            elif entry.kind == "reveal":
                result.referee.reveal(entry.data)
            elif entry.kind == "lost":
                result.referee.lose_secret(entry.data)
            if entry.kind in SEEN_KINDS:
                result.seen_rolls.add(entry.data["key"])
        except (Refused, KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            raise DamagedGame(record.id, f"does not replay ({one_line(error)})", entry.n) from None
        text = entry.data.get("text")
        if isinstance(text, str):
            result.log.append(text)
    return result


def rebuild(journal: Journal, game_id: int | None = None) -> tuple[GameRecord, Replayed]:
    """The game ``game_id`` (by default the last unfinished one) replayed from its journal to
    go on with, or ``JournalError`` saying why not: there is none, it is finished, it does
    not replay. A game over whose end the journal could not keep has it recorded now."""
    record = journal.game(game_id) if game_id is not None else journal.last_unfinished()
    if record is None:
        raise JournalError("no unfinished game to resume")
    if record.finished is not None:
        raise JournalError(f"game {record.id} is finished")
    rebuilt = replay(record, journal.entries(record.id))
    referee = rebuilt.referee
    if referee.over:
        winners = [referee.players[seat] for seat in referee.winners()]
        journal.finish(record.id, winners, referee.scores())
        raise JournalError(f"game {record.id} is over: now recorded as finished")
    return record, rebuilt
