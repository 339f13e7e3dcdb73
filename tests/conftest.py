"""Test-suite set-up: the hardware-in-the-loop fixtures (popper, handheld, --device), and
a fresh table journal for each table test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from popdice.table.journal import Journal

pytest_plugins = ["popdice.hil"]


@pytest.fixture()
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Journal]:
    """An empty journal in the test's own folder (``POPDICE_DATA_DIR`` points there)."""
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path))
    with Journal() as opened:
        yield opened
