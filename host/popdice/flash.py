"""`popdice flash`: puts the firmware and a board's pin map onto a board with mpremote.

If PopDice firmware answers on the port, it is asked to free the REPL first (its ``repl``
command: Ctrl-C is off while the link runs). The modules go as bytecode ``.mpy`` compiled
by mpy-cross (``main.py`` stays a source file), old files are removed first so a stale
``.py`` cannot shadow a new ``.mpy``, then a soft reset starts the new firmware and the
handshake confirms it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from .client import connect, connect_when_ready
from .errors import HandshakeFailed, LinkError, PopdiceError
from .firmware import FlashFile, compiled_files, flash_files
from .link import DeviceInfo

Progress = Callable[[int, int, str], None]

_CLEAN_SCRIPT = """
import os
def _rm(p):
    try:
        st = os.stat(p)
    except OSError:
        return
    if st[0] & 0x4000:
        for n in os.listdir(p):
            _rm(p + "/" + n)
        os.rmdir(p)
    else:
        os.remove(p)
for p in ("popdice_fw", "board.py", "board.mpy", "main.py"):
    _rm(p)
del _rm
"""

BOOT_TIMEOUT_S = 10.0


class FlashError(PopdiceError):
    """Writing the firmware to the board failed."""


def free_repl(port: str) -> DeviceInfo | None:
    """Stops PopDice firmware on ``port`` if it runs there; returns what it was."""
    try:
        client = connect(port)
    except HandshakeFailed:
        return None
    info = client.info
    client.enter_repl()
    return info


def write_files(port: str, files: list[FlashFile], progress: Progress | None = None) -> None:
    """Writes ``files`` to the board's flash through its raw REPL, then soft-resets it."""
    try:
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport
    except ImportError as error:  # pragma: no cover - mpremote is a dependency
        raise FlashError(f"mpremote is not installed: {error}") from None
    try:
        transport = SerialTransport(port, baudrate=115200)
    except Exception as error:
        raise FlashError(f"cannot open {port} with mpremote: {error}") from None
    try:
        transport.enter_raw_repl(soft_reset=False)
        transport.exec(_CLEAN_SCRIPT)
        folders = sorted({str(Path(f.target).parent) for f in files} - {"."})
        for folder in folders:
            transport.fs_mkdir(folder)
        for done, item in enumerate(files, start=1):
            transport.fs_writefile(item.target, item.source.read_bytes())
            if progress:
                progress(done, len(files), item.target)
        transport.exit_raw_repl()
        transport.serial.write(b"\x04")  # soft reset: main.py runs the new firmware
    except TransportError as error:
        raise FlashError(f"writing to {port} failed: {error}") from None
    finally:
        transport.close()


def wait_for_firmware(port: str, timeout: float = BOOT_TIMEOUT_S) -> DeviceInfo:
    """Handshakes with the freshly started firmware, retrying while the board boots."""
    try:
        client = connect_when_ready(port, timeout)
    except LinkError as error:
        raise FlashError(f"the new firmware did not answer on {port}: {error}") from None
    info = client.info
    client.close()
    return info


def flash(
    port: str, board: str, *, compile_mpy: bool = True, progress: Progress | None = None
) -> DeviceInfo:
    """Deploys the firmware for ``board`` (popper or handheld) to the board on ``port``."""
    files = flash_files(board)  # checks the board name before touching the port
    free_repl(port)
    with tempfile.TemporaryDirectory(prefix="popdice-flash-") as tmp:
        if compile_mpy:
            files = compiled_files(board, Path(tmp))
        write_files(port, files, progress)
    return wait_for_firmware(port)
