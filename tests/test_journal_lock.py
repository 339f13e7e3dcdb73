"""One table per game: a second table on a game is refused, naming the game and the table that
holds it; the lock of a table that ended without letting go (killed) is taken over."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from table_support import FakePopper, play_then_die, quiet_table
from test_history import run

from popdice.errors import GameLocked, PopdiceError
from popdice.table.journal import Journal
from popdice.table.lock import GameLock
from popdice.table.session import TableSession

HOLD = """
import sys
from popdice.table.journal import Journal
from popdice.table.lock import GameLock
with Journal() as journal, GameLock(journal, 1):
    print("holding", flush=True)
    sys.stdin.readline()
"""

HOLD_THEN_DIE = """
import os, signal
from popdice.table.journal import Journal
from popdice.table.lock import GameLock
journal = Journal()
GameLock(journal, 1).__enter__()
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture()
def game_under_way(journal: Journal) -> int:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    session.press_dome()
    return session.game_id


@pytest.fixture()
def other_table(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds game 1's lock until its standard input closes."""
    env = {**os.environ, "POPDICE_DATA_DIR": str(tmp_path)}
    with subprocess.Popen(
        [sys.executable, "-c", HOLD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "holding\n"
        yield holder
        if holder.poll() is None:
            holder.stdin.close()
            holder.wait(30)


def test_a_second_table_on_a_game_is_refused_naming_the_holder(
    game_under_way: int,
    other_table: subprocess.Popen[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = quiet_table(monkeypatch)
    holder = f"pid {other_table.pid} on {socket.gethostname()} since "
    with pytest.raises(
        GameLocked, match=f"game {game_under_way} is open at another table: {holder}"
    ):
        run("table", "--resume", "--sim")
    assert tables == []  # refused before the table (or a device) opened
    assert other_table.stdin is not None
    other_table.stdin.close()  # that table quits: the game is free
    assert other_table.wait(30) == 0
    assert run("table", "--resume", "--sim") == 0
    assert tables[-1].session.game_id == game_under_way


def test_the_lock_of_a_table_that_was_killed_is_taken_over(
    game_under_way: int, journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_then_die(HOLD_THEN_DIE, tmp_path)
    dead = journal.holder(game_under_way)
    assert dead is not None and dead.pid != os.getpid()
    tables = quiet_table(monkeypatch)
    assert run("table", "--resume", "--sim") == 0
    assert tables[-1].session.log[-1] == f"taken over from {dead}, which has ended"
    assert journal.holder(game_under_way) is None  # that table quit, and let go


def test_one_lock_per_game_and_table(journal: Journal) -> None:
    first = journal.new_game("ringer", ["Ann", "Bob"], {})
    second = journal.new_game("ringer", ["Cy", "Di"], {})
    with GameLock(journal, first) as lock:
        assert journal.holder(first) == lock.me and lock.taken_over is None
        with pytest.raises(GameLocked, match=f"game {first} is open at another table"):
            GameLock(journal, first).__enter__()
        with GameLock(journal, second):
            pass
    with GameLock(journal, first) as again:
        assert again.taken_over is None


def test_a_new_game_is_locked_while_its_table_runs(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = quiet_table(monkeypatch)

    def run_and_try_a_second(app: object) -> None:
        tables.append(app)  # type: ignore[arg-type]
        with pytest.raises(PopdiceError, match="is open at another table"):
            run("table", "--resume", "--sim")

    monkeypatch.setattr("popdice.table.app.TableApp.run", run_and_try_a_second)
    assert run("table", "ringer", "--players", "Ann,Bob") == 0
    assert len(tables) == 1
