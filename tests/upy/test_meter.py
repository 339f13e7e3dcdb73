"""The cost meter inside MicroPython: mean and maximum, folding, and no allocation."""

import micropython

from popdice_fw.meter import CostMeter


def test_mean_and_max():
    meter = CostMeter()
    assert meter.report() == {"n": 0, "mean": 0, "max": 0}
    for us in (100, 200, 600):
        meter.add(us)
    assert meter.report() == {"n": 3, "mean": 300, "max": 600}
    meter.reset()
    assert meter.report() == {"n": 0, "mean": 0, "max": 0}


def measured(times, us):
    """A meter that has measured ``us`` ``times`` times (70,000 adds take 10 s on the
    emulated chip: the tests start just short of the fold instead)."""
    meter = CostMeter()
    meter.add(us)
    meter.count = times
    meter.total = times * us
    return meter


def test_folding_keeps_the_mean_and_a_small_int():
    meter = measured(65500, 16383)  # the largest total a measurement can bring
    for _ in range(100):
        meter.add(16383)
    report = meter.report()
    assert report["mean"] == 16383 and report["max"] == 16383
    assert report["n"] < 65536 and meter.total < 1 << 30
    assert 65536 // 2 <= report["n"] < 65536 // 2 + 100  # it folded


def test_a_stall_counts_once_in_the_mean_but_wholly_in_the_max():
    meter = CostMeter()
    meter.add(10_000_000)
    meter.add(0)
    assert meter.max == 10_000_000 and meter.report()["mean"] == 16383 // 2


def test_add_allocates_nothing():
    meter = measured(65000, 500)
    micropython.heap_lock()
    try:
        for i in range(2000):  # the fold among them
            meter.add(i & 1023)
    finally:
        micropython.heap_unlock()
    assert meter.count < 65536
