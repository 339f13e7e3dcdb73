"""The raw samples stream inside MicroPython: batches of consecutive samples, a gap ends a
batch, a full ring drops the newest batch and counts it, the lease ends the stream, and
adding a sample allocates nothing."""

import time

import micropython

from popdice_fw.stream import BATCH, SampleStream


def values(batch):
    return list(batch[1])


def test_batches_hold_consecutive_samples():
    stream = SampleStream()
    stream.start(5)
    ready = [stream.add(n, n, -n, 1000) for n in range(1, BATCH + 1)]
    assert ready == [False] * (BATCH - 1) + [True]
    first, xyz = stream.take()
    assert first == 1 and list(xyz[:6]) == [1, -1, 1000, 2, -2, 1000] and len(xyz) == 3 * BATCH
    stream.release()
    assert stream.take() is None and stream.sent == 1


def test_a_gap_ends_the_batch():
    stream = SampleStream()
    stream.start(5)
    for n in (10, 11, 12):
        assert not stream.add(n, 0, 0, n)
    assert stream.add(20, 0, 0, 20), "the gap closed the batch"
    first, xyz = stream.take()
    assert first == 10 and list(xyz) == [0, 0, 10, 0, 0, 11, 0, 0, 12]
    stream.release()
    for n in range(21, 20 + BATCH):
        stream.add(n, 0, 0, n)
    first, xyz = stream.take()
    assert first == 20 and len(xyz) == 3 * BATCH


def test_a_full_ring_drops_and_counts():
    stream = SampleStream()
    stream.start(5)
    n = 0
    for _ in range(10):
        for _ in range(BATCH):
            n += 1
            stream.add(n, 0, 0, 0)
    assert stream.dropped == 10 - 3, "three batches wait to be sent, the rest were dropped"
    firsts = []
    while (batch := stream.take()) is not None:
        firsts.append(batch[0])
        stream.release()
    assert firsts == [1, 1 + BATCH, 1 + 2 * BATCH]


def test_the_lease_ends_the_stream():
    stream = SampleStream()
    stream.start(1)
    stream._until_ms = time.ticks_add(time.ticks_ms(), -1)
    assert not stream.add(1, 0, 0, 0) and not stream.on


def test_adding_allocates_nothing():
    stream = SampleStream()
    stream.start(60)
    add = stream.add
    micropython.heap_lock()
    try:
        for n in range(1, 2000):
            add(n if n % 500 else n + 7, n & 0x7FF, -n & 0x7FF, 1000)
    finally:
        micropython.heap_unlock()
    assert stream.dropped > 0
