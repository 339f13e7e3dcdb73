"""The journal's rows as read back: a game's record and its entries, each checked as it is read.

A journal file can be damaged (a failing disk, a hand with an SQLite tool): a row that is not
what the table writes raises ``JournalError`` with one line that names the game, the entry
and what is wrong in it (``game 3, entry 7: data: not valid JSON (line 1, column 9): ...``).
A game's record is checked whole: its times are times in UTC, its rule settings the ones its
game takes, with values ``--rule`` would take, its winners among its players, a score for each
player, and an end time, winners and scores all or none. What the entries mean for a game (a
move the rules refuse) is checked by its replay.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import JournalError
from ..games.config import from_json
from ..games.fields import Field, kind_of, parse_document, shown

TABLE_GAMES = ("ringer", "popalotsy", "lowdown")
ENTRY_FIELDS: dict[str, dict[str, str]] = {
    "roll": {"dice": "objects", "key": "string"},
    "secret": {"roll_id": "string", "commitment": "string", "key": "string"},
    "reveal": {"roll_id": "string", "colour": "string", "number": "integer", "key": "string"},
    "move": {"move": "object"},
    "lost": {"roll_id": "string"},
    "refused": {"code": "string"},
    "device": {"text": "string"},
}
"""Each kind of entry, and the fields of its data that the table reads back, by JSON type
(``objects``: a list of objects)."""


class DamagedGame(JournalError):
    """A game's rows are not what the table writes, or do not replay: which game, which
    entry (None: the game's record, or no one entry), and what is wrong."""

    def __init__(self, game_id: int, problem: str, entry: int | None = None) -> None:
        where = f"game {game_id}" if entry is None else f"game {game_id}, entry {entry}"
        super().__init__(f"{where}: {problem}")
        self.game_id = game_id
        self.entry = entry
        self.problem = problem

    @property
    def damage(self) -> str:
        """What is wrong, naming the entry but not the game: ``entry 7: data: ...``."""
        return self.problem if self.entry is None else f"entry {self.entry}: {self.problem}"


@dataclass(frozen=True)
class GameRecord:
    """A row of ``games``: what was played, by whom, and how it ended (if it did)."""

    id: int
    game: str
    players: tuple[str, ...]
    settings: dict[str, Any]
    started: str
    finished: str | None
    winners: tuple[str, ...] | None
    scores: tuple[int, ...] | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.players),
            "settings": self.settings,
            "started": self.started,
            "finished": self.finished,
            "winners": None if self.winners is None else list(self.winners),
            "scores": None if self.scores is None else list(self.scores),
        }


@dataclass(frozen=True)
class Entry:
    """One journal line: its number in the game, when, its kind and its data."""

    n: int
    at: str
    kind: str
    data: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "at": self.at, "kind": self.kind, "data": self.data}


@dataclass(frozen=True)
class Holder:
    """The table that has a game open (``popdice.table.lock``): its process, host and since
    when."""

    pid: int
    host: str
    since: str

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host} since {self.since[:16].replace('T', ' ')} UTC"


def game_record(row: tuple[Any, ...]) -> GameRecord:
    """A row of ``games`` (its ``journal.GAME_COLUMNS``), checked: its times are times, its
    settings the game's, and a finished game has its winners (among its players) and a score
    for each player."""
    game_id, game, players, settings, started, finished, winners, scores = row

    def error(problem: str) -> JournalError:
        return DamagedGame(game_id, problem)

    game = Field(game, "game", error).choice(TABLE_GAMES, "a game the table plays")
    players = _names(_json(players, "players", error), at_least=2)
    record = GameRecord(
        id=int(game_id),
        game=game,
        players=players,
        settings=_settings(game, _json(settings, "settings", error)),
        started=_time(Field(started, "started", error)),
        finished=None if finished is None else _time(Field(finished, "finished", error)),
        winners=None if winners is None else _winners(_json(winners, "winners", error), players),
        scores=None if scores is None else _scores(_json(scores, "scores", error), players),
    )
    ended = {"finished": finished, "winners": winners, "scores": scores}
    given = [column for column, value in ended.items() if value is not None]
    if 0 < len(given) < len(ended):
        missing = next(column for column in ended if column not in given)
        raise error(
            f"{missing}: null, but {' and '.join(given)} {'is' if len(given) == 1 else 'are'} not"
        )
    return record


SETTINGS_GAMES = ("lowdown",)
"""The games whose record keeps rule settings (``--rule``); the others' are ``{}``."""

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{3}|\.\d{6})?)?(\+00:00|Z)")
"""A time as the journal writes it (``2025-11-26T09:17:57.123+00:00``): ISO 8601 in UTC."""


def _time(field: Field) -> str:
    """A time in UTC, as the journal writes them (seconds and their fraction may be left off,
    and ``Z`` may stand for ``+00:00``)."""
    text = field.string("a time")
    try:
        if TIME.fullmatch(text) and datetime.fromisoformat(text.replace("Z", "+00:00")):
            return text
    except ValueError:  # the form of a time, but no such time: a 13th month, a 25th hour
        pass
    field.fail(f'{shown(text)} is not a time in UTC, e.g. "2025-11-26T09:17:57.123+00:00"')


def _settings(game: str, field: Field) -> dict[str, Any]:
    """The rule settings of a game of ``game``, checked as its ``--rule`` is checked."""
    settings = field.mapping()
    if game not in SETTINGS_GAMES:
        if settings:
            field.fail(f"{game} takes no rule settings, got {shown(settings)}")
        return settings
    from ..games.lowdown.rules import LowdownConfig

    from_json(LowdownConfig(), field)
    return settings


def _winners(field: Field, players: tuple[str, ...]) -> tuple[str, ...]:
    winners = _names(field, at_least=1)
    for item in field.items():
        if item.value not in players:
            item.fail(f"{shown(item.value)} is not a player: {shown(list(players))}")
    return winners


def _scores(field: Field, players: tuple[str, ...]) -> tuple[int, ...]:
    scores = tuple(item.integer() for item in field.items())
    if len(scores) != len(players):
        field.fail(f"expected a score for each of the {len(players)} players, got {len(scores)}")
    return scores


def entry(game_id: int, row: tuple[Any, ...]) -> Entry:
    """A row of ``entries`` (``n, at, kind, data``) of game ``game_id``, checked."""
    n, at, kind, data = row
    if isinstance(n, bool) or not isinstance(n, int):
        raise DamagedGame(game_id, f"an entry is numbered {shown(n)}, not by a number")

    def error(problem: str) -> JournalError:
        return DamagedGame(game_id, problem, n)

    kind = Field(kind, "kind", error).choice(tuple(ENTRY_FIELDS), "a kind of entry")
    fields = _json(data, "data", error)
    for name, json_type in ENTRY_FIELDS[kind].items():
        _check_type(fields.key(name), json_type)
    text = fields.optional("text")
    if text is not None:
        text.string()
    return Entry(n, _time(Field(at, "at", error)), kind, fields.mapping())


def _check_type(field: Field, json_type: str) -> None:
    if json_type == "objects":
        for item in field.items():
            item.mapping()
    else:
        checks = {"object": field.mapping, "string": field.string}
        checks.get(json_type, field.integer)()


def holder(game_id: int, row: tuple[Any, ...]) -> Holder:
    """A row of ``holders`` (``pid, host, since``) of game ``game_id``, checked."""
    pid, host, since = row

    def error(problem: str) -> JournalError:
        return JournalError(f"game {game_id}: its holder: {problem}")

    return Holder(
        Field(pid, "pid", error).integer(),
        Field(host, "host", error).string(),
        _time(Field(since, "since", error)),
    )


def _json(value: Any, column: str, error: Callable[[str], JournalError]) -> Field:
    """A column that holds JSON text, parsed."""
    if not isinstance(value, str):
        raise error(f"{column}: expected JSON text, got {kind_of(value)}")
    return Field(parse_document(value, column, error).value, column, error)


def _names(field: Field, at_least: int) -> tuple[str, ...]:
    names = tuple(item.string("a name") for item in field.items())
    if len(names) < at_least or not all(names):
        field.fail(f"expected {at_least} or more names, got {shown(list(names))}")
    if len({name.lower() for name in names}) != len(names):
        field.fail(f"the same name twice in {shown(list(names))}")
    return names


def one_line(error: Exception, limit: int = 80) -> str:
    """An error's message in one short line (SQLite's may quote a damaged value)."""
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
