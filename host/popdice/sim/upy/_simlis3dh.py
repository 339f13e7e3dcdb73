"""Register-level model of the popper's LIS3DH accelerometer (ST datasheet DocID17530).

Runs inside MicroPython. The model knows nothing of the supervisor: what it does to the
outside world goes through hooks (``on_int1``, ``on_wake``, ``on_chunk_done``) and it takes
its clock as an argument, so tests can drive it directly. Like every simulated I2C part it
has ``address`` (``ADDRESS`` unless given: a board may tie SDO/SA0 high for 0x19),
``i2c_write(data)`` (one write transaction) and ``i2c_read(n)``.
"""

import time
from array import array

from micropython import const

_WHO_AM_I = const(0x0F)
_CTRL_REG0 = const(0x1E)
_CTRL_REG1 = const(0x20)
_CTRL_REG3 = const(0x22)
_CTRL_REG4 = const(0x23)
_CTRL_REG5 = const(0x24)
_CTRL_REG6 = const(0x25)
_STATUS_REG = const(0x27)
_OUT_X_L = const(0x28)
_OUT_Z_H = const(0x2D)
_LIS3DH_ID = const(0x33)
_AUTO_INCREMENT = const(0x80)
_REG1_LPEN = const(0x08)
_REG3_I1_ZYXDA = const(0x10)
_REG4_HR = const(0x08)
_REG5_BOOT = const(0x80)
_REG6_INT_ACTIVE_LOW = const(0x02)
_STATUS_ZYXDA = const(0x08)

_FULL_SCALE_G = (2, 4, 8, 16)
_MG_PER_DIGIT_HR = (1, 2, 4, 12)
_MG_PER_DIGIT_NORMAL = (4, 8, 16, 48)
_MG_PER_DIGIT_LOW_POWER = (16, 32, 64, 192)
# CTRL_REG1 ODR field: Hz in normal/high-resolution mode and in low-power mode.
_ODR_HZ = (0, 1, 10, 25, 50, 100, 200, 400, 0, 1344)
_ODR_HZ_LOW_POWER = (0, 1, 10, 25, 50, 100, 200, 400, 1600, 5376)
_READ_ONLY = (_WHO_AM_I, _STATUS_REG, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D)


ADDRESS = const(0x18)
FAST_FEED_SPEEDUP = const(4)


def _ticks_us():
    return time.ticks_us()


def _ignore(*_args):
    pass


class Lis3dh:
    """The accelerometer, paced in lockstep with the firmware that reads it.

    A new sample becomes ready only once the previous one has been read (the high bytes
    of every enabled axis) and at least 1/ODR has passed since the previous one became
    ready, so a slow host slows the part down instead of losing samples. Ready times keep
    to the ODR's clock while the reader keeps up, so a coarse scheduler still gives the
    ODR on average. Fed samples (g) come first; with none queued the part produces the
    resting vector. ``overruns`` counts samples read more than one period after they were
    latched: a real part would have overwritten them. STATUS.ZYXOR is never set, so the
    firmware's behaviour does not depend on the host's load.

    With ``fast_feed`` fed samples come ``FAST_FEED_SPEEDUP`` times faster than the ODR, so a
    trace goes through the firmware faster than in real time (for tests that need what it
    detects, not when); the firmware reads each sample in INT1's interrupt into a ring and
    takes it from there in its own time, so the rate stays one the firmware keeps up with.
    The resting vector keeps the ODR.
    """

    def __init__(
        self,
        clock=_ticks_us,
        on_int1=None,
        on_wake=None,
        on_chunk_done=None,
        address=ADDRESS,
        fast_feed=False,
    ):
        self.address = address
        self.clock = clock
        self.fast_feed = fast_feed
        self.on_int1 = on_int1 or _ignore  # on_int1(level): the INT1 output changed
        self.on_wake = on_wake or _ignore  # on_wake(): when the next sample is due may change
        self.on_chunk_done = on_chunk_done or _ignore  # on_chunk_done(token): a fed chunk is read
        self.regs = bytearray(0x40)
        self.regs[_WHO_AM_I] = _LIS3DH_ID
        self.regs[_CTRL_REG0] = 0x10
        self.regs[_CTRL_REG1] = 0x07
        self.rest = (0.0, 0.0, 1.0)
        self.produced = 0
        self.consumed = 0
        self.overruns = 0
        self._pointer = 0
        self._chunks = []  # [array('f') of x, y, z..., token]
        self._chunk_pos = 0
        self._feed_open = False  # more fed samples are on their way: wait for them
        self._ready = False
        self._ready_at = clock()  # when the last sample was due on the ODR clock
        self._latched_at = self._ready_at  # when it was actually latched
        self._read_mask = 0
        self._sample_token = None
        self._int1 = 0

    # --- the I2C side

    def i2c_write(self, data):
        if not data:
            return
        self.tick()
        self._pointer = data[0]
        for value in data[1:]:
            self._write_register(self._pointer & 0x7F, value)
            self._advance()

    def i2c_read(self, n):
        self.tick()
        out = bytearray(n)
        for i in range(n):
            out[i] = self._read_register(self._pointer & 0x7F)
            self._advance()
        self._check_consumed()
        return out

    def _advance(self):
        if self._pointer & _AUTO_INCREMENT:
            self._pointer = _AUTO_INCREMENT | ((self._pointer + 1) & 0x7F)

    def _read_register(self, reg):
        if reg >= len(self.regs):
            return 0
        if self._ready and reg in (0x29, 0x2B, 0x2D):
            self._read_mask |= 1 << ((reg - 0x29) >> 1)
        return self.regs[reg]

    def _write_register(self, reg, value):
        if reg >= len(self.regs) or reg in _READ_ONLY:
            return
        was_running = self.odr_hz() > 0
        if reg == _CTRL_REG5:
            value &= ~_REG5_BOOT & 0xFF
        self.regs[reg] = value
        if reg == _CTRL_REG1:
            if not was_running and self.odr_hz() > 0:
                self._ready_at = self.clock()
            self.on_wake()
        self._update_int1()

    # --- configuration, as the registers say

    def odr_hz(self):
        field = self.regs[_CTRL_REG1] >> 4
        table = _ODR_HZ_LOW_POWER if self._low_power() else _ODR_HZ
        return table[field] if field < len(table) else 0

    def full_scale_g(self):
        return _FULL_SCALE_G[(self.regs[_CTRL_REG4] >> 4) & 3]

    def resolution_bits(self):
        if self._low_power():
            return 8
        return 12 if self.regs[_CTRL_REG4] & _REG4_HR else 10

    def _low_power(self):
        return bool(self.regs[_CTRL_REG1] & _REG1_LPEN)

    def _mg_per_digit(self):
        fs = (self.regs[_CTRL_REG4] >> 4) & 3
        bits = self.resolution_bits()
        if bits == 8:
            return _MG_PER_DIGIT_LOW_POWER[fs]
        if bits == 12:
            return _MG_PER_DIGIT_HR[fs]
        return _MG_PER_DIGIT_NORMAL[fs]

    def _enabled_axes(self):
        return self.regs[_CTRL_REG1] & 0x07

    def _period_us(self):
        hz = self.odr_hz()
        return 1_000_000 // hz if hz else 0

    def encode(self, g):
        """The 16-bit left-justified reading of ``g`` at the current range and mode."""
        full_scale = self.full_scale_g()
        g = min(max(g, -full_scale), full_scale)
        bits = self.resolution_bits()
        digits = int(round(g * 1000 / self._mg_per_digit()))
        limit = 1 << (bits - 1)
        digits = min(max(digits, -limit), limit - 1)
        return (digits << (16 - bits)) & 0xFFFF

    # --- the physical side

    def feed(self, samples, token=None, more=False):
        """Queues samples (a flat sequence x, y, z, x, y, z ... in g). ``on_chunk_done(token)``
        runs once the last of them has been read; ``more`` says another chunk follows, so the
        part waits for it rather than producing the resting vector in between."""
        chunk = array("f", samples)
        if len(chunk) % 3:
            raise ValueError("samples come in x, y, z triples")
        if len(chunk):
            self._chunks.append([chunk, token])
        elif token is not None:
            self.on_chunk_done(token)
        self._feed_open = more
        self.on_wake()

    def queued(self):
        count = sum(len(chunk[0]) for chunk in self._chunks) // 3
        return count - self._chunk_pos

    def drop_queue(self):
        self._chunks = []
        self._chunk_pos = 0
        self._feed_open = False

    def set_rest(self, x, y, z):
        self.rest = (float(x), float(y), float(z))

    def us_until_due(self):
        """Microseconds until the next sample is due (0: now), or None while none can come."""
        hz = self.odr_hz()
        if not hz or self._ready or (self._feed_open and not self._chunks):
            return None
        waited = time.ticks_diff(self.clock(), self._ready_at)
        if waited < 0:  # the ticks wrapped after a very long wait
            return 0
        return max(0, self._pace_us() - waited)

    def _pace_us(self):
        """How far apart samples come: the ODR's period, shorter for a fast feed."""
        period = self._period_us()
        return period // FAST_FEED_SPEEDUP if self.fast_feed and self._chunks else period

    def tick(self):
        """Produces the next sample if it is due; True if it did."""
        if self.us_until_due() != 0:
            return False
        if self._chunks:
            chunk = self._chunks[0]
            base = self._chunk_pos * 3
            x, y, z = chunk[0][base], chunk[0][base + 1], chunk[0][base + 2]
            self._chunk_pos += 1
            if self._chunk_pos * 3 >= len(chunk[0]):
                self._chunks.pop(0)
                self._chunk_pos = 0
                self._sample_token = chunk[1]
            else:
                self._sample_token = None
        else:
            x, y, z = self.rest
            self._sample_token = None
        self._latch((x, y, z))
        return True

    def _latch(self, sample):
        enabled = self._enabled_axes()
        for axis in range(3):
            raw = self.encode(sample[axis]) if enabled & (1 << axis) else 0
            self.regs[_OUT_X_L + 2 * axis] = raw & 0xFF
            self.regs[_OUT_X_L + 2 * axis + 1] = raw >> 8
        self.regs[_STATUS_REG] = _STATUS_ZYXDA | enabled
        self._ready = True
        # A sample a period or more behind the ODR clock restarts the clock.
        now = self.clock()
        period = self._pace_us()
        nominal = time.ticks_add(self._ready_at, period)
        late = time.ticks_diff(now, nominal)
        self._ready_at = nominal if 0 <= late < period else now
        self._latched_at = now
        self._read_mask = 0
        self.produced += 1
        self._update_int1()

    def _check_consumed(self):
        needed = self._enabled_axes() or 0x07
        if not self._ready or (self._read_mask & needed) != needed:
            return
        self._ready = False
        self.regs[_STATUS_REG] = 0
        self.consumed += 1
        period = self._period_us()
        if period and time.ticks_diff(self.clock(), self._latched_at) > period:
            self.overruns += 1
        self._update_int1()
        token = self._sample_token
        self._sample_token = None
        if token is not None:
            self.on_chunk_done(token)
        self.on_wake()

    def _update_int1(self):
        active = self._ready and bool(self.regs[_CTRL_REG3] & _REG3_I1_ZYXDA)
        level = int(active) ^ int(bool(self.regs[_CTRL_REG6] & _REG6_INT_ACTIVE_LOW))
        if level != self._int1:
            self._int1 = level
            self.on_int1(level)

    def int1(self):
        return self._int1

    def stats(self):
        return {
            "produced": self.produced,
            "consumed": self.consumed,
            "overruns": self.overruns,
            "queued": self.queued(),
            "odr_hz": self.odr_hz(),
            "full_scale_g": self.full_scale_g(),
            "resolution_bits": self.resolution_bits(),
            "rest": list(self.rest),
        }
