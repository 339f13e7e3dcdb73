"""Rp2040Core: one emulated Pico, the rp2040 twin of the unix port's ``SimCore``.

The board runs in a Node process (``js/runner.mjs``: rp2040js, the bootrom, the board's flash
image, the parts on its pins). Here, in the supervisor's asyncio loop: the serial port (a
pty, bridged to the emulated USB CDC with flow control, so a host writing to a board that
does not read is held back as it would be by USB), the physical world (buttons, motion,
VSYS, the cable) and what the board shows (LED frames decoded from the data pin, the
display, the buzzer), all served on the same control channel as the unix-port simulator.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import SimulatorError
from .. import protocol, wiring
from ..accelfeed import check_samples
from ..board_core import BoardCore, SimPaths
from ..control_server import ControlServer
from ..events import OutputRing
from ..port import PtyPort
from . import tools

FLASH_FILE = "flash.bin"
RUNNER_LINE_LIMIT = 16 << 20
RX_CREDIT = 4096  # bytes the host may have on their way to the emulated USB at once
TX_BACKLOG_MAX = 1 << 20  # bytes for a host that does not read, before they are dropped
STOP_TIMEOUT_S = 5.0
BOOT_TIMEOUT_S = 30.0
REPLY_TIMEOUT_S = 10.0
RESTART_BACKOFF_S = 1.0
SERIAL_LOG = 4096


class Rp2040Core(BoardCore):
    """One emulated board: its runner process, its world, and what it shows."""

    def __init__(
        self, kind: str, device_id: str, paths: SimPaths, hold: Sequence[str], output: OutputRing
    ) -> None:
        super().__init__(kind, device_id, paths, hold, output)
        self.serial_log: deque[tuple[str, float, int]] = deque(maxlen=SERIAL_LOG)
        self._loop = asyncio.get_running_loop()
        self._proc: asyncio.subprocess.Process | None = None
        self._life: asyncio.Task[None] | None = None
        self._running = False
        self._booted = asyncio.Event()
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._credit = RX_CREDIT
        self._input_fd: int | None = None
        self._reading_input = False
        self._tx_backlog = bytearray()
        self.tx_dropped = 0
        self.port = PtyPort(paths.port_link, self._loop)
        self.control = ControlServer(paths.control, self)
        self.flash_file = paths.flash / FLASH_FILE

    # --- lifecycle

    async def start(self) -> None:
        try:
            await self.control.start()
            self._connect_port()
            self.plugged = True
            self._running = True
            self._booted.clear()
            self._life = asyncio.create_task(self._live())
            await self._wait_boot()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        self._running = False
        self.plugged = False
        proc = self._proc
        if proc is not None and proc.returncode is None:
            self._send({"op": "stop"})
            try:
                await asyncio.wait_for(proc.wait(), STOP_TIMEOUT_S)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
        if self._life is not None:
            self._life.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._life
            self._life = None
        self._disconnect_port()
        self.control.close()
        self.stopped.set()

    async def _wait_boot(self) -> None:
        try:
            await asyncio.wait_for(self._booted.wait(), BOOT_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise SimulatorError(f"the emulated {self.kind} did not boot") from None

    async def _live(self) -> None:
        """Runs the emulator, and runs it again if it ever dies while the board has power."""
        while self._running:
            try:
                await self._run_emulator()
            except (OSError, SimulatorError) as error:
                self.output.add(f"[rp2040] cannot start the emulator: {error}\n")
                self._fail_replies(SimulatorError(f"cannot start the emulator: {error}"))
                return
            if not self._running:
                return
            await asyncio.sleep(RESTART_BACKOFF_S)

    async def _run_emulator(self) -> None:
        config = self.paths.hardware.parent / "runner.json"
        bootrom = self.paths.hardware.parent / "bootrom.bin"
        bootrom.write_bytes(tools.bootrom())
        config.write_text(json.dumps(self._runner_config(bootrom)))
        node = tools.node_executable()
        proc = await asyncio.create_subprocess_exec(
            str(node),
            str(tools.RUNNER),
            str(config),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=RUNNER_LINE_LIMIT,
            start_new_session=True,
        )
        self._proc = proc
        self._credit = RX_CREDIT
        self._read_host()
        self.output.add(f"[rp2040] emulator started (pid {proc.pid})\n")
        assert proc.stdout is not None and proc.stderr is not None
        errors = asyncio.create_task(self._collect_stderr(proc.stderr))
        with contextlib.suppress(ConnectionError):
            while line := await proc.stdout.readline():
                self._on_runner(json.loads(line))
        code = await proc.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(errors, 1.0)
        self._proc = None
        self._read_host()
        if self._running:
            self.output.add(f"[rp2040] the emulator died (exit {code})\n")
            self.events.emit(protocol.EXIT, pid=proc.pid, code=code, reason="emulator died")
            self._fail_replies(SimulatorError("the emulator died"))

    def _runner_config(self, bootrom: Path) -> dict[str, Any]:
        pins = wiring.BUTTONS[self.kind]
        return {
            "kind": self.kind,
            "flashPath": str(self.flash_file),
            "bootromPath": str(bootrom),
            "rp2040js": str(tools.rp2040js_dir()),
            "deviceId": self.device_id,
            "buttons": pins,
            "pressed": [pins[b] for b in sorted(self.pressed)] if self.plugged else [],
            "int1": wiring.ACCEL_INT1_PIN,
            "ledData": wiring.LED_DATA_PIN,
            "ledCount": wiring.LED_COUNT,
            "buzzer": wiring.BUZZER_PIN,
            "vsysChannel": wiring.VSYS_ADC_CHANNEL,
            "rest": self.rest_g,
            "vsys": self.vsys_volts,
        }

    async def _collect_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode(errors="replace")
            self.output.add(f"[rp2040] {text}")
            self.events.emit(protocol.STDERR, text=text.rstrip("\n"))

    def _send(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            raise SimulatorError("the emulator is not running")
        proc.stdin.write(protocol.encode(message))

    async def _ask(self, op: str, timeout: float = REPLY_TIMEOUT_S, **args: Any) -> dict[str, Any]:
        request_id = next(self._ids)
        reply: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._replies[request_id] = reply
        try:
            self._send({"op": op, "id": request_id, **args})
            return await asyncio.wait_for(reply, timeout)
        except asyncio.TimeoutError:
            raise SimulatorError(f"the emulator did not answer {op!r} in time") from None
        finally:
            self._replies.pop(request_id, None)

    def _fail_replies(self, error: Exception) -> None:
        for reply in self._replies.values():
            if not reply.done():
                reply.set_exception(error)

    # --- what the emulator reports

    def _on_runner(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "tx":
            self.serial_log.extend(("tx", us, n) for us, n in message["times"])
            self._write_to_host(base64.b64decode(message["b64"]))
        elif kind == "rx_taken":
            self.serial_log.extend(("rx", us, n) for us, n in message["times"])
            self._credit += message["n"]
            self._read_host()
        elif kind == "boot":
            self.boots += 1
            self.output.add(f"[rp2040] boot {self.boots}\n")
            self.events.emit(protocol.BOOT, boots=self.boots, pid=self._proc and self._proc.pid)
            self._booted.set()
        elif kind == "reset":
            how = message.get("how")
            reason = "machine.reset()" if how == "watchdog" else str(how)
            self.events.emit(protocol.EXIT, pid=None, code=0, reason=reason, uptime=None)
        elif kind == "leds":
            details = {k: v for k, v in message.items() if k not in ("t", "pin", "bpp", "rgb")}
            self._shows_leds(
                message["pin"], message["bpp"], bytes.fromhex(message["rgb"]), **details
            )
        elif kind == "display":
            self._shows_display({k: v for k, v in message.items() if k != "t"})
        elif kind == "pwm":
            self._shows_pwm({k: v for k, v in message.items() if k != "t"})
        elif kind == "accel_done":
            data = {k: v for k, v in message.items() if k not in ("t", "id")}
            self.events.emit(protocol.ACCEL_DONE, batch=message["id"], **data)
            self._settle(message["id"], message)
        elif kind == "accel_lost":
            self._settle(
                message["id"],
                SimulatorError(f"the firmware {message['reason']} before reading every fed sample"),
            )
        elif kind in ("done", "stats"):
            self._settle(message["id"], message)
        elif kind == "usb":
            self.output.add(f"[rp2040] USB connected at {message['us'] / 1000:.1f} ms\n")
        elif kind == "log":
            self.output.add(f"[rp2040] {message['text']}\n")
            self.events.emit(protocol.STDERR, text=message["text"])

    def _settle(self, request_id: int, outcome: dict[str, Any] | Exception) -> None:
        reply = self._replies.get(request_id)
        if reply is None or reply.done():
            return
        if isinstance(outcome, Exception):
            reply.set_exception(outcome)
        else:
            reply.set_result(outcome)

    # --- the serial port

    def _connect_port(self) -> None:
        self.port.open()
        self._input_fd = self.port.connect_input()
        os.set_blocking(self._input_fd, False)
        self._credit = RX_CREDIT
        self._read_host()

    def _disconnect_port(self) -> None:
        if self._input_fd is not None:
            if self._reading_input:
                self._loop.remove_reader(self._input_fd)
                self._reading_input = False
            os.close(self._input_fd)
            self._input_fd = None
        self._stop_writing()
        self._tx_backlog.clear()
        self.port.close()

    def _read_host(self) -> None:
        """Reads what the host wrote while the emulated device has room for it."""
        fd = self._input_fd
        if fd is None:
            return
        want = self._credit > 0 and self._proc is not None
        if want and not self._reading_input:
            self._loop.add_reader(fd, self._relay_host_bytes)
            self._reading_input = True
        elif not want and self._reading_input:
            self._loop.remove_reader(fd)
            self._reading_input = False

    def _relay_host_bytes(self) -> None:
        fd = self._input_fd
        if fd is None or self._credit <= 0:
            self._read_host()
            return
        try:
            data = os.read(fd, min(self._credit, RX_CREDIT))
        except BlockingIOError:
            return
        if not data:
            self._read_host()
            return
        self._credit -= len(data)
        try:
            self._send({"op": "rx", "b64": base64.b64encode(data).decode()})
        except SimulatorError:
            pass  # the emulator is restarting: like bytes sent to a board that is booting
        self._read_host()

    def _write_to_host(self, data: bytes) -> None:
        master = self.port.master
        if master is None:
            return
        if not self._tx_backlog:
            try:
                written = os.write(master, data)
            except BlockingIOError:
                written = 0
            except OSError:
                return
            data = data[written:]
            if not data:
                return
            self._loop.add_writer(master, self._flush_to_host)
        room = TX_BACKLOG_MAX - len(self._tx_backlog)
        self.tx_dropped += max(0, len(data) - room)
        self._tx_backlog += data[:room]

    def _flush_to_host(self) -> None:
        master = self.port.master
        if master is None:
            self._stop_writing()
            return
        try:
            written = os.write(master, self._tx_backlog)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._tx_backlog)
        del self._tx_backlog[:written]
        if not self._tx_backlog:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if self.port.master is not None:
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_writer(self.port.master)

    # --- what the control channel asks for

    def _pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _flash_path(self) -> str:
        return str(self.flash_file)

    def _drive_button(self, pin: int, pressed: bool) -> None:
        self._send({"op": "button", "pin": pin, "pressed": pressed})

    def _send_vsys(self, volts: float) -> None:
        self._send({"op": "vsys", "volts": volts})

    def _send_rest(self, vector: list[float]) -> None:
        self._send({"op": "rest", "g": vector})

    async def click(self, button: str, hold_ms: float) -> None:
        """Presses and releases ``button``, held for ``hold_ms`` of emulated time."""
        pin = wiring.button_pin(self.kind, button)
        self.events.emit(protocol.BUTTON, button=button, pressed=True)
        await self._ask("click", pin=pin, hold_ms=max(float(hold_ms), 0.0))
        self.events.emit(protocol.BUTTON, button=button, pressed=False)

    async def feed_accel(self, samples: Sequence[Sequence[float]], wait: bool) -> int:
        self._need_accelerometer()
        flat = check_samples(samples)
        batch = next(self._ids)
        if not wait:
            self._send({"op": "accel", "id": batch, "samples": flat})
            return batch
        reply: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._replies[batch] = reply
        try:
            self._send({"op": "accel", "id": batch, "samples": flat})
            await reply
        finally:
            self._replies.pop(batch, None)
        return batch

    async def unplug(self) -> None:
        if not self.plugged:
            return
        self.plugged = False
        await self._ask("power", on=False)
        self._disconnect_port()
        self.events.emit(protocol.PLUG, plugged=False)

    async def plug(self) -> None:
        if self.plugged:
            return
        self.events.emit(protocol.PLUG, plugged=True)
        self._connect_port()
        self.plugged = True
        self._booted.clear()
        await self._ask("power", on=True)
        await self._wait_boot()

    async def reset(self) -> None:
        """Reboots the board (the RUN pin); returns once it is booting again."""
        if not self.plugged:
            raise SimulatorError("the board is unplugged: it has no power to reset")
        self._booted.clear()
        self._send({"op": "reset"})
        await self._wait_boot()

    async def accel_stats(self) -> dict[str, Any]:
        self._need_accelerometer()
        stats = await self._ask("stats")
        if "accel" not in stats:
            raise SimulatorError("the board is off: no accelerometer to ask")
        return {**stats["accel"], "pending": 0}

    async def emulator_stats(self) -> dict[str, Any]:
        """The emulator's own figures: emulated time (us), instructions, boots, I2C, flash."""
        stats = await self._ask("stats")
        stats.pop("t", None)
        stats.pop("id", None)
        stats["serial"] = [list(entry) for entry in self.serial_log]
        stats["tx_dropped"] = self.tx_dropped
        stats["wall_s"] = time.monotonic()
        return stats
