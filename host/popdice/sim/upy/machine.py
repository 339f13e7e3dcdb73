"""``machine`` for the simulated Pico: the RP2040 port's API on top of the simulated board.

Runs inside MicroPython, first on MICROPYPATH, so it replaces the unix port's own
``machine``. Pins, I2C, ADC and PWM act on the parts in ``_simhw``; an absent I2C
address raises OSError(EIO) as on the RP2040.
"""

import binascii
import time

import _simhw
from micropython import const

_EIO = const(5)
_I2C_DEFAULT_PINS = {0: (4, 5), 1: (6, 7)}  # (sda, scl)
_ADC_FIRST_PIN = const(26)
_LED_PIN = const(25)
_DEFAULT_CPU_HZ = const(125_000_000)

PWRON_RESET = const(1)
WDT_RESET = const(3)

_cpu_hz = _DEFAULT_CPU_HZ


def _pin_number(pin):
    if isinstance(pin, Pin):
        return pin.id
    if isinstance(pin, str):
        if pin == "LED":
            return _LED_PIN
        if pin.startswith("GP"):
            return int(pin[2:])
        raise ValueError("unknown pin %r" % pin)
    return int(pin)


class Pin:
    IN = _simhw.IN
    OUT = _simhw.OUT
    OPEN_DRAIN = _simhw.OPEN_DRAIN
    ALT = _simhw.ALT
    PULL_UP = _simhw.PULL_UP
    PULL_DOWN = _simhw.PULL_DOWN
    IRQ_FALLING = _simhw.IRQ_FALLING
    IRQ_RISING = _simhw.IRQ_RISING

    def __init__(self, id, mode=-1, pull=-1, value=None, **_kwargs):
        self.id = _pin_number(id)
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None, **_kwargs):
        _simhw.configure(self.id, mode, pull, value)

    def value(self, value=None):
        if value is None:
            _simhw.pump()
            return _simhw.level(self.id)
        _simhw.write(self.id, value)
        return None

    __call__ = value

    def on(self):
        _simhw.write(self.id, 1)

    def off(self):
        _simhw.write(self.id, 0)

    high = on
    low = off

    def toggle(self):
        _simhw.write(self.id, 1 - _simhw.level(self.id))

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        _simhw.set_irq(self.id, handler, trigger, self)

    def __repr__(self):
        return "Pin(GPIO%d)" % self.id


class I2C:
    """A hardware I2C bus; its parts are the ones wired to its SDA and SCL pins."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400_000, timeout=50_000):
        self.id = id
        self.init(scl=scl, sda=sda, freq=freq, timeout=timeout)

    def init(self, *, scl=None, sda=None, freq=400_000, timeout=50_000):
        default_sda, default_scl = _I2C_DEFAULT_PINS.get(self.id, (None, None))
        self.sda = default_sda if sda is None else _pin_number(sda)
        self.scl = default_scl if scl is None else _pin_number(scl)
        self.freq = freq
        self.timeout = timeout

    def deinit(self):
        pass

    def _part(self, addr):
        part = _simhw.bus(self.sda, self.scl).get(addr)
        if part is None:
            raise OSError(_EIO)
        return part

    def scan(self):
        return sorted(_simhw.bus(self.sda, self.scl))

    def writeto(self, addr, buf, stop=True):
        self._part(addr).i2c_write(bytes(buf))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        data = b"".join(bytes(b) for b in vector)
        self._part(addr).i2c_write(data)
        return len(data)

    def readfrom(self, addr, nbytes, stop=True):
        return bytes(self._part(addr).i2c_read(nbytes))

    def readfrom_into(self, addr, buf, stop=True):
        buf[:] = self._part(addr).i2c_read(len(buf))

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        self._part(addr).i2c_write(_memory_address(memaddr, addrsize) + bytes(buf))

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        part = self._part(addr)
        part.i2c_write(_memory_address(memaddr, addrsize))
        return bytes(part.i2c_read(nbytes))

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        part = self._part(addr)
        part.i2c_write(_memory_address(memaddr, addrsize))
        buf[:] = part.i2c_read(len(buf))


class SoftI2C(I2C):
    def __init__(self, scl, sda, *, freq=400_000, timeout=50_000):
        self.id = -1
        self.init(scl=scl, sda=sda, freq=freq, timeout=timeout)


def _memory_address(memaddr, addrsize):
    if addrsize == 16:
        return bytes([(memaddr >> 8) & 0xFF, memaddr & 0xFF])
    return bytes([memaddr & 0xFF])


class ADC:
    CORE_TEMP = const(4)

    def __init__(self, id):
        channel = _pin_number(id)
        if not isinstance(id, Pin) and channel < _ADC_FIRST_PIN:
            self.channel = channel
        else:
            self.channel = channel - _ADC_FIRST_PIN
        if not 0 <= self.channel <= 4:
            raise ValueError("no ADC on that pin")

    def read_u16(self):
        _simhw.pump()
        return _simhw.adc_read_u16(self.channel)


class PWM:
    """A PWM output; every change of its frequency or duty is reported (the buzzer)."""

    def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self.pin = _pin_number(dest)
        self._freq = 1000
        self._duty = 0
        self._active = True
        self.init(freq=freq, duty_u16=duty_u16, duty_ns=duty_ns, invert=invert)

    def init(self, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        if freq is not None:
            self._freq = int(freq)
        if duty_u16 is not None:
            self._duty = int(duty_u16)
        if duty_ns is not None:
            self._duty = self._ns_to_u16(duty_ns)
        self._active = True
        self._report()

    def deinit(self):
        self._active = False
        self._report()

    def freq(self, value=None):
        if value is None:
            return self._freq
        self._freq = int(value)
        self._report()
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        self._duty = min(max(int(value), 0), 65535)
        self._report()
        return None

    def duty_ns(self, value=None):
        if value is None:
            return int(self._duty * 1_000_000_000 // (65535 * self._freq))
        self._duty = self._ns_to_u16(value)
        self._report()
        return None

    def _ns_to_u16(self, ns):
        return min(max(int(ns * self._freq * 65535 // 1_000_000_000), 0), 65535)

    def _report(self):
        _simhw.report_pwm(self.pin, self._freq, self._duty, self._active)


def unique_id():
    return binascii.unhexlify(_simhw.DEVICE_ID)


def reset():
    _simhw.reset("hard")


def soft_reset():
    _simhw.reset("soft")


def reset_cause():
    return _simhw.RESET_CAUSE


_WDT_MAX_MS = const(8388)
_WDT_CTRL = const(0x40058000)
_WDT_ENABLE = const(0x40000000)
_WDT_SCRATCH0 = const(0x4005800C)


class WDT:
    """The RP2040's watchdog, kept by the supervisor outside this process (a loop here that
    never yields cannot stop it): not fed within ``timeout`` ms, it restarts the board."""

    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= _WDT_MAX_MS:
            raise ValueError("timeout out of range")
        _simhw.watchdog(timeout)
        mem32._ctrl |= _WDT_ENABLE

    def feed(self):
        _simhw.feed_watchdog()


class _Mem32:
    """``machine.mem32`` for the registers the firmware touches: the watchdog's CTRL (its
    enable bit) and its scratch registers 0-3."""

    def __init__(self):
        self._ctrl = 0

    def __getitem__(self, address):
        if address == _WDT_CTRL:
            return self._ctrl
        return _simhw.SCRATCH[self._scratch(address)]

    def __setitem__(self, address, value):
        value &= 0xFFFFFFFF
        if address == _WDT_CTRL:
            if self._ctrl & _WDT_ENABLE and not value & _WDT_ENABLE:
                _simhw.watchdog(0)
            self._ctrl = value
            return
        _simhw.write_scratch(self._scratch(address), value)

    def _scratch(self, address):
        index = (address - _WDT_SCRATCH0) >> 2
        if address & 3 or not 0 <= index < 4:
            raise ValueError("no simulated register at 0x%08x" % address)
        return index


mem32 = _Mem32()


def freq(hz=None):
    global _cpu_hz
    if hz is None:
        return _cpu_hz
    _cpu_hz = hz
    return None


def idle():
    _simhw.pump()
    time.sleep_ms(1)


def disable_irq():
    return _simhw.disable_irq()


def enable_irq(state=0):
    _simhw.enable_irq(state)
