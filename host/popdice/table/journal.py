"""The table's journal: every game, and every event and move of it, in SQLite as it happens.

One file, ``table.sqlite3``, in ``platformdirs.user_data_dir("popdice")`` or in the folder
named by ``POPDICE_DATA_DIR``. WAL mode with ``synchronous=FULL``: each ``append`` is
committed (and on disk) before it returns, so a crash loses nothing already reported.
A game is the row of ``games`` plus its ``entries`` in order; the game's state is a pure
function of them (see ``popdice.table.replay``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import platformdirs

from ..errors import PopdiceError

DATA_DIR_VARIABLE = "POPDICE_DATA_DIR"
JOURNAL_FILE = "table.sqlite3"
MAX_GAME_ID = 2**63 - 1
"""The largest integer SQLite keeps, so the largest game id there can be."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    settings TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT,
    winners TEXT,
    scores TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""


class JournalError(PopdiceError):
    """The journal cannot be opened, or has no such game."""


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


def data_dir() -> Path:
    """Where the journal lives: ``$POPDICE_DATA_DIR``, else the user's data directory."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else Path(platformdirs.user_data_dir("popdice"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Journal:
    """The open journal file; every write is committed before the call returns."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / JOURNAL_FILE
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise JournalError(f"cannot open the journal {self.path}: {error}") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ----------------------------------------------------------------------

    def new_game(self, game: str, players: list[str], settings: dict[str, Any]) -> int:
        cursor = self._db.execute(
            "INSERT INTO games (game, players, settings, started) VALUES (?, ?, ?, ?)",
            (game, json.dumps(players), json.dumps(settings), _now()),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append(self, game_id: int, kind: str, data: dict[str, Any]) -> Entry:
        """Adds the next entry of ``game_id`` and commits it."""
        at = _now()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
            n = int(row[0])
            self._db.execute(
                "INSERT INTO entries (game_id, n, at, kind, data) VALUES (?, ?, ?, ?, ?)",
                (game_id, n, at, kind, json.dumps(data, sort_keys=True)),
            )
        return Entry(n, at, kind, data)

    def finish(self, game_id: int, winners: list[str], scores: list[int]) -> None:
        self._db.execute(
            "UPDATE games SET finished = ?, winners = ?, scores = ? WHERE id = ?",
            (_now(), json.dumps(winners), json.dumps(scores), game_id),
        )

    # --- reading ----------------------------------------------------------------------

    def games(self) -> list[GameRecord]:
        rows = self._db.execute("SELECT * FROM games ORDER BY id").fetchall()
        return [_game_record(row) for row in rows]

    def game(self, game_id: int) -> GameRecord:
        row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise JournalError(f"no game {game_id} in the journal {self.path}")
        return _game_record(row)

    def last_unfinished(self) -> GameRecord | None:
        row = self._db.execute(
            "SELECT * FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else _game_record(row)

    def entries(self, game_id: int) -> list[Entry]:
        rows = self._db.execute(
            "SELECT n, at, kind, data FROM entries WHERE game_id = ? ORDER BY n", (game_id,)
        ).fetchall()
        return [Entry(int(n), str(at), str(kind), json.loads(data)) for n, at, kind, data in rows]

    def export(self, game_id: int) -> dict[str, Any]:
        """The game and its whole journal, JSON-ready."""
        return {
            **self.game(game_id).as_dict(),
            "entries": [entry.as_dict() for entry in self.entries(game_id)],
        }


def _game_record(row: tuple[Any, ...]) -> GameRecord:
    game_id, game, players, settings, started, finished, winners, scores = row
    return GameRecord(
        id=int(game_id),
        game=str(game),
        players=tuple(json.loads(players)),
        settings=dict(json.loads(settings)),
        started=str(started),
        finished=finished,
        winners=None if winners is None else tuple(json.loads(winners)),
        scores=None if scores is None else tuple(json.loads(scores)),
    )
