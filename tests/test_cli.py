"""The `popdice` command as a user runs it: devices, status, flash, errors, safe mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_device_link import mpremote_exec

import popdice
from popdice.sim.supervisor import SimulatedPico

POPDICE = str(Path(sys.executable).with_name("popdice"))


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([POPDICE, *args], capture_output=True, text=True, timeout=timeout)


def test_help_teaches_every_command():
    out = run("--help").stdout
    for command in ("devices", "status", "flash", "sim", "demo"):
        assert command in out
    assert "examples:" in out


def test_bad_input_is_one_line_and_exit_2():
    result = run("status", "--port", "/dev/nonexistent")
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot open /dev/nonexistent")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    result = run("flash", "--port", "/dev/null", "--board", "toaster")
    assert result.returncode == 2 and "invalid choice: 'toaster'" in result.stderr


def test_devices_and_status_find_a_running_simulator(popper_dut):
    device_id = popper_dut.client.info.device_id
    popper_dut.release()
    listed = json.loads(run("devices", "--json", "--sim-only").stdout)
    mine = [d for d in listed if d["port"] == popper_dut.port]
    assert len(mine) == 1 and mine[0]["kind"] == "popper" and mine[0]["simulated"]
    assert mine[0]["device_id"] == device_id
    text = run("devices", "--sim-only").stdout
    assert f"{popper_dut.port} (simulated)" in text
    status = json.loads(run("status", "--port", popper_dut.port, "--json").stdout)
    assert status["board"] == "popper" and status["heap_free"] > 0


def test_safe_mode_leaves_the_repl_free():
    with SimulatedPico("popper", hold=("mode",)) as sim:
        with pytest.raises(popdice.HandshakeFailed):
            popdice.connect(sim.port)
        assert mpremote_exec(sim.port, "print(6 * 7)") == "42"


def test_flash_deploys_compiled_firmware_and_boots_it(popper_dut):
    control = popper_dut.control
    flash_dir = Path(popper_dut.sim.flash_dir)  # type: ignore[union-attr]
    assert (flash_dir / "popdice_fw" / "link.py").exists()
    boots = control.state().boots
    popper_dut.release()
    result = run("flash", "--port", popper_dut.port, "--board", "popper", timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("flashed: popper")
    assert "[" in result.stderr and "main.py" in result.stderr  # the progress bar
    assert (flash_dir / "popdice_fw" / "link.mpy").exists()
    assert not (flash_dir / "popdice_fw" / "link.py").exists()
    assert (flash_dir / "board.mpy").exists() and (flash_dir / "main.py").exists()
    assert control.state().boots == boots + 1
    with popdice.connect(popper_dut.port) as fresh:
        assert fresh.counter() == 1


def test_demo_runs_the_link_on_simulators_then_points_at_the_table():
    result = subprocess.run(
        [POPDICE, "demo", "--sim", "--table", "ringer"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for kind in ("popper", "handheld"):
        assert f"no real {kind} plugged in: started a simulated one" in out
        assert f"{kind:9} still running" in out
    assert "demo finished" in out
    assert out.strip().endswith('popdice table ringer --sim --players "Ann,Bob,Cy"')


def test_demo_in_a_terminal_starts_the_table_on_simulated_devices(monkeypatch):
    from popdice import cli, demo

    started: list[list[str]] = []
    monkeypatch.setattr(cli, "main", lambda argv: started.append(argv) or 0)
    assert demo.run_table_demo("lowdown", "Ann,Bob", interactive=True) == 0
    assert started == [["table", "lowdown", "--sim", "--players", "Ann,Bob"]]
