"""Lowdown at the laptop by pointing, not typing: a player steps up by clicking their board
(or Tab to it), picks dice and actions on the bar, and the boxes their pick may go in are
lit; one more click (or Enter on the keyboard's box) writes it. Everything offered comes
from the engine's legal moves, and goes through the same referee and journal as a typed
command. A whole game is played here with clicks alone, and a turn with the keyboard."""

from __future__ import annotations

import asyncio

from table_support import FakeHandheld, FakePopper
from test_table_app import SIZE, shown, wait_until
from test_table_lowdown import PLAYERS, TURNS, game_handheld, game_popper, start, table
from textual.pilot import Pilot

from popdice.games.lowdown.state import Place
from popdice.table import lowdown_pick
from popdice.table.app import TableApp
from popdice.table.commands import parse
from popdice.table.journal import Journal
from popdice.table.lowdown_pick import Pick
from popdice.table.lowdown_view import FIRST_BOX, GRID_COLUMNS, BoardView
from popdice.table.pointing import Chip
from popdice.table.referee import Move


def test_the_pick_offers_what_the_engine_would_take(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    referee = table(session)
    assert not lowdown_pick.ready(referee)  # no dice yet: nothing to point at
    session.press_dome()
    assert lowdown_pick.offered(referee, 0) == ([], [])  # the hidden pair is not in yet
    session.roll_hidden()
    assert lowdown_pick.offered(referee, 0) == ([1, 6], ["red", "orange"])
    assert lowdown_pick.offered(referee, 1) == ([], [])  # Bob waits for Ann's choice
    assert lowdown_pick.actions(referee, 0)[0] == "reveal"
    grid = referee.state.data.grid_names[0]
    pick = Pick(0, number=0)
    assert lowdown_pick.boxes(referee, pick) == set()  # no colour die yet
    assert lowdown_pick.needs(referee, pick) == "a colour die"
    red = lowdown_pick.boxes(referee, pick.toggled("colour", 0))
    orange = lowdown_pick.boxes(referee, pick.toggled("colour", 1))
    assert (grid, 0, 0) in red and (grid, 0, 0) not in orange  # box 1,1 takes red only
    places = {
        (a.grid, a.row, a.col) for a in referee.state.legal_actions(0) if isinstance(a, Place)
    }
    for box in red:
        move = lowdown_pick.box_move(referee, pick.toggled("colour", 0), box)
        assert move["number"] == 1 and move["color"] == "red" and move["seat"] == 0
        assert box in places
    assert pick.toggled("number", 0) == Pick(0)  # chosen again: let go


def click_offset(app: TableApp, box: tuple[str, int, int]) -> tuple[int, int]:
    grids = list(table(app.session).state.data.grid_names)
    grid, row, col = box
    return (FIRST_BOX[0] + grids.index(grid) * GRID_COLUMNS + col * 2, FIRST_BOX[1] + row)


def chip(app: TableApp, key: str | None = None, label: str | None = None) -> Chip:
    for found in app.query(Chip):
        fits = (key is None or found.key == key) and (label is None or str(found.content) == label)
        if fits and not found.has_class("chosen"):
            return found
    raise AssertionError(f"no chip {key or label} among {[c.key for c in app.query(Chip)]}")


async def point(pilot: Pilot[None], app: TableApp, move: Move) -> None:
    """Plays ``move`` with clicks only: the player's board, their dice and actions, a box."""
    referee = table(app.session)
    seat = move.get("seat", referee.state.active)
    if app.pick is None or app.pick.seat != seat:
        await pilot.click(f"#board-{seat}", offset=(0, 0))
        await pilot.pause()
    kind = move["type"]
    if kind in ("reveal", "skip", "done"):
        await pilot.click(chip(app, key=f"a:{kind}"))
    elif kind == "cross":
        await pilot.click(chip(app, key=f"x:{move['grid']}:{move['line']}"))
    else:
        if kind == "wild":
            await pilot.click(chip(app, key="a:wild"))
        await pilot.click(chip(app, label=str(move["number"])))
        if move.get("color") is not None:
            await pilot.click(chip(app, label=move["color"]))
        await pilot.pause()
        box = (move["grid"], move["row"], move["col"])
        assert box in app.query_one(f"#board-{seat}", BoardView).lit, (move, app.pick)
        await pilot.click(f"#board-{seat}", offset=click_offset(app, box))
    await pilot.pause()


async def dome_and_roll(pilot: Pilot[None], app: TableApp) -> None:
    referee = table(app.session)
    await pilot.press("f2", "f3")
    await wait_until(pilot, lambda: referee.dice_in and referee.commitment is not None)
    await pilot.pause()


def test_a_whole_game_by_clicks_alone(journal: Journal) -> None:
    popper, handheld = game_popper(), game_handheld()
    session = start(journal, popper, handheld)

    async def play_it() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            for turn in TURNS:
                await dome_and_roll(pilot, app)
                for text in turn:
                    move = parse(text, "lowdown", PLAYERS).move
                    await point(pilot, app, move)
                    await wait_until(pilot, lambda: table(session).pending is None)
                    assert not session.log[-1].startswith("refused"), session.log[-1]
            assert "game over" in shown(app, "#status")

    asyncio.run(play_it())
    assert journal.game(session.game_id).winners == ("Ann",)
    assert table(session).scores() == [0, 10]


def test_a_write_with_the_keyboard_and_a_box_refused_before_the_dice(journal: Journal) -> None:
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), FakeHandheld())

    async def play_it() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            await dome_and_roll(pilot, app)
            board = app.query_one("#board-0", BoardView)
            await pilot.click("#board-0", offset=(0, 0))  # Ann steps up
            await pilot.click(
                "#board-0", offset=click_offset(app, board.box_at(2, 2) or ("", 0, 0))
            )
            assert len(session.log) == 0 or not session.log[-1].startswith("Ann writes")
            assert "pick a number die and a colour die" in shown(app, "#hint")
            board.focus()
            await pilot.pause()
            chips = [c.key for c in app.query(Chip)]
            assert chips[:4] == ["n:0", "n:1", "c:0", "c:1"]
            app.query_one("#pick").query(Chip).first().focus()  # Tab order: the 4, Enter
            await pilot.press("enter")
            await pilot.press("tab", "tab", "enter")  # the red die
            await pilot.pause()
            assert app.pick == Pick(0, number=0, colour=0)
            board.focus()
            await pilot.pause()
            lit = sorted(board.lit)
            assert lit, "the 4 with red goes somewhere"
            target = lit[0]
            while (cursor := board.cursor) != target:
                assert cursor is not None
                across = cursor[0] != target[0] or cursor[2] != target[2]
                await pilot.press("right" if across else "down")
            await pilot.press("enter")
            await pilot.pause()
            assert "Ann writes 4 (red) in" in session.log[-1], session.log[-1]
            await pilot.press("escape")
            await pilot.press("escape")
            assert app.pick is None

    asyncio.run(play_it())
