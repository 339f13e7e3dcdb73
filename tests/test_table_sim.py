"""The table session against the simulated popper: its pops and rerolls become the game's die."""

from __future__ import annotations

from pathlib import Path

import pytest

from popdice.client import connect_when_ready
from popdice.popper import Popper
from popdice.sim import SimulatedPico
from popdice.table.journal import Journal
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
