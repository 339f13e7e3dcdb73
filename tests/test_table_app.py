"""The table UI driven headless with Textual's pilot at 80x24, on a stand-in popper."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from table_support import FakePopper, play_then_die
from textual.pilot import Pilot
from textual.widgets import Input, Static

from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.session import TableSession

SIZE = (80, 24)


async def wait_until(pilot: Pilot[None], ready: Callable[[], bool], timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, "the UI did not get there in time"
        await pilot.pause(0.02)


def shown(app: TableApp, widget_id: str) -> str:
    return str(app.query_one(widget_id, Static).content)


def keys(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


async def type_command(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` key by key, then Enter."""
    await pilot.press(*keys(text), "enter")
    await pilot.pause()


async def command(pilot: Pilot[None], text: str) -> None:
    """Put ``text`` in the command line (quicker than typing it), then press Enter."""
    pilot.app.query_one("#command", Input).value = text
    await pilot.press("enter")
    await pilot.pause()


def test_a_short_ringer_game(journal: Journal) -> None:
    popper = FakePopper([4, 2, 6, 1])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)

    async def play() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            assert "press the dome" in shown(app, "#status")
            assert "(simulated)" in shown(app, "#status")
            await type_command(pilot, "ringer ann 3")
            assert session.log[-1].endswith("(awaiting_roll)")
            await pilot.press("f2")
            await wait_until(pilot, lambda: "die shows 4" in shown(app, "#status"))
            await command(pilot, "ringer ann 3")
            assert "Ann scores a Ringer on 4: 3 cards" in session.log[-1]
            popper.press()  # the scorer presses the real dome: only an event tells the app
            await wait_until(pilot, lambda: "die shows 2" in shown(app, "#status"))
            await command(pilot, "reroll b")
            assert popper.rerolls == [0]
            await wait_until(pilot, lambda: "die shows 6" in shown(app, "#status"))
            await command(pilot, "rule green5 on pink3")
            assert "not legal (not_matching)" in session.log[-1]
            await command(pilot, "ringer bob 4")
            await pilot.press("f2")
            await command(pilot, "end 2 1")
            scores = shown(app, "#scores")
            assert "Bob" in scores and "*" in scores.splitlines()[2]
            assert "game over" in shown(app, "#status")

    asyncio.run(play())
    record = journal.game(session.game_id)
    assert record.winners == ("Bob",) and record.scores == (1, 3)


def test_a_short_popalotsy_game(journal: Journal) -> None:
    popper = FakePopper([3, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    session = TableSession.start(journal, "popalotsy", ["Ann", "Bob"], popper)

    async def play() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2")
            await wait_until(pilot, lambda: "race!" in shown(app, "#status"))
            assert "●" in shown(app, "#dice")
            await command(pilot, "pile 1 red4:ann red5:bob red4:bob")
            await command(pilot, "check")
            assert "Bob takes back the red 3 pile (red 4: not_higher)" in session.log[-1]
            assert "round 2" in shown(app, "#status")
            await pilot.press("f2")
            await wait_until(pilot, lambda: "race!" in shown(app, "#status"))
            await command(pilot, "pile 1 purple2:ann")
            assert session.log[-1] == "refused: there is no purple 2 card (bad_card)"
            for die, colour in enumerate(("red", "orange", "yellow", "green", "blue"), 1):
                await command(pilot, f"pile {die} {colour}2:ann")
            await command(pilot, "check ann")
            assert "Ann" in shown(app, "#scores") and "wins" in shown(app, "#scores")

    asyncio.run(play())
    assert journal.game(session.game_id).winners == ("Ann",)


def test_a_mistyped_command_is_refused_with_its_reason(journal: Journal) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([5]))

    async def play() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            await command(pilot, "ringer zed 3")
            assert session.log[-1] == "refused: 'zed' names no single player (no_such_player)"
            await command(pilot, "dance")
            assert "unknown command 'dance'" in session.log[-1]
            refused = [e for e in journal.entries(session.game_id) if e.kind == "refused"]
            assert [e.data["command"] for e in refused] == ["ringer zed 3", "dance"]

    asyncio.run(play())


PLAY_THEN_DIE = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from table_support import FakePopper
from popdice.table.journal import Journal
from popdice.table.session import TableSession
players = ["Ann", "Bob", "Cy"]
session = TableSession.start(Journal(), "popalotsy", players, FakePopper([3, 1, 1, 1, 1]))
session.press_dome()
session.move({{"type": "pile", "die": 0, "cards": [{{"color": "red", "number": 5, "by": 2}},
                                                 {{"color": "red", "number": 4, "by": 1}}]}})
session.move({{"type": "check"}})
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_killed_mid_game_then_resumed(journal: Journal, tmp_path: Path) -> None:
    play_then_die(PLAY_THEN_DIE, tmp_path)
    popper = FakePopper([2, 2, 2, 2, 2], session="0000beef")  # the popper rebooted too
    session = TableSession.resume(journal, popper)
    # Cy's red 5 stands, Bob's red 4 is not higher: Bob takes both back; then +1 card each.
    assert session.referee.scores() == [5 + 1, 4 + 2 + 1, 4 + 1]

    async def play() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            assert "round 2: press the dome" in shown(app, "#status")
            assert "Bob" in shown(app, "#scores") and " 7" in shown(app, "#scores")
            await pilot.press("f2")
            await wait_until(pilot, lambda: "race!" in shown(app, "#status"))

    asyncio.run(play())
    kinds = [entry.kind for entry in journal.entries(session.game_id)]
    assert kinds == ["device", "roll", "move", "move", "device", "roll"]


def test_f1_shows_the_whole_help_and_esc_closes_it(journal: Journal) -> None:
    from popdice.table.help import HelpScreen, help_text

    session = TableSession.start(journal, "lowdown", ["Ann", "Bob"], FakePopper())
    app = TableApp(session)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            screen = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            assert "Lowdown: played on the laptop" in screen and "write PLAYER NUMBER" in screen
            text = help_text("lowdown", width=120)  # all of it, as it scrolls by
            assert "write PLAYER NUMBER COLOUR BOX" in text and "F2" in text
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(play())
