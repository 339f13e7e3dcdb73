"""The shims' connection to the supervisor: a Unix socket, one JSON object per line.

Runs inside MicroPython. The socket path comes from POPDICE_SIM_SOCKET; without it (tests
of the shims) nothing is connected and every message goes to ``sink`` (if set) instead.
Incoming messages go to ``handler``; they are read by ``serve()`` (an asyncio task) and,
for firmware that polls without asyncio, by ``pump()`` whenever a shim is touched.
"""

import binascii
import json
import os
import select
import socket
import struct

from micropython import const

_EAGAIN = const(11)
# Linux's values: the RP2040 socket module the type stubs describe has no Unix sockets.
_AF_UNIX = const(1)
_SOCK_STREAM = const(1)
_HANDSHAKE_TIMEOUT_MS = const(10_000)
_SEND_TIMEOUT_MS = const(5_000)

handler = None  # handler(message): every message from the supervisor
sink = None  # sink(message, blob): replaces the socket (tests)

_sock = None
_inbox = b""
_dispatching = False


def connected():
    return _sock is not None


def connect(path, hello):
    """Connects, sends ``hello`` and handles messages until the supervisor says "ready"."""
    global _sock
    sock = socket.socket(_AF_UNIX, _SOCK_STREAM)
    sock.connect(struct.pack("H", _AF_UNIX) + path.encode() + b"\0")
    sock.setblocking(False)
    _sock = sock
    send(hello)
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    ready = []
    while not ready:
        if not poller.poll(_HANDSHAKE_TIMEOUT_MS):
            raise OSError("simulator supervisor did not answer")
        _receive(_recv(), ready)


def _recv():
    sock = _sock
    if sock is None:
        return None
    try:
        data = sock.recv(1024)
    except OSError as error:
        if error.errno == _EAGAIN:
            return None
        data = b""
    if not data:
        _lost()
    return data


def _lost():
    """The supervisor is gone: the board lost power."""
    global _sock
    if _sock is not None:
        _sock.close()
        _sock = None
    raise SystemExit("simulator supervisor gone")


def _receive(data, ready=None):
    global _inbox, _dispatching
    if data:
        _inbox += data
    if _dispatching:
        return
    _dispatching = True
    try:
        while b"\n" in _inbox:
            line, _, _inbox = _inbox.partition(b"\n")
            message = json.loads(line)
            if message.get("t") == "ready":
                if ready is not None:
                    ready.append(message)
            elif handler is not None:
                handler(message)
    finally:
        _dispatching = False


def pump():
    """Handles whatever the supervisor has sent, without waiting."""
    if _sock is not None and not _dispatching:
        _receive(_recv())


async def serve():
    """The service task: handles the supervisor's messages as they come."""
    import asyncio

    stream = asyncio.StreamReader(_sock)
    while _sock is not None:
        data = await stream.read(1024)
        if not data:
            _lost()
        _receive(data)


def send(message, blob=None):
    """Sends one message; ``blob`` (bytes) travels base64-encoded as its "b64" field."""
    if sink is not None:
        sink(message, blob)
        return
    if _sock is None:
        return
    text = json.dumps(message)
    if blob is None:
        _write(text.encode())
        _write(b"\n")
        return
    _write(text[:-1].encode())
    _write(b',"b64":"')
    _write(binascii.b2a_base64(blob, newline=False))
    _write(b'"}\n')


def _write(data):
    view = memoryview(data)
    while view and _sock is not None:
        try:
            sent = _sock.send(view)
        except OSError as error:
            if error.errno != _EAGAIN:
                _lost()
            poller = select.poll()
            poller.register(_sock, select.POLLOUT)
            if not poller.poll(_SEND_TIMEOUT_MS):
                _lost()
            continue
        view = view[sent:]


def wait_for_end(timeout_ms):
    """Blocks until the supervisor ends this process (or the time is up)."""
    if _sock is None:
        return
    poller = select.poll()
    poller.register(_sock, select.POLLIN)
    while _sock is not None and poller.poll(timeout_ms):
        _recv()


def socket_path():
    return os.getenv("POPDICE_SIM_SOCKET")
