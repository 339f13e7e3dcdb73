"""The handheld's buttons, screen and power on the simulated board: pressed through the
control channel, seen on the simulated SSD1306, checked against what the link says.

These need the simulator (they skip on real boards). The screens are read by their layout
(docs/handheld.md): which die faces are drawn where, and the pips and letters on them; the
pixel-exact pictures are checked inside MicroPython (tests/upy/test_handheld_app.py).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from popdice.devices.connect import connect_when_ready
from popdice.devices.handheld import BatteryEvent, Handheld, RevealEvent, SecretRollEvent
from popdice.devices.link import Event
from popdice.hil import DeviceUnderTest
from popdice.sim import render
from popdice.sim.control import SimControl
from popdice.sim.protocol import SimEvent

EVENT_TIMEOUT_S = 5.0
WIDTH = 128


def lit(buffer: bytes, x: int, y: int) -> bool:
    return render.pixel(buffer, x, y)


def is_reveal(buffer: bytes) -> bool:
    return lit(buffer, 10, 40)  # inside the large filled colour die, clear of its letter


def is_peek(buffer: bytes) -> bool:
    return lit(buffer, 18, 16) and not is_reveal(buffer)  # inside the small colour die


def is_hidden(buffer: bytes) -> bool:
    return any(buffer) and not is_peek(buffer) and not is_reveal(buffer)


def banner(buffer: bytes) -> bool:
    return all(lit(buffer, x, y) for y in (0, 9) for x in range(WIDTH))


def pips(buffer: bytes, x: int, y: int, size: int) -> int:
    step = size // 4
    return sum(
        lit(buffer, x + step * (c + 1), y + step * (r + 1)) for r in range(3) for c in range(3)
    )


def glyph(buffer: bytes, x: int, y: int, scale: int) -> tuple[tuple[bool, ...], ...]:
    """The 8x8 letter drawn at (x, y) ``scale`` times larger, sampled cell by cell."""
    half = scale // 2
    return tuple(
        tuple(lit(buffer, x + c * scale + half, y + r * scale + half) for c in range(8))
        for r in range(8)
    )


def peek_faces(buffer: bytes) -> tuple[Any, int]:
    return glyph(buffer, 22, 20, 3), pips(buffer, 74, 12, 40)


def reveal_faces(buffer: bytes) -> tuple[Any, int]:
    return glyph(buffer, 16, 7, 4), pips(buffer, 66, 2, 60)


def showing(predicate):
    return lambda event: event["on"] and predicate(event["buffer"])


def click(client: Handheld, control: SimControl, button: str, hold_ms: float = 80) -> list[Event]:
    """Clicks a button; returns the events up to its release (the next click must come
    after it, or the firmware's debouncing rightly takes the two for one)."""
    control.click(button, hold_ms=hold_ms)
    events = []
    while True:
        item = client.next_event(EVENT_TIMEOUT_S)
        assert item is not None, f"no release of {button}"
        if isinstance(item, Event):
            events.append(item)
            if (
                item.kind == "button"
                and item.data == {**item.data, "edge": "release"}
                and (item.data.get("button") == button)
            ):
                return events


def next_of(client: Handheld, cls: type) -> Any:
    while True:
        item = client.next_event(EVENT_TIMEOUT_S)
        assert item is not None, f"no {cls.__name__}"
        if isinstance(item, cls):
            return item


def hidden_after(control: SimControl, mark: int) -> SimEvent:
    """The hidden screen once the "ROLLED" hint is gone: the second picture after ``mark``."""
    first = control.wait_for("display", showing(is_hidden), after=mark)
    return control.wait_for(
        "display", showing(lambda b: is_hidden(b) and b != first["buffer"]), after=first.seq
    )


@pytest.fixture
def rig(handheld_dut: DeviceUnderTest) -> tuple[Handheld, SimControl]:
    client = handheld_dut.client
    assert isinstance(client, Handheld)
    return client, handheld_dut.control


@pytest.mark.rp2040_tier
def test_roll_peek_and_reveal_on_the_buttons(rig):
    client, control = rig
    client.settings(peek_ms=60_000)
    before = control.display()
    assert before["on"] and is_hidden(before["buffer"])

    mark = control.mark()
    events = click(client, control, "roll")
    rolled = [e for e in events if isinstance(e, SecretRollEvent)]
    assert len(rolled) == 1 and not rolled[0].roll.rerolled
    hidden = hidden_after(control, mark)["buffer"]
    assert hidden != before["buffer"]  # "?" on the dice once a secret is held

    control.press("peek")
    peeked = control.wait_for("display", showing(is_peek))["buffer"]
    control.release("peek")
    control.wait_for("display", showing(lambda b: b == hidden))

    events = click(client, control, "reveal", hold_ms=1100)
    reveals = [e for e in events if isinstance(e, RevealEvent)]
    assert len(reveals) == 1
    reveal = reveals[0].reveal
    assert reveal.roll_id == rolled[0].roll.roll_id and reveal.by == "button"
    shown = control.wait_for("display", showing(is_reveal), after=mark)["buffer"]

    letter, number = reveal_faces(shown)
    assert number == reveal.number
    assert peek_faces(peeked) == (letter, number)  # the holder saw what the table sees
    assert any(any(row) for row in letter) and not all(all(row) for row in letter)
    assert client.status().revealed


@pytest.mark.rp2040_tier
def test_a_short_reveal_press_reveals_nothing(rig):
    client, control = rig
    client.roll()
    events = click(client, control, "reveal", hold_ms=100)
    assert [e.kind for e in events if e.kind != "button"] == ["secret_roll"]
    assert not client.status().revealed
    assert not is_reveal(control.display()["buffer"])


@pytest.mark.rp2040_tier
def test_a_long_press_is_reported_with_its_duration(rig):
    client, control = rig
    events = click(client, control, "peek", hold_ms=1000)
    edges = [(e.data["edge"], e.data.get("held_ms", 0)) for e in events if e.kind == "button"]
    assert [edge for edge, _ in edges] == ["press", "long", "release"]
    assert 800 <= edges[1][1] < edges[2][1]


@pytest.mark.rp2040_tier
def test_peek_hides_the_dice_after_its_timeout_even_while_held(rig):
    client, control = rig
    client.settings(peek_ms=400)
    mark = control.mark()
    client.roll()
    hidden = hidden_after(control, mark)["buffer"]
    control.press("peek")
    shown = control.wait_for("display", showing(is_peek))
    gone = control.wait_for("display", showing(lambda b: b == hidden), after=shown.seq)
    assert gone.time - shown.time >= 0.35
    assert "peek" in control.state().pressed
    control.release("peek")


@pytest.mark.rp2040_tier
def test_the_display_goes_off_when_idle_and_a_button_wakes_it(rig):
    client, control = rig
    client.roll()
    mark = control.mark()
    asked = time.monotonic()  # the clock the simulator stamps its events with
    client.settings(idle_ms=300)
    off = control.wait_for("display", lambda e: not e["on"], after=mark)
    assert 0.25 <= off.time - asked < 2.0
    assert not client.status().display_on
    control.press("peek")
    control.wait_for("display", showing(is_peek))
    control.release("peek")
    assert client.status().display_on


@pytest.mark.rp2040_tier
def test_low_battery_is_reported_and_shown_even_on_a_sleeping_display(rig):
    client, control = rig
    mark = control.mark()
    client.settings(idle_ms=200)
    control.wait_for("display", lambda e: not e["on"], after=mark)
    control.set_vsys(3.3)
    event = next_of(client, BatteryEvent)
    assert event.low and event.vsys == pytest.approx(3.3, abs=0.05)
    control.wait_for("display", showing(banner))
    status = client.status()
    assert status.battery_low and status.vsys == pytest.approx(3.3, abs=0.05)
    client.settings(idle_ms=60_000)
    control.set_vsys(4.8)
    assert not next_of(client, BatteryEvent).low
    control.wait_for("display", showing(lambda b: not banner(b)))
    assert not client.status().battery_low


def read_until(proc: subprocess.Popen[bytes], wanted: bytes, timeout: float) -> None:
    """Reads the process's output until ``wanted`` has appeared, or fails after ``timeout``."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never printed {wanted[:60]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 1 << 16)
            assert chunk, "the output ended"
            seen = seen[-len(wanted) :] + chunk


def test_popdice_sim_handheld_draws_the_screen_and_saves_a_png(tmp_path: Path):
    png = tmp_path / "screen.png"
    popdice = Path(sys.executable).with_name("popdice")
    cli = [str(popdice), "sim", "handheld", "--show", "--png", str(png)]
    proc = subprocess.Popen(cli, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().decode().strip()
        control_path = proc.stdout.readline().decode().split(": ", 1)[1].strip()
        client = connect_when_ready(port)
        assert isinstance(client, Handheld)
        with client, SimControl(control_path) as control:
            client.settings(idle_ms=60_000)
            client.roll()
            client.reveal()
            state = control.wait_for("display", showing(is_reveal), after=0).data
            read_until(proc, render.display_text(state).encode(), EVENT_TIMEOUT_S)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert png.read_bytes() == render.display_png(state)  # the picture last drawn


def test_several_screens_side_by_side_in_one_png():
    on = {"on": True, "segment_remap": True, "com_reverse": True}
    first = {**on, "buffer": bytes([1]) + bytes(1023)}  # the top left pixel
    second = {**on, "buffer": bytes(1023) + bytes([0x80])}  # the bottom right pixel
    png = render.displays_png([first, second], scale=2, gap=3)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (2 * 256 + 3, 128)
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    raw = zlib.decompress(idat)
    rows = [raw[y * (width + 1) + 1 : (y + 1) * (width + 1)] for y in range(height)]
    assert rows[0][:2] == b"\xff\xff" and rows[1][:2] == b"\xff\xff" and rows[2][0] == 0
    assert rows[0][256:259] == bytes([0x60]) * 3  # the gap
    assert rows[127][-2:] == b"\xff\xff" and rows[125][-1] == 0
    assert render.displays_png([first]) == render.display_png(first)
