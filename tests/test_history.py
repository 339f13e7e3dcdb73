"""``popdice history`` and the ``table`` command's checks, through the table's own parser."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from table_support import FakePopper

from popdice.cli.table import add_table_arguments
from popdice.errors import PopdiceError
from popdice.table.cli import HISTORY_COLUMNS, add_history_arguments
from popdice.table.journal import Journal
from popdice.table.session import TableSession


@pytest.fixture(autouse=True)
def data_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    return tmp_path


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="popdice")
    commands = parser.add_subparsers(dest="command", required=True)
    add_table_arguments(commands.add_parser("table"))
    add_history_arguments(commands.add_parser("history"))
    args = parser.parse_args(argv)
    return args.run(args)


def played_games() -> tuple[int, int]:
    with Journal() as journal:
        done = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
        done.press_dome()
        done.move({"type": "ringer", "seat": 1, "cards": 4})
        done.move({"type": "end", "hands": [2, 1]})
        going = TableSession.start(journal, "popalotsy", ["Cy", "Di", "Ed"], None)
        return done.game_id, going.game_id


def cells(line: str) -> list[str]:
    """A line of ``popdice history``'s table cut into its cells (two spaces or more apart)."""
    return re.split(r" {2,}", line.strip())


def test_history_lists_players_winners_and_scores(capsys: pytest.CaptureFixture[str]) -> None:
    done, going = played_games()
    assert run("history") == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[0]) == list(HISTORY_COLUMNS)
    assert cells(lines[1])[2:] == ["ringer", "finished", "Ann, Bob", "Bob", "-2, 3"]
    assert cells(lines[2])[2:] == ["popalotsy", "unfinished", "Cy, Di, Ed", "-", "-"]
    assert [cells(line)[0] for line in lines[1:]] == [str(done), str(going)]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", cells(lines[1])[1])


def test_history_columns_line_up_under_their_header(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Journal() as journal:
        for _ in range(9):
            journal.new_game("lowdown", ["Ann", "Bob"], {})
        long_names = journal.new_game("ringer", ["Annabelle-Marie", "Bob"], {})
        journal.finish(long_names, ["Annabelle-Marie"], [12, -3])
    assert run("history") == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 10 and not any(line.endswith(" ") for line in [header, *rows])
    for column in ("GAME", "STATE", "PLAYERS", "WINNERS", "SCORES"):
        starts = {row[header.index(column) - 1 : header.index(column) + 1] for row in rows}
        assert all(start[0] == " " and start[1] != " " for start in starts), (column, starts)
    ids = [row[: len("ID")] for row in rows]
    assert ids[0] == " 1" and ids[-1] == "10"  # the numbers are aligned right
    assert rows[-1].endswith("Annabelle-Marie, Bob  Annabelle-Marie  12, -3")


def test_history_json_gives_every_game_with_the_keys_its_help_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done, going = played_games()
    assert run("history", "--json") == 0
    games = json.loads(capsys.readouterr().out)
    assert [game["id"] for game in games] == [done, going]
    keys = {"id", "game", "state", "damage", "players", "settings", "started", "finished",
            "winners", "scores"}  # fmt: skip
    assert all(set(game) == keys for game in games)
    finished, unfinished = games
    assert finished["state"] == "finished" and unfinished["state"] == "unfinished"
    assert finished["damage"] is None and unfinished["damage"] is None
    assert (finished["game"], finished["players"]) == ("ringer", ["Ann", "Bob"])
    assert (finished["winners"], finished["scores"], finished["settings"]) == (["Bob"], [-2, 3], {})
    assert finished["started"] <= finished["finished"]
    assert datetime.fromisoformat(finished["started"]).utcoffset() == timedelta(0)
    assert (unfinished["finished"], unfinished["winners"], unfinished["scores"]) == (None,) * 3
    assert unfinished["players"] == ["Cy", "Di", "Ed"]
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        run("history", "--help")
    documented = re.findall(r"^  (\w+) {2,}", help_text.getvalue().split("--json prints")[1], re.M)
    assert set(documented) == keys


def test_history_json_of_the_same_games_is_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    played_games()
    run("history", "--json")
    first = capsys.readouterr().out
    run("history", "--json")
    assert capsys.readouterr().out == first


def test_history_json_and_export_are_one_or_the_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from popdice.cli.main import main

    assert main(["history", "--json", "--export", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "not allowed with" in err


def test_history_export_writes_the_journal_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    done, _ = played_games()
    assert run("history", "--export", str(done)) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["winners"] == ["Bob"]
    moves = [entry["data"]["move"] for entry in exported["entries"] if entry["kind"] == "move"]
    assert moves[0] == {"type": "ringer", "seat": 1, "cards": 4}


def test_history_export_of_an_unknown_game_is_an_error() -> None:
    with pytest.raises(PopdiceError, match="no game 9"):
        run("history", "--export", "9")


def test_history_with_no_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("history") == 0
    assert capsys.readouterr().out == "no games yet\n"
    assert run("history", "--json") == 0
    assert capsys.readouterr().out == "[]\n"
    Journal().close()  # a journal, but no game in it
    assert run("history", "--json") == 0
    assert capsys.readouterr().out == "[]\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("table", "ringer", "--players", "Ann"), "at least two players"),
        (("table", "ringer", "--players", "Ann,ann"), "different name"),
        (("table",), "name the game"),
        (("table", "lowdown", "--players", "A,B,C,D,E"), "lowdown takes 2 to 4 players"),
        (("table", "lowdown", "--players", "A,B", "--rule", "end_grids=0"), "less than 1"),
        (("table", "lowdown", "--players", "A,B", "--rule", "blackout_points=-1"), "less than 0"),
        (("table", "lowdown", "--players", "A,B", "--rule", "line_sum=40"), "3 to 18"),
        (("table", "lowdown", "--players", "A,B", "--rule", "nope=1"), "rule nope: unknown"),
        (("table", "ringer", "--players", "A,B", "--rule", "end_grids=1"), "no rule settings"),
    ],
)
def test_table_refuses_bad_input_before_touching_a_device(
    argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(PopdiceError, match=message):
        run(*argv)


def test_table_rules_keep_only_what_they_change() -> None:
    from popdice.table.cli import rule_settings

    assert rule_settings("lowdown", ["end_grids=1", "forced_wild=true"]) == {"end_grids": 1}
    assert rule_settings("ringer", []) == {}


@pytest.mark.parametrize("given", ["9" * 5000, str(2**63), "0", "-1", "x" * 300, "٣"])
def test_history_export_of_a_bad_game_id_is_one_short_line(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from popdice.cli.main import main

    assert main(["history", "--export", given]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and len(err) < 200, err
    assert "GAME_ID" in err and "popdice history" in err


def test_history_export_to_a_reader_that_goes_away_ends_quietly(data_in_tmp: Path) -> None:
    """``popdice history --export 1 | head -1``: the export is far longer than a pipe holds."""
    import os
    import subprocess
    import sys

    with Journal() as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        for _ in range(40):
            journal.append(game, "device", {"text": "the popper restarted " * 250})
    popdice = str(Path(sys.executable).with_name("popdice"))
    env = {**os.environ, "POPDICE_DATA_DIR": str(data_in_tmp)}
    with subprocess.Popen(
        [popdice, "history", "--export", str(game)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as export:
        assert export.stdout is not None and export.stderr is not None
        assert export.stdout.readline() == b"{\n"
        export.stdout.close()
        errors = export.stderr.read()
        assert export.wait(30) == 1
    assert errors == b""


def finished_game() -> None:
    with Journal() as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        journal.finish(game, ["Bob"], [0, 3])


def damaged_game() -> None:
    with Journal() as journal:
        game = journal.new_game("ringer", ["Ann", "Bob"], {})
        journal.append(game, "move", {"move": {"type": "ringer", "seat": 0, "cards": 3}})


@pytest.mark.parametrize(
    ("journal_has", "message"),
    [
        (lambda: None, "no unfinished game"),
        (finished_game, "no unfinished game"),
        (damaged_game, "game 1, entry 1: does not replay"),
    ],
    ids=["no game", "finished", "damaged"],
)
def test_table_resume_refuses_before_any_device_is_opened(
    journal_has: Callable[[], None], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(
        "popdice.cli.table.open_board", lambda _stack, board, *_: opened.append(board)
    )
    monkeypatch.setattr("popdice.table.cli.has_terminal", lambda: True)
    journal_has()
    with pytest.raises(PopdiceError, match=message):
        run("table", "--resume", "--sim")
    assert opened == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ringer", "--players", "Ann,Bob", "--serve"], "--serve is for Lowdown; ringer is"),
        (["--resume", "--serve"], "--serve is for Lowdown; popalotsy is"),
        (["--resume", "ringer", "--players", "Zed,Yo"], "--resume goes on with the last unf"),
        (["--resume", "--rule", "hand_size=3"], "give it no game, --players or --rule"),
        (["lowdown", "--players", "Ann,Bob", "--address", "127.0.0.1"], "--address is for --s"),
        (["ringer", "--players", "Ann,Bob", "--port", "9000"], "--port is for --serve"),
    ],
)
def test_table_options_that_do_not_go_together_are_refused_before_anything_starts(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(
        "popdice.cli.table.open_board", lambda _stack, board, *_: opened.append(board)
    )
    monkeypatch.setattr("popdice.table.cli.has_terminal", lambda: True)
    with Journal() as journal:  # an unfinished game of others, for --resume
        waiting = journal.new_game("popalotsy", ["Cy", "Di"], {})
    with pytest.raises(PopdiceError, match=message):
        run("table", *argv, "--sim")
    assert opened == []
    with Journal() as journal:
        assert journal.game_ids() == [waiting] and journal.entries(waiting) == []


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
@pytest.mark.parametrize("terminal", ["neither", "input only", "output only"])
def test_the_table_without_a_terminal_says_so_and_starts_nothing(
    terminal: str, data_in_tmp: Path, tmp_path: Path
) -> None:
    import pty
    import signal

    popdice = str(Path(sys.executable).with_name("popdice"))
    env = {**os.environ, "POPDICE_DATA_DIR": str(data_in_tmp)}
    master, slave = pty.openpty()
    with (tmp_path / "out").open("w+b") as out, (tmp_path / "err").open("w+b") as err:
        table = subprocess.Popen(
            [popdice, "table", "ringer", "--players", "Ann,Bob", "--sim"],
            stdin=slave if terminal == "input only" else subprocess.DEVNULL,
            stdout=slave if terminal == "output only" else out,
            stderr=err,
            env=env,
            start_new_session=True,
        )
        try:
            table.wait(30)
        finally:
            with contextlib.suppress(ProcessLookupError):  # any simulator it started
                os.killpg(table.pid, signal.SIGKILL)
            os.close(slave)
            os.close(master)
        out.seek(0)
        err.seek(0)
        said = err.read().decode()
        assert table.returncode == 2 and said.count("\n") == 1, said
        assert "needs a terminal" in said and out.read() == b""
    assert not (data_in_tmp / "table.sqlite3").exists()  # no game begun, no device opened


def test_the_demo_without_a_terminal_prints_how_to_start_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from popdice.cli import demo
    from popdice.cli.main import main
    from popdice.table import cli as table_cli

    class Keyboard(io.StringIO):
        def isatty(self) -> bool:
            return True

    started: list[str] = []
    monkeypatch.setattr(table_cli, "run_table", lambda args, **_: started.append(args.game) or 0)
    monkeypatch.setattr(demo, "run_demo", lambda real: 0)
    monkeypatch.setattr(sys, "stdin", Keyboard())  # a terminal in, but the output is piped
    assert main(["demo", "--sim", "--table", "ringer"]) == 0
    assert started == []
    out, err = capsys.readouterr()
    assert out.startswith("the table needs a terminal: play one with  popdice table ringer")
    assert err == ""
