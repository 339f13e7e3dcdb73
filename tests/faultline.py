"""A faulty serial line: a pty the host opens in place of a device's port.

Bytes are forwarded both ways in the chunks they arrive in; each chunk may get a bit
flipped, lose a byte, lose its tail, be sent twice or be preceded by random garbage, with
chances set per direction. A seeded generator makes every run reproducible.
"""

from __future__ import annotations

import os
import random
import select
import threading
import tty
from collections import Counter
from dataclasses import dataclass

import serial


@dataclass
class Faults:
    """Chances, per chunk, of each fault."""

    flip: float = 0.0
    drop: float = 0.0
    truncate: float = 0.0
    duplicate: float = 0.0
    garbage: float = 0.0

    @classmethod
    def every(cls, chance: float) -> Faults:
        return cls(chance, chance, chance, chance, chance)


class FaultyLine:
    def __init__(self, device_port: str, seed: int = 0) -> None:
        self.to_device = Faults()
        self.to_host = Faults()
        self.counts: Counter[str] = Counter()
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._device = serial.Serial(device_port, timeout=0.05)
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._host_to_device, daemon=True),
            threading.Thread(target=self._device_to_host, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def set_faults(self, faults: Faults) -> None:
        self.to_device = faults
        self.to_host = faults

    def mangle(self, chunk: bytes, faults: Faults) -> bytes:
        with self._lock:
            rnd = self._random
            data = bytearray(chunk)
            if data and rnd.random() < faults.flip:
                bit = rnd.randrange(len(data) * 8)
                data[bit // 8] ^= 1 << (bit % 8)
                self.counts["flip"] += 1
            if data and rnd.random() < faults.drop:
                del data[rnd.randrange(len(data))]
                self.counts["drop"] += 1
            if len(data) > 1 and rnd.random() < faults.truncate:
                del data[rnd.randrange(1, len(data)) :]
                self.counts["truncate"] += 1
            if rnd.random() < faults.duplicate:
                data.extend(bytes(data))
                self.counts["duplicate"] += 1
            if rnd.random() < faults.garbage:
                data[0:0] = rnd.randbytes(rnd.randrange(1, 40))
                self.counts["garbage"] += 1
            return bytes(data)

    def _host_to_device(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(self._master, 512)
                self._device.write(self.mangle(chunk, self.to_device))
            except (OSError, serial.SerialException):
                return

    def _device_to_host(self) -> None:
        while not self._stop.is_set():
            try:
                chunk = self._device.read(max(1, self._device.in_waiting))
                if chunk:
                    os.write(self._master, self.mangle(chunk, self.to_host))
            except (OSError, serial.SerialException, TypeError):
                return

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=1)
        self._device.close()
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> FaultyLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
