"""Discovery of real boards: USB 2E8A:0005, then a handshake says which device it is."""

from __future__ import annotations

from types import SimpleNamespace

from popdice import discovery


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
