"""`popdice flash`: puts the firmware and a board's pin map onto a board with mpremote.

If PopDice firmware answers on the port, it is asked to free the REPL first (its ``repl``
command: Ctrl-C is off while the link runs). The modules go as bytecode ``.mpy`` compiled
by mpy-cross (``main.py`` stays a source file). A board whose MicroPython is older than the
firmware needs, or that loads another .mpy version, is refused before anything is written.
Old files are removed first so a stale ``.py`` cannot shadow a new ``.mpy``; after writing,
the board hashes every file (SHA-256) and each must match what was sent. Then a soft reset
starts the new firmware and the handshake confirms it. A board running the other kind's
firmware is refused unless asked to replace it.

Every step that talks to the board has a deadline, checked on each read and write of the
port: mpremote's own timeouts only run while nothing arrives, so a board that keeps sending
(a program printing without end, the wrong baud rate) would hold it for ever.

mpremote is driven through its ``SerialTransport`` (raw REPL, ``fs_writefile``), which is
not its documented interface: pyproject.toml pins mpremote to the version this was tested
with.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import serial

from ..devices.connect import connect, connect_when_ready
from ..devices.link import DeviceInfo
from ..errors import HandshakeFailed, LinkError, PopdiceError
from .files import (
    MPY_ARCH_NUMBER,
    OLDEST_MICROPYTHON,
    FlashFile,
    board_folders,
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
STEP_S = 10.0  # the longest a step that talks to the board may take, besides the bytes it moves
SLOWEST_BYTES_PER_S = 1000  # a step moving more bytes may take this much longer


class FlashError(PopdiceError):
    """Writing the firmware to the board failed."""


class StepTimeout(FlashError):
    """A step of the flash did not finish by its deadline."""


class BoundedSerial:
    """A serial port whose reads and writes end by the deadline of the step under way, for
    mpremote's ``SerialTransport``; past it, they raise ``StepTimeout``."""

    def __init__(self, port: Any, name: str) -> None:  # pyserial's port for the URL
        self.port = port
        self.name = name
        self.begin("opening the port")

    def begin(self, step: str, size: int = 0) -> None:
        """Starts ``step``, which moves about ``size`` bytes: its deadline starts now."""
        self.step = step
        self.seconds = STEP_S + size / SLOWEST_BYTES_PER_S
        self.deadline = time.monotonic() + self.seconds
        self.heard_at = float("-inf")  # when a byte last came

    def left(self) -> float:
        """Seconds until the deadline; raises ``StepTimeout`` once it has passed."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.timed_out()
        return left

    def timed_out(self) -> StepTimeout:
        if time.monotonic() - self.heard_at < 1:
            return StepTimeout(
                f"{self.name} kept sending but did not finish {self.step} within "
                f"{self.seconds:g} s: is a program printing without end, or is the baud rate "
                "not 115200?"
            )
        return StepTimeout(
            f"{self.name} stopped answering: {self.step} took over {self.seconds:g} s"
        )

    def inWaiting(self) -> int:
        self.left()
        return self.port.in_waiting

    def read(self, size: int = 1) -> bytes:
        left = self.left()
        if self.port.in_waiting < size:
            self.port.timeout = left
        data = self.port.read(size)
        if data:
            self.heard_at = time.monotonic()
        if len(data) < size:
            self.left()
        return data

    def write(self, data: bytes) -> int | None:
        self.port.write_timeout = self.left()
        try:
            return self.port.write(data)
        except serial.SerialTimeoutException:
            raise self.timed_out() from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.port, name)


def free_repl(port: str, board: str, replace: bool = False) -> DeviceInfo | None:
    """Stops PopDice firmware on ``port`` if it runs there; returns what it was. Firmware of
    a kind other than ``board`` is left running and refused, unless ``replace``."""
    try:
        client = connect(port)
    except HandshakeFailed:
        return None
    info = client.info
    if info.board != board and not replace:
        client.close()
        raise FlashError(
            f"the board on {port} runs the {info.board} firmware; flash it with --board "
            f"{info.board}, or add --replace to put the {board} on it"
        )
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
    bounded = BoundedSerial(transport.serial, port)
    transport.serial = bounded
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what puzzled it
            deploy(transport, bounded, files, progress, sources)
    except TransportError as error:
        raise FlashError(f"writing to {port} failed: {error}") from None
    finally:
        transport.serial = bounded.port
        transport.close()


def deploy(
    transport: SerialTransport,
    bounded: BoundedSerial,
    files: list[FlashFile],
    progress: Progress | None,
    sources: list[FlashFile] | None,
) -> None:
    """``write_files``' steps, each begun on ``bounded``, the port under ``transport``."""
    port = bounded.name
    bounded.begin("entering the raw REPL")
    transport.enter_raw_repl(soft_reset=False)
    bounded.begin("asking which MicroPython it runs")
    answer = transport.exec(_VERSION_SCRIPT).decode(errors="replace")
    try:
        arch = check_micropython(port, answer, files)
    except FlashError:
        bounded.begin("restarting it")
        soft_reset(transport)  # the board runs what it ran
        raise
    if arch not in (0, MPY_ARCH_NUMBER) and sources is not None:
        files = for_machine(files, sources)
    bounded.begin("removing the old firmware")
    transport.exec(_CLEAN_SCRIPT)
    for folder in board_folders(files):
        bounded.begin(f"making the folder {folder}")
        transport.fs_mkdir(folder)
    for done, item in enumerate(files, start=1):
        data = item.source.read_bytes()
        bounded.begin(f"writing {item.target}", len(data))
        transport.fs_writefile(item.target, data)
        if progress:
            progress(done, len(files), item.target)
    bounded.begin("checking what was written", sum(item.source.stat().st_size for item in files))
    verify(port, transport, files)
    bounded.begin("starting the new firmware")
    soft_reset(transport)


def soft_reset(transport: SerialTransport) -> None:
    """Leaves the raw REPL and soft-resets the board: ``main.py`` runs."""
    transport.exit_raw_repl()
    transport.serial.write(b"\x04")


def for_machine(files: list[FlashFile], sources: list[FlashFile]) -> list[FlashFile]:
    """``files`` with every compiled module that holds native code swapped for its source:
    for a board that runs another machine's code."""
    by_stem = {item.target.rsplit(".", 1)[0]: item for item in sources}
    out = []
    for item in files:
        native = item.target.endswith(".mpy") and native_arch(item.source.read_bytes()[:3])
        out.append(by_stem[item.target.rsplit(".", 1)[0]] if native else item)
    return out


def check_micropython(port: str, answer: str, files: list[FlashFile]) -> int:
    """Refuses a board whose MicroPython is older than the firmware needs, or that cannot
    load the .mpy files among ``files``; ``answer`` is what it printed for
    ``_VERSION_SCRIPT``. Returns the machine its native code is for (as a .mpy names it; 0
    if it does not say)."""
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
    port: str,
    board: str,
    *,
    compile_mpy: bool = True,
    progress: Progress | None = None,
    replace: bool = False,
) -> DeviceInfo:
    """Deploys the firmware for ``board`` (popper or handheld) to the board on ``port``; one
    running the other kind's firmware only if ``replace``."""
    sources = flash_files(board)  # checks the board name before touching the port
    free_repl(port, board, replace)
    with tempfile.TemporaryDirectory(prefix="popdice-flash-") as tmp:
        files = compiled_files(board, Path(tmp)) if compile_mpy else sources
        write_files(port, files, progress, sources)
    return wait_for_firmware(port)
