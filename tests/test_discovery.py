"""Discovery of real boards: USB 2E8A:0005, then a handshake says which device it is."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from scripted_device import ScriptedDevice

import popdice
from popdice.cli.main import main
from popdice.devices import discovery, sim_registry
from popdice.devices.sim_registry import SIM_DIR_ENV, SimEntry


def fake_ports(*ports):
    return lambda: [SimpleNamespace(device=d, vid=v, pid=p) for d, v, p in ports]


def test_only_micropython_rp2040_ports_are_probed(monkeypatch, popper_dut):
    popper_dut.release()
    monkeypatch.setattr(
        discovery.list_ports,
        "comports",
        fake_ports(
            (popper_dut.port, 0x2E8A, 0x0005),
            ("/dev/ttyUSB9", 0x0403, 0x6001),  # an FTDI adapter: never opened
            ("/dev/ttyACM7", 0x2E8A, 0x000A),  # a Pico running other firmware
        ),
    )
    assert discovery.real_ports() == [popper_dut.port]
    found = discovery.find_devices(simulated=False)
    assert len(found) == 1 and found[0].kind == "popper" and not found[0].simulated
    assert found[0].device_id == popper_dut.sim.device_id  # type: ignore[union-attr]
    assert discovery.find_port("popper", simulated=False) == popper_dut.port
    assert discovery.find_port("handheld", simulated=False) is None


def test_a_board_without_popdice_firmware_is_listed_with_the_problem(monkeypatch, tmp_path):
    silent = tmp_path / "silent"
    silent.write_bytes(b"")
    monkeypatch.setattr(discovery.list_ports, "comports", fake_ports((str(silent), 0x2E8A, 5)))
    found = discovery.find_devices(simulated=False)
    assert len(found) == 1 and found[0].kind == "?" and found[0].problem


@pytest.fixture
def sim_folder(tmp_path, monkeypatch):
    """An empty simulators' folder of this test's own, and no real boards."""
    folder = tmp_path / "sims"
    folder.mkdir()
    monkeypatch.setenv(SIM_DIR_ENV, str(folder))
    monkeypatch.setattr(discovery.list_ports, "comports", fake_ports())
    return folder


def register_scripted(device: ScriptedDevice, folder: Path, kind: str, device_id: str) -> None:
    """Registers ``device`` as a running simulator (this process supervises it)."""
    control = folder / f"control-{device_id}"
    control.write_text("")
    sim_registry.register(SimEntry(kind, device_id, device.port, str(control), os.getpid()))


def test_a_busy_simulator_is_listed_once_as_busy(sim_folder, capsys):
    device = ScriptedDevice()
    try:
        alias = sim_folder / "tty-alias"
        alias.symlink_to(device.port)
        register_scripted(device, sim_folder, "popper", "00000000000000aa")
        control = str(sim_folder / "control-00000000000000aa")
        sim_registry.register(
            SimEntry("popper", "00000000000000bb", str(alias), control, os.getpid())
        )
        with popdice.connect(device.port):  # another program holds the port
            found = discovery.find_devices(real=False)
            assert [(d.kind, d.device_id, d.busy) for d in found] == [
                ("popper", "00000000000000aa", True)
            ]
            assert main(["devices", "--sim-only"]) == 0
            out, err = capsys.readouterr()
            assert err == "" and out.count("\n") == 2  # the header and the one device
            assert re.split(" {2,}", out.splitlines()[1]) == [
                "popper",
                "00000000000000aa",
                "?",
                f"{device.port} (simulated)",
                "busy: held by another program",  # this process: not another program
            ]
            assert main(["status", "--kind", "popper"]) == 2
            assert capsys.readouterr().err == (
                f"error: no free popper: {device.port} is busy, held by another program\n"
            )
        assert discovery.find_port("popper") == device.port  # free again
    finally:
        device.close()


HOLD = """
import fcntl, os, sys, time
port = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
if sys.argv[2] == "lock":
    fcntl.flock(port, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as pyserial's exclusive=True does
print("holding", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="only Linux tells who holds a port")
@pytest.mark.parametrize("lock", ["lock", "no lock"])
def test_a_port_another_program_holds_is_busy_naming_the_program(
    lock: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A board another program has open, with a lock or without one (a terminal program
    reading what the board says, so no handshake comes): busy, held by that program."""
    device, host = os.openpty()
    port = os.ttyname(host)
    os.close(host)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, port, lock], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"holding\n"
        monkeypatch.setattr(discovery, "real_ports", lambda: [port])
        (found,) = discovery.find_devices(simulated=False)
        held = f"held by {Path(sys.executable).name[:15]} (pid {holder.pid})"
        assert (found.port, found.busy, found.problem) == (port, True, f"busy: {held}")
        for argv in (["status", "--kind", "handheld"], ["status"]):
            assert main(argv) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1, err
            assert f"{port} is busy, {held}" in err and "plug one in" not in err
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(30)
        os.close(device)


TABLE_LIKE = """
import sys
from popdice.devices.connect import connect_when_ready
from popdice.sim import SimulatedPico
with SimulatedPico("handheld") as sim, connect_when_ready(sim.port) as client:
    print(sim.port, flush=True)  # as popdice table --sim: its own simulator, and its client
    sys.stdin.readline()
    print(client.status().board, flush=True)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="only Linux tells who holds a port")
def test_a_second_popdice_is_refused_a_port_a_table_holds_naming_the_table() -> None:
    """``popdice table --sim`` both serves its simulated boards and uses them: a second
    ``popdice`` on one of their ports is refused in one line naming the table's process,
    which is not counted out as a mere simulator, and the table's link goes on."""
    table = subprocess.Popen(
        [sys.executable, "-c", TABLE_LIKE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert table.stdin is not None and table.stdout is not None
        port = table.stdout.readline().strip()
        assert port, "the table-like process did not start its handheld"
        held = f"{port} is busy: held by {Path(sys.executable).name[:15]} (pid {table.pid})"
        popdice_cli = str(Path(sys.executable).with_name("popdice"))
        second = subprocess.run(
            [popdice_cli, "status", "--port", port], capture_output=True, text=True, timeout=60
        )
        assert (second.returncode, second.stdout, second.stderr) == (2, "", f"error: {held}\n")
        with pytest.raises(popdice.PortBusy, match=re.escape(held)):
            popdice.connect(port)
        table.stdin.write("go on\n")
        table.stdin.flush()
        assert table.stdout.readline() == "handheld\n"  # the table's own link is untouched
    finally:
        if table.stdin is not None:
            table.stdin.close()
        table.wait(60)


def test_each_checkout_keeps_its_simulators_to_its_own_folder(sim_folder, monkeypatch):
    device = ScriptedDevice()
    try:
        register_scripted(device, sim_folder, "popper", "00000000000000cc")
        assert [sim.device_id for sim in sim_registry.running()] == ["00000000000000cc"]
        monkeypatch.setenv(SIM_DIR_ENV, str(sim_folder.parent / "another-checkout"))
        assert sim_registry.running() == [] and discovery.find_devices() == []
    finally:
        device.close()


def test_devices_are_a_table_under_a_header_and_their_json_is_as_it_was(monkeypatch, capsys):
    found = [
        discovery.FoundDevice("popper", "e6614103e7452d2f", "0.1.0", "/dev/ttyACM0", False),
        discovery.FoundDevice("?", "?", "?", "/dev/ttyACM1", False, "no hello in 0.3 s"),
        discovery.FoundDevice(
            "handheld", "00000000000000bb", "?", "/tmp/tty-h", True, discovery.BUSY, busy=True
        ),
    ]
    monkeypatch.setattr("popdice.cli.devices.find_devices", lambda **_: found)
    assert main(["devices"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "KIND      DEVICE ID         FIRMWARE  PORT                    STATE",
        "popper    e6614103e7452d2f  0.1.0     /dev/ttyACM0            ready",
        "?         ?                 ?         /dev/ttyACM1            no hello in 0.3 s",
        "handheld  00000000000000bb  ?         /tmp/tty-h (simulated)  "
        "busy: held by another program",
    ]
    assert main(["devices", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0] == {
        "kind": "popper",
        "device_id": "e6614103e7452d2f",
        "firmware": "0.1.0",
        "port": "/dev/ttyACM0",
        "simulated": False,
        "problem": "",
        "busy": False,
    }
    assert [device["busy"] for device in listed] == [False, False, True]


def test_this_test_run_has_a_simulators_folder_of_its_own():
    assert os.environ.get(SIM_DIR_ENV)
    assert sim_registry.runtime_dir() != sim_registry.default_dir()


def test_the_simulators_folder_needs_no_user_id(monkeypatch, tmp_path):
    """As on Windows, where os has no getuid."""
    monkeypatch.delenv(SIM_DIR_ENV)
    monkeypatch.setattr(sim_registry, "default_dir", lambda: tmp_path / "runtime" / "popdice")
    monkeypatch.delattr(os, "getuid")
    assert sim_registry.runtime_dir() == tmp_path / "runtime" / "popdice"
    assert sim_registry.running() == []
