"""A damaged journal: every reader (history, --export, --resume) says in one line on standard
error which game (and entry) is damaged, and exits 2; never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from table_support import FakePopper, quiet_table

from popdice.cli.main import main
from popdice.table.journal import JOURNAL_FILE, Journal
from popdice.table.session import TableSession

READERS = (["history"], ["history", "--export", "1"], ["table", "--resume", "--sim"])


@pytest.fixture()
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Game 1, a Ringer game under way (entries 1-3: started, a pop, a Ringer); its file."""
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    quiet_table(monkeypatch)
    with Journal() as journal:
        session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
        session.press_dome()
        session.move({"type": "ringer", "seat": 0, "cards": 3})
    return tmp_path / JOURNAL_FILE


def change(path: Path, sql: str, *params: object) -> None:
    with sqlite3.connect(path) as db:
        db.execute(sql, params)
    db.close()


def marked_damaged(game: int, entry: int | None, capsys: pytest.CaptureFixture[str]) -> str:
    """``history`` lists game ``game`` as damaged (at ``entry``), and ``--json`` says what is
    damaged; each names it in one line on standard error and exits 2. That line."""
    state = "damaged" if entry is None else f"damaged: entry {entry}"
    assert main(["history"]) == 2
    out, err = capsys.readouterr()
    assert re.search(rf"^ *{game} .*  {state}  ", out, re.M), out
    assert err.count("\n") == 1 and err.startswith(f"error: game {game}"), err
    assert main(["history", "--json"]) == 2
    out, json_err = capsys.readouterr()
    listed = {item["id"]: item for item in json.loads(out)}[game]
    assert listed["state"] == "damaged" and json_err == err
    assert err.rstrip("\n").endswith(listed["damage"]), (err, listed["damage"])
    if entry is not None:
        assert f"game {game}, entry {entry}: " in err
        assert listed["damage"].startswith(f"entry {entry}: ")
    return err


def one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2, argv
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("error: "), (argv, err)
    assert len(err) < 240, (argv, err)
    return err


ENTRY_DAMAGE = {
    "not JSON": '{"move": {"type": ',
    "not an object": "[1, 2]",
    "a 5,000-digit number": "9" * 5000,
    "nested too deeply": "[" * 100_000 + "]" * 100_000,
    "not text": b"\xff\xfe\x00binary",
    "an object without its move": '{"text": "Ann scores"}',
    "a move that is not an object": '{"move": 5, "text": "Ann scores"}',
}


@pytest.mark.parametrize("damage", ENTRY_DAMAGE)
def test_an_entry_that_is_not_what_was_written_is_named(
    damage: str, played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(played, "UPDATE entries SET data = ? WHERE game_id = 1 AND n = 3", ENTRY_DAMAGE[damage])
    for argv in READERS[1:]:
        err = one_error_line(argv, capsys)
        assert "game 1" in err and "entry 3" in err, (argv, err)
    marked_damaged(1, 3, capsys)


def test_history_marks_a_game_with_a_damaged_entry_and_lists_the_others(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal() as journal:
        TableSession.start(journal, "popalotsy", ["Cy", "Di"], None)
    change(played, "UPDATE entries SET data = '{not json' WHERE game_id = 1 AND n = 2")
    err = marked_damaged(1, 2, capsys)
    assert err.startswith("error: game 1, entry 2: data: not valid JSON")
    assert main(["history"]) == 2
    rows = [re.split(" {2,}", row.strip()) for row in capsys.readouterr().out.splitlines()]
    assert [row[0] for row in rows] == ["ID", "1", "2"]
    assert rows[1][2:5] == ["ringer", "damaged: entry 2", "Ann, Bob"]
    assert rows[2][2:5] == ["popalotsy", "unfinished", "Cy, Di"]
    assert main(["history", "--json"]) == 2
    second = json.loads(capsys.readouterr().out)[1]
    assert (second["state"], second["damage"]) == ("unfinished", None)


@pytest.mark.parametrize(
    ("column", "value", "named"),
    [
        ("kind", "spell", "spell"),
        ("data", '{"dice": [5], "key": "0000abcd:1"}', "dice[0]"),
        ("data", '{"dice": [{"number": 9}], "key": "0000abcd:1"}', "does not replay"),
        ("at", b"\xff", "at: expected a time"),
    ],
)
def test_the_pop_entry_damaged_is_named(
    column: str, value: object, named: str, played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(played, f"UPDATE entries SET {column} = ? WHERE game_id = 1 AND n = 2", value)
    readers = READERS[2:] if named == "does not replay" else READERS[1:]
    for argv in readers:
        err = one_error_line(argv, capsys)
        assert "game 1" in err and "entry 2" in err and named in err, (argv, err)
    assert named in marked_damaged(1, 2, capsys)  # an unfinished game is replayed too


GAME_DAMAGE = {
    "players not JSON": ("players", "Ann, Bob"),
    "players not a list": ("players", '{"Ann": 1}'),
    "players not names": ("players", '["Ann", 3]'),
    "players too few": ("players", '["Ann"]'),
    "players a huge number": ("players", "9" * 5000),
    "settings not an object": ("settings", "[1]"),
    "settings not JSON": ("settings", "{"),
    "scores not numbers": ("scores", '["x"]'),
    "winners not names": ("winners", "[1]"),
    "game unknown": ("game", "chess"),
    "game not text": ("game", 7),
    "started not a time": ("started", "yesterday"),
    "started not in UTC": ("started", "2025-11-26T09:17:57.123+02:00"),
    "started on no such day": ("started", "2025-02-30T09:17:57.123+00:00"),
    "settings for a game without any": ("settings", '{"end_grids": 1}'),
    "winners not players": ("winners", '["Cy"]'),
    "scores not one a player": ("scores", "[3]"),
}


@pytest.mark.parametrize("damage", GAME_DAMAGE)
def test_a_game_whose_record_is_damaged_is_named(
    damage: str, played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    column, value = GAME_DAMAGE[damage]
    change(played, f"UPDATE games SET {column} = ? WHERE id = 1", value)
    for argv in READERS:
        err = one_error_line(argv, capsys)
        assert "game 1" in err and column in err, (argv, err)


LOWDOWN_SETTINGS_DAMAGE = {
    '{"end_grids": "2"}': "settings.end_grids: expected an integer, got a string",
    '{"end_grids": true}': "settings.end_grids: expected an integer, got true/false",
    '{"end_grids": 0}': "settings: rule end_grids: 0 is less than 1",
    '{"must_write": 1}': "settings.must_write: expected true or false, got an integer",
    '{"hidden_roller": "up"}': "settings: rule hidden_roller: 'up' is not one of right, left",
    '{"speed": 2}': "settings.speed: not a rule setting",
}


@pytest.mark.parametrize("settings", LOWDOWN_SETTINGS_DAMAGE)
def test_rule_settings_the_game_would_not_take_are_named(
    settings: str, played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal() as journal:
        game = journal.new_game("lowdown", ["Cy", "Di"], {"end_grids": 1})
    change(played, "UPDATE games SET settings = ? WHERE id = ?", settings, game)
    wanted = f"error: game {game}: {LOWDOWN_SETTINGS_DAMAGE[settings]}\n"
    for argv in (["history"], ["history", "--export", str(game)], ["table", "--resume", "--sim"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err == wanted, (argv, err)
    assert main(["history", "--json"]) == 2
    assert [listed["id"] for listed in json.loads(capsys.readouterr().out)] == [1]


FINISHED_DAMAGE = {
    "a winner who did not play": ("winners", '["Ann", "Cy"]', 'winners[1]: "Cy" is not a player'),
    "a score too many": ("scores", "[1, 2, 3]", "scores: expected a score for each of the 2"),
    "an end that is not a time": ("finished", "soon", 'finished: "soon" is not a time in UTC'),
    "an end without winners": ("winners", None, "winners: null, but finished and scores are"),
    "winners without an end": ("finished", None, "finished: null, but winners and scores are"),
}


@pytest.mark.parametrize("damage", FINISHED_DAMAGE)
def test_a_finished_game_whose_end_is_damaged_is_named(
    damage: str, played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal() as journal:
        journal.finish(1, ["Bob"], [-2, 3])
    column, value, named = FINISHED_DAMAGE[damage]
    change(played, f"UPDATE games SET {column} = ? WHERE id = 1", value)
    for argv in READERS[:2]:
        err = one_error_line(argv, capsys)
        assert err.startswith(f"error: game 1: {named}"), (argv, err)


def test_other_games_are_listed_beside_a_damaged_one(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal() as journal:
        TableSession.start(journal, "popalotsy", ["Cy", "Di"], None)
    change(played, "UPDATE games SET players = '[' WHERE id = 1")
    assert main(["history"]) == 2
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == ["ID", "2"]
    assert err.count("\n") == 1 and "game 1" in err and "players" in err
    assert main(["history", "--json"]) == 2
    out, err = capsys.readouterr()
    assert [game["id"] for game in json.loads(out)] == [2]
    assert err.count("\n") == 1 and "game 1" in err and "players" in err


def test_history_json_of_only_damaged_games_is_an_empty_list_and_exit_2(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(played, "UPDATE games SET scores = '[\"x\"]' WHERE id = 1")
    assert main(["history", "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and err.count("\n") == 1 and "game 1: scores" in err


def pages_except(path: Path, kept_tables: tuple[str, ...]) -> Iterator[int]:
    """The page numbers of ``path`` (from 0) other than the first and the kept tables' roots."""
    with sqlite3.connect(path) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        count = db.execute("PRAGMA page_count").fetchone()[0]
        marks = ",".join("?" * len(kept_tables))
        roots = db.execute(
            f"SELECT rootpage FROM sqlite_master WHERE name IN ({marks})", kept_tables
        ).fetchall()
    db.close()
    kept = {1, *(root for (root,) in roots)}
    for page in range(1, count + 1):
        if page not in kept:
            yield (page - 1) * size


def test_scribbled_pages_of_entries_are_one_line_naming_the_game(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal() as journal:
        for _ in range(200):
            journal.append(1, "device", {"text": "the popper restarted (session 0000beef)"})
    with played.open("r+b") as file:
        for offset in pages_except(played, ("games", "sqlite_sequence")):
            file.seek(offset)
            file.write(b"\xa5" * 4096)
    assert "journal" in marked_damaged(1, None, capsys)
    for argv in READERS[1:]:
        err = one_error_line(argv, capsys)
        assert "game 1" in err and "journal" in err, (argv, err)


def test_a_file_that_is_not_a_journal_is_one_line(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    played.write_bytes(b"\xa5" * 8192)
    for argv in READERS:
        err = one_error_line(argv, capsys)
        # the path, shortened if long: its start and its file name
        assert str(played)[:15] in err and played.name in err, (argv, err)


def test_a_games_table_with_a_column_more_is_read_and_one_less_is_one_line(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(played, "ALTER TABLE games ADD COLUMN notes TEXT")
    assert main(["history", "--export", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == ["Ann", "Bob"]
    change(played, "ALTER TABLE games DROP COLUMN scores")
    for argv in READERS:
        err = one_error_line(argv, capsys)
        assert "no such column: scores" in err, (argv, err)


def as_a_reader() -> list[str]:
    """What runs a command without the power to write where the permissions say no (root has
    it: the command runs without CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and no setpriv to give up the power to write everywhere")
    return [setpriv, "--bounding-set=-dac_override", "--"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_history_reads_a_journal_in_a_folder_it_cannot_write(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    with Journal(folder / JOURNAL_FILE) as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        journal.append(game, "device", {"text": "game started: Ann, Bob"})
    assert sorted(child.name for child in folder.iterdir()) == [JOURNAL_FILE]
    (folder / JOURNAL_FILE).chmod(0o444)
    folder.chmod(0o555)
    popdice = str(Path(sys.executable).with_name("popdice"))
    env = {**os.environ, "POPDICE_DATA_DIR": str(folder)}
    try:
        for argv, wanted in (
            (["history"], "unfinished  Ann, Bob"),
            (["history", "--json"], '"players": [\n      "Ann",\n      "Bob"\n    ]'),
            (["history", "--export", "1"], '"game started: Ann, Bob"'),
        ):
            ran = subprocess.run(
                [*as_a_reader(), popdice, *argv],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            assert ran.returncode == 0 and ran.stderr == "", (argv, ran.stderr)
            assert wanted in ran.stdout
        assert sorted(child.name for child in folder.iterdir()) == [JOURNAL_FILE]
    finally:
        folder.chmod(0o755)


OPEN_A_TABLE = """
import sys
from popdice.cli.main import main
from popdice.table import cli
cli.has_terminal = lambda: True
sys.exit(main(["table", "ringer", "--players", "Ann,Bob", "--sim"]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("read_only", ["folder", "file"])
def test_a_journal_that_cannot_be_written_says_where_and_why(
    read_only: str, tmp_path: Path
) -> None:
    folder = tmp_path / "read-only"
    Journal(folder / JOURNAL_FILE).close()
    if read_only == "folder":  # no journal yet, and none can be made
        (folder / JOURNAL_FILE).unlink()
        folder.chmod(0o555)
        why = "its folder is read-only"
    else:  # found as the journal opens, before any device (a simulator here) starts
        (folder / JOURNAL_FILE).chmod(0o444)
        why = "the file is read-only"
    env = {**os.environ, "POPDICE_DATA_DIR": str(folder)}
    try:
        ran = subprocess.run(
            [*as_a_reader(), sys.executable, "-c", OPEN_A_TABLE],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    finally:
        folder.chmod(0o755)
    assert ran.returncode == 2 and ran.stdout == "" and ran.stderr.count("\n") == 1, ran.stderr
    assert ran.stderr.startswith(f"error: the journal {str(folder)[:15]}")  # shortened if long
    assert ran.stderr.endswith(f"{JOURNAL_FILE} cannot be written: {why}\n"), ran.stderr
    assert "unable to open database file" not in ran.stderr


def test_a_journal_whose_folder_cannot_be_made_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("")
    folder = tmp_path / "a-file" / "popdice"
    monkeypatch.setenv("POPDICE_DATA_DIR", str(folder))
    tables = quiet_table(monkeypatch)
    err = one_error_line(["table", "ringer", "--players", "Ann,Bob", "--sim"], capsys)
    assert err.endswith(
        "cannot be written: its folder is missing and cannot be made (Not a directory)\n"
    )
    assert JOURNAL_FILE in err and tables == []


def test_a_journal_that_is_a_folder_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / JOURNAL_FILE).mkdir()
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    err = one_error_line(["history"], capsys)
    assert err.startswith("error: the journal /")  # the path shortened if long
    assert err.endswith(f"/{JOURNAL_FILE} is a folder, not a file\n")
    quiet_table(monkeypatch)
    for argv in (["table", "--resume", "--sim"], ["table", "ringer", "--sim", "--players", "A,B"]):
        err = one_error_line(argv, capsys)
        assert err.endswith(f"/{JOURNAL_FILE} cannot be written: it is a folder, not a file\n")


def test_a_journal_folder_that_is_a_file_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data").write_text("")
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path / "data"))
    quiet_table(monkeypatch)
    for argv in (["history"], ["history", "--export", "1"], ["table", "--resume", "--sim"]):
        err = one_error_line(argv, capsys)
        assert f"{tmp_path / 'data'} is a file" in err, (argv, err)
