"""Fair dice from the RP2040's hardware entropy: ``os.urandom`` with rejection sampling.

A byte is uniform over 0..255; 256 is not a multiple of 6, so bytes of 252 and above are
thrown away and the rest taken modulo the number of sides. ``byte % 6`` alone would make
1-4 more likely than 5 and 6. Entropy is drawn 32 bytes at a time and used byte by byte.
"""

import os

from micropython import const

_POOL = const(32)

COLOURS = ("red", "orange", "purple", "blue", "green", "yellow")


class Dice:
    def __init__(self, entropy=None):
        self._entropy = entropy or os.urandom
        self._pool = b""
        self._next = 0
        self.bytes_used = 0
        self.bytes_rejected = 0

    def forget(self):
        """Lets go of the entropy not yet used: the bytes that chose the last dice are in it,
        and the next roll draws fresh ones."""
        self._pool = b""
        self._next = 0

    def _byte(self):
        if self._next >= len(self._pool):
            self._pool = self._entropy(_POOL)
            self._next = 0
            if not self._pool:
                raise OSError("the entropy source gave no bytes")
        byte = self._pool[self._next]
        self._next += 1
        self.bytes_used += 1
        return byte

    def roll(self, sides=6):
        """One die of ``sides`` faces (2..256): 1..sides, every face equally likely."""
        limit = 256 - 256 % sides
        while True:
            byte = self._byte()
            if byte < limit:
                return byte % sides + 1
            self.bytes_rejected += 1

    def roll_many(self, count, sides=6):
        return [self.roll(sides) for _ in range(count)]
