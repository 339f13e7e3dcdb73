"""A scripted PopDice device on a pty, written in Python, for testing the host's link.

It speaks the link protocol as the firmware does, but a test decides what it does wrong:
drop replies, reboot, lose events from its outbox, answer with damage errors.
"""

from __future__ import annotations

import os
import select
import threading
import tty
from collections.abc import Callable
from typing import Any

from popdice_fw import codec

Handler = Callable[["ScriptedDevice", dict[str, Any]], dict[str, Any] | None]


class ScriptedDevice:
    def __init__(self, board: str = "popper", protocol: int = 1) -> None:
        self.board = board
        self.protocol = protocol
        self.session = "aaaa0001"
        self.received: list[dict[str, Any]] = []
        self.applied: list[tuple[int, str]] = []
        self.acked = 0
        self.event_seq = 0
        self.drop_replies = 0
        self.handler: Handler | None = None
        self.received_event = threading.Condition()
        self._master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self._slave = slave
        self._deframer = codec.Deframer()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, message: dict[str, Any]) -> None:
        os.write(self._master, codec.encode(message))

    def hello(self, nonce: str | None) -> None:
        self.send(
            {
                "t": "hello",
                "nonce": nonce,
                "proto": self.protocol,
                "fw": "9.9.9",
                "board": self.board,
                "id": "0123456789abcdef",
                "session": self.session,
                "seq": max((s for s, _ in self.applied), default=0),
                "event": self.event_seq,
                "acked": self.acked,
            }
        )

    def event(self, seq: int, low: int, kind: str = "tick", **data: Any) -> None:
        self.send({"t": "evt", "d": self.session, "e": seq, "lo": low, "k": kind, "v": data})

    def reboot(self, session: str) -> None:
        self.session = session
        self.applied.clear()
        self.event_seq = 0
        self.acked = 0
        self.hello(None)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 2.0) -> dict:
        with self.received_event:
            found = self.received_event.wait_for(
                lambda: next((m for m in self.received if predicate(m)), None), timeout
            )
        if not found:
            raise AssertionError(f"the device never got such a frame: {self.received[-5:]}")
        return found

    def _run(self) -> None:
        while not self._stop:
            ready, _, _ = select.select([self._master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self._master, 4096)
            except OSError:
                return
            for message in self._deframer.feed(data):
                if isinstance(message, dict):
                    with self.received_event:
                        self.received.append(message)
                        self.received_event.notify_all()
                    self._handle(message)

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "hello":
            self.hello(message.get("nonce"))
        elif kind == "ack":
            if message["d"] == self.session:
                self.acked = max(self.acked, message["e"])
        elif kind == "cmd":
            if message["d"] != self.session:
                self.send(
                    {"t": "err", "d": self.session, "s": message["s"], "code": "stale_session"}
                )
                return
            seq = message["s"]
            if all(s != seq for s, _ in self.applied):
                self.applied.append((seq, message["c"]))
            if self.drop_replies:
                self.drop_replies -= 1
                return
            result = self.handler(self, message) if self.handler else {}
            if result is not None:
                self.send({"t": "res", "d": self.session, "s": seq, "v": result})

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
