"""The host's link against a scripted device: retries, duplicates, gaps, reboots, errors."""

from __future__ import annotations

import os

import pytest
from scripted_device import ScriptedDevice

import popdice
from popdice.devices.link import COMPLAINTS_KEPT, DeviceReboot, Event, EventGap, Link
from popdice_fw import codec


@pytest.fixture
def device():
    dev = ScriptedDevice()
    yield dev
    dev.close()


@pytest.fixture
def link(device):
    with Link(device.port, timeout=0.1, retries=3) as lnk:
        lnk.open()
        yield lnk


def test_handshake_reports_the_device(link, device):
    assert link.info is not None
    info = link.info
    assert (info.board, info.firmware, info.session) == ("popper", "9.9.9", "aaaa0001")


def test_connect_returns_the_client_of_the_board(device):
    with popdice.connect(device.port) as client:
        assert isinstance(client, popdice.Popper)
    device.board = "handheld"
    with popdice.connect(device.port) as client:
        assert isinstance(client, popdice.Handheld)


def test_stale_frames_before_the_hello_are_ignored(device):
    device.send({"t": "res", "d": "old00000", "s": 1, "v": {"stale": True}})
    device.event(7, 7, stale=True)
    with Link(device.port) as lnk:
        lnk.open()
        assert lnk.next_event(0.2) is None


def test_a_lost_reply_is_retried_with_the_same_number(link, device):
    device.handler = lambda dev, msg: {"ok": msg["s"]}
    device.drop_replies = 2
    assert link.call("thing") == {"ok": 1}
    sent = [m for m in device.received if m.get("t") == "cmd"]
    assert [m["s"] for m in sent] == [1, 1, 1]
    assert device.applied == [(1, "thing")]
    assert link.stats.resends == 2


def test_no_answer_at_all_is_a_timeout_after_the_retries(link, device):
    device.drop_replies = 100
    with pytest.raises(popdice.DeviceTimeout, match="after 4 tries"):
        link.call("thing")


def test_a_damage_error_makes_the_host_resend_at_once(device):
    def damaged_once(dev, msg):
        if sum(1 for m in dev.received if m.get("t") == "cmd") == 1:
            dev.send({"t": "err", "d": dev.session, "code": "bad_crc", "msg": "CRC32 mismatch"})
            return None
        return {"ok": True}

    device.handler = damaged_once
    with Link(device.port, timeout=5.0, retries=2) as lnk:
        lnk.open()
        assert lnk.call("thing") == {"ok": True}
        assert lnk.stats.resends == 1


def test_error_frames_raise_typed_errors(link, device):
    def refuse(dev, msg):
        code = {"a": "unknown_command", "b": "bad_args", "c": "busy"}[msg["c"]]
        dev.send({"t": "err", "d": dev.session, "s": msg["s"], "code": code, "msg": "no"})

    device.handler = refuse
    with pytest.raises(popdice.UnknownCommand):
        link.call("a")
    with pytest.raises(popdice.BadArguments):
        link.call("b")
    with pytest.raises(popdice.DeviceError, match="busy"):
        link.call("c")


def test_events_in_order_once_with_duplicates_dropped(link, device):
    for seq in (1, 2, 2, 1, 3):
        device.event(seq, 1, n=seq)
    got = [link.next_event(1) for _ in range(3)]
    assert [e.data["n"] for e in got if isinstance(e, Event)] == [1, 2, 3]
    assert link.next_event(0.1) is None
    device.wait_for(lambda m: m.get("t") == "ack" and m["e"] == 3)
    assert link.stats.duplicate_events == 2


def test_events_that_arrive_in_one_read_are_acknowledged_once(link, device):
    burst = b"".join(
        codec.encode({"t": "evt", "d": device.session, "e": e, "lo": 1, "k": "tick", "v": {}})
        for e in range(1, 9)
    )
    os.write(device._master, burst)  # one write: the host reads the eight frames together
    assert all(isinstance(link.next_event(1), Event) for _ in range(8))
    device.wait_for(lambda m: m.get("t") == "ack" and m["e"] == 8)
    acks = [m["e"] for m in device.received if m.get("t") == "ack"]
    assert acks[-1] == 8 and len(acks) < 8, acks


def test_an_event_out_of_order_waits_for_the_missing_one(link, device):
    device.event(2, 1, n=2)
    assert link.next_event(0.1) is None
    device.event(1, 1, n=1)
    device.event(2, 1, n=2)
    got = [link.next_event(1), link.next_event(1)]
    assert [e.seq for e in got if isinstance(e, Event)] == [1, 2]


def test_events_the_device_no_longer_holds_become_a_gap(link, device):
    device.event(1, 1)
    device.event(5, 4)
    items = [link.next_event(1) for _ in range(2)]
    assert isinstance(items[0], Event) and items[0].seq == 1
    assert items[1] == EventGap("aaaa0001", 2, 3)
    device.event(4, 4)
    device.event(5, 4)
    assert [link.next_event(1).seq, link.next_event(1).seq] == [4, 5]  # type: ignore[union-attr]
    assert link.stats.lost_events == 2


def test_a_reboot_is_noticed_and_the_link_handshakes_again(link, device):
    device.handler = lambda dev, msg: {"seq": msg["s"]}
    assert link.call("x") == {"seq": 1}
    device.event(1, 1)
    assert isinstance(link.next_event(1), Event)
    device.reboot("bbbb0002")
    assert link.next_event(2) == DeviceReboot("aaaa0001", "bbbb0002")
    device.event(1, 1, after="reboot")
    item = link.next_event(2)
    assert isinstance(item, Event) and item.data == {"after": "reboot"}
    assert link.call("y") == {"seq": 2}
    assert link.info is not None and link.info.session == "bbbb0002"


def test_a_reboot_during_a_command_raises_device_restarted(link, device):
    def reboot_instead(dev, msg):
        dev.reboot("cccc0003")

    device.handler = reboot_instead
    with pytest.raises(popdice.DeviceRestarted, match="may or may not have run"):
        link.call("x")
    device.handler = lambda dev, msg: {"fine": True}
    assert link.call("x") == {"fine": True}


def test_a_command_for_an_old_session_is_refused_and_reported(link, device):
    device.session = "dddd0004"  # rebooted without the host seeing the boot hello
    with pytest.raises(popdice.DeviceRestarted):
        link.call("x")
    device.handler = lambda dev, msg: {"fine": True}
    assert link.call("x") == {"fine": True}


def test_a_device_of_another_protocol_is_refused(device):
    device.protocol = 99
    with pytest.raises(popdice.ProtocolMismatch, match="protocol 99"):
        popdice.connect(device.port)


def test_a_silent_port_fails_the_handshake_with_advice():
    dev = ScriptedDevice()
    dev._handle = lambda message: None  # type: ignore[method-assign]
    try:
        with pytest.raises(popdice.HandshakeFailed, match="popdice flash"):
            popdice.connect(dev.port)
    finally:
        dev.close()


def test_an_unplugged_port_raises_disconnected(link, device):
    device.close()
    with pytest.raises(popdice.DeviceDisconnected):
        for _ in range(50):
            link.next_event(0.1)
    with pytest.raises(popdice.LinkError):
        link.call("x")


def test_a_missing_port_is_a_one_line_error():
    with pytest.raises(popdice.LinkError, match="cannot open /dev/nonexistent"):
        popdice.connect("/dev/nonexistent")


def test_complaints_nobody_reads_are_bounded_to_the_newest(link, device):
    for n in range(COMPLAINTS_KEPT + 50):
        device.send({"t": "err", "d": device.session, "code": "bad_crc", "msg": f"#{n}"})
    device.event(1, 1)
    assert isinstance(link.next_event(5), Event)  # after every complaint before it
    assert link.complaints.qsize() == COMPLAINTS_KEPT
    assert link.stats.complaints_dropped == 50
    assert link.complaints.get_nowait() == ("bad_crc", "#50")


def test_a_request_too_long_for_a_frame_is_a_popdice_error(link, device):
    device.handler = lambda dev, msg: {"ok": True}
    with pytest.raises(popdice.RequestTooLong, match=r"'echo'.*at most 500"):
        link.call("echo", {"text": "x" * 600})
    assert link.call("echo", {"text": "fits"}) == {"ok": True}
    assert issubclass(popdice.RequestTooLong, popdice.PopdiceError)


def test_a_number_json_cannot_carry_is_refused_before_it_is_sent(link, device):
    seen = []
    device.handler = lambda dev, msg: seen.append(msg) or {"ok": True}
    for value in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(popdice.RequestNotJson, match=r"'echo'.*nothing was sent"):
            link.call("echo", {"deep": [{"x": value}]})
    assert seen == [] and link.call("echo", {"x": 1e308}) == {"ok": True}
