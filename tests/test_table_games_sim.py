"""A whole short game of each kind, driven through the table's UI (Textual's pilot) on
simulated devices: F2 presses the simulated dome (the firmware's detector pops the dice),
F3 pushes the handheld's ROLL, and the moves are typed. The dice are the firmware's own
random rolls, so each script reads what was popped and plays a legal move for it. Last, the
real `popdice table` is killed mid-game and `--resume` brings the game back."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from terminal_run import TerminalRun
from test_table_app import SIZE, command, shown, wait_until
from test_table_app_sim import UI_TIMEOUT_S, open_sims

from popdice.devices.discovery import simulated_ports
from popdice.games.lowdown.state import Blackout, Cross, Done, LowdownAction, Place, Skip, Step
from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.lowdown_table import LowdownTable, grid_short, line_label
from popdice.table.popalotsy_table import PopalotsyTable
from popdice.table.ringer_table import RingerTable
from popdice.table.session import TableSession

pytestmark = pytest.mark.fast_feed


def play_on_sims(
    journal: Journal, game: str, players: list[str], script: Any, **start: Any
) -> TableSession:
    """Starts simulated devices and the table UI on them, and runs ``script(pilot, session)``."""
    boards = ("popper", "handheld") if game == "lowdown" else ("popper",)
    with ExitStack() as stack:
        others = simulated_ports()
        clients, hands = open_sims(stack, *boards)
        session = TableSession.start(journal, game, players, *clients, **start)
        app = TableApp(session, simulated=True, hands=hands, avoid_ports=others)

        async def run() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await script(pilot, session)

        asyncio.run(run())
        assert all(watch.stopped for watch in app.watches.values()), "the app stops its watches"
    return session


PRESSES_AT_MOST = 3
NO_POP_S = 4.0  # a press (and its release) reach the simulated popper in under a second


async def pop(pilot: Any, session: TableSession) -> None:
    """F2: a press on the simulated dome, and another if nothing popped (the detector lets
    a press whose release it cannot tell from the table's ringing pass, and a player presses
    again); waits until the game has taken the pop."""
    for _ in range(PRESSES_AT_MOST - 1):
        await pilot.press("f2")
        try:
            await wait_until(pilot, lambda: not session.referee.wants_roll(), NO_POP_S)
            return
        except AssertionError:
            continue
    await pilot.press("f2")
    await wait_until(pilot, lambda: not session.referee.wants_roll(), UI_TIMEOUT_S)


def test_a_whole_ringer_game_on_a_simulated_popper(journal: Journal) -> None:
    async def script(pilot: Any, session: TableSession) -> None:
        referee = session.referee
        assert isinstance(referee, RingerTable)
        await pop(pilot, session)
        first = referee.die
        await command(pilot, "ringer ann 3")
        assert f"Ann scores a Ringer on {first}: 3 cards" in session.log[-1]
        await pop(pilot, session)
        await command(pilot, "reroll bob")  # the popper re-rolls its die, by command
        assert session.log[-1].startswith("popped:")
        await command(pilot, "ringer bob 2")
        await pop(pilot, session)
        await command(pilot, "end 1 4")
        assert referee.over

    session = play_on_sims(journal, "ringer", ["Ann", "Bob"], script)
    record = journal.game(session.game_id)
    assert record.winners == ("Ann",) and record.scores == (2, -2)
    kinds = [entry.kind for entry in journal.entries(session.game_id)]
    assert kinds.count("roll") == 4  # three presses and a reroll, each taken once


def test_a_whole_popalotsy_game_on_a_simulated_popper(journal: Journal) -> None:
    async def script(pilot: Any, session: TableSession) -> None:
        referee = session.referee
        assert isinstance(referee, PopalotsyTable)
        await pop(pilot, session)
        assert len(referee.dice) == 5
        for index, die in enumerate(referee.dice, 1):  # Ann drops an exact match on each
            await command(pilot, f"pile {index} {die.color}{die.number}:ann")
        await command(pilot, "check ann")
        assert referee.over and referee.hands[0] == 0

    session = play_on_sims(journal, "popalotsy", ["Ann", "Bob"], script)
    assert journal.game(session.game_id).winners == ("Ann",)


def typed(referee: LowdownTable, seat: int, action: LowdownAction) -> str:
    """The command line a player would type for the engine's ``action``."""
    who = str(seat + 1)
    numbers, colours = referee.state.offered_dice(seat)
    if isinstance(action, Place):
        box = f"{grid_short(action.grid)} {action.row + 1} {action.col + 1}"
        number = numbers[action.number]
        if not action.wild:
            assert action.color is not None
            return f"write {who} {number} {colours[action.color]} {box}"
        drop = "" if action.color is None else f" {colours[action.color]}"
        return f"wild {who} {number} {box}{drop}"
    if isinstance(action, Blackout):
        return f"blackout {who} {grid_short(action.grid)} {action.row + 1} {action.col + 1}"
    if isinstance(action, Cross):
        return f"cross {who} {grid_short(action.grid)} {line_label(action.line)}"
    if isinstance(action, Skip):
        return f"skip {who}"
    assert isinstance(action, Done)
    return f"done {who}"


def choice(referee: LowdownTable, seat: int) -> LowdownAction:
    """A plain bot: cross out what it can, write in the first grid it can (so a grid fills
    soon), and use a wild only when it must."""
    actions = [a for a in referee.state.legal_actions(seat) if type(a).__name__ != "Reveal"]
    grids = referee.state.data.grid_names

    def rank(action: LowdownAction) -> tuple[int, int]:
        if isinstance(action, Cross):
            return (0, 0)
        if isinstance(action, Place):
            return (1 + action.wild, grids.index(action.grid))
        return (3, 0)

    return min(actions, key=rank)


@pytest.mark.runs_long
def test_a_whole_lowdown_game_on_simulated_devices(journal: Journal) -> None:
    async def script(pilot: Any, session: TableSession) -> None:
        referee = session.referee
        assert isinstance(referee, LowdownTable)
        state = referee.state
        for _turn in range(40):
            if referee.over:
                return
            await pop(pilot, session)
            await pilot.press("f3")  # the holder's ROLL: only its commitment comes
            await wait_until(pilot, lambda: referee.commitment is not None, UI_TIMEOUT_S)
            assert referee.hidden is None and "hidden ? ?" in shown(pilot.app, "#lowdown-dice")
            active = state.active
            await command(pilot, typed(referee, active, choice(referee, active)))
            await wait_until(pilot, lambda: state.step is not Step.CHOOSE, UI_TIMEOUT_S)
            while state.step is Step.WRITE:
                seat = state.current_players()[0]
                await command(pilot, typed(referee, seat, choice(referee, seat)))
        raise AssertionError("no one filled a grid in 40 turns")

    session = play_on_sims(journal, "lowdown", ["Ann", "Bob"], script, settings={"end_grids": 1})
    referee = session.referee
    assert isinstance(referee, LowdownTable) and referee.over
    record = journal.game(session.game_id)
    assert record.scores == tuple(referee.scores()) and record.winners
    kinds = [entry.kind for entry in journal.entries(session.game_id)]
    assert kinds.count("secret") == kinds.count("roll") >= 1
    assert "refused" not in kinds


def test_the_table_killed_mid_game_then_resumed(tmp_path: Path) -> None:
    """The real command in a terminal: F2, a Ringer typed; a second table on the game is
    refused; SIGKILL; then --resume takes the game over."""
    # Seed 2's first press pops once with the built-in settings (a random one may not).
    env = {**os.environ, "POPDICE_DATA_DIR": str(tmp_path), "POPDICE_SIM_SEED": "2"}
    popdice = str(Path(sys.executable).with_name("popdice"))
    with TerminalRun([popdice, "table", "ringer", "--sim", "--players", "Ann,Bob"], env) as run:
        run.wait_for("press the dome")
        run.keys("f2")
        run.wait_for("the die shows")
        run.type("ringer a 5\r")
        run.wait_for("Ann scores a Ringer")
        with TerminalRun([popdice, "table", "--resume", "--sim"], env) as second:
            assert second.wait_exit() == 2
            assert f"error: game 1 is open at another table: pid {run.process.pid} on " in (
                second.text
            )
        run.kill()
    with Journal(tmp_path / "table.sqlite3") as journal:
        (game,) = journal.games()
        assert game.finished is None
        kinds = [entry.kind for entry in journal.entries(game.id)]
        assert kinds.count("roll") == 1 and kinds.count("move") == 1
    with TerminalRun([popdice, "table", "--resume", "--sim"], env) as run:
        run.wait_for("game resumed")
        run.wait_for("taken over from pid")  # the killed table's lock
        run.wait_for("Ann scores a Ringer on")  # the log, rebuilt from the journal
        run.wait_for("press the dome")  # after a Ringer the table waits for a new roll
        run.keys("ctrl+q")
        assert run.wait_exit() == 0
