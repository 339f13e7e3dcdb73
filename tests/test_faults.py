"""Faults on the line and on the device: nothing acknowledged is lost or applied twice.

A faulty pty sits between host and device (garbage, flipped bits, dropped, duplicated and
truncated bytes); the simulator's control channel restarts and unplugs the device.
"""

from __future__ import annotations

import threading

import pytest
from faultline import Faults, FaultyLine

import popdice
from popdice.devices.connect import connect_when_ready
from popdice.devices.link import DeviceReboot, Event, EventGap

FAULT_CHANCE = 0.05


@pytest.fixture
def line(popper_dut):
    popper_dut.release()
    with FaultyLine(popper_dut.port, seed=20261122) as faulty:
        yield faulty


@pytest.mark.rp2040_tier
def test_commands_survive_a_faulty_line(popper_dut, line):
    client = popper_dut.connect(line.port, timeout=0.15)
    line.set_faults(Faults.every(FAULT_CHANCE))
    acked, timed_out = [], 0
    for _ in range(150):
        try:
            acked.append(client.counter())
        except popdice.DeviceTimeout:
            timed_out += 1
    line.set_faults(Faults())
    applied = client.counter() - 1
    assert acked == sorted(set(acked)), "a reply repeated or went backwards"
    assert len(acked) <= applied <= len(acked) + timed_out, "a command ran twice or was lost"
    assert len(acked) >= 140
    assert min(line.counts[k] for k in ("flip", "drop", "truncate", "duplicate", "garbage")) > 0
    assert client.link.stats.resends > 0


# Not in the rp2040 tier: at the emulated chip's speed it takes a minute; the commands' test
# above covers the faulty line there (run it with --device rp2040 alone).
def test_events_survive_a_faulty_line(popper_dut, line):
    client = popper_dut.connect(line.port, timeout=0.15)
    line.set_faults(Faults.every(FAULT_CHANCE))
    client.burst(300)
    received = []
    while len(received) < 300:
        item = client.next_event(10)
        assert item is not None, f"events stopped after {len(received)}"
        assert not isinstance(item, EventGap), "an event was lost"
        if isinstance(item, Event):
            received.append(item.data["i"])
    assert received == list(range(300))
    assert sum(line.counts.values()) > 20


@pytest.mark.rp2040_tier
def test_a_device_restart_mid_session(popper_dut):
    client = popper_dut.client
    # The command in flight at the reset is told DeviceRestarted once the board is back: its
    # resends must outlast the reboot, which takes the emulated chip (at about 0.4 of a
    # Pico's speed, under load) longer than the default ones.
    client.link.retries = 20
    assert [client.counter() for _ in range(3)] == [1, 2, 3]
    results: list[object] = []
    stop = threading.Event()
    counted = threading.Event()

    def hammer():
        while not stop.is_set():
            try:
                results.append(client.counter())
                counted.set()
            except popdice.DeviceRestarted:
                results.append("restarted")
            except popdice.LinkError as error:
                results.append(error)

    worker = threading.Thread(target=hammer)
    worker.start()
    try:
        assert counted.wait(10), "no command ran before the reset"
        popper_dut.control.reset()
        notice = client.next_event(10)
        assert isinstance(notice, DeviceReboot)
        while sum(1 for r in results if r == 1) == 0 or len(results) < 20:
            if not worker.is_alive():
                break
            stop.wait(0.01)
    finally:
        stop.set()
        worker.join()
    values = [r for r in results if isinstance(r, int)]
    assert not [r for r in results if isinstance(r, Exception)], results
    drop = next(i for i in range(1, len(values)) if values[i] < values[i - 1])
    before, after = values[:drop], values[drop:]
    assert before == list(range(4, 4 + len(before)))
    assert after == list(range(1, 1 + len(after))), "after the reboot the counter restarts"
    assert client.info.session == notice.new_session
    assert popper_dut.control.state().boots == 2


@pytest.mark.rp2040_tier
def test_a_new_host_gets_the_events_the_old_one_missed(popper_dut):
    first = popper_dut.client
    assert first.counter() == 1
    session = first.info.session
    first.close()
    popper_dut.control.click("mode")
    second = popper_dut.connect()
    received = []
    while (item := second.next_event(0.6)) is not None:
        assert isinstance(item, Event), item
        received.append(item)
    seqs = [e.seq for e in received]
    assert seqs == sorted(set(seqs)), "an event came twice"
    assert [(e.kind, e.data.get("edge")) for e in received] == [
        ("button", "press"),
        ("button", "release"),
        ("mode", None),
    ]
    assert second.info.session == session
    assert second.counter() == 2


@pytest.mark.rp2040_tier
def test_unplug_and_plug_back(popper_dut):
    client = popper_dut.client
    assert client.counter() == 1
    old_session = client.info.session
    popper_dut.control.unplug()
    with pytest.raises(popdice.DeviceDisconnected):
        while True:
            client.next_event(5)
    with pytest.raises(popdice.LinkError):
        client.counter()
    popper_dut.control.plug()
    fresh = connect_when_ready(popper_dut.port)
    popper_dut.clients.append(fresh)
    assert fresh.info.session != old_session
    assert fresh.counter() == 1
