"""``neopixel`` for the simulated Pico: a WS2812 chain whose every ``write()`` is reported.

Runs inside MicroPython. Like the real module it keeps ``buf`` in the chain's wire order
(GRB, or GRBW with bpp=4); the report to the supervisor is in RGB(W) order.
"""

import _simhw


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        self.buf = bytearray(n * bpp)

    def __len__(self):
        return self.n

    def __setitem__(self, index, value):
        offset = index * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = value[i]

    def __getitem__(self, index):
        offset = index * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, value):
        for index in range(self.n):
            self[index] = value

    def write(self):
        frame = bytearray(len(self.buf))
        bpp = self.bpp
        for offset in range(0, len(self.buf), bpp):
            for i in range(bpp):
                frame[offset + i] = self.buf[offset + self.ORDER[i]]
        _simhw.report_leds(getattr(self.pin, "id", self.pin), bpp, frame)
