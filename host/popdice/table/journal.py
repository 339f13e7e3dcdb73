"""The table's journal: every game, and every event and move of it, in SQLite as it happens.

One file, ``table.sqlite3``, in ``platformdirs.user_data_dir("popdice")`` or in the folder
named by ``POPDICE_DATA_DIR``. WAL mode with ``synchronous=FULL``: each ``append`` is
committed (and on disk) before it returns, so a crash loses nothing already reported.
A game is the row of ``games`` plus its ``entries`` in order; the game's state is a pure
function of them (see ``popdice.table.replay``).

``holders`` records which table has a game open (``popdice.table.lock`` keeps that true).

Every failure is a ``JournalError`` of one line: a journal that cannot be opened to write
says why in words (its folder read-only or not there), a write that does not reach the disk
(full, read-only) names the game it was for, a read of a damaged file the game (and
``journal_rows`` the entry). ``Journal(read_only=True)`` writes nothing, not even the WAL's
index, so it also reads a journal in a folder it cannot write.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import platformdirs

from ..errors import JournalError
from .journal_rows import Entry, GameRecord, Holder, entry, game_record, holder, one_line

__all__ = ["Entry", "GameRecord", "Holder", "Journal", "JournalError", "data_dir"]

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
CREATE TABLE IF NOT EXISTS holders (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL
);
"""


def data_dir() -> Path:
    """Where the journal lives: ``$POPDICE_DATA_DIR``, else the user's data directory."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else Path(platformdirs.user_data_dir("popdice"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Journal:
    """The open journal file; every write is committed before the call returns."""

    def __init__(self, path: Path | None = None, *, read_only: bool = False) -> None:
        self.path = path or data_dir() / JOURNAL_FILE
        try:
            self._db = self._open_to_read() if read_only else self._open_to_write()
        except (OSError, sqlite3.Error) as error:
            if not read_only and _is_write_problem(error):
                reason = error.strerror if isinstance(error, OSError) else None
                raise JournalError(self._unwritable(reason or one_line(error))) from None
            raise JournalError(f"cannot open the journal {self.path}: {one_line(error)}") from None
        self._db.text_factory = _text

    def _unwritable(self, reason: str) -> str:
        """The journal cannot be opened to write: which file, and why in words (a folder
        that cannot be made, a read-only file or folder), with the system's reason."""
        folder = self.path.parent
        if folder.exists() and not folder.is_dir():
            why = f"{folder} is a file, not a folder"
        elif not folder.is_dir():
            why = f"its folder is missing and cannot be made ({reason})"
        elif self.path.is_dir():
            why = "it is a folder, not a file"
        elif self.path.exists() and not os.access(self.path, os.W_OK):
            why = "the file is read-only"
        elif not os.access(folder, os.W_OK):
            why = "its folder is read-only"
        else:
            why = f"the file or its folder is read-only, or the folder is missing ({reason})"
        return f"the journal {self.path} cannot be written: {why}"

    def _open_to_write(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            # A journal that reads but cannot be written (a read-only file) is found now,
            # before the table opens anything: writing its version number back is a write.
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            db.execute(f"PRAGMA user_version = {version}")
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _open_to_read(self) -> sqlite3.Connection:
        """Read only; in a folder it cannot write (so no WAL index can be made), the journal
        as last checkpointed, which is all of it unless a table is writing there."""
        if self.path.is_dir():
            raise JournalError(f"the journal {self.path} is a folder, not a file")
        if not self.path.is_file():
            raise JournalError(f"there is no journal {self.path}")
        uri = self.path.resolve().as_uri()
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            db.close()
            db = sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)
        return db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            reason = one_line(error)
            if _is_write_problem(error):
                raise JournalError(f"{what}: {self._unwritable(reason)}") from None
            raise JournalError(
                f"{what}: the journal {self.path} cannot be written ({reason})"
            ) from None

    def _read(self, what: str, sql: str, *params: object) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            reason = one_line(error)
            raise JournalError(
                f"{what}: the journal {self.path} cannot be read ({reason})"
            ) from None

    # --- writing ----------------------------------------------------------------------

    def new_game(self, game: str, players: list[str], settings: dict[str, Any]) -> int:
        with self._writing(f"a new game of {game}"):
            cursor = self._db.execute(
                "INSERT INTO games (game, players, settings, started) VALUES (?, ?, ?, ?)",
                (game, json.dumps(players), json.dumps(settings), _now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append(self, game_id: int, kind: str, data: dict[str, Any]) -> Entry:
        """Adds the next entry of ``game_id`` and commits it."""
        at = _now()
        with self._writing(f"game {game_id}"), self._db:
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
        with self._writing(f"game {game_id}"):
            self._db.execute(
                "UPDATE games SET finished = ?, winners = ?, scores = ? WHERE id = ?",
                (_now(), json.dumps(winners), json.dumps(scores), game_id),
            )

    def hold(self, game_id: int, by: Holder) -> None:
        """Records ``by`` as the table that has the game open (``popdice.table.lock``)."""
        with self._writing(f"game {game_id}"):
            self._db.execute(
                "INSERT OR REPLACE INTO holders (game_id, pid, host, since) VALUES (?, ?, ?, ?)",
                (game_id, by.pid, by.host, by.since),
            )

    def let_go(self, game_id: int, by: Holder) -> None:
        with self._writing(f"game {game_id}"):
            self._db.execute(
                "DELETE FROM holders WHERE game_id = ? AND pid = ? AND host = ? AND since = ?",
                (game_id, by.pid, by.host, by.since),
            )

    def drop_unplayed(self, game_id: int) -> bool:
        """Removes game ``game_id`` if nothing was played in it (its entries are all
        ``device`` notes): a game whose table could not open. Whether it was removed."""
        with self._writing(f"game {game_id}"), self._db:
            self._db.execute("BEGIN IMMEDIATE")
            played = self._db.execute(
                "SELECT 1 FROM entries WHERE game_id = ? AND kind != 'device' LIMIT 1",
                (game_id,),
            ).fetchone()
            if played is not None:
                return False
            self._db.execute("DELETE FROM entries WHERE game_id = ?", (game_id,))
            self._db.execute("DELETE FROM holders WHERE game_id = ?", (game_id,))
            self._db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return True

    # --- reading ----------------------------------------------------------------------

    def game_ids(self) -> list[int]:
        return [
            int(game_id)
            for (game_id,) in self._read("the games", "SELECT id FROM games ORDER BY id")
        ]

    def games(self) -> list[GameRecord]:
        return [
            game_record(row)
            for row in self._read("the games", f"SELECT {GAME_COLUMNS} FROM games ORDER BY id")
        ]

    def game(self, game_id: int) -> GameRecord:
        rows = self._read(
            f"game {game_id}", f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", game_id
        )
        if not rows:
            raise JournalError(f"no game {game_id} in the journal {self.path}")
        return game_record(rows[0])

    def last_unfinished(self) -> GameRecord | None:
        rows = self._read(
            "the unfinished games",
            f"SELECT {GAME_COLUMNS} FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1",
        )
        return game_record(rows[0]) if rows else None

    def entries(self, game_id: int) -> list[Entry]:
        rows = self._read(
            f"game {game_id}",
            "SELECT n, at, kind, data FROM entries WHERE game_id = ? ORDER BY n",
            game_id,
        )
        return [entry(game_id, row) for row in rows]

    def holder(self, game_id: int) -> Holder | None:
        """The table recorded as having the game open, if any (it may have ended since)."""
        rows = self._read(
            f"game {game_id}", "SELECT pid, host, since FROM holders WHERE game_id = ?", game_id
        )
        return holder(game_id, rows[0]) if rows else None

    def export(self, game_id: int) -> dict[str, Any]:
        """The game and its whole journal, JSON-ready."""
        return {
            **self.game(game_id).as_dict(),
            "entries": [entry.as_dict() for entry in self.entries(game_id)],
        }


GAME_COLUMNS = "id, game, players, settings, started, finished, winners, scores"
"""A game's columns, in the order ``journal_rows.game_record`` takes them."""

WRITE_PROBLEMS = ("unable to open database file", "readonly database")
"""What SQLite says when a journal cannot be opened to write (not when it is damaged)."""


def _is_write_problem(error: Exception) -> bool:
    """Whether ``error`` (opening the journal to write) says it cannot be written there: the
    system refused the folder, or SQLite the file."""
    return isinstance(error, OSError) or any(part in str(error) for part in WRITE_PROBLEMS)


def _text(raw: bytes) -> str | bytes:
    """A TEXT value as a string, or as its bytes when they are not UTF-8 (a damaged row), for
    ``journal_rows`` to name."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return raw
