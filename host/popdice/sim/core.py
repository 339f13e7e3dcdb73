"""The supervisor's heart, in one asyncio loop: the firmware process and its reboots, the
physical world around the board (cable, buttons, VSYS, motion) and what the board shows.

The control channel (``control_server``) and the hardware side channel (``sidechannel``)
call in here; ``SimulatedPico`` runs it in a thread.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import SimulatorError
from . import protocol, wiring
from .accelfeed import AccelFeeder
from .board_core import BoardCore, SimPaths
from .control_server import ControlServer
from .events import OutputRing
from .port import PtyPort
from .sidechannel import ShimChannel

# The heap of a Pico (docs/rp2040.md). The shims standing in for machine and
# neopixel (in flash on a Pico) take some of it, so the simulator is a little stricter than
# a board, never looser.
HEAP_SIZE = "192K"
SHIMS_DIR = Path(__file__).resolve().parent / "upy"
QUICK_DEATH_S = 1.0  # a process that dies sooner than this counts towards the back-off
QUICK_DEATHS_BEFORE_BACKOFF = 3
MAX_BACKOFF_S = 5.0
STATS_TIMEOUT_S = 2.0
PWRON_RESET = 1  # machine.reset_cause() on an RP2040: power on (or the RUN pin)
WDT_RESET = 3  # ...and after its watchdog reset it
# Set to "fast" (the firmware process inherits it), the simulated LIS3DH takes fed samples
# as fast as the firmware reads them instead of at its ODR (upy/_simhw.py): for tests that
# need what the firmware makes of a trace, not when.
FEED_ENV = "POPDICE_SIM_FEED"


class SimCore(BoardCore):
    """One simulated board: its firmware process, its world, and what it shows."""

    def __init__(
        self,
        kind: str,
        device_id: str,
        paths: SimPaths,
        micropython: str,
        hold: Sequence[str],
        output: OutputRing,
    ) -> None:
        super().__init__(kind, device_id, paths, hold, output)
        self.micropython = micropython
        self._loop = asyncio.get_running_loop()
        self._proc: asyncio.subprocess.Process | None = None
        self._started_at = 0.0
        self._exit_reason: str | None = None
        self._life: asyncio.Task[None] | None = None
        self._spawned = asyncio.Event()
        self._spawn_error: BaseException | None = None
        self._wake_life = asyncio.Event()
        self._stats_requests: dict[int, asyncio.Future[dict[str, Any]]] = {}
        # The RP2040's watchdog, kept here where a hung firmware cannot stop it: its timer,
        # the reset cause the next boot reads (machine.WDT_RESET after it bit) and its
        # scratch registers, which a watchdog reset keeps and a power-on clears.
        self._watchdog: asyncio.TimerHandle | None = None
        self._watchdog_timeout_s = 0.0
        self._reset_cause = PWRON_RESET
        self._scratch = [0, 0, 0, 0]
        self._stats_ids = 0
        self.port = PtyPort(paths.port_link, self._loop)
        self.shim = ShimChannel(paths.hardware, self)
        self.control = ControlServer(paths.control, self)
        self.feeder = AccelFeeder(self.shim.send, self._batch_done)

    # --- lifecycle

    async def start(self) -> None:
        try:
            await self.shim.start()
            await self.control.start()
            await self._power_on()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        await self._power_off("stop")
        self.control.close()
        self.shim.close()
        self.stopped.set()

    async def _power_on(self) -> None:
        self._reset_cause = PWRON_RESET
        self._scratch = [0, 0, 0, 0]
        self.port.open()
        self.plugged = True
        self._spawned.clear()
        self._spawn_error = None
        self._life = asyncio.create_task(self._live())
        await self._spawned.wait()
        if self._spawn_error is not None:
            raise self._spawn_error

    async def _power_off(self, reason: str) -> None:
        self.plugged = False
        self._exit_reason = reason
        self._kill()
        self._wake_life.set()
        if self._life is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._life
            self._life = None
        self.port.close()

    async def _live(self) -> None:
        """Boots the firmware again whenever it ends, while the board has power."""
        quick_deaths = 0
        while self.plugged:
            started = time.monotonic()
            try:
                await self._boot()
            except Exception as error:
                self._spawn_error = SimulatorError(f"cannot start {self.micropython}: {error}")
                self.output.add(f"[sim] {self._spawn_error}\n")
                self._spawned.set()
                return
            if not self.plugged:
                return
            if self._exit_reason == "reset":
                quick_deaths = 0
            elif time.monotonic() - started < QUICK_DEATH_S:
                quick_deaths += 1
            else:
                quick_deaths = 0
            if quick_deaths >= QUICK_DEATHS_BEFORE_BACKOFF:
                backoff = 0.25 * 2 ** (quick_deaths - QUICK_DEATHS_BEFORE_BACKOFF)
                self._wake_life.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake_life.wait(), min(backoff, MAX_BACKOFF_S))

    async def _boot(self) -> None:
        stdin = self.port.connect_input()
        self.boots += 1
        self._exit_reason = None
        try:
            proc = await asyncio.create_subprocess_exec(
                self.micropython,
                "-X",
                f"heapsize={HEAP_SIZE}",
                "-i",
                "main.py",
                stdin=stdin,
                stdout=self.port.master,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.paths.flash,
                env=self._environment(),
                start_new_session=True,  # Ctrl-C in the terminal is for the supervisor
            )
        finally:
            os.close(stdin)
        self._proc = proc
        if not self.plugged:  # unplugged while it was starting
            self._kill()
        self._started_at = time.monotonic()
        self.output.add(f"[sim] boot {self.boots} (pid {proc.pid})\n")
        self.events.emit(protocol.BOOT, boots=self.boots, pid=proc.pid)
        self._spawned.set()
        assert proc.stderr is not None
        collector = asyncio.create_task(self._collect_stderr(proc.stderr))
        code = await proc.wait()
        self._watchdog_off()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(collector, 1.0)
        self._proc = None
        reason = self._exit_reason or ("exited" if code >= 0 else "killed")
        if reason in ("watchdog", "machine.reset()"):  # both the watchdog's reset on an RP2040
            self._reset_cause = WDT_RESET
        elif reason != "machine.soft_reset()":
            self._reset_cause = PWRON_RESET
            self._scratch = [0, 0, 0, 0]
        uptime = round(time.monotonic() - self._started_at, 3)
        self.port.disconnect_input()
        self.shim.disconnect()
        self.feeder.disconnected("restarted" if self.plugged else "lost power")
        for request in self._stats_requests.values():
            if not request.done():
                request.set_exception(SimulatorError("the firmware restarted"))
        self.output.add(f"[sim] exit {code} ({reason}) after {uptime} s\n")
        self.events.emit(protocol.EXIT, pid=proc.pid, code=code, reason=reason, uptime=uptime)

    def _environment(self) -> dict[str, str]:
        flash = self.paths.flash
        env = dict(os.environ)
        # .frozen holds the unix port's built-in asyncio; it sits where a Pico has it.
        env["MICROPYPATH"] = os.pathsep.join(
            [str(SHIMS_DIR), str(flash), ".frozen", str(flash / "lib")]
        )
        env["POPDICE_SIM_KIND"] = self.kind
        env["POPDICE_SIM_ID"] = self.device_id
        env["POPDICE_SIM_SOCKET"] = str(self.paths.hardware)
        env["POPDICE_SIM_BOOT"] = str(self.boots)
        env["POPDICE_SIM_RESET_CAUSE"] = str(self._reset_cause)
        env["POPDICE_SIM_SCRATCH"] = ",".join(str(word) for word in self._scratch)
        return env

    async def _collect_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode(errors="replace")
            self.output.add(text)
            self.events.emit(protocol.STDERR, text=text.rstrip("\n"))

    def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)

    # --- what the firmware process reports through the shims

    def world_messages(self) -> list[dict[str, Any]]:
        """The physical state a freshly booted firmware finds itself in."""
        messages: list[dict[str, Any]] = [
            {"t": "drive", "pin": wiring.button_pin(self.kind, b), "level": 0}
            for b in sorted(self.pressed)
        ]
        messages.append({"t": "vsys", "volts": self.vsys_volts})
        if self.kind == "popper":
            messages.append({"t": "rest", "g": self.rest_g})
        return messages

    def shim_connected(self) -> None:
        self.feeder.connected()

    def on_shim_message(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "leds":
            self._shows_leds(message["pin"], message["bpp"], base64.b64decode(message["b64"]))
        elif kind == "display":
            state = {k: v for k, v in message.items() if k not in ("t", "b64")}
            self._shows_display({**state, "buffer": message["b64"]})
        elif kind == "pwm":
            self._shows_pwm({k: v for k, v in message.items() if k != "t"})
        elif kind == "pin":
            self.events.emit(protocol.PIN, pin=message["pin"], value=message["value"])
        elif kind == "accel_done":
            self.feeder.chunk_done(message["token"])
        elif kind == "stats":
            request = self._stats_requests.pop(message["id"], None)
            if request is not None and not request.done():
                request.set_result(message.get("accel") or {})
        elif kind == "wdt":
            self._watchdog_off()
            if message["timeout_ms"]:
                self._watchdog_timeout_s = message["timeout_ms"] / 1000
                self._watchdog_on()
        elif kind == "wdt_feed":
            if self._watchdog is not None:
                self._watchdog_off()
                self._watchdog_on()
        elif kind == "scratch":
            self._scratch[message["i"]] = message["v"]
        elif kind == "reset":
            soft = message.get("how") == "soft"
            self._exit_reason = "machine.soft_reset()" if soft else "machine.reset()"
            self._kill()

    def _watchdog_on(self) -> None:
        self._watchdog = asyncio.get_running_loop().call_later(
            self._watchdog_timeout_s, self._watchdog_bites
        )

    def _watchdog_off(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def _watchdog_bites(self) -> None:
        """Not fed in time: the board restarts, as an RP2040's watchdog restarts it."""
        self._watchdog = None
        self._exit_reason = "watchdog"
        self._kill()

    def _batch_done(self, batch: int, samples: int) -> None:
        self.events.emit(protocol.ACCEL_DONE, batch=batch, samples=samples)

    # --- what the control channel asks for

    def _pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _flash_path(self) -> str:
        return str(self.paths.flash)

    def _drive_button(self, pin: int, pressed: bool) -> None:
        self.shim.send({"t": "drive", "pin": pin, "level": 0 if pressed else None})

    def _send_vsys(self, volts: float) -> None:
        self.shim.send({"t": "vsys", "volts": volts})

    def _send_rest(self, vector: list[float]) -> None:
        self.shim.send({"t": "rest", "g": vector})

    async def click(self, button: str, hold_ms: float) -> None:
        self.press(button)
        await asyncio.sleep(max(hold_ms, 0) / 1000)
        self.release(button)

    async def feed_accel(self, samples: Sequence[Sequence[float]], wait: bool) -> int:
        self._need_accelerometer()
        batch = self.feeder.feed(samples, wait)
        if batch.done is not None:
            await batch.done
        return batch.id

    async def unplug(self) -> None:
        if self.plugged:
            await self._power_off("unplug")
            self.events.emit(protocol.PLUG, plugged=False)

    async def plug(self) -> None:
        if not self.plugged:
            self.events.emit(protocol.PLUG, plugged=True)
            await self._power_on()

    async def reset(self) -> None:
        """Reboots the firmware on the same port; returns once the new process runs."""
        if not self.plugged:
            raise SimulatorError("the board is unplugged: it has no power to reset")
        self._spawned.clear()
        self._exit_reason = "reset"
        self._kill()
        self._wake_life.set()
        await self._spawned.wait()

    async def accel_stats(self) -> dict[str, Any]:
        self._need_accelerometer()
        if not self.shim.connected:
            raise SimulatorError("the firmware is not running (no simulator connection)")
        self._stats_ids += 1
        request_id = self._stats_ids
        request: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._stats_requests[request_id] = request
        self.shim.send({"t": "stats", "id": request_id})
        try:
            stats = await asyncio.wait_for(request, STATS_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise SimulatorError(
                "the firmware did not answer: it is not running an asyncio loop "
                "or touching its hardware"
            ) from None
        finally:
            self._stats_requests.pop(request_id, None)
        return {**stats, "pending": self.feeder.pending()}
