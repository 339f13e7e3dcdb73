"""Opening a device: the handshake says which board answered, and the matching typed client
(``Popper`` or ``Handheld``) is returned."""

from __future__ import annotations

import time

from ..errors import HandshakeFailed, LinkError
from .client import DeviceClient
from .link import Link


def client_class(board: str) -> type[DeviceClient] | None:
    """The client class for a board name from a handshake, or None if unknown. Only that
    board's module is imported: `popdice status` on a popper never loads the handheld's."""
    if board == "popper":
        from .popper import Popper

        return Popper
    if board == "handheld":
        from .handheld import Handheld

        return Handheld
    return None


def connect(port: str, *, timeout: float | None = None, retries: int | None = None) -> DeviceClient:
    """Opens ``port`` (a path or pyserial URL), handshakes, and returns the right client."""
    link = Link(port) if timeout is None else Link(port, timeout=timeout)
    if retries is not None:
        link.retries = retries
    try:
        info = link.open()
        cls = client_class(info.board)
        if cls is None and not info.board:  # a hello naming no board: an echo of our own
            raise HandshakeFailed(f"{port} answered without naming a board: not a PopDice one")
        if cls is None:
            raise HandshakeFailed(f"{port}: a PopDice device of unknown kind {info.board!r}")
    except BaseException:
        link.close()
        raise
    return cls(link)


def connect_when_ready(port: str, timeout: float = 10.0) -> DeviceClient:
    """``connect``, retried while a board boots (its port may even vanish for a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return connect(port)
        except LinkError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)  # nothing to wait on: the board gives no sign before its hello
