"""The table session against the simulated devices: the popper's pops and rerolls become the
game's dice, and the handheld's committed secret rolls Lowdown's hidden pair."""

from __future__ import annotations

from pathlib import Path

import pytest

from popdice.devices.connect import connect_when_ready
from popdice.devices.handheld import Handheld
from popdice.devices.link import Notice
from popdice.devices.popper import Popper
from popdice.games.lowdown.state import Place
from popdice.sim import SimulatedPico
from popdice.table.journal import Journal
from popdice.table.lowdown_table import LowdownTable
from popdice.table.ringer_table import RingerTable
from popdice.table.session import TableSession


def test_ringer_die_from_the_simulated_popper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    with SimulatedPico("popper") as sim, Journal() as journal:
        popper = connect_when_ready(sim.port)
        assert isinstance(popper, Popper)
        try:
            session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
            assert popper.mode() == "ringer"
            popped = session.press_dome()
            referee = session.referee
            assert isinstance(referee, RingerTable)
            assert popped is not None and popped.accepted and referee.die in range(1, 7)
            rerolled = session.reroll(0)
            assert rerolled.accepted and rerolled.text.startswith("popped:")
            later = []
            while (notice := popper.next_event(0.5)) is not None:
                later.append(session.take_notice(notice))
            assert later and all(outcome is None for outcome in later)  # repeats and mode
            rolls = [e for e in journal.entries(session.game_id) if e.kind == "roll"]
            assert len(rolls) == 2  # the pop events repeating the replies were taken once
        finally:
            popper.close()


def test_lowdown_dice_from_the_simulated_popper_and_handheld(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    with (
        SimulatedPico("popper") as popper_sim,
        SimulatedPico("handheld") as handheld_sim,
        Journal() as journal,
    ):
        popper = connect_when_ready(popper_sim.port)
        handheld = connect_when_ready(handheld_sim.port)
        assert isinstance(popper, Popper) and isinstance(handheld, Handheld)
        try:
            session = TableSession.start(journal, "lowdown", ["Ann", "Bob"], popper, handheld)
            referee = session.referee
            assert isinstance(referee, LowdownTable) and popper.mode() == "lowdown"
            popped, rolled = session.press_dome(), session.roll_hidden()
            assert popped is not None and popped.accepted
            assert rolled is not None and rolled.accepted and referee.hidden is None
            state = referee.state
            assert len(state.own_numbers) == 2 and len(state.own_colors) == 2
            place = next(a for a in state.legal_actions(0) if isinstance(a, Place) and not a.wild)
            numbers, colors = state.offered_dice(0)
            assert place.color is not None
            move = {
                "type": "write",
                "seat": 0,
                "number": numbers[place.number],
                "color": colors[place.color],
                "grid": place.grid,
                "row": place.row,
                "col": place.col,
            }
            assert session.move(move).accepted
            assert referee.hidden is not None  # revealed, and checked against its commitment
            assert session.log[-1].startswith("the hidden dice: ")
            later = [session.take_notice(n) for n in events(popper)]
            later += [session.take_handheld_notice(n) for n in events(handheld)]
            assert later and all(outcome is None for outcome in later)  # taken once
            kinds = [entry.kind for entry in journal.entries(session.game_id)]
            assert [kinds.count(kind) for kind in ("roll", "secret", "reveal")] == [1, 1, 1]
        finally:
            popper.close()
            handheld.close()


def events(device: Popper | Handheld) -> list[Notice]:
    found = []
    while (notice := device.next_event(0.5)) is not None:
        found.append(notice)
    return found
