"""A device is found again by its id after an unplug; simulated hands press the real dome."""

from __future__ import annotations

import queue
import threading

from popdice.devices.discovery import simulated_ports
from popdice.devices.link import DeviceReboot, Event
from popdice.devices.popper import Pop, Popper
from popdice.devices.reattach import (
    Back,
    DeviceWatch,
    Lost,
    WatchReport,
    candidate_ports,
    find_by_id,
)
from popdice.sim.hands import SimulatedHands

REPORT_TIMEOUT_S = 10.0


def other_ports(mine: str) -> list[str]:
    """Every other simulator's port: the search must not disturb the other tests' devices."""
    return [port for port in simulated_ports() if port != mine]


def next_report(reports: queue.Queue[WatchReport], wanted: type) -> WatchReport:
    """The next report of type ``wanted`` (events before it, e.g. the hello, are skipped)."""
    while True:
        report = reports.get(timeout=REPORT_TIMEOUT_S)
        if isinstance(report, wanted):
            return report


def test_the_last_port_is_tried_first_and_held_ports_never(popper_dut):
    ports = candidate_ports("/dev/ttyACM7", exclude=[popper_dut.port])
    assert ports[0] == "/dev/ttyACM7"
    assert popper_dut.port not in ports
    assert len(ports) == len(set(ports))


def test_find_by_id_names_the_port_the_device_answers_on(popper_dut):
    popper_dut.release()
    device_id = popper_dut.connect().info.device_id
    popper_dut.release()
    others = other_ports(popper_dut.port)
    assert find_by_id(device_id, "/nonexistent/tty", others) == popper_dut.port
    assert find_by_id("0" * 16, "/nonexistent/tty", others) is None


def test_an_unplugged_popper_is_picked_up_again_by_its_id(popper_dut):
    popper_dut.release()
    client = popper_dut.connect()
    first_session = client.info.session
    reports: queue.Queue[WatchReport] = queue.Queue()
    others = other_ports(popper_dut.port)
    watch = DeviceWatch(client, reports.put, lambda: others, retry_interval_s=0.05)
    thread = threading.Thread(target=watch.run, daemon=True)
    thread.start()
    try:
        popper_dut.control.unplug()
        assert isinstance(next_report(reports, Lost), Lost)
        popper_dut.control.plug()
        back = next_report(reports, Back)
        assert isinstance(back, Back)
        assert back.client.info.device_id == client.info.device_id
        assert back.client.info.session != first_session
        assert isinstance(back.client, Popper)
        popper_dut.clients.append(back.client)
        assert back.client.counter() == 1, "a fresh boot: the counter starts again"
    finally:
        watch.stop()
        thread.join(REPORT_TIMEOUT_S)
    assert not thread.is_alive()


def test_a_watch_stopped_while_searching_ends(popper_dut):
    popper_dut.release()
    client = popper_dut.connect()
    reports: queue.Queue[WatchReport] = queue.Queue()
    others = other_ports(popper_dut.port)
    watch = DeviceWatch(client, reports.put, lambda: others, retry_interval_s=0.05)
    thread = threading.Thread(target=watch.run, daemon=True)
    thread.start()
    popper_dut.control.unplug()
    next_report(reports, Lost)
    watch.stop()
    thread.join(REPORT_TIMEOUT_S)
    assert not thread.is_alive()
    popper_dut.control.plug()


def test_simulated_hands_press_the_dome_through_the_detector(popper_dut):
    popper = popper_dut.client
    assert isinstance(popper, Popper)
    hands = SimulatedHands(popper_dut.control, seed=2)  # its first press pops (not every one does)
    hands.press_dome()
    while True:
        notice = popper.next_event(REPORT_TIMEOUT_S)
        assert notice is not None, "no pop after a dome press"
        assert not isinstance(notice, DeviceReboot)
        if isinstance(notice, Event) and notice.kind == "pop":
            break
    pop = Pop.from_event(notice)
    assert pop is not None and pop.source == "press"
