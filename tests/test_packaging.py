"""The firmware as MicroPython's own tools take it: mip installs a board from its
boards/KIND/package.json onto a simulated Pico, and each board's freeze manifest, read the way
MicroPython's build reads it, freezes exactly the files popdice flash writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import popdice
from popdice.deploy import packaging
from popdice.deploy.files import CHECKOUT, CHECKOUT_DIR, KINDS, flash_files
from popdice.devices.connect import connect_when_ready
from popdice.hil import SIM_BOOT_TIMEOUT_S
from popdice.sim import SimulatedPico
from popdice_fw import VERSION


@pytest.mark.parametrize("kind", KINDS)
def test_each_package_lists_the_files_a_flash_writes(kind):
    package = json.loads(packaging.package_path(kind).read_text())
    assert package["version"] == VERSION
    folder = CHECKOUT.boards / kind
    sources = {target: (folder / source).resolve() for target, source in package["urls"]}
    assert sources == {f.target: f.source for f in flash_files(kind)}
    assert packaging.problems(kind) == []


@pytest.mark.parametrize("kind", KINDS)
def test_each_manifest_freezes_the_files_a_flash_writes(kind):
    frozen, includes = packaging.frozen_files(kind)
    assert {f.target: f.source for f in frozen} == {f.target: f.source for f in flash_files(kind)}
    assert len(frozen) == len(flash_files(kind))
    assert includes == ["$(PORT_DIR)/boards/manifest.py"]  # the port's _boot.py, asyncio...


def test_a_stale_package_or_manifest_is_named(tmp_path, monkeypatch):
    stale = tmp_path / "package.json"
    stale.write_text(packaging.package_text("popper").replace('"main.py", ', '"old.py", '))
    manifest = tmp_path / "manifest.py"
    manifest.write_text(f'package("popdice_fw", base_path="{CHECKOUT_DIR}")\n')
    monkeypatch.setattr(packaging, "package_path", lambda _kind: stale)
    monkeypatch.setattr(packaging, "manifest_path", lambda _kind: manifest)
    assert packaging.problems("popper") == [
        "boards/popper/package.json does not list the firmware: "
        "python -m popdice.deploy.packaging --write",
        "boards/popper/manifest.py does not freeze the files a flash writes",
    ]
    manifest.write_text('freeze("$(MPY_DIR)/lib")\n')
    with pytest.raises(popdice.PopdiceError, match="name 'freeze' is not defined"):
        packaging.frozen_files("popper")


def test_mip_installs_the_popper_on_a_blank_simulated_board(tmp_path):
    blank = tmp_path / "flash"
    blank.mkdir()
    (blank / "main.py").write_text("")  # MicroPython as it comes: the REPL after boot
    mpremote = Path(sys.executable).with_name("mpremote")
    package = packaging.package_path("popper")
    with SimulatedPico("popper", flash_dir=blank) as sim:
        # resume: a soft reset would end the unix port's process
        command = [mpremote, "connect", sim.port, "resume", "mip", "install", "--target", "."]
        result = subprocess.run(
            [*map(str, command), str(package)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stdout + result.stderr
        expected = {f.target: f.source.read_bytes() for f in flash_files("popper")}
        assert sim.flash_files() == expected
        with sim.control() as control:
            control.reset()
        with connect_when_ready(sim.port, SIM_BOOT_TIMEOUT_S) as board:
            assert (board.info.board, board.info.firmware) == ("popper", VERSION)
