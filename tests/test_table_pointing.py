"""Lowdown at the laptop by pointing, not typing: a player steps up by clicking their board
(or Tab to it), picks dice and actions on the bar, and the boxes their pick may go in are
lit; one more click (or Enter on the keyboard's box) writes it. Everything offered comes
from the engine's legal moves, and goes through the same referee and journal as a typed
command. A whole game is played here with clicks alone, and a turn with the keyboard."""

from __future__ import annotations

import asyncio

import pytest
from table_support import FakeHandheld, FakePopper
from test_table_app import SIZE, shown, wait_until
from test_table_lowdown import PLAYERS, TURNS, game_handheld, game_popper, start, table
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from popdice.games.lowdown.state import Place
from popdice.table import lowdown_pick
from popdice.table.app import TableApp
from popdice.table.commands import parse
from popdice.table.forms import forms_of
from popdice.table.journal import Journal
from popdice.table.lowdown_pick import Pick
from popdice.table.lowdown_view import FIRST_BOX, GRID_COLUMNS, BoardView
from popdice.table.pointing import Chip, ChipSpec, PickBar
from popdice.table.referee import Move
from popdice.table.session import TableSession


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


def find_chip(app: TableApp, key: str | None = None, label: str | None = None) -> Chip | None:
    for found in app.query(Chip):
        fits = (key is None or found.key == key) and (label is None or str(found.content) == label)
        if fits and not found.has_class("chosen"):
            return found
    return None


def chip(app: TableApp, key: str | None = None, label: str | None = None) -> Chip:
    found = find_chip(app, key, label)
    if found is None:
        raise AssertionError(f"no chip {key or label} among {[c.key for c in app.query(Chip)]}")
    return found


async def shown_chip(
    pilot: Pilot[None], app: TableApp, key: str | None = None, label: str | None = None
) -> Chip:
    """The chip once the bar shows it (a click's answer is drawn a refresh later), 5 s at
    most."""
    try:
        await wait_until(pilot, lambda: find_chip(app, key, label) is not None)
    except AssertionError:
        pass  # chip() says which chips there are instead
    return chip(app, key, label)


async def point(pilot: Pilot[None], app: TableApp, move: Move) -> None:
    """Plays ``move`` with clicks only: the player's board, their dice and actions, a box."""
    referee = table(app.session)
    seat = move.get("seat", referee.state.active)
    if app.pick is None or app.pick.seat != seat:
        await pilot.click(f"#board-{seat}", offset=(0, 0))
    kind = move["type"]
    if kind in ("reveal", "skip", "done"):
        await pilot.click(await shown_chip(pilot, app, key=f"a:{kind}"))
    elif kind == "cross":
        await pilot.click(await shown_chip(pilot, app, key=f"x:{move['grid']}:{move['line']}"))
    else:
        if kind == "wild":
            await pilot.click(await shown_chip(pilot, app, key="a:wild"))
        await pilot.click(await shown_chip(pilot, app, label=str(move["number"])))
        if move.get("color") is not None:
            await pilot.click(await shown_chip(pilot, app, label=move["color"]))
        box = (move["grid"], move["row"], move["col"])
        assert box in app.query_one(f"#board-{seat}", BoardView).lit, (move, app.pick)
        await pilot.click(f"#board-{seat}", offset=click_offset(app, box))


async def dome_and_roll(pilot: Pilot[None], app: TableApp) -> None:
    referee = table(app.session)
    await pilot.press("f2", "f3")
    await wait_until(pilot, lambda: referee.dice_in and referee.commitment is not None)
    await pilot.pause()


@pytest.mark.runs_long
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


# --- Ringer and Popalotsy: what happened, told by pointing --------------------------------


async def choose(pilot: Pilot[None], app: TableApp, *labels: str) -> None:
    """Chooses the bar's chips by their labels, one after the other."""
    for label in labels:
        await pilot.click(await shown_chip(pilot, app, label=label))


async def count_to(pilot: Pilot[None], app: TableApp, target: int) -> None:
    while app.counting != target:
        key = "count:+" if app.counting < target else "count:-"
        await pilot.click(await shown_chip(pilot, app, key=key))
    await pilot.click(await shown_chip(pilot, app, key="count:ok"))


@pytest.mark.runs_long
def test_a_ringer_game_by_clicks_alone(journal: Journal) -> None:
    popper = FakePopper([4, 2, 6, 1])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)

    async def play() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            assert [c.key for c in app.query(Chip)] == ["f:rule", "f:end"]  # no die yet
            await pilot.press("f2")
            await wait_until(pilot, lambda: "die shows 4" in shown(app, "#status"))
            await choose(pilot, app, "Ringer", "1 Ann")
            assert "how many cards" in shown(app, "#hint")
            await count_to(pilot, app, 3)
            assert "Ann scores a Ringer on 4: 3 cards" in session.log[-1]
            popper.press()
            await wait_until(pilot, lambda: "die shows 2" in shown(app, "#status"))
            await choose(pilot, app, "Reroll", "2 Bob")
            assert popper.rerolls == [0]
            await wait_until(pilot, lambda: "die shows 6" in shown(app, "#status"))
            await choose(pilot, app, "rule", "green", "5", "yellow")
            await pilot.press("escape")  # the last answer undone: the top card is pink
            assert "the card it went on: its suit?" in shown(app, "#hint")
            await choose(pilot, app, "pink", "3")
            assert "not legal (not_matching)" in session.log[-1]
            await choose(pilot, app, "Ringer", "2 Bob")
            await count_to(pilot, app, 4)
            await pilot.press("f2")
            await wait_until(pilot, lambda: "die shows" in shown(app, "#status"))
            await choose(pilot, app, "end")
            await count_to(pilot, app, 2)
            await count_to(pilot, app, 1)
            assert "game over" in shown(app, "#status")

    asyncio.run(play())
    record = journal.game(session.game_id)
    assert record.winners == ("Bob",) and record.scores == (1, 3)
    assert not [e for e in journal.entries(session.game_id) if e.kind == "refused"]


@pytest.mark.runs_long
def test_a_popalotsy_game_by_clicks_alone(journal: Journal) -> None:
    popper = FakePopper([3, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    session = TableSession.start(journal, "popalotsy", ["Ann", "Bob"], popper)

    async def play() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            assert list(app.query(Chip)) == []  # nothing to tell before the pop
            await pilot.press("f2")
            await wait_until(pilot, lambda: "race!" in shown(app, "#status"))
            await choose(pilot, app, "pile", "red 3")
            await choose(pilot, app, "red", "4", "1 Ann", "another card")
            await choose(pilot, app, "red", "5", "2 Bob", "another card")
            assert "pile: red 4, red 5" in shown(app, "#hint")
            await choose(pilot, app, "red", "4", "2 Bob", "that is the pile")
            assert session.log[-1].startswith("pile on red 3: red 4 (Ann), red 5 (Bob)")
            await choose(pilot, app, "check", "no one")
            assert "Bob takes back the red 3 pile (red 4: not_higher)" in session.log[-1]
            await pilot.press("f2")
            await wait_until(pilot, lambda: "race!" in shown(app, "#status"))
            for colour in ("red", "orange", "yellow", "green", "blue"):
                await choose(pilot, app, "pile", f"{colour} 2", colour, "2", "1 Ann")
                await choose(pilot, app, "that is the pile")
            await choose(pilot, app, "check", "1 Ann")
            assert "wins" in shown(app, "#scores")

    asyncio.run(play())
    assert journal.game(session.game_id).winners == ("Ann",)


def test_each_form_makes_the_move_its_typed_command_makes(journal: Journal) -> None:
    ringer = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    ringer.press_dome()
    forms = {f.key: f for f in forms_of(ringer.referee)}
    assert forms["ringer"].move({"seat": 0, "cards": 3}) == parse(
        "ringer ann 3", "ringer", ["Ann", "Bob"]).move  # fmt: skip
    told = {"card_suit": "blue", "card_face": "reroll", "top_suit": "pink", "top_face": 3}
    assert forms["rule"].move(told) == parse("rule blue-reroll on pink3", "ringer", ["A", "B"]).move
    assert forms["end"].move({"hand0": 2, "hand1": 1}) == {"type": "end", "hands": [2, 1]}
    assert forms["end"].ask({"hand0": 2}) is not None and forms["end"].ask(
        {"hand0": 2, "hand1": 1}) is None  # fmt: skip


def test_a_row_of_chips_wider_than_the_screen_scrolls_to_the_one_with_the_keyboard() -> None:
    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield PickBar(id="pick")

    async def look() -> None:
        app = Bar()
        async with app.run_test(size=(40, 5)) as pilot:
            bar = app.query_one(PickBar)
            bar.show("Dorothea:", [ChipSpec(f"x:{n}", f"cross gy r{n}") for n in range(9)], "")
            await pilot.pause()
            last = list(app.query(Chip))[-1]
            assert last.region.x >= 40 or last.region.width == 0  # off the screen at first
            last.focus()
            # the row scrolls after a refresh or two, later on a busy machine
            await wait_until(pilot, lambda: last.region.x >= 0 and last.region.right <= 40)
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(look())
