"""The raw samples stream: every accelerometer sample, in batches, for ``popdice record``.

``add`` runs on the sample path and allocates nothing: it writes the sample into a ring of
preallocated batches. A batch is full after ``BATCH`` samples, or earlier when the sensor
overwrote samples (the next batch then starts at the new number, so the gap shows on the
host). ``take`` gives the oldest full batch to the task that sends it. If every batch is full
and unsent, the newest full one is dropped and counted: the sensor never waits for the link.

A stream lasts for a lease (``start(seconds)``) that the host renews; a host that goes away
stops it by saying nothing.
"""

import time
from array import array

from micropython import const

BATCH = const(24)  # samples a frame: 60 ms, about 17 frames a second
_SLOTS = const(4)
_AXES = const(3)


class SampleStream:
    def __init__(self):
        self.samples = array("h", bytes(2 * _SLOTS * BATCH * _AXES))
        self.view = memoryview(self.samples)
        self.firsts = array("i", bytes(4 * _SLOTS))
        self.counts = array("i", bytes(4 * _SLOTS))
        self.on = False
        self.dropped = 0
        self.sent = 0
        self._until_ms = 0
        self._fill = 0
        self._ready = 0
        self._next_number = 0

    def start(self, seconds):
        """Streams for ``seconds`` from now (a renewal keeps what is being filled)."""
        if not self.on:
            self._ready = 0
            self.counts[self._fill] = 0
        self.on = True
        self._until_ms = time.ticks_add(time.ticks_ms(), seconds * 1000)

    def stop(self):
        self.on = False

    def add(self, number, x, y, z):
        """One sample, by its number on the sensor's clock; True when a batch is ready."""
        if not self.on:
            return False
        if time.ticks_diff(self._until_ms, time.ticks_ms()) < 0:
            self.on = False
            return False
        fill = self._fill
        count = self.counts[fill]
        ready = False
        if count and number != self._next_number:
            ready = self._close()  # a gap: the batch ends here
            fill = self._fill
            count = 0
        if count == 0:
            self.firsts[fill] = number
        at = (fill * BATCH + count) * _AXES
        samples = self.samples
        samples[at] = x
        samples[at + 1] = y
        samples[at + 2] = z
        count += 1
        self.counts[fill] = count
        self._next_number = number + 1
        if count == BATCH:
            ready = self._close() or ready
        return ready

    def _close(self):
        if self._ready >= _SLOTS - 1:
            self.dropped += 1
            self.counts[self._fill] = 0
            return False
        self._ready += 1
        self._fill = (self._fill + 1) % _SLOTS
        self.counts[self._fill] = 0
        return True

    def take(self):
        """(first sample number, memoryview of its x, y, z values) of the oldest full batch,
        or None. The view stays valid until the next ``release``."""
        if not self._ready:
            return None
        slot = (self._fill - self._ready) % _SLOTS
        start = slot * BATCH * _AXES
        return self.firsts[slot], self.view[start : start + self.counts[slot] * _AXES]

    def release(self):
        """The batch ``take`` gave has been sent."""
        if self._ready:
            self._ready -= 1
            self.sent += 1
