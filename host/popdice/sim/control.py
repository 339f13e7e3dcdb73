"""SimControl: the client of a simulated Pico's control channel, for tests and the demo.

It acts on the board's physical world (buttons, motion, VSYS, the USB cable) and reads what
the board shows (LEDs, display, PWM), and it waits for events instead of sleeping: by
default ``wait_for`` looks at events after this client's last action, so
``press("mode")`` then ``wait_for("leds")`` cannot miss a frame the press caused. Thread-safe.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SimulatorError
from . import protocol
from .protocol import SimEvent

EVENT_HISTORY = 5_000


@dataclass(frozen=True)
class SimState:
    """Where a simulated Pico is at."""

    kind: str
    device_id: str
    port: str
    plugged: bool
    boots: int
    pid: int | None
    flash: str
    pressed: tuple[str, ...]
    vsys: float


class _Reply:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.message: dict[str, Any] | None = None


class SimControl:
    def __init__(self, control_path: str, timeout: float = 5.0) -> None:
        self.control_path = str(control_path)
        self.timeout = timeout
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(self.control_path)
        except OSError as error:
            self._sock.close()
            raise SimulatorError(
                f"cannot reach the simulator at {self.control_path}: {error.strerror or error}"
            ) from None
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._replies: dict[int, _Reply] = {}
        self._events: deque[SimEvent] = deque(maxlen=EVENT_HISTORY)
        self._changed = threading.Condition()
        self._closed = False
        self._after = 0
        self._reader = threading.Thread(target=self._read, name="sim-control", daemon=True)
        self._reader.start()
        self._call("subscribe")

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    def __enter__(self) -> SimControl:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the world

    def state(self) -> SimState:
        raw = self._call("state")
        return SimState(
            kind=raw["kind"],
            device_id=raw["device_id"],
            port=raw["port"],
            plugged=raw["plugged"],
            boots=raw["boots"],
            pid=raw["pid"],
            flash=raw["flash"],
            pressed=tuple(raw["pressed"]),
            vsys=raw["vsys"],
        )

    def press(self, button: str) -> None:
        self._act("press", button=button)

    def release(self, button: str) -> None:
        self._act("release", button=button)

    def click(self, button: str, hold_ms: float = 80) -> None:
        self._act("click", button=button, hold_ms=hold_ms)

    def feed_accel(
        self, samples: Sequence[Sequence[float]], wait: bool = True, timeout: float | None = None
    ) -> int:
        """Queues accelerometer samples ([x, y, z] in g) after any queued before; with ``wait``
        returns once the firmware has read every one. Returns the batch number (the
        ``accel_done`` event carries it)."""
        if timeout is None:
            timeout = self.timeout + len(samples) / 100
        batch = [[float(v) for v in sample] for sample in samples]
        return self._act("feed_accel", timeout=timeout, samples=batch, wait=wait)

    def set_rest(self, vector: Sequence[float]) -> None:
        """The acceleration (g) the popper feels when no samples are queued."""
        self._act("set_rest", g=[float(v) for v in vector])

    def set_vsys(self, volts: float) -> None:
        self._act("set_vsys", volts=volts)

    def unplug(self) -> None:
        """Pulls the USB cable: the firmware stops and the serial port goes away."""
        self._act("unplug")

    def plug(self) -> None:
        """Plugs it back in: a new serial port at the same path, and a fresh boot."""
        self._act("plug")

    def reset(self) -> None:
        """Reboots the firmware on the same port; returns once the new process runs."""
        self._act("reset")

    # --- what the board shows

    def leds(self) -> list[tuple[int, ...]]:
        """The last LED frame written, one (r, g, b) per LED; [] before the first write."""
        frame = self._call("leds")
        return protocol.pixels_from_hex(frame["rgb"], frame["bpp"])

    def display(self) -> dict[str, Any]:
        """The display: on, contrast, invert, ... and its 1024-byte ``buffer`` (MONO_VLSB)."""
        state = self._call("display")
        if state is None:
            return {"on": False, "contrast": 0x7F, "invert": False, "buffer": bytes(1024)}
        state["buffer"] = base64.b64decode(state["buffer"])
        return state

    def accel_stats(self) -> dict[str, Any]:
        """The LIS3DH's counters (produced, consumed, overruns, queued, pending) and setup
        (odr_hz, full_scale_g, resolution_bits, rest)."""
        return self._call("accel_stats")

    def emulator(self) -> dict[str, Any]:
        """The emulated RP2040's own figures (``--rp2040`` only): emulated time ``us``,
        ``instructions``, ``boots``, ``i2c_transfers``, ``flash`` erases and programs,
        ``led_frames``, and ``serial``, the recent USB transfers as [direction, us, bytes]."""
        return self._call("emulator")

    def output(self) -> str:
        """What the firmware wrote to stderr across every boot (the last 64 KiB)."""
        return self._call("output")

    # --- events

    def mark(self) -> int:
        """The number of the latest event: pass it as ``after`` to wait for what follows."""
        return self._call("mark")

    def events(self, kinds: str | Iterable[str] | None = None, after: int = 0) -> list[SimEvent]:
        wanted = _kinds(kinds)
        with self._changed:
            return [
                e for e in self._events if e.seq > after and (wanted is None or e.kind in wanted)
            ]

    def wait_for(
        self,
        kinds: str | Iterable[str],
        predicate: Callable[[SimEvent], bool] | None = None,
        timeout: float | None = None,
        after: int | None = None,
    ) -> SimEvent:
        """The first event of these kinds (matching ``predicate``) after ``after`` (default:
        after this client's last action; 0: since the supervisor's replayed history).
        Raises SimulatorError when none comes within ``timeout`` seconds."""
        timeout = self.timeout if timeout is None else timeout
        event = self.next_event(kinds, predicate, timeout, after)
        if event is None:
            names = "/".join(sorted(_kinds(kinds) or ()))
            raise SimulatorError(f"no matching {names} event within {timeout} s")
        return event

    def next_event(
        self,
        kinds: str | Iterable[str] | None = None,
        predicate: Callable[[SimEvent], bool] | None = None,
        timeout: float = 0.0,
        after: int | None = None,
    ) -> SimEvent | None:
        """Like ``wait_for``, but None when nothing matches within ``timeout``.

        The predicate runs without the channel's lock held, so it may ask the simulator
        something itself (``control.leds()``) while events keep coming in."""
        wanted = _kinds(kinds)
        seen = self._after if after is None else after
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                fresh = [e for e in self._events if e.seq > seen]
                closed = self._closed
            for event in fresh:
                seen = event.seq
                if wanted is not None and event.kind not in wanted:
                    continue
                if predicate is None or predicate(event):
                    return event
            if closed:
                raise SimulatorError("the simulator's control channel closed")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            with self._changed:
                if not self._closed and (not self._events or self._events[-1].seq <= seen):
                    self._changed.wait(remaining)

    # --- the channel

    def _act(self, op: str, timeout: float | None = None, **args: Any) -> Any:
        message = self._request(op, timeout, args)
        with self._changed:
            self._after = max(self._after, message["seq"])
        return message["result"]

    def _call(self, op: str, timeout: float | None = None, **args: Any) -> Any:
        return self._request(op, timeout, args)["result"]

    def _request(self, op: str, timeout: float | None, args: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        reply = _Reply()
        self._replies[request_id] = reply
        try:
            with self._send_lock:
                if self._closed:
                    raise SimulatorError("the simulator's control channel is closed")
                try:
                    self._sock.sendall(protocol.encode({"id": request_id, "op": op, **args}))
                except OSError as error:
                    raise SimulatorError(f"the simulator is gone ({error})") from None
            if not reply.done.wait(self.timeout if timeout is None else timeout):
                raise SimulatorError(f"the simulator did not answer {op!r} in time")
        finally:
            self._replies.pop(request_id, None)
        message = reply.message
        if message is None:
            raise SimulatorError("the simulator's control channel closed")
        if not message.get("ok"):
            raise SimulatorError(message.get("error", "the simulator refused the request"))
        return message

    def _read(self) -> None:
        buffered = b""
        try:
            while chunk := self._sock.recv(1 << 16):
                buffered += chunk
                *lines, buffered = buffered.split(b"\n")
                for line in lines:
                    try:
                        self._dispatch(json.loads(line))
                    except (ValueError, KeyError, TypeError):
                        continue  # not ours to understand: skip it, keep the channel
        except OSError:
            pass
        finally:
            self._closed = True
            for reply in list(self._replies.values()):
                reply.done.set()
            with self._changed:
                self._changed.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "event" in message:
            event = SimEvent.from_wire(message["event"])
            with self._changed:
                self._events.append(event)
                self._changed.notify_all()
            return
        reply = self._replies.get(message.get("id", -1))
        if reply is not None:
            reply.message = message
            reply.done.set()


def _kinds(kinds: str | Iterable[str] | None) -> frozenset[str] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str):
        return frozenset([kinds])
    return frozenset(kinds)
