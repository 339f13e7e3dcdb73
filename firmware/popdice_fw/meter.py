"""How long something takes, sample after sample: count, mean and maximum in microseconds.

``add`` allocates nothing: every value stays a small int. After 65,536 measurements the
count and the total are both halved, so the mean keeps following the last minutes instead
of growing past a small int; the maximum is kept until ``reset``.
"""

from micropython import const

_FOLD_AT = const(65536)
_CLAMP_US = const(16383)  # one measurement's share of the total, at most (a stall counts once)


class CostMeter:
    def __init__(self):
        self.count = 0
        self.total = 0
        self.max = 0

    def add(self, us):
        if us > self.max:
            self.max = us
        self.total += us if us < _CLAMP_US else _CLAMP_US
        self.count += 1
        if self.count >= _FOLD_AT:
            self.count >>= 1
            self.total >>= 1

    def reset(self):
        self.count = 0
        self.total = 0
        self.max = 0

    def report(self):
        mean = self.total // self.count if self.count else 0
        return {"n": self.count, "mean": mean, "max": self.max}
