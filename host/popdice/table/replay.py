"""Rebuilding a game from its journal: the referee is a pure function of the entries.

Entry kinds: ``move`` (``{"move", "text"}``) and ``roll`` (``{"dice", "key", "text"}``) change
the game and are replayed in order; ``refused`` and ``device`` are the log only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .journal import Entry, GameRecord, JournalError
from .popalotsy_table import PopalotsyTable
from .referee import Referee, Refused
from .ringer_table import RingerTable

REFEREES: dict[str, type[Referee]] = {"ringer": RingerTable, "popalotsy": PopalotsyTable}
TABLE_GAMES = tuple(REFEREES)


def new_referee(game: str, players: list[str]) -> Referee:
    referee_class = REFEREES.get(game)
    if referee_class is None:
        raise Refused("bad_game", f"the table plays {', '.join(TABLE_GAMES)}, not {game!r}")
    return referee_class(players)


@dataclass
class Replayed:
    """A game rebuilt: its referee, the pops already taken, and the log lines so far."""

    referee: Referee
    seen_rolls: set[str] = field(default_factory=set)
    log: list[str] = field(default_factory=list)


def replay(record: GameRecord, entries: list[Entry]) -> Replayed:
    """Apply every ``move`` and ``roll`` of ``entries`` in order to a new referee."""
    result = Replayed(new_referee(record.game, list(record.players)))
    for entry in entries:
        try:
            if entry.kind == "move":
                result.referee.apply(entry.data["move"])
            elif entry.kind == "roll":
                result.referee.roll(entry.data["dice"])
                result.seen_rolls.add(str(entry.data["key"]))
        except (Refused, KeyError) as error:
            raise JournalError(
                f"game {record.id}: journal entry {entry.n} does not replay ({error})"
            ) from None
        text = entry.data.get("text")
        if isinstance(text, str):
            result.log.append(text)
    return result
