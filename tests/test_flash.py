"""`popdice flash` checks the board before writing and what it wrote after: a MicroPython
too old (or loading another .mpy version) is refused in one line, and a file that reached
the board damaged is found by its SHA-256."""

from __future__ import annotations

import pytest
from mpremote.transport import Transport

import popdice
from popdice.cli.main import main
from popdice.deploy import flash


@pytest.fixture
def simulated_popper(popper_dut):
    if popper_dut.sim is None:
        pytest.skip("fakes the board's answers on the simulator")
    popper_dut.release()
    return popper_dut


def flash_it(port: str, capsys) -> tuple[int, str]:
    code = main(["flash", "--port", port, "--board", "popper"])
    return code, capsys.readouterr().err


def still_runs_its_firmware(port: str) -> bool:
    with popdice.connect(port) as client:
        return client.counter() == 1


def test_an_old_micropython_is_refused_naming_both_versions(simulated_popper, monkeypatch, capsys):
    monkeypatch.setattr(flash, "_VERSION_SCRIPT", "print((1, 22, 2), 6)")
    written = []
    monkeypatch.setattr(Transport, "fs_writefile", lambda *args, **_: written.append(args))
    code, err = flash_it(simulated_popper.port, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "runs MicroPython 1.22.2: the firmware needs 1.23 or newer" in err
    assert written == []
    assert still_runs_its_firmware(simulated_popper.port)


def test_a_board_loading_another_mpy_version_is_refused(simulated_popper, monkeypatch, capsys):
    monkeypatch.setattr(flash, "_VERSION_SCRIPT", "print((2, 0, 0), 7)")
    code, err = flash_it(simulated_popper.port, capsys)
    assert code == 2 and "loads .mpy version 7, not 6: flash it with --source" in err
    assert still_runs_its_firmware(simulated_popper.port)


def test_a_file_damaged_on_the_way_is_found(simulated_popper, monkeypatch, capsys):
    write = Transport.fs_writefile

    def damaging(self, dest, data, *args, **kwargs):
        if dest == "popdice_fw/link.mpy":
            data = data[:-1] + bytes([data[-1] ^ 1])
        return write(self, dest, data, *args, **kwargs)

    monkeypatch.setattr(Transport, "fs_writefile", damaging)
    code, err = flash_it(simulated_popper.port, capsys)
    last = err.splitlines()[-1]  # after the progress bar's lines
    assert code == 2 and last.startswith("error: "), err
    assert "popdice_fw/link.mpy on the board is not what was written" in last
