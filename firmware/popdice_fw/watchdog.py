"""The RP2040's hardware watchdog: fed while every task keeps up, or the board restarts.

``machine.WDT`` starts it, and MicroPython has no way to stop it: ``stop`` clears the enable
bit of the watchdog's CTRL register (what the Pico SDK's ``watchdog_disable`` does) before
the REPL is handed back, so that a REPL left alone is not reset. The watchdog's scratch
registers keep their words across a watchdog reset (a power-on clears them): ``note``
leaves there the name of the task that was stuck, and ``cause`` reads it back at boot.
"""

import machine
from micropython import const

TIMEOUT_MS = const(5000)  # the board restarts when not fed for this long (8388 at most)
_CTRL = const(0x40058000)
_ENABLE = const(0x40000000)
_SCRATCH0 = const(0x4005800C)  # scratch 0-3 are the application's; the SDK uses 4-7
_MAGIC = const(0x50440001)  # "PD", layout 1: scratch 1-3 hold a task's name
_NAME_BYTES = const(12)


class Watchdog:
    def __init__(self, timeout_ms=TIMEOUT_MS):
        self._wdt = machine.WDT(timeout=timeout_ms)

    def feed(self):
        self._wdt.feed()

    def stop(self):
        mem = machine.mem32
        mem[_CTRL] = mem[_CTRL] & ~_ENABLE


def note(name):
    """Leaves ``name`` (a stuck task) where the next boot finds it."""
    data = bytearray(_NAME_BYTES)
    raw = name.encode()[:_NAME_BYTES]
    data[: len(raw)] = raw
    mem = machine.mem32
    for word in range(3):
        mem[_SCRATCH0 + 4 + 4 * word] = int.from_bytes(data[4 * word : 4 * word + 4], "little")
    mem[_SCRATCH0] = _MAGIC


def _noted():
    """The name ``note`` left, once (it is cleared), or None."""
    mem = machine.mem32
    if mem[_SCRATCH0] & 0xFFFFFFFF != _MAGIC:
        return None
    mem[_SCRATCH0] = 0
    data = bytearray(_NAME_BYTES)
    for word in range(3):
        value = mem[_SCRATCH0 + 4 + 4 * word] & 0xFFFFFFFF
        data[4 * word : 4 * word + 4] = value.to_bytes(4, "little")
    return bytes(data).rstrip(b"\0").decode()


def cause():
    """Why the board started: ``power on``, ``watchdog``, or ``watchdog: TASK stuck``."""
    try:
        stuck = _noted()
    except (UnicodeError, ValueError):
        stuck = None
    if machine.reset_cause() != machine.WDT_RESET:
        return "power on"
    return "watchdog" if stuck is None else "watchdog: %s stuck" % stuck
