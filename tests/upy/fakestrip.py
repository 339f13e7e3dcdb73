"""A WS2812 strip for the LED tests: ``buf`` in wire order (GRB) like MicroPython's NeoPixel,
``values`` the RGB tuples it holds, ``writes`` how often it was sent, and with ``keep`` each
frame sent (``sent``, in wire order) and what ``keep`` said at that moment (``noted``)."""


class Strip:
    ORDER = (1, 0, 2, 3)

    def __init__(self, n=45, keep=None):
        self.n = n
        self.buf = bytearray(3 * n)
        self.writes = 0
        self.keep = keep
        self.sent = []
        self.noted = []

    def __len__(self):
        return self.n

    @property
    def values(self):
        buf = self.buf
        return [tuple(buf[3 * i + self.ORDER[c]] for c in range(3)) for i in range(self.n)]

    def write(self):
        self.writes += 1
        if self.keep is not None:
            self.sent.append(bytes(self.buf))
            self.noted.append(self.keep())
