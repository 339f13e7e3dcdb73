"""The table's journal: games and entries, committed as they happen, read back exactly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from popdice.table.journal import JOURNAL_FILE, Journal, JournalError, data_dir


@pytest.fixture(autouse=True)
def data_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    return tmp_path


def test_data_dir_follows_the_environment(data_in_tmp: Path) -> None:
    assert data_dir() == data_in_tmp
    with Journal() as journal:
        assert journal.path == data_in_tmp / JOURNAL_FILE


def test_entries_are_numbered_and_read_back_in_order() -> None:
    with Journal() as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        journal.append(game, "roll", {"dice": [{"number": 4}], "key": "0000abcd:1"})
        journal.append(game, "move", {"move": {"type": "ringer", "seat": 0, "cards": 3}})
        entries = journal.entries(game)
    assert [entry.n for entry in entries] == [1, 2]
    assert [entry.kind for entry in entries] == ["roll", "move"]
    assert entries[1].data["move"]["cards"] == 3


def test_each_append_is_visible_to_another_connection_at_once(data_in_tmp: Path) -> None:
    with Journal() as journal:
        game = journal.new_game("popalotsy", ["Ann", "Bob"], {})
        journal.append(game, "move", {"x": 1})
        other = sqlite3.connect(data_in_tmp / JOURNAL_FILE)
        try:
            assert other.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
            assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            other.close()


def test_games_keep_apart_and_finish_with_winners_and_scores() -> None:
    with Journal() as journal:
        first = journal.new_game("ringer", ["Ann", "Bob"], {})
        second = journal.new_game("popalotsy", ["Cy", "Di", "Ed"], {})
        journal.append(first, "device", {"text": "a"})
        journal.append(second, "device", {"text": "b"})
        journal.finish(first, ["Bob"], [3, 7])
        assert journal.last_unfinished() is not None
        assert journal.last_unfinished().id == second  # type: ignore[union-attr]
        games = journal.games()
        assert [g.game for g in games] == ["ringer", "popalotsy"]
        assert games[0].winners == ("Bob",) and games[0].scores == (3, 7)
        assert games[1].finished is None
        assert [e.data for e in journal.entries(second)] == [{"text": "b"}]


def test_export_holds_the_game_and_its_entries() -> None:
    with Journal() as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        journal.append(game, "device", {"text": "hello"})
        exported = journal.export(game)
    assert exported["players"] == ["Ann", "Bob"]
    assert exported["entries"][0]["kind"] == "device"
    assert exported["entries"][0]["data"] == {"text": "hello"}


def test_an_unknown_game_is_a_one_line_error() -> None:
    with Journal() as journal, pytest.raises(JournalError, match="no game 42"):
        journal.game(42)


def test_a_game_nothing_was_played_in_is_dropped_and_no_other() -> None:
    from popdice.table.journal import Holder

    with Journal() as journal:
        unplayed = journal.new_game("lowdown", ["Ann", "Bob"], {})
        journal.append(unplayed, "device", {"text": "game started: Ann, Bob"})
        journal.hold(unplayed, Holder(1, "laptop", "2026-01-01T00:00:00+00:00"))
        played = journal.new_game("ringer", ["Cy", "Di"], {})
        journal.append(played, "move", {"move": {"type": "ringer", "seat": 0, "cards": 3}})
        assert journal.drop_unplayed(played) is False
        assert journal.drop_unplayed(unplayed) is True
        assert journal.game_ids() == [played] and len(journal.entries(played)) == 1
        assert journal.entries(unplayed) == [] and journal.holder(unplayed) is None
