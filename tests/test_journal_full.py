"""A journal that cannot be written (its disk is full): what would have changed the game is
refused with the reason, shown, and changes nothing; the table goes on, and takes the same
move or secret roll once the journal can keep it; a pop it could not keep is voided on the
popper, and the dome pressed again. Nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import copy
import sqlite3
from typing import Any

import pytest
from table_support import FakeHandheld, FakePopper, quiet_table
from test_history import run
from test_table_app import SIZE, command, shown
from test_table_session import vars_of

from popdice.errors import JournalError
from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.lowdown_table import LowdownTable
from popdice.table.session import TableSession

FAILED = "(journal_failed)"


class FullDisk:
    """The journal's disk made full by SQLite's ``max_page_count``: ``fill`` adds short lines
    to the game until even one does not fit; ``free`` makes room again."""

    def __init__(self, journal: Journal, game_id: int) -> None:
        self.db: sqlite3.Connection = journal._db  # pyright: ignore[reportPrivateUsage]
        self.journal = journal
        self.game_id = game_id

    def fill(self) -> None:
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        self.db.execute(f"PRAGMA max_page_count = {pages}")
        for _ in range(1000):
            try:
                self.journal.append(self.game_id, "device", {"text": "-"})
            except (JournalError, sqlite3.Error):
                return
        raise AssertionError("the journal never filled")

    def free(self) -> None:
        self.db.execute("PRAGMA max_page_count = 1073741823")


def state(session: TableSession) -> dict[str, Any]:
    return copy.deepcopy(vars_of(session.referee))


def test_a_move_the_journal_cannot_keep_is_refused_and_changes_nothing(journal: Journal) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    session.press_dome()
    disk = FullDisk(journal, session.game_id)
    before = state(session)
    disk.fill()
    outcome = session.move({"type": "ringer", "seat": 0, "cards": 3})
    assert not outcome.accepted and outcome.code == "journal_failed"
    assert "cannot be written (database or disk is full)" in outcome.text
    assert session.log[-1] == outcome.text and outcome.text.endswith(FAILED)
    assert state(session) == before
    refused = session.move({"type": "ringer", "seat": 7, "cards": 3})
    assert refused.code == "no_such_player"  # still said, though the journal cannot keep it
    assert session.log[-2:] == [refused.text, session.log[-1]] and FAILED in session.log[-1]
    disk.free()
    assert session.move({"type": "ringer", "seat": 0, "cards": 3}).accepted
    resumed = TableSession.resume(journal, FakePopper())
    assert vars_of(resumed.referee) == vars_of(session.referee)
    assert resumed.referee.scores() == [3, 0]


def test_a_pop_the_journal_cannot_keep_is_voided_on_the_popper(journal: Journal) -> None:
    popper = FakePopper([5, 2])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
    disk = FullDisk(journal, session.game_id)
    disk.fill()
    outcome = session.press_dome()
    assert outcome is not None and outcome.code == "journal_failed"
    assert session.referee.wants_roll() and popper.voided == [1]
    assert session.log[-1] == "the popper shows a bar on each die: that roll is not counted"
    disk.free()
    event = popper.next_event(1)  # the same pop, reported again as an event
    assert event is not None and session.take_notice(event) is None  # voided: never counted
    taken = session.press_dome()
    assert taken is not None and taken.accepted
    assert session.referee.status().startswith("the die shows 2")
    rolls = [entry for entry in journal.entries(session.game_id) if entry.kind == "roll"]
    assert len(rolls) == 1 and popper.voided == [1]


def test_a_hidden_roll_or_reveal_the_journal_cannot_keep_is_taken_when_it_can(
    journal: Journal,
) -> None:
    popper = FakePopper([4, 2], colours=["red", "blue"])
    handheld = FakeHandheld([("green", 5)])
    session = TableSession.start(
        journal, "lowdown", ["Ann", "Bob"], popper, handheld, {"end_grids": 1}
    )
    referee = session.referee
    assert isinstance(referee, LowdownTable)
    session.press_dome()
    disk = FullDisk(journal, session.game_id)
    disk.fill()
    rolled = session.roll_hidden()
    assert rolled is not None and rolled.code == "journal_failed" and referee.commitment is None
    disk.free()
    secret = handheld.next_event(1)  # the same roll, reported again as an event
    assert secret is not None
    taken = session.take_handheld_notice(secret)
    assert taken is not None and taken.accepted and referee.commitment is not None

    disk.fill()
    handheld.press_reveal()  # the holder's REVEAL: the hidden dice must be used now
    reveal = handheld.next_event(1)
    assert reveal is not None
    shown_now = session.take_handheld_notice(reveal)
    assert shown_now is not None and shown_now.code == "journal_failed"
    assert referee.hidden is None
    disk.free()
    asked = session.move({"type": "reveal", "seat": 0})  # the handheld is asked again
    assert asked.accepted and referee.hidden == ("green", 5)
    kinds = [entry.kind for entry in journal.entries(session.game_id) if entry.kind != "device"]
    assert kinds == ["roll", "secret", "move", "reveal"]
    resumed = TableSession.resume(journal, FakePopper(), handheld=None)
    assert isinstance(resumed.referee, LowdownTable) and resumed.referee.hidden == ("green", 5)


def test_the_end_the_journal_cannot_record_is_recorded_on_resume(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    session.press_dome()

    def full(*_: object) -> None:
        raise JournalError(f"game {session.game_id}: the journal cannot be written (full)")

    with monkeypatch.context() as patched:
        patched.setattr(journal, "finish", full)
        ended = session.move({"type": "end", "hands": [1, 2]})
    assert ended.accepted and session.referee.over
    assert FAILED in session.log[-1] and "--resume" in session.log[-1]
    assert journal.game(session.game_id).finished is None
    with pytest.raises(JournalError, match=f"game {session.game_id} is over"):
        TableSession.resume(journal, FakePopper())
    record = journal.game(session.game_id)
    assert record.winners == ("Ann",) and record.scores == (-1, -2)


def test_the_table_shows_a_failed_write_and_goes_on(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    disk = FullDisk(journal, session.game_id)
    app = TableApp(session)
    shouted: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **_: shouted.append(str(message)))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2")
            await pilot.pause()
            assert "die shows 4" in shown(app, "#status")
            disk.fill()
            await command(pilot, "ringer ann 3")
            assert session.log[-1].endswith(FAILED)
            assert "die shows 4" in shown(app, "#status")
            disk.free()
            await command(pilot, "ringer ann 3")
            assert "Ann scores a Ringer on 4" in session.log[-1]

    asyncio.run(play())
    assert len(shouted) == 1 and "cannot be written" in shouted[0]
    moves = [entry for entry in journal.entries(session.game_id) if entry.kind == "move"]
    assert len(moves) == 1


def test_a_table_that_crashes_exits_non_zero(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.app import App

    quiet_table(monkeypatch)

    def crash(_app: TableApp) -> None:
        raise RuntimeError("a bug in the table")

    monkeypatch.setattr(TableApp, "on_mount", crash)
    monkeypatch.setattr(TableApp, "run", lambda app: App.run(app, headless=True, size=SIZE))
    assert run("table", "ringer", "--players", "Ann,Bob") != 0
