"""An in-memory serial port for running the firmware's link inside MicroPython tests."""

import asyncio
import time

from popdice_fw import codec

# Long enough for a stalled CI machine: a test that waits this long has failed anyway.
WAIT_MS = 10000


class FakePort:
    def __init__(self):
        # What the failure of ``wait_frame`` adds (the link's counters, the free heap): set
        # by a test's rig, which knows the link behind this port.
        self.describe = None
        self._inbox = []
        self._arrived = asyncio.Event()
        self.sent = bytearray()
        self._deframer = codec.Deframer()
        self.frames = []
        self._wrote = asyncio.Event()

    def feed(self, data):
        for i in range(0, len(data), 100):
            self._inbox.append(bytes(data[i : i + 100]))
        self._arrived.set()

    def send(self, message):
        self.feed(codec.encode(message))

    async def read(self, buf):
        while not self._inbox:
            self._arrived.clear()
            await self._arrived.wait()
        chunk = self._inbox.pop(0)
        buf[: len(chunk)] = chunk
        return len(chunk)

    async def write(self, data):
        self.sent.extend(data)
        self.frames.extend(self._deframer.feed(data))
        self._wrote.set()

    async def wait_frame(self, predicate, timeout_ms=WAIT_MS):
        """The first frame written (from the start) that matches; waits for it to come."""
        deadline = time.ticks_add(time.ticks_ms(), timeout_ms)
        seen = 0
        while True:
            while seen < len(self.frames):
                frame = self.frames[seen]
                seen += 1
                if isinstance(frame, dict) and predicate(frame):
                    return frame
            left = time.ticks_diff(deadline, time.ticks_ms())
            if left <= 0:
                extra = "; " + self.describe() if self.describe else ""
                raise AssertionError("no such frame; sent: %r%s" % (self.frames[-6:], extra))
            self._wrote.clear()
            try:
                await asyncio.wait_for_ms(self._wrote.wait(), left)
            except asyncio.TimeoutError:
                pass

    def matching(self, predicate):
        return [f for f in self.frames if isinstance(f, dict) and predicate(f)]
