"""What both boards share: the link, the command table, status, diagnostics and the REPL.

A board's app subclasses ``Device``, adds its commands to ``self.commands`` and its tasks
(one asyncio task per concern, as ``(name, coroutine function)``) to ``tasks()``; they run
under the link's ``Supervisor``, which starts one that raised again. ``run`` turns Ctrl-C
off while the link runs; the ``repl`` command gives the REPL back.
"""

import asyncio
import gc
import json
import time
from binascii import hexlify

import machine
import micropython
from micropython import const

from popdice_fw import PROTOCOL, VERSION, buttons, watchdog
from popdice_fw.codec import MAX_PAYLOAD
from popdice_fw.link import BAD_ARGS, BUSY, UNKNOWN_COMMAND, CommandError, Link
from popdice_fw.usb_serial import UsbSerial

_BUTTON_POLL_MS = const(10)
_BURST_MAX = const(100000)
_PAD_MAX = const(400)
_BURSTS_AT_ONCE = const(2)  # bursts running together at most; more are answered ``busy``
_STATUS_BUDGET = MAX_PAYLOAD - 64  # what a reply's envelope leaves of one frame

_EDGE_NAMES = {buttons.PRESS: "press", buttons.RELEASE: "release", buttons.LONG: "long"}


def int_arg(args, name, low, high, default=None):
    """An integer argument in [low, high], or a ``bad_args`` error that says which."""
    value = args.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise CommandError(BAD_ARGS, "%s must be an integer in %d..%d" % (name, low, high))
    return value


class Device:
    NAME = "device"
    # What ``status`` leaves out first when it would not fit a frame.
    STATUS_DETAIL = ("heap_used", "link")
    # The tasks that check in with the supervisor, and how long each may go without: past
    # that it is stuck, and the watchdog restarts the board.
    LIMITS_MS = {"buttons": 3000}

    def __init__(self, port=None, buttons_=()):
        self.started = time.ticks_ms()
        self.reset_cause = None  # why the board started, once ``run`` has read it
        self.buttons = list(buttons_)
        self.link = Link(
            port or UsbSerial(),
            self.NAME,
            hexlify(machine.unique_id()).decode(),
            self.dispatch,
        )
        self._counter = 0
        self.commands = {
            "status": self.cmd_status,
            "echo": self.cmd_echo,
            "counter": self.cmd_counter,
            "burst": self.cmd_burst,
            "repl": self.cmd_repl,
        }

    # -- running -------------------------------------------------------------------

    def run(self, watchdog_ms=0):
        """Serves the link until the host frees the REPL; with ``watchdog_ms`` the hardware
        watchdog restarts the board if a task hangs (boot.py runs it so)."""
        micropython.kbd_intr(-1)
        dog = None
        try:
            if watchdog_ms:
                self.reset_cause = watchdog.cause()
                dog = watchdog.Watchdog(watchdog_ms)
            asyncio.run(self.main(dog))
        finally:
            if dog is not None:
                dog.stop()
            self.hand_over()
            micropython.kbd_intr(3)

    async def main(self, dog=None):
        self.start_tasks()
        if dog is not None:
            asyncio.create_task(self.link.supervisor.watch(dog, watchdog.note))
        await self.link.run()
        self.link.supervisor.cancel_all()
        await asyncio.sleep_ms(0)  # the cancelled tasks end, and their frames are freed

    def hand_over(self):
        """Called once the link has stopped, before the REPL is free: boards that hold
        secrets forget them here."""

    def start_tasks(self):
        """Starts the board's tasks under the supervisor, each with its limit if it has one."""
        for name, make in self.tasks():
            self.link.supervisor.start(name, make, self.LIMITS_MS.get(name, 0))

    def tasks(self):
        return [("buttons", self._poll_buttons)] if self.buttons else []

    async def dispatch(self, name, args):
        handler = self.commands.get(name)
        if handler is None:
            raise CommandError(UNKNOWN_COMMAND, "no command %r on the %s" % (name, self.NAME))
        result = handler(args)
        if hasattr(result, "send"):
            result = await result
        return result

    # -- buttons -------------------------------------------------------------------

    async def _poll_buttons(self):
        check_in = self.link.supervisor.check_in
        while True:
            check_in("buttons")
            now = time.ticks_ms()
            for button in self.buttons:
                edge = button.update(now)
                if edge:
                    self.on_button(button, edge)
            await asyncio.sleep_ms(_BUTTON_POLL_MS)

    def on_button(self, button, edge):
        """Reports every button edge to the host; boards add what the button does."""
        value = {"button": button.name, "edge": _EDGE_NAMES[edge]}
        if edge != buttons.PRESS:
            value["held_ms"] = button.held_ms
        self.link.emit("button", value)

    # -- commands ------------------------------------------------------------------

    def status(self):
        gc.collect()
        status = {
            "board": self.NAME,
            "fw": VERSION,
            "proto": PROTOCOL,
            "uptime_ms": time.ticks_diff(time.ticks_ms(), self.started),
            "heap_free": gc.mem_free(),
            "heap_used": gc.mem_alloc(),
            "unacked_events": self.link.unacked(),
            "reset": self.reset_cause,
            # Only the counters that are not 0: the reply has to fit one frame.
            "link": {name: count for name, count in self.link.stats.items() if count},
        }
        status.update(self.link.supervisor.report())
        return status

    def cmd_status(self, args):
        """``status()``, less its detail keys (``STATUS_DETAIL``, first to last) while it
        would not fit one frame: a link that met much noise has many counters to show."""
        status = self.status()
        for key in self.STATUS_DETAIL:
            if len(json.dumps(status)) <= _STATUS_BUDGET:
                break
            status.pop(key, None)
        return status

    def cmd_echo(self, args):
        """``args`` back, unless a number in them is not finite: JSON has no infinity, and a
        reply the host cannot read would be kept and sent again for every retry."""
        todo = [args]
        while todo:
            item = todo.pop()
            if isinstance(item, float) and item - item != 0:  # inf - inf and NaN are NaN
                raise CommandError(BAD_ARGS, "echo: a number is not finite")
            if isinstance(item, dict):
                todo.extend(item.values())
            elif isinstance(item, list):
                todo.extend(item)
        return args

    def cmd_counter(self, args):
        """Adds one to a counter and returns it: shows that no command runs twice."""
        self._counter += 1
        return {"value": self._counter}

    def cmd_burst(self, args):
        """Sends ``n`` numbered ``burst`` events as fast as the host takes them: work of the
        host's link session, which ends with it (a new hello, or the host gone)."""
        count = int_arg(args, "n", 1, _BURST_MAX)
        pad = "x" * int_arg(args, "pad", 0, _PAD_MAX, 0)
        running = self.link.running_work()
        if running >= _BURSTS_AT_ONCE:
            raise CommandError(BUSY, "%d bursts are running; wait for one to end" % running)
        link = self.link

        async def burst(owner):
            for i in range(count):
                if await link.send_event("burst", {"i": i, "pad": pad}, owner) is None:
                    return

        link.start_work(burst)
        return {"n": count}

    def cmd_repl(self, args):
        """Stops the link after this reply: main.py returns and the REPL is free."""
        self.link.stop()
        return {}
