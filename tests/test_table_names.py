"""Players' names at the table: checked once when a game starts, shown as typed everywhere
(the status line, the scores, the boards, the log, ``history``), never read as markup; a
journal with a name the rules now refuse still resumes."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from table_support import FakePopper, quiet_table
from textual.widgets import Input, RichLog, Static

from popdice.cli.main import main
from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.names import BIDI_CONTROLS, MAX_NAME, literal
from popdice.table.session import TableSession

SIZE = (80, 24)
Drive = Callable[[TableApp], Coroutine[Any, Any, None]]


def shown(app: TableApp, widget_id: str) -> str:
    """What the widget shows (its content once any markup is read), as plain text."""
    return str(app.query_one(widget_id, Static).render())


def log_text(app: TableApp) -> str:
    """What the log shows, its wrapped lines joined again (without the spaces they broke at)."""
    log = app.query_one("#log", RichLog)
    return "".join(strip.text for strip in log.lines).replace(" ", "")


def shows(app: TableApp, name: str) -> bool:
    """Whether the scores (or the Lowdown boards' turn) and the log show ``name`` as typed."""
    where = "#lowdown-info" if app.session.referee.game == "lowdown" else "#scores"
    return literal(name) in shown(app, where) and literal(name).replace(" ", "") in log_text(app)


async def command(app: TableApp, pilot_press: Callable[..., Awaitable[None]], text: str) -> None:
    app.query_one("#command", Input).value = text
    await pilot_press("enter")


def tables_driven_by(monkeypatch: pytest.MonkeyPatch, drive: list[Drive]) -> list[TableApp]:
    """``popdice table`` on stand-in devices, each app it runs driven by ``drive[0]`` (which
    the test may replace between runs) at 80x24; the apps are kept in the returned list."""
    tables = quiet_table(monkeypatch)

    def run(app: TableApp) -> None:
        tables.append(app)
        asyncio.run(drive[0](app))

    monkeypatch.setattr(TableApp, "run", run)
    return tables


def a_few_moves(names: list[str]) -> Drive:
    """A Ringer game's first moves: a pop, a Ringer by seat number, a refusal, a pop."""

    async def drive(app: TableApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2")
            await command(app, pilot.press, "ringer 1 3")
            await command(app, pilot.press, "ringer 9 3")
            await pilot.press("f2")
            await pilot.pause()
            for name in names:
                assert shows(app, name), name

    return drive


def looked_at(names: list[str], seen: list[TableApp]) -> Drive:
    async def drive(app: TableApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            seen.append(app)
            for name in names:
                assert shows(app, name), name

    return drive


@pytest.mark.parametrize("players", ["Ann,Bob[/", "[b]Ann[/b],[red]Bob", "Ann,\\[x]"])
def test_names_that_look_like_markup_are_shown_as_typed_and_resume(
    players: str, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = players.split(",")
    drive = [a_few_moves(names)]
    tables = tables_driven_by(monkeypatch, drive)
    assert main(["table", "ringer", f"--players={players}", "--sim"]) == 0
    seen: list[TableApp] = []
    drive[0] = looked_at(names, seen)
    assert main(["table", "--resume", "--sim"]) == 0
    assert len(tables) == 2 and len(seen) == 1
    assert seen[0].session.referee.players == names


def test_names_that_look_like_markup_are_shown_as_typed_in_lowdown(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["[b]Ann[/b]", "Bob[/"]
    boards: list[str] = []

    async def drive(app: TableApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert all(shows(app, name) for name in names)
            boards.append(shown(app, "#board-0"))

    tables_driven_by(monkeypatch, [drive])
    assert main(["table", "lowdown", "--players=" + ",".join(names), "--sim"]) == 0
    assert boards[0].startswith("▶ [b]Ann[/b]")


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ("Ann,,Bob", "a player's name is empty"),
        ("Ann,Bob,", "a player's name is empty"),
        ("Ann," + "B" * (MAX_NAME + 1), f"is {MAX_NAME + 1} characters long: {MAX_NAME} at"),
        ("Ann,B\tob", "holds a control character (\\x09)"),
        ("Ann,\x1b[31mBob", "holds a control character (\\x1b)"),
        ("Ann,Bob\u2028Cy", "holds a control character (\\u2028)"),
        ("Ann,Bob\u202eyC", "holds a control character (\\u202e)"),
        ("Ann,Bob\udcff", "holds byte 0xff, which is not text: give names as UTF-8"),
    ],
)
def test_a_name_against_the_rules_is_refused_in_one_line_before_anything_starts(
    players: str,
    said: str,
    journal: Journal,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tables = quiet_table(monkeypatch)
    assert main(["table", "ringer", f"--players={players}", "--sim"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and said in err, err
    assert "\x1b" not in err and "\t" not in err
    assert tables == [] and journal.game_ids() == []


def test_a_journal_with_names_the_rules_now_refuse_still_resumes_and_shows_them(
    journal: Journal, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["\x1b[31mAnn\x07", "B" * 40 + "[/b]"]  # as a table before the rules wrote them
    session = TableSession.start(journal, "ringer", names, FakePopper([4]))
    session.press_dome()
    seen: list[TableApp] = []
    tables_driven_by(monkeypatch, [looked_at(names, seen)])
    assert main(["table", "--resume", "--sim"]) == 0
    assert literal(names[0]) == "\\x1b[31mAnn\\x07"
    assert seen[0].session.referee.players == names
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert f"{literal(names[0])}, {names[1]}" in out and "\x1b" not in out


def within_the_rules(name: str) -> bool:
    return name == name.strip() and not set(name) & BIDI_CONTROLS


NAMES = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters=","),
    min_size=1,
    max_size=MAX_NAME,
).filter(within_the_rules)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.runs_long
@given(names=st.lists(NAMES, min_size=2, max_size=3, unique_by=str.lower))
@example(names=["Ann", "Bob[/"])
@example(names=["[b]漢字[/b]", "e\u0301 \U0001f469\u200d\U0001f467"])
def test_any_names_within_the_rules_start_play_and_resume_as_typed(
    names: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        monkeypatch.setenv("POPDICE_DATA_DIR", folder)
        drive = [a_few_moves(names)]
        tables_driven_by(monkeypatch, drive)
        assert main(["table", "ringer", "--players=" + ",".join(names), "--sim"]) == 0
        seen: list[TableApp] = []
        drive[0] = looked_at(names, seen)
        assert main(["table", "--resume", "--sim"]) == 0
        assert seen[0].session.referee.players == names
