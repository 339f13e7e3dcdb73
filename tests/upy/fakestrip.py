"""A WS2812 strip for the LED tests: ``buf`` in wire order (GRB) like MicroPython's NeoPixel,
``values`` the RGB tuples it holds, and ``writes`` how often it was sent."""


class Strip:
    ORDER = (1, 0, 2, 3)

    def __init__(self, n=45):
        self.n = n
        self.buf = bytearray(3 * n)
        self.writes = 0

    def __len__(self):
        return self.n

    @property
    def values(self):
        buf = self.buf
        return [tuple(buf[3 * i + self.ORDER[c]] for c in range(3)) for i in range(self.n)]

    def write(self):
        self.writes += 1
