"""The phones' server running beside the table: uvicorn in a thread of its own, on a socket
bound before the table starts (a port in use is one line, not a crash later), stopped when
the table ends. Its log goes to a small file, never to the terminal the table is drawn on;
a connection that sends no request for ``REQUEST_DEADLINE`` seconds is closed, so idle ones
cannot take the places of the phones. ``lan_address`` is the address the laptop reaches its
router by: the one phones on the same network can reach."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from ..errors import PopdiceError
from .host import TableHost
from .server import Limits, make_app
from .tokens import Tokens

DEFAULT_PORT = 8765
ROUTER_PROBE = ("192.0.2.1", 9)
"""Any address off this machine: a UDP socket "connected" to it (no packet is sent) takes
the address of the interface the default route leaves by."""
REQUEST_DEADLINE = 10.0
"""Seconds a connection has to send a request's head, once open or once answered."""
LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "popdice.phones")
LOG_BYTES = 256 * 1024


def lan_address() -> str:
    """The laptop's address on its local network, or 127.0.0.1 without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(ROUTER_PROBE)
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def listening_socket(address: str, port: int) -> socket.socket:
    """A TCP socket bound to ``address``:``port`` and listening, the port this one's alone
    (``claim_port``); a ``PopdiceError`` of one line if it cannot be bound."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        claim_port(listening)
        listening.bind((address, port))
        listening.listen(64)  # from here a phone's connection waits for the server
    except OSError as error:
        listening.close()
        raise PopdiceError(
            f"cannot serve the phones at {address}:{port}: {error.strerror or error} "
            "(another --port, or --address)"
        ) from None
    return listening


def claim_port(listening: socket.socket) -> None:
    """Makes ``listening``'s bind refuse a port another socket listens on. On POSIX,
    SO_REUSEADDR lets it bind a port just closed (still in TIME_WAIT) and nothing more; on
    Windows it would share a port in use, so there it is SO_EXCLUSIVEADDRUSE instead."""
    if os.name != "nt":
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    elif (exclusive := getattr(socket, "SO_EXCLUSIVEADDRUSE", None)) is not None:
        listening.setsockopt(socket.SOL_SOCKET, exclusive, 1)


class DeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1, closing a connection that has not sent a request's head within
    ``REQUEST_DEADLINE`` seconds of opening or of its last response (a websocket is past
    its request)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_request()

    def on_response_complete(self) -> None:
        self._await_request()  # before a request sent meanwhile is taken
        super().on_response_complete()

    def _await_request(self) -> None:
        answered = self.cycle

        def overdue() -> None:
            if self.cycle is answered and self.transport.get_protocol() is self:
                self.transport.close()

        self.loop.call_later(REQUEST_DEADLINE, overdue)


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's websocket that stops reading while what it must write waits: a client that
    sends pings and never reads the pongs (answered by the protocol, not the app) would
    otherwise fill the laptop's memory with them. Once closing, a client that still reads
    nothing is cut off when the close times out, its unsent bytes dropped. A text message
    that is not UTF-8 closes the websocket with 1007 and one line in the log (uvicorn's
    own would be a traceback, anyone on the network able to write it)."""

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                peer = "a websocket" if self.client is None else "{}:{}".format(*self.client)
                self.logger.warning("%s sent text that is not UTF-8: closed (1007)", peer)
                self.conn.send_close(1007, "text that is not UTF-8")
                self.handle_parser_exception()  # the app is told, the close frame sent
                return
        super().send_receive_event_to_app()

    def pause_writing(self) -> None:
        super().pause_writing()  # clears ``writable`` until the writes have drained
        self.transport.pause_reading()

    def resume_writing(self) -> None:
        super().resume_writing()
        if not self.read_paused:
            self.transport.resume_reading()

    async def receive(self) -> Any:
        message = await self.queue.get()
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            if self.writable.is_set():
                self.transport.resume_reading()
        return message

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message.get("type") == "websocket.close" and self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)
            if not self.writable.is_set():
                self.transport.pause_reading()  # the close resumed it


class QuietLog(RotatingFileHandler):
    """A log file of ``LOG_BYTES`` at most (and one before it) that says nothing when it
    cannot be written: the terminal is the table's."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8", delay=True)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def log_to(handler: logging.Handler) -> None:
    """Sends the server's log, uvicorn's and its app's, to ``handler`` alone."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False


class PhoneServer:
    """The server of one game's pages, at ``address``:``port``: on ``listening`` when
    given (``listening_socket(address, port)``, bound already), else on a socket bound now;
    its log in ``log`` (none without)."""

    def __init__(
        self,
        host: TableHost,
        tokens: Tokens,
        address: str,
        port: int,
        limits: Limits | None = None,
        listening: socket.socket | None = None,
        log: Path | None = None,
    ) -> None:
        self.host = host
        self.tokens = tokens
        self.limits = limits or Limits()
        self.socket = listening or listening_socket(address, port)
        self.address, self.port = self.socket.getsockname()[:2]
        config = uvicorn.Config(
            make_app(host, tokens, self.limits, served_at=self.netloc),
            http=DeadlineProtocol,
            ws=BoundedWebSocket,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws_max_size=4 * self.limits.message,
            timeout_keep_alive=5,
            limit_concurrency=4 * self.limits.pages,
        )
        self.log = logging.NullHandler() if log is None else QuietLog(log)
        log_to(self.log)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="popdice-phones", daemon=True)

    def _run(self) -> None:
        self.server.run(sockets=[self.socket])

    @property
    def netloc(self) -> str:
        """The server's ``host:port``, as in its addresses."""
        host = f"[{self.address}]" if ":" in str(self.address) else self.address
        return f"{host}:{self.port}"

    def url(self, seat: int) -> str:
        return f"http://{self.netloc}/p/{self.tokens.by_seat[seat]}"

    def renew(self, seat: int) -> str:
        """A new address for ``seat``'s page; the pages open under the old one close."""
        self.tokens.renew(seat)
        self.host.changed(seat)  # the seat's pages look again: the old ones find they are not
        return self.url(seat)

    def start(self) -> PhoneServer:
        """Starts serving; a phone that connects before the server's loop runs waits in the
        socket's queue (it listens from the start)."""
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        with contextlib.suppress(OSError):
            self.socket.close()
        self.log.close()

    def __enter__(self) -> PhoneServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
