"""The phones' server running beside the table: uvicorn in a thread of its own, on a socket
bound before the table starts (a port in use is one line, not a crash later), stopped when
the table ends. ``lan_address`` is the address the laptop reaches its router by: the one
phones on the same network can reach."""

from __future__ import annotations

import contextlib
import os
import socket
import threading

import uvicorn

from ..errors import PopdiceError
from .host import TableHost
from .server import Limits, make_app
from .tokens import Tokens

DEFAULT_PORT = 8765
ROUTER_PROBE = ("192.0.2.1", 9)
"""Any address off this machine: a UDP socket "connected" to it (no packet is sent) takes
the address of the interface the default route leaves by."""


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


class PhoneServer:
    """The server of one game's pages, at ``address``:``port``: on ``listening`` when
    given (``listening_socket(address, port)``, bound already), else on a socket bound now."""

    def __init__(
        self,
        host: TableHost,
        tokens: Tokens,
        address: str,
        port: int,
        limits: Limits | None = None,
        listening: socket.socket | None = None,
    ) -> None:
        self.tokens = tokens
        self.limits = limits or Limits()
        self.socket = listening or listening_socket(address, port)
        self.address, self.port = self.socket.getsockname()[:2]
        config = uvicorn.Config(
            make_app(host, tokens, self.limits),
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws_max_size=4 * self.limits.message,
            timeout_keep_alive=5,
            limit_concurrency=4 * self.limits.pages,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="popdice-phones", daemon=True)

    def _run(self) -> None:
        self.server.run(sockets=[self.socket])

    def url(self, seat: int) -> str:
        host = f"[{self.address}]" if ":" in str(self.address) else self.address
        return f"http://{host}:{self.port}/p/{self.tokens.by_seat[seat]}"

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

    def __enter__(self) -> PhoneServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
