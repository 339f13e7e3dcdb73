"""The control channel's server: tests and the demo act on the simulated board's world and
read it, one request per line (the format is in ``protocol``).

Operations: state, press, release, click, feed_accel, set_rest, set_vsys, unplug, plug,
reset, leds, display, accel_stats, output, mark, subscribe; and on the emulated RP2040,
emulator (its emulated clock, instruction count and serial timings). Each request runs in its own
task, so a long wait (``feed_accel`` with ``wait``) does not hold up the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from ..errors import SimulatorError
from . import protocol
from .board_core import BoardCore

LINE_LIMIT = 16 << 20
SUBSCRIBER_BACKLOG = 8 << 20  # bytes: a subscriber further behind than this is dropped


class ControlServer:
    def __init__(self, path: Path, core: BoardCore) -> None:
        self.path = path
        self._core = core
        self._server: asyncio.AbstractServer | None = None
        self._clients: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.path.unlink(missing_ok=True)
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=LINE_LIMIT
        )

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._clients):
            writer.close()
        self.path.unlink(missing_ok=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        tasks: set[asyncio.Task[None]] = set()
        subscriber = None
        try:
            while line := await reader.readline():
                request = json.loads(line)
                if request.get("op") == "subscribe" and subscriber is None:
                    subscriber = self._subscribe(writer)
                task = asyncio.create_task(self._answer(request, writer))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except (ConnectionError, ValueError, asyncio.LimitOverrunError):
            pass
        finally:
            if subscriber is not None:
                self._core.events.unsubscribe(subscriber)
            for task in tasks:
                task.cancel()
            self._clients.discard(writer)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _subscribe(self, writer: asyncio.StreamWriter) -> Any:
        def deliver(event: dict[str, Any]) -> None:
            if writer.is_closing():
                return
            if writer.transport.get_write_buffer_size() > SUBSCRIBER_BACKLOG:
                writer.close()
                return
            writer.write(protocol.encode({"event": event}))

        for event in self._core.events.subscribe(deliver):
            deliver(event)
        return deliver

    async def _answer(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        seq = self._core.events.seq
        response: dict[str, Any] = {"id": request.get("id")}
        try:
            result = await self._carry_out(request)
            response.update(ok=True, seq=seq, result=result)
        except SimulatorError as error:
            response.update(ok=False, error=str(error))
        except (KeyError, TypeError, ValueError) as error:
            response.update(ok=False, error=f"bad {request.get('op')!r} request: {error!r}")
        if not writer.is_closing():
            writer.write(protocol.encode(response))

    async def _carry_out(self, request: dict[str, Any]) -> Any:
        core = self._core
        op = request.get("op")
        if op == "state":
            return core.state()
        if op == "press":
            return core.press(request["button"])
        if op == "release":
            return core.release(request["button"])
        if op == "click":
            return await core.click(request["button"], float(request.get("hold_ms", 80)))
        if op == "feed_accel":
            return await core.feed_accel(request["samples"], bool(request.get("wait", True)))
        if op == "set_rest":
            return core.set_rest(request["g"])
        if op == "set_vsys":
            return core.set_vsys(request["volts"])
        if op == "unplug":
            return await core.unplug()
        if op == "plug":
            return await core.plug()
        if op == "reset":
            return await core.reset()
        if op == "leds":
            return core.leds_frame()
        if op == "display":
            return core.display_state()
        if op == "accel_stats":
            return await core.accel_stats()
        if op == "output":
            return core.output.text()
        if op == "emulator":
            return await core.emulator_stats()
        if op in ("mark", "subscribe"):
            return core.events.seq
        raise SimulatorError(f"unknown control operation {op!r}")
