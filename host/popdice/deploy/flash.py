"""`popdice flash`: puts the firmware and a board's pin map onto a board with mpremote.

If PopDice firmware answers on the port, it is asked to free the REPL first (its ``repl``
command: Ctrl-C is off while the link runs). The modules go as bytecode ``.mpy`` compiled
by mpy-cross (``main.py`` stays a source file). A board whose MicroPython is older than the
firmware needs, or that loads another .mpy version, is refused before anything is written.
Old files are removed first so a stale ``.py`` cannot shadow a new ``.mpy``; after writing,
the board hashes every file (SHA-256) and each must match what was sent. Then a soft reset
starts the new firmware and the handshake confirms it.

mpremote is driven through its ``SerialTransport`` (raw REPL, ``fs_writefile``), which is
not its documented interface: pyproject.toml pins mpremote to the version this was tested
with.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..devices.connect import connect, connect_when_ready
from ..devices.link import DeviceInfo
from ..errors import HandshakeFailed, LinkError, PopdiceError
from .files import (
    MPY_ARCH_NUMBER,
    OLDEST_MICROPYTHON,
    FlashFile,
    compiled_files,
    flash_files,
    native_arch,
    oldest_micropython,
)

if TYPE_CHECKING:
    from mpremote.transport_serial import SerialTransport

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

_VERSION_SCRIPT = """
import sys
print(sys.implementation.version[:3], getattr(sys.implementation, "_mpy", 0))
"""

_HASH_SCRIPT = """
import binascii, hashlib
def _sha(p):
    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    with open(p, "rb") as f:
        while True:
            n = f.readinto(b)
            if not n:
                return binascii.hexlify(h.digest()).decode()
            h.update(m[:n])
for _p in %r:
    try:
        print(_p, _sha(_p))
    except OSError:
        print(_p, "missing")
del _sha
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


def write_files(
    port: str,
    files: list[FlashFile],
    progress: Progress | None = None,
    sources: list[FlashFile] | None = None,
) -> None:
    """Writes ``files`` to the board's flash through its raw REPL, then soft-resets it. A
    board whose machine is not the RP2040's (the simulator's unix port) gets the modules
    with native code from ``sources`` (the same files as source), if given."""
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
        try:
            arch = check_micropython(port, transport, files)
            if arch not in (0, MPY_ARCH_NUMBER) and sources is not None:
                files = for_machine(files, sources)
        except FlashError:
            transport.exit_raw_repl()
            transport.serial.write(b"\x04")  # soft reset: the board runs what it ran
            raise
        transport.exec(_CLEAN_SCRIPT)
        folders = sorted({str(Path(f.target).parent) for f in files} - {"."})
        for folder in folders:
            transport.fs_mkdir(folder)
        for done, item in enumerate(files, start=1):
            transport.fs_writefile(item.target, item.source.read_bytes())
            if progress:
                progress(done, len(files), item.target)
        verify(port, transport, files)
        transport.exit_raw_repl()
        transport.serial.write(b"\x04")  # soft reset: main.py runs the new firmware
    except TransportError as error:
        raise FlashError(f"writing to {port} failed: {error}") from None
    finally:
        transport.close()


def for_machine(files: list[FlashFile], sources: list[FlashFile]) -> list[FlashFile]:
    """``files`` with every compiled module that holds native code swapped for its source:
    for a board that runs another machine's code."""
    by_stem = {item.target.rsplit(".", 1)[0]: item for item in sources}
    out = []
    for item in files:
        native = item.target.endswith(".mpy") and native_arch(item.source.read_bytes()[:3])
        out.append(by_stem[item.target.rsplit(".", 1)[0]] if native else item)
    return out


def check_micropython(port: str, transport: SerialTransport, files: list[FlashFile]) -> int:
    """Refuses a board whose MicroPython is older than the firmware needs, or that cannot
    load the .mpy files among ``files``; ``transport`` is in the raw REPL. Returns the
    machine its native code is for (as a .mpy names it; 0 if it does not say)."""
    answer = transport.exec(_VERSION_SCRIPT).decode(errors="replace")
    found = re.search(r"\((\d+), (\d+), (\d+)\) (\d+)", answer)
    if found is None:
        raise FlashError(f"{port} did not say which MicroPython it runs: {answer.strip()!r}")
    version = tuple(int(found[n]) for n in (1, 2, 3))
    running = ".".join(map(str, version))
    if version[:2] < OLDEST_MICROPYTHON:
        raise FlashError(
            f"{port} runs MicroPython {running}: the firmware needs {oldest_micropython()} or "
            "newer (update MicroPython on the board first)"
        )
    mpy = int(found[4])
    loads = mpy & 0xFF
    made = {f.source.read_bytes()[1] for f in files if f.target.endswith(".mpy")}
    if loads and made and made != {loads}:
        raise FlashError(
            f"{port} runs MicroPython {running}, which loads .mpy version {loads}, not "
            f"{min(made)}: flash it with --source"
        )
    return mpy >> 10


def verify(port: str, transport: SerialTransport, files: list[FlashFile]) -> None:
    """Has the board hash every file in ``files`` and compares with what was sent."""
    targets = [item.target for item in files]
    answer = transport.exec(_HASH_SCRIPT % targets).decode(errors="replace")
    on_board = dict(line.split(" ", 1) for line in answer.splitlines() if " " in line)
    for item in files:
        sent = hashlib.sha256(item.source.read_bytes()).hexdigest()
        got = on_board.get(item.target, "missing")
        if got != sent:
            raise FlashError(
                f"{port}: {item.target} on the board is not what was written "
                f"(SHA-256 {got[:16]}, sent {sent[:16]}): flash again"
            )


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
    sources = flash_files(board)  # checks the board name before touching the port
    free_repl(port)
    with tempfile.TemporaryDirectory(prefix="popdice-flash-") as tmp:
        files = compiled_files(board, Path(tmp)) if compile_mpy else sources
        write_files(port, files, progress, sources)
    return wait_for_firmware(port)
