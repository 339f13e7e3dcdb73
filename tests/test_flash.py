"""`popdice flash` checks the board before writing and what it wrote after: a MicroPython
too old (or loading another .mpy version), or a board running the other kind's firmware, is
refused in one line, and a file that reached the board damaged is found by its SHA-256. A
port that keeps sending, or says nothing, fails by a deadline, and nothing but the
command's own output reaches standard output."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath

import pytest
from mpremote.transport import Transport
from mpremote.transport_serial import SerialTransport

import popdice
from popdice.cli.main import main
from popdice.deploy import files, flash
from popdice.deploy.files import FlashFile

CHATTER_S = 30.0  # how long the chattering port sends: far past the deadline the test sets


@pytest.fixture
def simulated_popper(popper_dut):
    if popper_dut.sim is None:
        pytest.skip("fakes the board's answers on the simulator")
    popper_dut.release()
    return popper_dut


@pytest.fixture
def silent_port() -> Iterator[str]:
    """A socket:// port that takes what it is sent and answers nothing."""
    with socket.create_server(("127.0.0.1", 0)) as server:  # the kernel accepts for it
        yield f"socket://127.0.0.1:{server.getsockname()[1]}"


@pytest.fixture
def chattering_port() -> Iterator[str]:
    """A socket:// port that sends bytes without end (for ``CHATTER_S`` at most), as a board
    printing in a loop does, or one heard at the wrong baud rate."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    end = time.monotonic() + CHATTER_S

    def chatter() -> None:
        while not stop.is_set() and time.monotonic() < end:
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection, contextlib.suppress(OSError):
                connection.settimeout(CHATTER_S)  # sends block while the reader is behind
                while not stop.is_set() and time.monotonic() < end:
                    connection.sendall(b"x" * 64)

    thread = threading.Thread(target=chatter, daemon=True)
    thread.start()
    yield f"socket://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(5)
    server.close()


def flash_it(port: str, capsys, board: str = "popper") -> tuple[int, str]:
    code = main(["flash", "--port", port, "--board", board])
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


def test_a_port_that_keeps_sending_fails_by_the_deadline(chattering_port, monkeypatch, capsys):
    monkeypatch.setattr(flash, "STEP_S", 1.0)
    code = main(["flash", "--port", chattering_port, "--board", "popper", "--source"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "kept sending but did not finish entering the raw REPL within 1 s" in err


def test_what_mpremote_prints_on_a_silent_port_stays_off_stdout(silent_port, monkeypatch, capsys):
    monkeypatch.setattr(SerialTransport, "read_until", lambda *_, **__: b"")  # as on a timeout
    code = main(["flash", "--port", silent_port, "--board", "popper", "--source"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    assert err == f"error: writing to {silent_port} failed: could not enter raw repl\n"


def test_a_board_running_the_other_kind_is_refused_and_left_running(simulated_popper, capsys):
    code, err = flash_it(simulated_popper.port, capsys, board="handheld")
    assert code == 2 and err.count("\n") == 1, err
    assert "runs the popper firmware; flash it with --board popper, or add --replace" in err
    assert still_runs_its_firmware(simulated_popper.port)


def test_replace_puts_the_other_kind_on_a_board(simulated_popper):
    info = flash.flash(simulated_popper.port, "handheld", replace=True)
    assert info.board == "handheld"


def test_a_board_without_popdice_firmware_takes_either_kind(simulated_popper, capsys):
    with popdice.connect(simulated_popper.port) as client:
        client.enter_repl()  # from here on, a bare MicroPython
    code, err = flash_it(simulated_popper.port, capsys, board="handheld")
    assert code == 0, err
    with popdice.connect(simulated_popper.port) as client:
        assert client.info.board == "handheld"


def test_board_folders_are_slash_separated_on_windows_too(monkeypatch):
    monkeypatch.setattr(files, "Path", PureWindowsPath)  # what Path is on Windows
    nested = [FlashFile(Path("x"), "popdice_fw/sub/deep.mpy"), FlashFile(Path("y"), "main.py")]
    assert files.board_folders(nested) == ["popdice_fw", "popdice_fw/sub"]
