"""The table UI on simulated devices, driven by keys: F2 presses the dome (the firmware's
detector pops), F3/F4 push the handheld's buttons, and an unplugged popper is found again
by its id and put back in the game's mode."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from typing import Any

import pytest
from test_table_app import SIZE, command, wait_until

from popdice.devices.connect import connect_when_ready
from popdice.devices.discovery import simulated_ports
from popdice.sim import SimulatedPico
from popdice.sim.hands import SimulatedHands
from popdice.table.app import TableApp
from popdice.table.journal import Journal
from popdice.table.session import TableSession

UI_TIMEOUT_S = 15.0

pytestmark = pytest.mark.fast_feed


def open_sims(stack: ExitStack, *boards: str) -> tuple[list[Any], dict[str, SimulatedHands]]:
    """Started simulators of ``boards``: their clients, and their hands by board."""
    clients: list[Any] = []
    hands: dict[str, SimulatedHands] = {}
    for board in boards:
        sim = stack.enter_context(SimulatedPico(board))
        hands[board] = SimulatedHands(stack.enter_context(sim.control()), seed=7)
        clients.append(stack.enter_context(connect_when_ready(sim.port)))
    return clients, hands


def lines_with(session: TableSession, text: str) -> int:
    return sum(text in line for line in session.log)


def test_keys_press_the_simulated_dome_and_an_unplugged_popper_comes_back(
    journal: Journal,
) -> None:
    with ExitStack() as stack:
        others = simulated_ports()  # the other tests' simulators: never to be probed
        (popper,), hands = open_sims(stack, "popper")
        session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
        app = TableApp(session, simulated=True, hands=hands, avoid_ports=others)

        async def play() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("f2")
                await wait_until(pilot, lambda: lines_with(session, "popped:") == 1, UI_TIMEOUT_S)
                rolls = [e for e in journal.entries(session.game_id) if e.kind == "roll"]
                assert len(rolls) == 1
                await command(pilot, "ringer ann 4")
                assert session.referee.wants_roll()

                hands["popper"].control.unplug()
                await wait_until(pilot, lambda: "popper" in session.missing, UI_TIMEOUT_S)
                gone = f"the popper is gone ({popper.link.port} was unplugged): waiting for it"
                assert lines_with(session, gone) == 1, session.log[-3:]
                await command(pilot, "reroll bob")
                assert session.log[-1].endswith("(device_missing)")

                hands["popper"].control.plug()
                await wait_until(pilot, lambda: "popper" not in session.missing, UI_TIMEOUT_S)
                assert lines_with(session, "the popper is back") == 1
                back = session.popper
                assert back is not None and back is not popper, "a client on the rebooted popper"
                assert back.set_mode("ringer") == "ringer"
                await pilot.press("f2")
                await wait_until(pilot, lambda: lines_with(session, "popped:") == 2, UI_TIMEOUT_S)

        asyncio.run(play())
        assert app.watches and all(watch.stopped for watch in app.watches.values())
        if session.popper is not None and session.popper is not popper:
            session.popper.close()


def test_keys_push_the_simulated_handheld_buttons_in_lowdown(journal: Journal) -> None:
    with ExitStack() as stack:
        others = simulated_ports()
        (popper, handheld), hands = open_sims(stack, "popper", "handheld")
        session = TableSession.start(
            journal,
            "lowdown",
            ["Ann", "Bob"],
            popper,
            handheld,
        )
        app = TableApp(session, simulated=True, hands=hands, avoid_ports=others)

        async def play() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("f2")
                await wait_until(pilot, lambda: lines_with(session, "popped:") == 1, UI_TIMEOUT_S)
                await pilot.press("f3")
                await wait_until(
                    pilot, lambda: lines_with(session, "rolled the hidden dice") == 1, UI_TIMEOUT_S
                )
                assert not any("the hidden dice:" in line for line in session.log)
                await pilot.press("f4")  # the holder's REVEAL, which Ann did not ask for
                await wait_until(pilot, lambda: lines_with(session, "void") == 1, UI_TIMEOUT_S)
                assert "were shown without Ann choosing them" in session.log[-1]
                assert session.log[-1].endswith("Bob, press ROLL for a new pair")
                reveals = [e for e in journal.entries(session.game_id) if e.kind == "reveal"]
                assert [(e.data["by"], e.data["asked"]) for e in reveals] == [("button", False)]
                assert session.referee.status() == "pass the handheld to Bob, press ROLL"

                await pilot.press("f3")  # Bob rolls a new pair
                await wait_until(
                    pilot, lambda: lines_with(session, "rolled the hidden dice") == 2, UI_TIMEOUT_S
                )
                await command(pilot, "reveal")  # Ann chooses it: the table asks the handheld
                await wait_until(
                    pilot, lambda: lines_with(session, "Ann must use them") == 1, UI_TIMEOUT_S
                )
                reveals = [e for e in journal.entries(session.game_id) if e.kind == "reveal"]
                assert [(e.data["by"], e.data["asked"]) for e in reveals][1:] == [("host", True)]

        asyncio.run(play())
        assert app.watches and all(watch.stopped for watch in app.watches.values())
