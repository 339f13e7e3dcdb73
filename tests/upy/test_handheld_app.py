"""The handheld's app inside MicroPython: buttons on simulated pins, the SSD1306 model on the
simulated I2C bus, VSYS on the simulated ADC, the link over an in-memory port (no host hello,
so events are not resent). Every screen is compared pixel for pixel with what ``screens``
draws for the roll's values."""

import asyncio
import gc
import time

import _simhw
import _simlink
import framebuf
from fakeport import WAIT_MS, FakePort
from machine import ADC, I2C, Pin

from popdice_fw import PROTOCOL, codec, commit, screens
from popdice_fw.handheld import Handheld

ROLL, PEEK, REVEAL = 14, 15, 13
SDA, SCL = 4, 5


class Panel:
    """Follows the simulated SSD1306: every change it reports, awaitable."""

    def __init__(self, address=None):
        self.changed = asyncio.Event()
        _simhw.build("handheld")
        self.model = _simhw.display
        if address is not None:  # the module's jumper moved: the panel answers elsewhere
            del _simhw.bus(SDA, SCL)[self.model.address]
            self.model.address = address
            _simhw.attach(SDA, SCL, self.model)
        _simlink.sink = self._on_message

    def _on_message(self, message, blob):
        if message.get("t") == "display":
            self.changed.set()

    async def wait(self, predicate, timeout_ms=WAIT_MS):
        deadline = time.ticks_add(time.ticks_ms(), timeout_ms)
        while not predicate(self.model):
            left = time.ticks_diff(deadline, time.ticks_ms())
            if left <= 0:
                raise AssertionError("the display never showed what was expected")
            self.changed.clear()
            try:
                await asyncio.wait_for_ms(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass


def expected(draw, *args):
    buf = bytearray(1024)
    draw(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), *args)
    return buf


def shows(buf):
    return lambda model: model.on and model.buffer == buf


class Rig:
    def __init__(self, bus=0, address=None):
        for pin in (ROLL, PEEK, REVEAL):
            _simhw.drive(pin, None)
        _simhw.vsys_volts = 4.8
        self.panel = Panel(address)
        self.port = FakePort()
        self.port.describe = self.describe
        self.app = Handheld(
            i2c=I2C(bus),
            roll_button=Pin(ROLL, Pin.IN, Pin.PULL_UP),
            peek_button=Pin(PEEK, Pin.IN, Pin.PULL_UP),
            reveal_button=Pin(REVEAL, Pin.IN, Pin.PULL_UP),
            vsys=ADC(Pin(29)),
            port=self.port,
        )
        self.app.view.hint_ms = 100
        self.app.start_tasks()
        self.link_task = asyncio.create_task(self.app.link.run())
        self.seq = 0

    def describe(self):
        link = self.app.link
        return "link %r, last command %d (%s), tasks %r, heap free %d" % (
            link.stats,
            link._last_seq,
            "no reply yet" if link._last_reply is None else "replied",
            link.supervisor.report(),
            gc.mem_free(),
        )

    async def stop(self):
        """Ends every task of the app, so that none outlives its test."""
        self.app.link.stop()
        await asyncio.wait_for_ms(self.link_task, WAIT_MS)
        self.app.link.supervisor.cancel_all()
        for pin in (ROLL, PEEK, REVEAL):
            _simhw.drive(pin, None)

    async def hello(self, nonce, key=None):
        """A host's hello: a new link session (with ``key``, its secret)."""
        hello = {"t": "hello", "nonce": nonce, "proto": PROTOCOL}
        if key is not None:
            hello["key"] = key
        self.port.send(hello)
        await self.port.wait_frame(lambda f: f["t"] == "hello" and f["nonce"] == nonce)
        self.ack()

    def ack(self):
        """Acknowledges every event so far: after a hello the device resends the others
        every 250 ms, and the port keeps every frame."""
        self.port.send({"t": "ack", "d": self.app.link.session, "e": self.app.link._event_seq})

    async def call(self, name, **args):
        self.seq += 1
        seq = self.seq
        self.port.send({"t": "cmd", "d": self.app.link.session, "s": seq, "c": name, "a": args})
        return await self.port.wait_frame(lambda f: f["t"] in ("res", "err") and f["s"] == seq)

    def last_event(self):
        last = 0
        for frame in self.port.matching(lambda f: f["t"] == "evt"):
            last = max(last, frame["e"])
        return last

    async def event(self, kind, after=0):
        return await self.port.wait_frame(
            lambda f: f["t"] == "evt" and f["k"] == kind and f["e"] > after
        )

    async def edge(self, name, edge):
        """Waits for the next ``button`` event of this button and edge."""
        after = self.last_event()

        def wanted(f):
            if f["t"] != "evt" or f["k"] != "button" or f["e"] <= after:
                return False
            return f["v"]["button"] == name and f["v"]["edge"] == edge

        return await self.port.wait_frame(wanted)


def mv(app):
    """VSYS as the screens show it: to a tenth of a volt."""
    return (app.battery.mv + 50) // 100 * 100


async def test_roll_peek_reveal_on_the_buttons_shows_exactly_the_committed_dice():
    rig = Rig()
    try:
        app = rig.app
        await rig.panel.wait(shows(expected(screens.home, False, "press ROLL", mv(app), False)))

        _simhw.drive(ROLL, 0)
        rolled = await rig.event("secret_roll")
        _simhw.drive(ROLL, None)
        roll = app.roller.current
        assert rolled["v"] == roll.public()
        assert rolled["v"]["commitment"] == commit.commitment(
            app.link.device_id, roll.roll_id, roll.nonce, roll.colour, roll.number
        )
        hidden = expected(screens.home, True, "hold PEEK", mv(app), False)
        await rig.panel.wait(shows(hidden))

        _simhw.drive(PEEK, 0)
        await rig.panel.wait(
            shows(expected(screens.peek, roll.colour, roll.number, mv(app), False))
        )
        _simhw.drive(PEEK, None)
        await rig.panel.wait(shows(hidden))

        before_reveal = bytes(rig.port.sent)
        for secret in (roll.colour, roll.nonce):
            assert secret.encode() not in before_reveal, secret

        _simhw.drive(REVEAL, 0)
        revealed = await rig.event("reveal")
        _simhw.drive(REVEAL, None)
        assert revealed["v"] == dict(roll.opened(), by="button")
        await rig.panel.wait(shows(expected(screens.reveal, roll.colour, roll.number)))
    finally:
        await rig.stop()


async def test_a_short_reveal_press_only_hints_and_reveals_nothing():
    rig = Rig()
    try:
        await rig.call("roll")
        rig.app.view.hint_ms = 5000
        _simhw.drive(REVEAL, 0)
        await rig.edge("reveal", "press")
        _simhw.drive(REVEAL, None)
        await rig.edge("reveal", "release")
        hint = expected(screens.home, True, "hold REVEAL", mv(rig.app), False)
        await rig.panel.wait(shows(hint))
        assert not rig.port.matching(lambda f: f["t"] == "evt" and f["k"] == "reveal")
        assert not rig.app.roller.current.revealed
    finally:
        await rig.stop()


async def test_peek_hides_the_dice_after_its_timeout_even_if_held():
    rig = Rig()
    try:
        await rig.call("settings", peek_ms=200)
        await rig.call("roll")
        roll = rig.app.roller.current
        hidden = expected(screens.home, True, "hold PEEK", mv(rig.app), False)
        await rig.panel.wait(shows(hidden))
        _simhw.drive(PEEK, 0)
        started = time.ticks_ms()
        await rig.panel.wait(
            shows(expected(screens.peek, roll.colour, roll.number, mv(rig.app), False))
        )
        await rig.panel.wait(shows(hidden))
        held = time.ticks_diff(time.ticks_ms(), started)
        assert 150 <= held < 1000, held
        assert rig.app.buttons[1].pressed  # still held
    finally:
        await rig.stop()


async def test_the_display_sleeps_when_idle_and_a_button_wakes_it():
    rig = Rig()
    try:
        await rig.call("roll")
        await rig.call("settings", idle_ms=150)
        await rig.panel.wait(lambda model: not model.on)
        _simhw.drive(PEEK, 0)
        roll = rig.app.roller.current
        await rig.panel.wait(
            shows(expected(screens.peek, roll.colour, roll.number, mv(rig.app), False))
        )
    finally:
        await rig.stop()


async def test_low_battery_warns_on_screen_and_to_the_host():
    rig = Rig()
    try:
        await rig.call("settings", idle_ms=150)
        await rig.panel.wait(lambda model: not model.on)
        _simhw.vsys_volts = 3.3
        event = await rig.event("battery")
        assert event["v"]["low"] and 3250 <= event["v"]["vsys_mv"] <= 3350
        await rig.panel.wait(shows(expected(screens.home, False, "press ROLL", 3300, True)))
        status = (await rig.call("status"))["v"]
        assert status["battery_low"] and status["vsys_mv"] == event["v"]["vsys_mv"]
    finally:
        await rig.stop()


async def test_handing_over_the_repl_leaves_no_letter_or_entropy_of_the_dice():
    rig = Rig()
    try:
        await rig.call("roll")
        canvas = framebuf.FrameBuffer(bytearray(128 * 8), 128, 64, framebuf.MONO_VLSB)
        screens.big_text(canvas, "R", 0, 0, 2)  # the colour's initial, as REVEAL draws it
        assert bytes(screens._glyph) == bytes(8)
        assert rig.app.roller.dice._pool  # the bytes the dice came from
        rig.app.hand_over()
        assert rig.app.roller.dice._pool == b""
    finally:
        await rig.stop()


async def test_a_command_written_into_the_session_without_its_key_reveals_nothing():
    rig = Rig()
    key = "5ec7e7" * 5
    try:
        await rig.hello("table", key=key)
        held = (await rig.call("roll"))["v"]
        rig.ack()
        # another program writes into the table's session, with no hello of its own
        for guess in ({}, {"key": "0" * 30}):
            refused = await rig.call("reveal", roll_id=held["roll_id"], **guess)
            assert refused["t"] == "err" and refused["code"] == "other_link", refused
        assert not rig.app.roller.current.revealed
        shown = await rig.call("reveal", roll_id=held["roll_id"], key=key)
        assert shown["t"] == "res" and shown["v"]["roll_id"] == held["roll_id"]
        assert not rig.port.matching(lambda f: key in str(f))  # never sent back
    finally:
        await rig.stop()


async def test_reveal_command_refusals():
    rig = Rig()
    try:
        refused = await rig.call("reveal", roll_id="x")
        assert refused["t"] == "err" and refused["code"] == "no_roll"
        first = (await rig.call("roll"))["v"]
        second = (await rig.call("roll"))["v"]
        assert second["replaces"] == first["roll_id"]
        stale = await rig.call("reveal", roll_id=first["roll_id"])
        assert stale["t"] == "err" and stale["code"] == "stale_roll"
        current = second["roll_id"]
        for args in ({}, {"roll_id": None}, {"roll_id": 7}, {"roll_id": current, "x": 1}):
            bad = await rig.call("reveal", **args)
            assert bad["t"] == "err" and bad["code"] == "bad_args", (args, bad)
        bad = await rig.call("reveal", roll_id=None, x=1)  # the one a second host sent
        assert bad["t"] == "err" and bad["code"] == "bad_args"
        assert not rig.app.roller.current.revealed
        shown = await rig.call("reveal", roll_id=current)
        assert shown["v"] == rig.app.roller.current.opened()
        again = await rig.call("reveal", roll_id=current)
        assert again["v"] == shown["v"]
        reveals = rig.port.matching(lambda f: f["t"] == "evt" and f["k"] == "reveal")
        assert len(reveals) == 1 and reveals[0]["v"]["by"] == "host"
    finally:
        await rig.stop()


async def test_only_the_link_session_a_roll_was_made_in_may_reveal_it():
    """A host's hello starts a new link session: a roll made before it (by another host, or
    before this one's hello) is refused to the reveal command, and only REVEAL shows it."""
    rig = Rig()
    try:
        await rig.hello("table")
        held = (await rig.call("roll"))["v"]
        rig.ack()
        await rig.hello("intruder")  # a second program on the port says hello
        refused = await rig.call("reveal", roll_id=held["roll_id"])
        assert refused["t"] == "err" and refused["code"] == "other_link", refused
        assert not rig.app.roller.current.revealed
        assert not rig.port.matching(lambda f: f["t"] == "evt" and f["k"] == "reveal")
        assert (await rig.call("echo", still="here"))["v"] == {"still": "here"}
        rig.seq += 1  # 1e999 is a JSON number that parses as infinity
        text = '{"t":"cmd","d":"%s","s":%d,"c":"echo","a":{"deep":[{"x":1e999}]}}'
        rig.port.feed(codec.wrap((text % (rig.app.link.session, rig.seq)).encode()))
        huge = await rig.port.wait_frame(lambda f: f["t"] == "err" and f.get("s") == rig.seq)
        assert huge["code"] == "bad_args", huge

        _simhw.drive(REVEAL, 0)  # the holder's long press reveals it whatever the host
        revealed = await rig.event("reveal")
        _simhw.drive(REVEAL, None)
        assert revealed["v"]["roll_id"] == held["roll_id"] and revealed["v"]["by"] == "button"
        rig.ack()

        mine = (await rig.call("roll"))["v"]  # made in this link session: revealed to it
        shown = await rig.call("reveal", roll_id=mine["roll_id"])
        assert shown["t"] == "res" and shown["v"]["roll_id"] == mine["roll_id"]
    finally:
        await rig.stop()


async def test_without_a_panel_the_dice_still_roll_and_reveal():
    rig = Rig(bus=1)  # nothing on I2C1: the panel does not answer
    try:
        status = (await rig.call("status"))["v"]
        assert status["display"] == {"present": False, "on": False, "address": None, "errors": 1}
        rolled = (await rig.call("roll"))["v"]
        shown = (await rig.call("reveal", roll_id=rolled["roll_id"]))["v"]
        assert shown["roll_id"] == rolled["roll_id"]
    finally:
        await rig.stop()


async def test_a_panel_strapped_to_0x3d_is_found_shows_the_dice_and_is_reported():
    rig = Rig(address=0x3D)
    try:
        status = (await rig.call("status"))["v"]
        assert status["display"] == {"present": True, "on": True, "address": 0x3D, "errors": 0}
        rolled = (await rig.call("roll"))["v"]
        shown = (await rig.call("reveal", roll_id=rolled["roll_id"]))["v"]
        assert shown["roll_id"] == rolled["roll_id"]
        picture = expected(screens.reveal, shown["colour"], shown["number"])
        await rig.panel.wait(shows(picture))
    finally:
        await rig.stop()
