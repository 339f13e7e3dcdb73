"""The table at its stated minimum, 80x24, and after a resize: the header is one line, the
log shows at least its last five lines and always the latest, and F1's help wraps at words
at any width. Read from what Textual's pilot puts on the screen."""

from __future__ import annotations

import asyncio
import textwrap

import pytest
from table_support import FakePopper
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Input, RichLog, Static

from popdice.table.app import TableApp
from popdice.table.help import HelpScreen, sections
from popdice.table.journal import Journal
from popdice.table.log_view import TableLog
from popdice.table.session import TableSession

SIZE = (80, 24)
GAMES = {
    "ringer": ["Ann", "Bob"],
    "popalotsy": ["Ann", "Bob", "Cy", "Di", "Ed"],
    "lowdown": ["Annabelle", "Bob", "Cy", "Dorothea-Wilhelmina-Jones"],  # the most boards
}


def screen_rows(app: TableApp) -> list[str]:
    """The screen as it is drawn, a string a row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def rows_of(app: TableApp, region: Region) -> list[str]:
    return [row[region.x : region.right] for row in screen_rows(app)[region.y : region.bottom]]


async def refuse(pilot: Pilot[None], count: int) -> None:
    """``count`` mistyped commands, each refused with a line in the log (of two rows)."""
    for n in range(count):
        pilot.app.query_one("#command", Input).value = f"dance {n}"
        await pilot.press("enter")
    await pilot.pause()


def assert_the_log_shows_its_latest(app: TableApp, rows: int = 5) -> None:
    """The log's last ``rows`` rows are on the screen, its latest line at the bottom."""
    log = app.query_one("#log", RichLog)
    content = log.scrollable_content_region
    assert content.height >= rows, f"the log shows {content.height} rows"
    wrapped = [strip.text.rstrip() for strip in log.lines]
    shown = [row.rstrip() for row in rows_of(app, content)]
    while shown and not shown[-1]:  # a log shorter than its height is at its top
        shown.pop()
    assert shown[-rows:] == wrapped[-rows:], (shown, wrapped[-rows:])
    assert app.session.log[-1].split()[-1] in shown[-1]
    assert all(len(strip.text.rstrip()) <= content.width for strip in log.lines)


def assert_the_header_is_one_line(app: TableApp) -> None:
    status = app.query_one("#status", Static)
    assert status.region.height == 1
    row = screen_rows(app)[status.region.y].rstrip()
    text = str(status.render())
    assert row == text or (row.endswith("…") and text.startswith(row[:-1])), (row, text)


@pytest.mark.parametrize("game", GAMES)
def test_at_80x24_the_header_is_one_line_and_the_log_shows_its_last_five_lines(
    game: str, journal: Journal
) -> None:
    session = TableSession.start(journal, game, GAMES[game], FakePopper())

    async def play() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2")
            await refuse(pilot, 8)
            assert_the_header_is_one_line(app)
            assert_the_log_shows_its_latest(app)
            if game == "lowdown":  # a long name: the header is cut, with an ellipsis
                assert screen_rows(app)[0].rstrip().endswith("…")

    asyncio.run(play())


@pytest.mark.parametrize("game", GAMES)
def test_after_a_resize_the_log_shows_its_latest_lines_wrapped_anew(
    game: str, journal: Journal
) -> None:
    session = TableSession.start(journal, game, GAMES[game], FakePopper())

    async def play() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            await refuse(pilot, 12)
            for size in ((120, 40), (100, 30), SIZE, (90, 24)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                await pilot.pause()
                assert_the_header_is_one_line(app)
                assert_the_log_shows_its_latest(app)
                log = app.query_one("#log", TableLog)  # every line wrapped at the new width
                width = log.scrollable_content_region.width
                assert log.wrapped_at == width
                assert all(strip.cell_length <= width for strip in log.lines)
                fits = max(len(text) for text in log.texts) <= width
                assert (len(log.lines) == len(log.texts)) == fits, (width, len(log.lines))
            await refuse(pilot, 1)
            assert_the_log_shows_its_latest(app)

    asyncio.run(play())


def words_of(game: str) -> set[str]:
    """Every word the help of ``game`` holds."""
    words: set[str] = set()
    for section in sections(game):
        cells = [section.title, *section.prose, *section.after]
        cells += [cell for row in section.rows for cell in row]
        words.update(word for cell in cells for word in cell.split())
    return words


def rows_of_paragraph(rows: list[str], paragraph: str) -> int:
    """How many of ``rows`` (the help on the screen) ``paragraph`` takes: it must be there,
    whole, starting a row."""
    words = paragraph.split()
    for start, row in enumerate(rows):
        if row.split() and words[: len(row.split())] == row.split():
            taken: list[str] = []
            for end in range(start, len(rows)):
                taken += rows[end].split()
                if taken == words:
                    return end - start + 1
                if words[: len(taken)] != taken:
                    break
    raise AssertionError(f"not on the screen whole: {paragraph!r}")


@pytest.mark.parametrize("width", [80, 100, 120])
@pytest.mark.parametrize("game", GAMES)
def test_the_help_wraps_at_words_at_any_width(game: str, width: int, journal: Journal) -> None:
    """Every word of the help is whole on the screen, and each paragraph takes as few rows
    as the width allows (no line of it is broken before it is full)."""
    session = TableSession.start(journal, game, GAMES[game], FakePopper())

    async def read_help() -> None:
        app = TableApp(session)
        async with app.run_test(size=(width, 60)) as pilot:  # tall enough for all of it
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            box = app.screen.query_one("#help-text").content_region
            shown = [row.rstrip() for row in rows_of(app, box)]
            words = {word for row in shown for word in row.split()}
            assert words <= words_of(game), sorted(words - words_of(game))
            assert "Devices" in words and "F5" in words
            indented = box.width - 2
            for section in sections(game):
                for paragraph in (*section.prose, *section.after):
                    fewest = textwrap.wrap(paragraph, indented, break_on_hyphens=False)
                    assert rows_of_paragraph(shown, paragraph) == len(fewest), paragraph

    asyncio.run(read_help())
