"""SimulatedPico: the unchanged firmware as a board on a pty, on one of two backends.

- ``unix`` (the default): the MicroPython unix port, with stand-ins for ``machine``,
  ``neopixel`` and ``rp2`` (fast: every test runs here);
- ``rp2040``: MicroPython's own image for the Pico in an emulated RP2040 (rp2040js), with
  models of the parts on its pins (the closest thing to a board: its figures count).

``start()`` lays out the simulated flash, opens the serial port and starts the board; a
thread of the creating process supervises it from then on (reboots, the control channel)
until ``stop()``. ``port`` is what a host opens with ``serial.Serial(port)``;
``control_path`` is for ``SimControl``; both backends serve the same control operations.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import re
import secrets
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path

from ..deploy.unix_port import find_micropython
from ..devices import sim_registry
from ..errors import PopdiceError, SimulatorError
from ..files import write_replacing
from . import wiring
from .board_core import BoardCore, SimPaths
from .control import SimControl
from .core import SimCore
from .events import OutputRing

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
BACKENDS = ("unix", "rp2040")
_running: weakref.WeakSet[SimulatedPico] = weakref.WeakSet()


def host_problem() -> str | None:
    """Why this computer cannot run a simulated Pico at all, or None."""
    if sys.platform == "win32":
        return (
            "the simulated Pico needs a pty and the MicroPython unix port, and Windows has "
            "neither: run it in WSL, or on Linux or macOS"
        )
    return None


class SimulatedPico:
    def __init__(
        self,
        kind: str,
        device_id: str | None = None,
        flash_dir: str | os.PathLike[str] | None = None,
        hold: Iterable[str] = (),
        micropython: str | None = None,
        backend: str = "unix",
        base_image: str | os.PathLike[str] | None = None,
    ) -> None:
        self.kind = wiring.check_kind(kind)
        if backend not in BACKENDS:
            raise SimulatorError(f"unknown simulator backend {backend!r} (unix or rp2040)")
        problem = host_problem()
        if problem is not None:
            raise SimulatorError(problem)
        self._micropython = find_micropython(micropython) if backend == "unix" else ""
        self.backend = backend
        self._base_image = base_image
        device_id = secrets.token_hex(8) if device_id is None else device_id.lower()
        if not re.fullmatch(r"[0-9a-f]{16}", device_id):
            raise SimulatorError(f"device id {device_id!r} is not 16 hex digits")
        self.device_id = device_id
        self.hold = tuple(hold)
        for button in self.hold:
            wiring.button_pin(kind, button)
        self._explicit_flash = Path(flash_dir) if flash_dir is not None else None
        runtime = sim_registry.runtime_dir()
        self._sim_dir = runtime / sim_registry.sim_name(kind, device_id)
        self.port = str(runtime / f"tty-{kind}-{device_id}")
        self.control_path = str(self._sim_dir / sim_registry.CONTROL_SOCKET)
        self._hardware_path = str(self._sim_dir / sim_registry.HARDWARE_SOCKET)
        for path in (self.control_path, self._hardware_path):
            if len(path.encode()) > sim_registry.SOCKET_PATH_MAX:
                raise SimulatorError(
                    f"socket path too long for a Unix socket: {path} "
                    f"(set {sim_registry.SIM_DIR_ENV} to a shorter folder)"
                )
        self.flash_dir: Path | None = self._explicit_flash
        self._own_flash = False
        self._output = OutputRing()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._core: BoardCore | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle

    def start(self) -> SimulatedPico:
        """Returns once the firmware process has been spawned."""
        if self._thread is not None:
            raise SimulatorError("this simulator is already running")
        micropython = self._micropython
        if self.backend == "rp2040":
            _check_emulator()
        other = sim_registry.find(self.kind, self.device_id)
        if other is not None:
            raise SimulatorError(
                f"a simulated {self.kind} {self.device_id} is already running (pid {other.pid})"
            )
        flash = self._prepare_flash()
        self._sim_dir.mkdir(mode=0o700, exist_ok=True)
        paths = SimPaths(
            flash=flash,
            port_link=Path(self.port),
            control=Path(self.control_path),
            hardware=Path(self._hardware_path),
        )
        started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._supervise,
            args=(paths, micropython, started),
            name=sim_registry.sim_name(self.kind, self.device_id),
            daemon=True,
        )
        self._thread.start()
        try:
            started.result(START_TIMEOUT_S)
        except BaseException as error:
            self._thread.join(STOP_TIMEOUT_S)
            self._thread = None
            self._cleanup()
            if isinstance(error, SimulatorError):
                raise
            raise SimulatorError(f"the simulator did not start: {error}") from None
        sim_registry.register(
            sim_registry.SimEntry(
                kind=self.kind,
                device_id=self.device_id,
                port=self.port,
                control=self.control_path,
                pid=os.getpid(),
                backend=self.backend,
            )
        )
        _running.add(self)
        return self

    def stop(self) -> None:
        """Kills the firmware, closes the port and the channels, removes what start made."""
        thread, loop, core = self._thread, self._loop, self._core
        if thread is None:
            return
        if loop is not None and core is not None and thread.is_alive():
            future = asyncio.run_coroutine_threadsafe(core.stop(), loop)
            try:
                future.result(STOP_TIMEOUT_S)
            except (concurrent.futures.TimeoutError, RuntimeError):
                pass
        thread.join(STOP_TIMEOUT_S)
        self._thread = None
        _running.discard(self)
        sim_registry.unregister(self.kind, self.device_id)
        self._cleanup()

    def __enter__(self) -> SimulatedPico:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def control(self, timeout: float = 5.0) -> SimControl:
        """A new client of this simulator's control channel (close it when done)."""
        return SimControl(self.control_path, timeout)

    def flash_files(self) -> dict[str, bytes]:
        """What the board's filesystem holds now (path -> contents), on either backend."""
        folder = self.flash_dir
        if folder is None:
            raise SimulatorError("this simulator has no flash (it is not running)")
        if self.backend == "unix":
            return {
                p.relative_to(folder).as_posix(): p.read_bytes()
                for p in sorted(folder.rglob("*"))
                if p.is_file()
            }
        from ..deploy.base_image import load_base
        from ..deploy.board_image import read_filesystem
        from .rp2040.core import FLASH_FILE

        base = load_base(self._base_image)
        image = (folder / FLASH_FILE).read_bytes()
        return read_filesystem(image[base.fs_offset : base.fs_offset + base.fs_size])

    def output(self) -> str:
        """The firmware's stderr across every boot (also after stop: for test reports)."""
        return self._output.text()

    # --- inside

    def _prepare_flash(self) -> Path:
        if self._explicit_flash is None:
            self.flash_dir = Path(tempfile.mkdtemp(prefix=f"popdice-{self.kind}-flash-"))
            self._own_flash = True
        else:
            self.flash_dir = self._explicit_flash
            self.flash_dir.mkdir(parents=True, exist_ok=True)
        try:
            if self.backend == "rp2040":
                self._prepare_rp2040_flash(self.flash_dir)
            elif not (self.flash_dir / "main.py").exists():
                from ..deploy.files import install_tree

                install_tree(self.kind, self.flash_dir)
        except (PopdiceError, OSError) as error:
            self._cleanup()
            raise SimulatorError(f"cannot lay out the simulated flash: {error}") from None
        return self.flash_dir

    def _prepare_rp2040_flash(self, folder: Path) -> None:
        """The emulated chip's flash (``flash.bin``): the board's UF2 image, when not there."""
        from ..deploy.base_image import load_base
        from ..deploy.board_image import board_flash
        from .rp2040.core import FLASH_FILE

        target = folder / FLASH_FILE
        if target.exists():
            return
        image = board_flash(self.kind, load_base(self._base_image), sim_registry.runtime_dir())
        write_replacing(target, image)

    def _supervise(
        self, paths: SimPaths, micropython: str, started: concurrent.futures.Future[None]
    ) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            core = loop.run_until_complete(self._start_core(paths, micropython))
        except BaseException as error:
            started.set_exception(error)
            loop.close()
            self._loop = None
            return
        self._core = core
        started.set_result(None)
        try:
            loop.run_until_complete(core.stopped.wait())
            leftovers = asyncio.all_tasks(loop)
            for task in leftovers:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            self._loop = None
            loop.close()

    async def _start_core(self, paths: SimPaths, micropython: str) -> BoardCore:
        if self.backend == "rp2040":
            from .rp2040.core import Rp2040Core

            core: BoardCore = Rp2040Core(self.kind, self.device_id, paths, self.hold, self._output)
        else:
            core = SimCore(self.kind, self.device_id, paths, micropython, self.hold, self._output)
        await core.start()
        return core

    def _cleanup(self) -> None:
        shutil.rmtree(self._sim_dir, ignore_errors=True)
        if self._own_flash and self.flash_dir is not None:
            shutil.rmtree(self.flash_dir, ignore_errors=True)
            self.flash_dir = None
            self._own_flash = False


def _check_emulator() -> None:
    """Node, rp2040js and the bootrom are there, or one line saying what is missing."""
    from .rp2040 import tools

    tools.node_executable()
    tools.rp2040js_dir()
    tools.bootrom()


@atexit.register
def _stop_all() -> None:
    for sim in list(_running):
        sim.stop()
