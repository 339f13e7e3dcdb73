"""The supervisor's record of what happened: numbered events for subscribers, and the
firmware's stderr ("device output") kept in a bounded ring for test reports."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

Subscriber = Callable[[dict[str, Any]], None]


class EventLog:
    """Numbers events, keeps the recent ones to replay to new subscribers, and fans them out."""

    def __init__(self, history: int = 512) -> None:
        self.seq = 0
        self._history: deque[dict[str, Any]] = deque(maxlen=history)
        self._subscribers: list[Subscriber] = []

    def emit(self, kind: str, **data: Any) -> dict[str, Any]:
        self.seq += 1
        wire = {"seq": self.seq, "kind": kind, "time": round(time.monotonic(), 6), **data}
        self._history.append(wire)
        for subscriber in list(self._subscribers):
            subscriber(wire)
        return wire

    def subscribe(self, subscriber: Subscriber) -> list[dict[str, Any]]:
        """Adds a subscriber; returns the history it has missed, oldest first."""
        self._subscribers.append(subscriber)
        return list(self._history)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)


class OutputRing:
    """The last ``limit`` characters of the firmware's stderr, whole lines; thread-safe."""

    def __init__(self, limit: int = 64 * 1024) -> None:
        self._limit = limit
        self._lines: deque[str] = deque()
        self._size = 0
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        with self._lock:
            self._lines.append(line)
            self._size += len(line)
            while self._size > self._limit and len(self._lines) > 1:
                self._size -= len(self._lines.popleft())

    def text(self) -> str:
        with self._lock:
            return "".join(self._lines)
