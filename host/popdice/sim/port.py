"""The simulated board's USB serial port: a pty whose slave the host opens like a real device.

The firmware writes straight to the pty's master, made non-blocking: a firmware whose host
is not reading sees EAGAIN instead of freezing. What the host writes is relayed from the
master into the current firmware process's stdin, a plain blocking pipe: the unix port's
REPL then waits for input instead of spinning on EAGAIN, and a reboot starts with nothing
stale to read. The port keeps its own slave fd open so a host closing the port does not
hang it up; ``close()`` (the cable pulled out) makes the host's reads and writes fail.
Users get a stable symlink to the current /dev/pts/N.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

_RELAY_CHUNK = 65536


class PtyPort:
    """One pty at a time behind a stable path; reopened with a new pty on every plug."""

    def __init__(self, link: Path, loop: asyncio.AbstractEventLoop) -> None:
        self.link = link
        self._loop = loop
        self.master: int | None = None
        self._slave: int | None = None
        self._input: int | None = None  # the write end of the firmware's stdin pipe
        self._pending = bytearray()

    @property
    def device(self) -> str:
        """The pty slave the link points to."""
        if self._slave is None:
            raise RuntimeError("the port is closed")
        return os.ttyname(self._slave)

    def open(self) -> None:
        import tty  # POSIX only: imported here so popdice imports on Windows too

        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self._slave = master, slave
        temporary = self.link.with_name(self.link.name + ".new")
        temporary.unlink(missing_ok=True)
        os.symlink(self.device, temporary)
        temporary.replace(self.link)
        self._loop.add_reader(master, self._relay_from_host)

    def close(self) -> None:
        """Pulls the cable: the host's open port starts failing, the link goes away."""
        self.disconnect_input()
        with contextlib.suppress(FileNotFoundError):
            if self.link.is_symlink():
                self.link.unlink()
        if self.master is not None:
            self._loop.remove_reader(self.master)
            os.close(self.master)
            self.master = None
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None

    def connect_input(self) -> int:
        """A fresh stdin pipe for a new firmware process; returns the end the child reads."""
        self.disconnect_input()
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        self._input = write_end
        return read_end

    def disconnect_input(self) -> None:
        """The firmware process is gone: what it did not read is lost, like a Pico's buffers."""
        if self._input is not None:
            self._loop.remove_writer(self._input)
            os.close(self._input)
            self._input = None
        self._pending.clear()
        self._resume_reading()

    def _relay_from_host(self) -> None:
        if self.master is None:
            return
        try:
            data = os.read(self.master, _RELAY_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # no slave left open: cannot happen while we hold ours
            return
        if self._input is None:
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        if self._input is None:
            return
        try:
            written = os.write(self._input, self._pending)
        except BlockingIOError:
            written = 0
        except OSError:  # the process died before reading: drop it
            self._pending.clear()
            written = 0
        del self._pending[:written]
        if self._pending:
            # The firmware is not reading: stop reading the host until it catches up.
            if self.master is not None:
                self._loop.remove_reader(self.master)
            self._loop.add_writer(self._input, self._flush)
        else:
            self._loop.remove_writer(self._input)
            self._resume_reading()

    def _resume_reading(self) -> None:
        if self.master is not None:
            self._loop.add_reader(self.master, self._relay_from_host)
