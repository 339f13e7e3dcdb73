"""One table per game: a lock that the operating system lets go of when its process ends.

Two tables writing one game would interleave their entries, and the journal would no longer
replay. So a table holds its game's lock for as long as it runs: an exclusive SQLite
transaction on a small file of its own, ``table.sqlite3.locks/game-N`` next to the journal.
SQLite takes it with the system's file locks (``fcntl`` on POSIX, ``LockFileEx`` on
Windows), which the system releases when the process ends in any way, SIGKILL and power
loss too, so a lock is never left behind by a table that is gone.

Who holds it (process id, host, since when) is recorded in the journal's ``holders``, for the
refusal: ``game 3 is open at another table: pid 4242 on ann-laptop since 2026-11-25 20:14 UTC``.
A table that takes a lock whose recorded holder is another process took over from a table
that ended without letting go (killed, crashed): ``taken_over`` says which.
The lock files stay (removing one could let two tables in); they are empty.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from ..errors import GameLocked, JournalError
from .journal import Holder, Journal
from .journal_rows import one_line


class GameLock:
    """The lock of game ``game_id`` of ``journal``, held inside ``with``; ``GameLocked`` if
    another table has it."""

    def __init__(self, journal: Journal, game_id: int) -> None:
        self.journal = journal
        self.game_id = game_id
        self.path = lock_path(journal.path, game_id)
        self.me = Holder(
            os.getpid(), socket.gethostname(), datetime.now(timezone.utc).isoformat("T", "seconds")
        )
        self.taken_over: Holder | None = None
        """The holder recorded before this one, if any: a table that ended holding it."""
        self._file: sqlite3.Connection | None = None

    def __enter__(self) -> GameLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = sqlite3.connect(
                self.path, timeout=0, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as error:
            reason = one_line(error)
            raise JournalError(f"game {self.game_id}: no lock {self.path} ({reason})") from None
        try:
            self._file.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError:
            self._file.close()
            raise GameLocked(
                f"game {self.game_id} is open at another table{self._holder()}: quit that one first"
            ) from None
        try:
            self.taken_over = self.journal.holder(self.game_id)
            self.journal.hold(self.game_id, self.me)
        except JournalError:
            self._file.close()
            raise
        return self

    def _holder(self) -> str:
        try:
            holder = self.journal.holder(self.game_id)
        except JournalError:
            holder = None
        return "" if holder is None else f": {holder}"

    def __exit__(self, *exc: object) -> None:
        try:
            self.journal.let_go(self.game_id, self.me)
        except JournalError:
            pass  # the next table takes over: the lock itself goes with the file below
        if self._file is not None:
            self._file.close()


def lock_path(journal_path: Path, game_id: int) -> Path:
    return journal_path.with_name(journal_path.name + ".locks") / f"game-{game_id}"
