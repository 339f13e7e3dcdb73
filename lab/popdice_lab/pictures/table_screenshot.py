"""The table in play: a screenshot (SVG) of ``popdice table lowdown`` in the middle of a game.

The table app itself runs headless under Textual's pilot at the size it is built for, on
the scripted popper and handheld (``scripted.py``), with a journal in a folder of its own;
the game is played with the keys and commands players use (F2 pops the dome, F3 rolls the
hidden dice, typed moves), one of them refused; then Bob steps up by clicking his board and
picks his 4 and his green die on the bar, which lights the boxes they may go in. Textual
names the SVG's styles after a hash
of what it drew; that name is replaced by a fixed one, and the command line's cursor is
kept from blinking, so the same game is the same bytes.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

from textual.widgets import Input

from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.pointing import Chip
from popdice.table.session import TableSession

from .scripted import ScriptedHandheld, ScriptedPopper

FILE = "table-lowdown.svg"
SIZE = (80, 30)
PLAYERS = ["Ann", "Bob", "Cy"]
TITLE = "popdice table lowdown --players Ann,Bob,Cy"
STYLE_PREFIX = "popdice-table"

POPS = [
    [{"number": 2}, {"number": 5}, {"color": "red"}, {"color": "blue"}],
    [{"number": 4}, {"number": 6}, {"color": "green"}, {"color": "orange"}],
]
HIDDEN = [("purple", 3), ("yellow", 1)]
# (key or command, ...) in the order the players act; commands are typed and entered, a
# board is clicked ("click:#board-1") and a chip of the bar chosen ("chip:n:0").
PLAY = [
    "f2",
    "f3",
    "write ann 2 red ro 1 1",
    "write bob 5 blue pb 1 2",
    "write cy 3 purple pb 1 1",
    "f2",
    "f3",
    "write bob 4 green gy 1 2",
    "click:#board-1",
    "chip:n:0",
    "chip:c:0",
]


async def play_and_shoot(journal: Journal) -> str:
    popper, handheld = ScriptedPopper(POPS), ScriptedHandheld(HIDDEN)
    session = TableSession.start(journal, "lowdown", PLAYERS, popper, handheld)
    app = TableApp(session)
    async with app.run_test(size=SIZE) as pilot:
        command = app.query_one("#command", Input)
        command.cursor_blink = False
        for step in PLAY:
            kind, _, what = step.partition(":")
            if kind == "click":
                await pilot.click(what, offset=(0, 0))
            elif kind == "chip":
                await pilot.click(next(c for c in app.query(Chip) if c.key == what))
            elif step.startswith("f"):
                await pilot.press(step)
            else:
                command.value = step
                await pilot.press("enter")
            await pilot.pause()
        await pilot.pause()
        return app.export_screenshot(title=TITLE)


def screenshot() -> bytes:
    with (
        tempfile.TemporaryDirectory(prefix="popdice-picture-") as folder,
        Journal(Path(folder) / "journal.sqlite") as journal,
    ):
        svg = asyncio.run(play_and_shoot(journal))
    return re.sub(r"terminal-\d+", STYLE_PREFIX, svg).encode()


def pictures() -> dict[str, bytes]:
    return {FILE: screenshot()}
