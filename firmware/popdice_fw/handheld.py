"""The handheld's app: Lowdown's secret dice, shown only to the player holding it.

ROLL makes a secret roll (one colour die, one number die) and sends only its commitment;
PEEK held shows the dice to the holder; REVEAL held (a long press) shows them large to the
table and sends the reveal; the host can ask for the reveal too, naming the roll, but only
in the link session the roll was made in. Protocol, screens and timeouts:
docs/handheld.md. Tasks: the buttons (``Device``), the screen, the battery.
"""

import asyncio
from time import ticks_ms

from micropython import const

from popdice_fw import buttons, screens, scrub
from popdice_fw.battery import Battery
from popdice_fw.buttons import Button
from popdice_fw.device import Device, int_arg
from popdice_fw.handheld_view import View
from popdice_fw.link import BAD_ARGS, CommandError
from popdice_fw.secret import Roller
from popdice_fw.ssd1306 import ADDRESSES as DISPLAY_ADDRESSES
from popdice_fw.ssd1306 import Ssd1306

NO_ROLL = "no_roll"
STALE_ROLL = "stale_roll"
OTHER_LINK = "other_link"

_BATTERY_POLL_MS = const(500)
_PEEK_MS_MAX = const(60_000)
_IDLE_MS_MAX = const(3_600_000)
_LOW_MV_MIN = const(2500)
_LOW_MV_MAX = const(5500)

_HOME = const(0)
_PEEK = const(1)
_REVEAL = const(2)


class Handheld(Device):
    NAME = "handheld"

    def __init__(
        self,
        i2c,
        roll_button,
        peek_button,
        reveal_button,
        vsys,
        port=None,
        display_addresses=DISPLAY_ADDRESSES,
    ):
        super().__init__(
            port,
            [
                Button("roll", roll_button),
                Button("peek", peek_button),
                Button("reveal", reveal_button),
            ],
        )
        self.i2c = i2c
        self.vsys = vsys
        self.roller = Roller(self.link.device_id, self.link.session)
        self.battery = Battery(vsys)
        self.battery.update()
        self.view = View(ticks_ms())
        self.display = None
        self.display_errors = 0
        self._shown = None  # what the panel shows: a tuple that changes when the picture does
        self._changed = asyncio.Event()
        try:
            self.display = Ssd1306(i2c, display_addresses)
        except OSError:
            self.display_errors += 1  # no panel: the dice still roll and reveal over the link
        self.commands["roll"] = self.cmd_roll
        self.commands["reveal"] = self.cmd_reveal
        self.commands["settings"] = self.cmd_settings

    def tasks(self):
        return super().tasks() + [("screen", self._screen), ("battery", self._watch_battery)]

    # -- what the dice do ----------------------------------------------------------

    def roll(self):
        """A new secret roll, held by the current link session: only its commitment leaves
        the device."""
        roll = self.roller.roll(self.link.host_session)
        public = roll.public()
        self.link.emit("secret_roll", public)
        self.view.show_hint("ROLLED", ticks_ms())
        self._changed.set()
        return public

    def reveal(self, by):
        """Shows the current roll to the table; the first time, sends the ``reveal`` event."""
        roll = self.roller.current
        if roll is None:
            return None
        opened = roll.opened()
        if not roll.revealed:
            self.roller.reveal()
            event = roll.opened()
            event["by"] = by
            self.link.emit("reveal", event)
        self.view.activity(ticks_ms())
        self._changed.set()
        return opened

    def on_button(self, button, edge):
        super().on_button(button, edge)
        now = ticks_ms()
        name = button.name
        if name == "roll":
            if edge == buttons.PRESS:
                self.roll()
        elif name == "peek":
            if edge == buttons.PRESS:
                self.view.peek_pressed(now)
                if self.roller.current is None:
                    self.view.show_hint("press ROLL", now)
            elif edge == buttons.RELEASE:
                self.view.peek_released(now)
        elif name == "reveal":
            if edge == buttons.LONG:
                if self.reveal("button") is None:
                    self.view.show_hint("press ROLL", now)
            elif edge == buttons.RELEASE and button.held_ms < button.long_ms:
                self.view.show_hint("hold REVEAL", now)
            else:
                self.view.activity(now)
        self._changed.set()

    # -- commands ------------------------------------------------------------------

    def cmd_roll(self, args):
        return self.roll()

    def cmd_reveal(self, args):
        """The current roll, to the link session that holds it (the one it was made in),
        which names it: ``{"roll_id": ...}``, and ``"key"``, the secret of its hello, if that
        gave one (a program that writes commands into the session without a hello of its
        own cannot know it)."""
        roll_id = args.get("roll_id")
        if not isinstance(roll_id, str) or any(name not in ("roll_id", "key") for name in args):
            raise CommandError(
                BAD_ARGS, 'reveal takes {"roll_id": the id of the roll to show, "key": ...}'
            )
        current = self.roller.current
        if current is None:
            raise CommandError(NO_ROLL, "no secret roll to reveal: ROLL first")
        if roll_id != current.roll_id:
            raise CommandError(
                STALE_ROLL, "roll %s is not the current roll (%s)" % (roll_id, current.roll_id)
            )
        if current.holder != self.link.host_session or args.get("key") != self.link.host_key:
            raise CommandError(
                OTHER_LINK,
                "roll %s was made in another link session: hold REVEAL on the handheld" % roll_id,
            )
        return self.reveal("host")

    def cmd_repl(self, args):
        """Frees the REPL; an unrevealed roll is wiped first (it can never be revealed),
        and the reply names it: ``{"wiped": roll_id}``, or ``null``."""
        wiped = self.roller.wipe()
        self._forget_pictures()
        reply = super().cmd_repl(args)
        reply["wiped"] = wiped
        return reply

    def hand_over(self):
        """Before the REPL: no roll left unrevealed, a blank screen, the free heap
        overwritten (every freed copy of the dice and the nonce)."""
        self.roller.wipe()
        self.roller.dice.forget()
        self._forget_pictures()
        if self.display is not None:
            try:
                self.display.show()
            except OSError:
                self.display_errors += 1
        scrub.free_heap()

    def _forget_pictures(self):
        self._shown = None
        if self.display is not None:
            self.display.fill(0)

    def cmd_settings(self, args):
        """Sets any of ``peek_ms``, ``idle_ms``, ``low_mv`` (until reboot); returns them all."""
        view = self.view
        peek_ms = int_arg(args, "peek_ms", 100, _PEEK_MS_MAX, view.peek_ms)
        idle_ms = int_arg(args, "idle_ms", 100, _IDLE_MS_MAX, view.idle_ms)
        low_mv = int_arg(args, "low_mv", _LOW_MV_MIN, _LOW_MV_MAX, self.battery.low_mv)
        view.peek_ms = peek_ms  # all three checked before any is set
        view.idle_ms = idle_ms
        self.battery.low_mv = low_mv
        view.activity(ticks_ms())
        self._changed.set()
        return {"peek_ms": view.peek_ms, "idle_ms": view.idle_ms, "low_mv": self.battery.low_mv}

    def status(self):
        report = super().status()
        current = self.roller.current
        report["vsys_mv"] = self.battery.mv
        report["battery_low"] = self.battery.low
        report["display"] = {
            "present": self.display is not None,
            "on": self.display is not None and self.display.on,
            "address": None if self.display is None else self.display.address,
            "errors": self.display_errors,
        }
        report["roll"] = None
        if current is not None:
            report["roll"] = {
                "roll_id": current.roll_id,
                "commitment": current.commitment,
                "revealed": current.revealed,
            }
        return report

    # -- the screen ----------------------------------------------------------------

    def _picture(self):
        """What the panel should show now, as a tuple that differs when the picture does:
        None (asleep), or the screen and what it is drawn from (volts in tenths)."""
        view = self.view
        if not view.awake:
            return None
        roll = self.roller.current
        low = self.battery.low
        tenths = self.battery.tenths()
        if roll is not None and roll.revealed:
            return (_REVEAL, roll.colour, roll.number)
        if roll is not None and view.peeking:
            return (_PEEK, roll.colour, roll.number, low, tenths)
        if view.hint is not None:
            line = view.hint
        else:
            line = "hold PEEK" if roll is not None else "press ROLL"
        return (_HOME, roll is not None, line, low, tenths)

    def _draw(self, picture):
        display = self.display
        if display is None:
            return
        try:
            if picture is None:
                if display.on:
                    display.power_off()
                return
            screen = picture[0]
            if screen == _REVEAL:
                screens.reveal(display, picture[1], picture[2])
            elif screen == _PEEK:
                screens.peek(display, picture[1], picture[2], picture[4] * 100, picture[3])
            else:
                screens.home(display, picture[1], picture[2], picture[4] * 100, picture[3])
            display.show()
            if not display.on:
                display.power_on()
        except OSError:
            self.display_errors += 1

    async def _screen(self):
        while True:
            self._changed.clear()
            now = ticks_ms()
            self.view.tick(now)
            picture = self._picture()
            if picture != self._shown:
                self._draw(picture)
                self._shown = picture
            wait = self.view.ms_to_next(now)
            if wait is None:
                await self._changed.wait()
            else:
                try:
                    await asyncio.wait_for_ms(self._changed.wait(), wait)
                except asyncio.TimeoutError:
                    pass

    async def _watch_battery(self):
        battery = self.battery
        shown = battery.tenths()
        while True:
            await asyncio.sleep_ms(_BATTERY_POLL_MS)
            if battery.update():
                self.link.emit("battery", {"vsys_mv": battery.mv, "low": battery.low})
                if battery.low:
                    self.view.activity(ticks_ms())
                self._changed.set()
            elif battery.mv // 100 != shown:
                self._changed.set()
            shown = battery.tenths()
