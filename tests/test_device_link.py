"""The link to each device, end to end over a real serial path (a pty on the simulator).

Runs on real boards too (`pytest --device auto`); the tests that press buttons through the
simulator's control channel are skipped there.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from zlib import crc32

import pytest

import popdice
from popdice.devices.link import Event, EventGap
from popdice_fw import PROTOCOL, VERSION, codec

pytestmark = pytest.mark.rp2040_tier


def complaint(client) -> str:
    code, _ = client.link.complaints.get(timeout=10.0)
    return code


@pytest.mark.parametrize("kind", ["popper", "handheld"])
def test_handshake_says_what_the_device_is(request, kind):
    client = request.getfixturevalue(kind)
    info = client.info
    assert info.board == kind
    assert info.firmware == VERSION and info.protocol == PROTOCOL
    assert len(info.device_id) == 16 and int(info.device_id, 16) >= 0
    assert len(info.session) == 8


def test_round_trip_and_status(popper_dut):
    popper = popper_dut.client
    assert popper.echo(text="naïve ⚀", n=[1, 2, 3]) == {"text": "naïve ⚀", "n": [1, 2, 3]}
    status = popper.status()
    assert status.board == "popper" and status.firmware == VERSION
    assert status.heap_free >= popper_dut.heap_floor
    assert status.link["rx_frames"] >= 2


def test_each_command_runs_exactly_once(popper):
    assert [popper.counter() for _ in range(20)] == list(range(1, 21))


def test_bad_input_gets_error_frames_and_the_device_keeps_running(popper):
    popper.link.send_raw(b"\x05not a frame\x00")
    assert complaint(popper) == "bad_frame"
    payload = codec.dumps({"t": "cmd", "d": popper.info.session, "s": 999, "c": "counter", "a": {}})
    wrong = ((crc32(payload) ^ 1) & 0xFFFFFFFF).to_bytes(4, "little")
    popper.link.send_raw(codec.cobs_encode(payload + wrong) + b"\x00")
    assert complaint(popper) == "bad_crc"
    popper.link.send_raw(b"\x01" * 2000 + b"\x00")
    assert complaint(popper) == "too_long"
    popper.link.send_raw(codec.encode({"t": "nonsense"}))
    assert complaint(popper) == "bad_frame"
    with pytest.raises(popdice.UnknownCommand, match="launch_rockets"):
        popper.link.call("launch_rockets")
    with pytest.raises(popdice.BadArguments, match="n must be an integer"):
        popper.burst(-1)
    assert popper.counter() == 1  # the damaged counter command never ran
    assert popper.status().link["rx_errors"] == 3


def test_ctrl_c_does_not_stop_the_link(popper):
    popper.link.send_raw(b"\x03\x03\x03")
    assert popper.echo(still="here") == {"still": "here"}


def test_button_edges_are_events(popper_dut):
    popper_dut.control.click("mode", hold_ms=120)
    press = popper_dut.client.next_event(5)
    release = popper_dut.client.next_event(5)
    assert isinstance(press, Event) and press.data == {"button": "mode", "edge": "press"}
    assert isinstance(release, Event) and release.data["edge"] == "release"
    assert release.data["held_ms"] >= 60 and release.seq == press.seq + 1


@pytest.mark.parametrize(("kind", "button"), [("popper", "mode"), ("handheld", "peek")])
def test_next_event_is_none_when_nothing_came_and_the_loop_goes_on(request, kind, button):
    """What ``next_event``'s docstring promises: ``None`` after the timeout, the device
    still there, and the documented loop then gets the next event."""
    dut = request.getfixturevalue(f"{kind}_dut")
    control = dut.control  # skips on a real board: the test presses a button
    client = dut.client
    waited_from = time.monotonic()
    assert client.next_event(timeout=0.3) is None
    assert time.monotonic() - waited_from >= 0.3
    assert client.echo(still="here") == {"still": "here"}  # the link is fine
    control.click(button)
    quiet = 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        item = client.next_event(timeout=0.05)
        if item is None:
            quiet += 1
            continue
        assert isinstance(item, Event) and item.kind == "button", item
        assert item.data == {"button": button, "edge": "press"}
        break
    else:
        pytest.fail(f"no button event in 10 s ({quiet} quiet waits)")


def next_button_event(client) -> Event:
    """The next ``button`` event; what the button does (a roll...) is tested elsewhere."""
    while True:
        item = client.next_event(5)
        assert isinstance(item, Event), item
        if item.kind == "button":
            return item


def test_handheld_buttons_are_events(handheld_dut):
    for button in ("roll", "peek", "reveal"):
        handheld_dut.control.click(button)
        press = next_button_event(handheld_dut.client)
        assert press.data == {"button": button, "edge": "press"}
        assert next_button_event(handheld_dut.client).data["edge"] == "release"


def mpremote_exec(port: str, code: str) -> str:
    mpremote = Path(sys.executable).with_name("mpremote")
    proc = subprocess.run(
        [str(mpremote), "connect", port, "resume", "exec", code],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_repl_command_gives_the_repl_back(popper_dut):
    popper_dut.client.enter_repl()
    assert mpremote_exec(popper_dut.port, "print(6 * 7)") == "42"


def test_work_the_host_can_start_is_bounded(popper_dut):
    popper = popper_dut.client
    # Long enough that the first two are still running when the third is asked for.
    n = 3000 if popper_dut.sim is not None and popper_dut.sim.backend == "unix" else 100
    assert popper.burst(n) == n and popper.burst(n) == n
    with pytest.raises(popdice.DeviceBusy, match="2 bursts are running"):
        popper.burst(n)
    received = 0
    while received < 2 * n:
        item = popper.next_event(5.0)
        assert item is not None, f"only {received} burst events came"
        if isinstance(item, Event) and item.kind == "burst":
            received += 1
    assert popper.burst(1) == 1, "a burst can start again once the others ended"
    assert popper.counter() == 1


def test_bursts_end_with_the_host_that_started_them(popper_dut):
    """Two long bursts and a closed port: the next connection (its hello) gets none of their
    events, nothing is left owed, and a new burst is not busy."""
    n = 100_000
    first = popper_dut.client
    assert first.burst(n) == n and first.burst(n) == n
    assert first.next_event(5.0) is not None
    popper_dut.release()  # the port closed under the bursts
    second = popper_dut.connect()
    assert second.burst(3) == 3, "a burst of the last session is still running"
    items = []
    while (item := second.next_event(1.0)) is not None:
        items.append(item)
        assert len(items) < 10, f"the last session's events came: {items}"
    assert [i.data["i"] for i in items if isinstance(i, Event) and i.kind == "burst"] == [0, 1, 2]
    assert not [i for i in items if isinstance(i, EventGap)], "a gap for events nobody owes"
    assert second.status().unacked_events == 0


@pytest.mark.unix_only("waits out the device's idea of a host gone, in the unix port's time")
def test_bursts_end_when_their_host_has_gone_quiet(popper_dut):
    """With nobody connecting again, the device ends the bursts of a host that has sent
    nothing for 3 s while owed their events (its port closed)."""
    popper = popper_dut.client
    assert popper.burst(100_000) == 100_000
    assert popper.next_event(5.0) is not None
    popper_dut.release()
    time.sleep(4.5)
    status = popper_dut.connect().status()
    assert status.link.get("hosts_gone") == 1 and status.unacked_events == 0


def test_a_host_whose_numbers_were_overtaken_notices_and_goes_on(popper):
    assert popper.counter() == 1
    last = 2**30 - 1  # the largest number a device takes
    hijack = {"t": "cmd", "d": popper.info.session, "s": last, "c": "counter", "a": {}}
    popper.link.send_raw(codec.encode(hijack))  # another program, in this session
    with pytest.raises(popdice.CommandsOutOfStep, match=f"number was {last}"):
        popper.counter()  # refused by the device: its number is below the hijacker's
    assert popper.counter() == 3  # the hijacker's counter ran, and this one once
    assert [popper.counter() for _ in range(3)] == [4, 5, 6]
