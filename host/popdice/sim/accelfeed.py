"""Feeding recorded motion to the simulated LIS3DH: batches of samples, sent to the firmware
process in small chunks with a bounded number in flight, so the shim's queue never takes
much of the firmware's 192K heap. A batch is done once the firmware has read its last sample.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SimulatorError

CHUNK_SAMPLES = 32
CHUNKS_IN_FLIGHT = 4


@dataclass
class _Chunk:
    token: int
    flat: list[float]
    batch: _Batch | None  # set on the last chunk of a batch


@dataclass
class _Batch:
    id: int
    samples: int
    done: asyncio.Future[None] | None


def check_samples(samples: Sequence[Sequence[float]]) -> list[float]:
    """Flattens [[x, y, z], ...] (g) after checking every sample is three finite numbers."""
    flat: list[float] = []
    for sample in samples:
        if len(sample) != 3:
            raise SimulatorError(f"an accelerometer sample is [x, y, z] in g, not {sample!r}")
        for value in sample:
            number = float(value)
            if not math.isfinite(number):
                raise SimulatorError(f"accelerometer sample {sample!r} is not finite")
            flat.append(number)
    return flat


class AccelFeeder:
    """Queues batches and hands them to ``send`` (the shim connection) chunk by chunk."""

    def __init__(
        self,
        send: Callable[[dict[str, Any]], bool],
        on_batch_done: Callable[[int, int], None],
    ) -> None:
        self._send = send
        self._on_batch_done = on_batch_done
        self._queue: deque[_Chunk] = deque()
        self._in_flight: dict[int, _Chunk] = {}
        self._tokens = itertools.count(1)
        self._batch_ids = itertools.count(1)
        self.online = False

    def feed(self, samples: Sequence[Sequence[float]], wait: bool) -> _Batch:
        flat = check_samples(samples)
        loop = asyncio.get_running_loop()
        batch = _Batch(
            next(self._batch_ids), len(flat) // 3, loop.create_future() if wait else None
        )
        step = CHUNK_SAMPLES * 3
        starts = list(range(0, len(flat), step)) or [0]
        for start in starts:
            last = start == starts[-1]
            self._queue.append(
                _Chunk(next(self._tokens), flat[start : start + step], batch if last else None)
            )
        self._pump()
        return batch

    def pending(self) -> int:
        """Samples not yet handed to the firmware."""
        return sum(len(chunk.flat) for chunk in self._queue) // 3

    def connected(self) -> None:
        self.online = True
        self._pump()

    def disconnected(self, reason: str) -> None:
        """The firmware process ended: every queued sample is lost, like motion during a reboot."""
        self.online = False
        chunks = [*self._in_flight.values(), *self._queue]
        self._in_flight.clear()
        self._queue.clear()
        for chunk in chunks:
            done = chunk.batch.done if chunk.batch is not None else None
            if done is not None and not done.done():
                done.set_exception(
                    SimulatorError(f"the firmware {reason} before reading every fed sample")
                )

    def chunk_done(self, token: int) -> None:
        chunk = self._in_flight.pop(token, None)
        if chunk is None:
            return
        if chunk.batch is not None:
            self._on_batch_done(chunk.batch.id, chunk.batch.samples)
            if chunk.batch.done is not None and not chunk.batch.done.done():
                chunk.batch.done.set_result(None)
        self._pump()

    def _pump(self) -> None:
        while self.online and self._queue and len(self._in_flight) < CHUNKS_IN_FLIGHT:
            chunk = self._queue.popleft()
            message = {
                "t": "accel",
                "samples": chunk.flat,
                "token": chunk.token,
                "more": bool(self._queue),
            }
            if not self._send(message):
                self._queue.appendleft(chunk)
                return
            self._in_flight[chunk.token] = chunk
