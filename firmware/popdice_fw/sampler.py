"""Every accelerometer sample, read when the sensor has it, whatever else is running.

The LIS3DH raises INT1 when a sample is ready. Its rising edge runs ``on_ready`` as a hard
interrupt, which reads the sample's bytes (status and x, y, z) over I2C into the next slot
of a preallocated ring and notes when: a garbage collection, a long ``json.dumps`` or a slow
task no longer makes the sensor overwrite a sample before it is read. The sensor task takes
the slots in order (``take``). The handler allocates nothing and does only that.

If the ring is full the sample is still read (so INT1 falls and the next edge comes), and is
let go; the next sample kept says how many were let go before it, so that every sample
keeps its number. INT1 stays high until its sample is read, so an edge missed altogether
(the interrupt off too long, a read that failed) would stop the samples for good:
``catch_missed`` reads the sample when INT1 has been high for longer than a period with no
read.
"""

import time
from array import array

import machine
import micropython
from micropython import const

from popdice_fw.lis3dh import SAMPLE_BYTES, decode

_SAMPLE_BYTES = const(7)  # lis3dh.SAMPLE_BYTES: a const is not one once imported
SLOTS = const(32)  # 80 ms of samples: longer than a garbage collection or a long task
_TICKS_MASK = const(0x3FFFFFFF)  # times are kept in 30 bits, the Pico's ticks_us period
_TICKS_HALF = const(0x20000000)
_PERIOD_US = const(2500)
_LATE_US = const(3750)  # INT1 high this long after the last read: its edge was missed
# counters, in one array the handler writes
_WRITTEN = const(0)  # samples put in the ring
_LET_GO = const(1)  # samples read while the ring was full
_FAILED = const(2)  # reads that raised (a bus that does not answer)
_LAST_US = const(3)  # when the last sample was read (ticks_us)
_LONGEST_US = const(4)  # the handler's longest run
_MISSED = const(5)  # edges missed and caught
_LET_GO_SINCE = const(6)  # samples let go since the last one kept
ISR_SPENT_US = const(7)  # the handler's time, in all (30 bits, wrapping)


def now_us():
    """``ticks_us`` in 30 bits: the Pico's own; a 64-bit port's, cut to fit an ``array("i")``."""
    return time.ticks_us() & _TICKS_MASK  # pyright: ignore[reportOperatorIssue]


def since_us(later, earlier):
    """Microseconds from ``earlier`` to ``later`` (both from ``now_us``), across a wrap."""
    difference = (later - earlier) & _TICKS_MASK
    return difference - (_TICKS_MASK + 1) if difference >= _TICKS_HALF else difference


@micropython.viper
def _keep(sample, ring, at: int):
    """A sample's bytes into the ring at ``at``."""
    source = ptr8(sample)  # pyright: ignore[reportUndefinedVariable]
    target = ptr8(ring)  # pyright: ignore[reportUndefinedVariable]
    i = 0
    while i < _SAMPLE_BYTES:
        target[at + i] = source[i]
        i += 1


class Sampler:
    def __init__(self, accel, ready_pin):
        self.accel = accel
        self.ready_pin = ready_pin
        self.raw = bytearray(SAMPLE_BYTES * SLOTS)
        self._read = bytearray(SAMPLE_BYTES)
        self._read_view = memoryview(self._read)
        self.times = array("i", bytes(4 * SLOTS))
        self.skipped = array("i", bytes(4 * SLOTS))  # samples let go just before each slot's
        self.counts = array("i", bytes(4 * 8))
        self.taken = 0
        self._on_ready = self.on_ready  # bound once: the interrupt allocates no method object

    def start(self):
        """Reads every sample from now on, in the interrupt of INT1's rising edge."""
        if hasattr(micropython, "alloc_emergency_exception_buf"):  # not on the unix port
            micropython.alloc_emergency_exception_buf(100)  # an error in the handler is told
        self.counts[_LAST_US] = now_us()
        self.ready_pin.irq(self._on_ready, self.ready_pin.IRQ_RISING, hard=True)

    def stop(self):
        self.ready_pin.irq(None)

    def on_ready(self, _pin):
        """INT1 rose: the sample into the next slot (or let go, the ring being full)."""
        started = now_us()
        counts = self.counts
        written = counts[_WRITTEN]
        try:
            self.accel.read_into(self._read_view)
        except (OSError, MemoryError):  # the exception is the emergency one: nothing allocated
            counts[_FAILED] += 1
            return
        if (written - self.taken) & _TICKS_MASK >= SLOTS:
            counts[_LET_GO] += 1
            counts[_LET_GO_SINCE] += 1
        else:
            slot = written % SLOTS
            _keep(self._read, self.raw, slot * SAMPLE_BYTES)
            self.times[slot] = started
            self.skipped[slot] = counts[_LET_GO_SINCE]
            counts[_LET_GO_SINCE] = 0
            counts[_WRITTEN] = (written + 1) & _TICKS_MASK  # small ints after 31 days too
        counts[_LAST_US] = started
        spent = since_us(now_us(), started)
        if spent > counts[_LONGEST_US]:
            counts[_LONGEST_US] = spent
        counts[ISR_SPENT_US] = (counts[ISR_SPENT_US] + spent) & _TICKS_MASK

    def catch_missed(self):
        """Reads the sample whose edge was missed, if INT1 has been high too long; True if
        it did."""
        if not self.ready_pin.value():
            return False
        if since_us(now_us(), self.counts[_LAST_US]) < _LATE_US:
            return False
        state = machine.disable_irq()
        try:
            self.on_ready(None)
        finally:
            machine.enable_irq(state)
        self.counts[_MISSED] += 1
        return True

    def pending(self):
        """How many samples wait in the ring."""
        return (self.counts[_WRITTEN] - self.taken) & _TICKS_MASK

    def take(self, out):
        """The oldest waiting sample into ``out`` (an ``array("i")`` of 5: status, x, y, z
        in milli-g, and how many samples were let go just before it); returns when it was
        read (``now_us``). Only when ``pending()``."""
        slot = self.taken % SLOTS
        decode(self.raw, slot * SAMPLE_BYTES, out)
        out[4] = self.skipped[slot]
        self.taken = (self.taken + 1) & _TICKS_MASK
        return self.times[slot]

    def figures(self):
        counts = self.counts
        return {
            "let_go": counts[_LET_GO],
            "failed": counts[_FAILED],
            "missed_edges": counts[_MISSED],
            "isr_max_us": counts[_LONGEST_US],
        }
