"""The hardware side channel: a Unix socket the shims inside the firmware process connect to.

One JSON object per line both ways (binary payloads base64 in a "b64" field). A shim opens
with ``{"t": "hello", "kind", "boot"}``; the supervisor answers with the world the board
boots into (``drive`` for held buttons, ``vsys``, ``rest``) and ``{"t": "ready"}``, then
sends ``drive``, ``vsys``, ``rest``, ``accel`` (sample chunks) and ``stats`` requests as the
world changes. The shim reports ``leds``, ``display``, ``pwm``, ``pin``, ``accel_done``,
``stats`` and ``reset``. A connection from an earlier boot is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any, Protocol

from . import protocol

LINE_LIMIT = 1 << 20


class ShimPeer(Protocol):
    """What the channel needs of the board it serves (``core.SimCore`` is one): which boot
    may connect, the world to send a new connection, and where the shims' reports go."""

    @property
    def boots(self) -> int: ...

    def world_messages(self) -> list[dict[str, Any]]: ...

    def shim_connected(self) -> None: ...

    def on_shim_message(self, message: dict[str, Any]) -> None: ...


class ShimChannel:
    def __init__(self, path: Path, core: ShimPeer) -> None:
        self.path = path
        self._core = core
        self._server: asyncio.AbstractServer | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None

    async def start(self) -> None:
        self.path.unlink(missing_ok=True)
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=LINE_LIMIT
        )

    def close(self) -> None:
        self.disconnect()
        if self._server is not None:
            self._server.close()
            self._server = None
        self.path.unlink(missing_ok=True)

    def send(self, message: dict[str, Any]) -> bool:
        """Sends to the current firmware process; False if none is connected."""
        if self._writer is None or self._writer.is_closing():
            return False
        self._writer.write(protocol.encode(message))
        return True

    def disconnect(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            hello = json.loads(await reader.readline() or b"{}")
            if hello.get("t") != "hello" or hello.get("boot") != str(self._core.boots):
                return
            self.disconnect()
            self._writer = writer
            for message in self._core.world_messages():
                self.send(message)
            self.send({"t": "ready"})
            self._core.shim_connected()
            while line := await reader.readline():
                self._core.on_shim_message(json.loads(line))
        except (ConnectionError, ValueError, KeyError, TypeError, asyncio.LimitOverrunError):
            pass
        finally:
            if self._writer is writer:
                self._writer = None
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
