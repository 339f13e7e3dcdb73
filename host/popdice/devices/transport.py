"""A serial port read by a background thread, in the manner of pyserial's ``threaded``.

``port`` is a device path or a pyserial URL (``socket://HOST:PORT``, ``rfc2217://``), but
not ``loop://``, which has no board behind it. Bytes go to ``on_bytes`` as they arrive; if
the port goes away ``on_lost`` is called once, with a ``DeviceDisconnected`` that says so in
plain words (``/dev/ttyACM0 was unplugged``), not pyserial's.
A write that the other end does not take within ``write_timeout`` seconds (a device that
stopped reading) raises ``DeviceTimeout`` instead of blocking for ever.

``close`` returns at once: it cancels the read the thread is waiting in (pyserial's
``cancel_read``, on POSIX and Windows ports and ``loop://``) instead of waiting out its
timeout, and the thread hands over what had already arrived before it stops. A port
without ``cancel_read`` (``socket://``, ``rfc2217://``) waits out one read timeout.

A port that cannot be opened is one ``LinkError`` line in PopDice's words: busy (which
program holds it, if the system tells), not a host and port, or the system's reason.
"""

from __future__ import annotations

import contextlib
import errno
import re
import sys
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

import serial

from ..errors import DeviceDisconnected, DeviceTimeout, LinkError, PortBusy
from .holders import held_by

_READ_TIMEOUT_S = 0.05  # how often the reader looks up where a read cannot be cancelled
WRITE_TIMEOUT_S = 2.0


class SerialTransport:
    def __init__(
        self,
        port: str,
        on_bytes: Callable[[bytes], None],
        on_lost: Callable[[Exception], None],
        *,
        baudrate: int = 115200,
        write_timeout: float = WRITE_TIMEOUT_S,
    ) -> None:
        self.port = port
        self._on_bytes = on_bytes
        self._on_lost = on_lost
        self._write_lock = threading.Lock()
        self._closing = threading.Event()
        self.lost: Exception | None = None
        if _scheme(port) == "loop":
            raise LinkError(f"{port} is a loopback with no board behind it")
        try:
            self._serial = serial.serial_for_url(
                port,
                baudrate=baudrate,
                timeout=_READ_TIMEOUT_S,
                write_timeout=write_timeout,
                exclusive=True,
            )
        except (serial.SerialException, OSError, ValueError) as error:
            if _is_busy(error):
                raise PortBusy(f"{port} is busy: {held_by(port)}") from None
            raise LinkError(_cannot_open(port, error)) from None
        self._serial.reset_input_buffer()
        self._thread = threading.Thread(target=self._read_loop, name=f"popdice-rx {port}")
        self._thread.daemon = True
        self._thread.start()

    def _read_loop(self) -> None:
        try:
            while not self._closing.is_set():
                data = self._serial.read(max(1, self._serial.in_waiting))
                if data:
                    self._on_bytes(data)
            self._hand_over_what_arrived()
        except (serial.SerialException, OSError, TypeError) as error:
            if not self._closing.is_set():
                self.lost = DeviceDisconnected(gone(self.port, error))
                self._on_lost(self.lost)

    def _hand_over_what_arrived(self) -> None:
        """On closing: hands over the bytes already waiting in the port, without waiting for
        more. A cancel that came while no read was waiting ends the next read with nothing,
        so the rest is asked for twice."""
        left = self._serial.in_waiting
        for _ in range(2):
            if left <= 0:
                return
            data = self._serial.read(left)
            if data:
                self._on_bytes(data)
                left -= len(data)

    def write(self, data: bytes) -> None:
        if self.lost is not None:
            raise DeviceDisconnected(str(self.lost))
        try:
            with self._write_lock:
                self._serial.write(data)
        except serial.SerialTimeoutException:
            timeout = self._serial.write_timeout
            raise DeviceTimeout(
                f"{self.port}: the device took no data for {timeout:g} s (it is not reading)"
            ) from None
        except (serial.SerialException, OSError) as error:
            raise DeviceDisconnected(gone(self.port, error)) from None

    def close(self) -> None:
        """Stops the reader, cancelling the read it waits in, and closes the port."""
        self._closing.set()
        cancel_read = getattr(self._serial, "cancel_read", None)
        if cancel_read is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                cancel_read()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        try:
            self._serial.close()
        except (serial.SerialException, OSError):
            pass


def _is_busy(error: BaseException) -> bool:
    """Whether a port could not be opened because another program has it: its lock is taken
    (pyserial's ``exclusive``), the system lets one program at a time open it, or on Windows
    access is denied (pyserial keeps only the text of that error)."""
    if getattr(error, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY):
        return True
    return sys.platform == "win32" and "PermissionError" in str(error)


UNPLUGGED = re.compile(r"returned no data|\[Errno (5|6|19)\]")
"""What pyserial says when the device went (a USB board unplugged reads as ready with no
data; a pty whose far end closed, as an I/O error; a device node removed, as no device)."""


def gone(port: str, error: BaseException) -> str:
    """What became of ``port`` when reading or writing it failed, in plain words."""
    number = getattr(error, "errno", None)
    if UNPLUGGED.search(str(error)) or number in (errno.EIO, errno.ENXIO, errno.ENODEV):
        return f"{port} was unplugged"
    return f"{port} is gone: {_one_line(error)}"


def _scheme(port: str) -> str:
    """A pyserial URL's scheme (``socket``, ``loop``), or "" for a device path."""
    scheme, found, _ = port.partition("://")
    return scheme.lower() if found else ""


def _cannot_open(port: str, error: BaseException) -> str:
    """Why ``port`` could not be opened, in one line."""
    said = rf"\[Errno -?\d+\] |could not open port {re.escape(port)}: "
    reason = re.sub(f"^({said})+", "", _one_line(error), flags=re.I).removesuffix(f": {port!r}")
    if _scheme(port) == "socket":
        reason = _socket_problem(port) or reason
        return f"{port} is not a host and port PopDice can connect to ({reason})"
    if getattr(error, "errno", None) == errno.EACCES and sys.platform.startswith("linux"):
        reason += (
            " (serial ports belong to the dialout group, uucp on Arch: sudo usermod -aG "
            "dialout $USER, then log in again)"
        )
    return f"cannot open {port}: {reason}"


def _socket_problem(url: str) -> str | None:
    """What is wrong with the host and port of a ``socket://`` URL, if its form is."""
    parts = urlsplit(url)
    try:
        number = parts.port
    except ValueError:
        number = -1
    if not parts.hostname:
        return "no host"
    if number is None:
        return "no port: socket://HOST:PORT"
    if not 1 <= number <= 65535:
        return f"the port is a number from 1 to 65535, not {parts.netloc.rpartition(':')[2]}"
    return None


def _one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
