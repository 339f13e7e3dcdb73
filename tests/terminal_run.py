"""A command run in a real terminal (a pty of 80x24), as a person runs it: its screen output
is collected on a thread, ``wait_for`` waits until a text has appeared, ``keys`` presses
keys, ``kill`` ends it (and its simulators) with SIGKILL as a crash would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import termios
import threading

ROWS, COLS = 24, 80
WAIT_S = 30.0
KEYS = {"f1": b"\x1bOP", "f2": b"\x1bOQ", "f3": b"\x1bOR", "f4": b"\x1bOS", "ctrl+q": b"\x11"}
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


class TerminalRun:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.process = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(COLS), "LINES": str(ROWS)},
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self._screen = b""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            with self._changed:
                self._screen += _ESCAPES.sub(b"", chunk)
                self._changed.notify_all()
            if not chunk:
                return

    @property
    def text(self) -> str:
        with self._changed:
            return self._screen.decode(errors="replace")

    def wait_for(self, text: str, timeout: float = WAIT_S) -> None:
        """Waits until ``text`` has been written to the screen since the start."""
        wanted = text.encode()
        with self._changed:
            found = self._changed.wait_for(
                lambda: wanted in self._screen or self.process.poll() is not None, timeout
            )
            if not found or wanted not in self._screen:
                tail = self._screen[-800:].decode(errors="replace")
                raise AssertionError(f"{text!r} never appeared; the screen ends with:\n{tail}")

    def keys(self, *names: str) -> None:
        for name in names:
            os.write(self.master, KEYS[name])

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def kill(self) -> None:
        """SIGKILL to the command and everything it started (its simulators)."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(WAIT_S)

    def wait_exit(self, timeout: float = WAIT_S) -> int:
        return self.process.wait(timeout)

    def __enter__(self) -> TerminalRun:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.process.poll() is None:
            self.kill()
        else:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # any simulator left behind
            except ProcessLookupError:
                pass
        self._reader.join(WAIT_S)
        os.close(self.master)
