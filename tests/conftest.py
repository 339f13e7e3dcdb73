"""Test-suite set-up: the hardware-in-the-loop fixtures (popper, handheld, --device), and
a fresh table journal for each table test."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from popdice.devices.sim_registry import SIM_DIR_ENV
from popdice.table.journal import Journal

pytest_plugins = ["popdice.hil"]


def pytest_configure(config: pytest.Config) -> None:
    """This run's simulators live in a folder of their own (unless POPDICE_SIM_DIR names
    one): another checkout's or test run's simulators are not listed or probed here, nor
    these there. Each pytest-xdist worker has its own too: the controller's folder is set
    before the workers start, and a worker that listed another's simulators would take them
    for its own."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker or not os.environ.get(SIM_DIR_ENV):
        folder = tempfile.mkdtemp(prefix=f"popdice-sims-{worker or 'main'}-")
        os.environ[SIM_DIR_ENV] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@pytest.fixture()
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Journal]:
    """An empty journal in the test's own folder (``POPDICE_DATA_DIR`` points there)."""
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    with Journal() as opened:
        yield opened
