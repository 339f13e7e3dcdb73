"""The simulated board itself: pin levels and interrupts, I2C buses and the parts on them,
the analog inputs, and the service tasks that keep them in step with the supervisor.

Runs inside MicroPython; ``machine``, ``neopixel`` and ``rp2`` are thin fronts on it.
The board kind (POPDICE_SIM_KIND) says which parts are soldered where (as in boards/*/board.py
and docs/build.md); the supervisor drives the buttons (to ground) and VSYS and feeds the
accelerometer. Without a supervisor the board is bare until ``build(kind)`` is called.
POPDICE_SIM_FEED=fast makes the accelerometer take fed samples without waiting for its ODR.
"""

import os

import _simlink
from micropython import const

IN = const(0)
OUT = const(1)
OPEN_DRAIN = const(2)
ALT = const(3)
PULL_UP = const(1)
PULL_DOWN = const(2)
IRQ_FALLING = const(4)
IRQ_RISING = const(8)

_I2C0_SDA = const(4)
_I2C0_SCL = const(5)
_ACCEL_INT1 = const(6)
_VSYS_CHANNEL = const(3)
_TEMPERATURE_CHANNEL = const(4)
_TEMPERATURE_VOLTS = 0.706  # the RP2040 sensor at 27 degrees C
_ADC_REFERENCE_VOLTS = 3.3

KIND = os.getenv("POPDICE_SIM_KIND") or ""
DEVICE_ID = os.getenv("POPDICE_SIM_ID") or "0000000000000000"
# "fast": the accelerometer hands over fed samples as fast as the firmware reads them.
FAST_FEED = os.getenv("POPDICE_SIM_FEED") == "fast"
# Why this boot: 3 after the watchdog reset the board (machine.WDT_RESET), else 1.
RESET_CAUSE = int(os.getenv("POPDICE_SIM_RESET_CAUSE") or "1")
# The watchdog's scratch registers 0-3 as the last boot left them (a watchdog reset keeps
# them): the supervisor hands them to each boot and keeps every write.
SCRATCH = [int(word) for word in (os.getenv("POPDICE_SIM_SCRATCH") or "0,0,0,0").split(",")]

vsys_volts = 4.8
analog_volts = {}  # ADC channel -> volts, for channels other than VSYS and temperature
accel = None
display = None

_mode = {}  # pin -> IN/OUT/OPEN_DRAIN/ALT
_pull = {}  # pin -> 0/PULL_UP/PULL_DOWN
_latch = {}  # pin -> the level the firmware writes
_driven = {}  # pin -> the level something outside the RP2040 drives it to
_irqs = {}  # pin -> (handler, trigger, pin object)
_buses = {}  # (sda, scl) -> {address: part}
_irq_disabled = 0
_pending_irqs = []
_wake = None  # asyncio.Event that wakes the accelerometer pacer


# --- pins


def level(pin):
    """The logic level the pin reads."""
    mode = _mode.get(pin, IN)
    if mode == OUT:
        return _latch.get(pin, 0)
    if mode == OPEN_DRAIN and not _latch.get(pin, 0):
        return 0
    driven = _driven.get(pin)
    if driven is not None:
        return driven
    return 1 if _pull.get(pin, 0) == PULL_UP else 0


def configure(pin, mode, pull, value):
    before = level(pin)
    if value is not None:
        _latch[pin] = 1 if value else 0
    if mode is not None and mode >= 0:
        _mode[pin] = mode
    if pull is not None and pull >= 0:
        _pull[pin] = pull
    _settle(pin, before)


def write(pin, value):
    before = level(pin)
    _latch[pin] = 1 if value else 0
    _settle(pin, before)


def drive(pin, value):
    """Something outside drives the pin: 0 or 1, or None to let it go."""
    before = level(pin)
    if value is None:
        _driven.pop(pin, None)
    else:
        _driven[pin] = 1 if value else 0
    _settle(pin, before)


def _settle(pin, before):
    after = level(pin)
    if after == before:
        return
    if _mode.get(pin) in (OUT, OPEN_DRAIN):
        _simlink.send({"t": "pin", "pin": pin, "value": after})
    irq = _irqs.get(pin)
    if irq is not None and irq[1] & (IRQ_RISING if after else IRQ_FALLING):
        if _irq_disabled:
            _pending_irqs.append(irq)
        else:
            irq[0](irq[2])


def set_irq(pin, handler, trigger, pin_object):
    if handler is None:
        _irqs.pop(pin, None)
    else:
        _irqs[pin] = (handler, trigger, pin_object)


def disable_irq():
    global _irq_disabled
    _irq_disabled += 1
    return _irq_disabled - 1


def enable_irq(state):
    global _irq_disabled
    _irq_disabled = state
    while not _irq_disabled and _pending_irqs:
        handler, _, pin_object = _pending_irqs.pop(0)
        handler(pin_object)


# --- buses and analog inputs


def attach(sda, scl, part):
    _buses.setdefault((sda, scl), {})[part.address] = part


def bus(sda, scl):
    """The parts on the I2C bus wired to these pins: {address: part}."""
    return _buses.get((sda, scl), {})


def adc_volts(channel):
    if channel == _VSYS_CHANNEL:
        return vsys_volts / 3
    if channel == _TEMPERATURE_CHANNEL:
        return _TEMPERATURE_VOLTS
    return analog_volts.get(channel, 0.0)


def adc_read_u16(channel):
    """A 12-bit conversion scaled to 16 bits, as the RP2040 port reports it."""
    volts = min(max(adc_volts(channel), 0.0), _ADC_REFERENCE_VOLTS)
    raw = int(round(volts / _ADC_REFERENCE_VOLTS * 4095))
    return (raw << 4) | (raw >> 8)


# --- what the board reports


def report_leds(pin, bpp, data):
    _simlink.send({"t": "leds", "pin": pin, "bpp": bpp}, data)


def report_pwm(pin, freq, duty_u16, active):
    message = {"t": "pwm", "pin": pin, "freq": freq, "duty_u16": duty_u16, "on": active}
    _simlink.send(message)


def _report_display(part):
    message = part.state()
    message["t"] = "display"
    _simlink.send(message, part.buffer)


def _report_chunk_done(token):
    _simlink.send({"t": "accel_done", "token": token})


def watchdog(timeout_ms):
    """Starts (or, with 0, stops) the supervisor's watchdog: not fed within ``timeout_ms``,
    it ends this process and boots the next with the watchdog as the reset cause."""
    _simlink.send({"t": "wdt", "timeout_ms": timeout_ms})


def feed_watchdog():
    _simlink.send({"t": "wdt_feed"})


def write_scratch(index, value):
    SCRATCH[index] = value
    _simlink.send({"t": "scratch", "i": index, "v": value})


def reset(how):
    """Asks the supervisor to end this process (it boots a new one); never returns."""
    _simlink.send({"t": "reset", "how": how})
    _simlink.wait_for_end(5000)
    raise SystemExit(how + " reset")


# --- the parts of each board kind


def build(kind):
    """Solders the parts of a board of this kind (docs/build.md)."""
    global accel, display
    if kind == "popper":
        from _simlis3dh import Lis3dh

        accel = Lis3dh(
            on_int1=_drive_int1,
            on_wake=_wake_pacer,
            on_chunk_done=_report_chunk_done,
            fast_feed=FAST_FEED,
        )
        drive(_ACCEL_INT1, 0)
        attach(_I2C0_SDA, _I2C0_SCL, accel)
    elif kind == "handheld":
        from _simssd1306 import Ssd1306

        display = Ssd1306(on_change=_report_display)
        attach(_I2C0_SDA, _I2C0_SCL, display)


def _drive_int1(value):
    drive(_ACCEL_INT1, value)


# --- the supervisor's side


def _handle(message):
    global vsys_volts
    kind = message.get("t")
    if kind == "drive":
        drive(message["pin"], message["level"])
    elif kind == "vsys":
        vsys_volts = message["volts"]
    elif kind == "analog":
        analog_volts[message["channel"]] = message["volts"]
    elif kind == "accel" and accel is not None:
        accel.feed(message["samples"], message.get("token"), message.get("more", False))
    elif kind == "rest" and accel is not None:
        accel.set_rest(*message["g"])
    elif kind == "stats":
        reply = {"t": "stats", "id": message["id"]}
        if accel is not None:
            reply["accel"] = accel.stats()
        _simlink.send(reply)


def pump():
    """Catches up with the supervisor and the accelerometer's clock (firmware that polls)."""
    _simlink.pump()
    if accel is not None:
        accel.tick()


def _wake_pacer():
    if _wake is not None:
        _wake.set()


async def _pace_accelerometer(part, wake):
    import asyncio

    while True:
        wait_us = part.us_until_due()
        if wait_us is None:
            await wake.wait()
            wake.clear()
        elif wait_us > 0:
            await asyncio.sleep_ms(min((wait_us + 999) // 1000, 100))
        else:
            part.tick()


def _start():
    global _wake
    build(KIND)
    path = _simlink.socket_path()
    if not path:
        return
    _simlink.handler = _handle
    _simlink.connect(path, {"t": "hello", "kind": KIND, "boot": os.getenv("POPDICE_SIM_BOOT")})
    import asyncio

    asyncio.create_task(_simlink.serve())
    if accel is not None:
        _wake = asyncio.Event()
        asyncio.create_task(_pace_accelerometer(accel, _wake))


_start()
