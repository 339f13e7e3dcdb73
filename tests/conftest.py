"""Test-suite set-up: the hardware-in-the-loop fixtures (popper, handheld, --device), a
folder of simulators for each worker and one of MicroPython results for the run, the
``fast_feed`` mark, and a fresh table journal for each table test."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from upy_run import RESULTS_ENV

from popdice.devices.sim_registry import SIM_DIR_ENV
from popdice.sim.core import FEED_ENV
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
    if not hasattr(config, "workerinput"):  # the run itself, not one of its xdist workers
        results = tempfile.mkdtemp(prefix="popdice-upy-results-")
        os.environ[RESULTS_ENV] = results
        config.add_cleanup(lambda: shutil.rmtree(results, ignore_errors=True))
    config.addinivalue_line(
        "markers",
        "fast_feed: the simulated accelerometers started in the test take fed samples four "
        "times faster than their ODR (the test needs what is detected, not when)",
    )
    config.addinivalue_line(
        "markers",
        "runs_long: among the longest tests (tens of seconds): started first, so that none "
        "is left to run alone at the end of a run on several workers",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist's ``load`` schedule, the ``runs_long`` tests first, the others in their
    order: it hands the first tests out one to a worker in turn, so each worker starts on a
    long one while the short ones fill in around them (the longest-first rule). The
    ``worksteal`` schedule gives each worker a stretch of the list, which would put them all
    on one."""
    if config.getoption("dist", "no") == "load":
        items.sort(key=lambda item: item.get_closest_marker("runs_long") is None)


@pytest.fixture(autouse=True)
def _fast_feed(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the ``fast_feed`` mark, simulators started from here on (and the ``--sim``
    commands the test runs with this environment) feed fast; autouse fixtures come first, so
    the ``popper`` fixtures' simulators do too."""
    if request.node.get_closest_marker("fast_feed") is not None:
        monkeypatch.setenv(FEED_ENV, "fast")


@pytest.fixture()
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Journal]:
    """An empty journal in the test's own folder (``POPDICE_DATA_DIR`` points there)."""
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    with Journal() as opened:
        yield opened
