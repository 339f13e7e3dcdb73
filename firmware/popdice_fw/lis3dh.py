"""LIS3DH accelerometer on I2C: 400 Hz, ±8 g, high resolution, data-ready routed to INT1.

The part answers at 0x18 or 0x19, as its SDO/SA0 pin is tied low or high (breakouts differ):
the driver takes the candidate addresses and keeps the first whose WHO_AM_I reads 0x33. It
reads a register rather than scanning the bus (the emulated RP2040 cannot scan).

``read_into(buffer)`` fetches one sample (STATUS_REG and the six output bytes after it, in
one auto-incremented transfer) into a buffer of ``SAMPLE_BYTES`` the caller preallocated,
and ``decode`` turns such bytes into the status and integer milli-g; ``read()`` does both
into ``x``, ``y``, ``z`` and ``overrun`` (whether the part overwrote a sample nobody had
read: STATUS.ZYXOR). None of them allocates, so they can run on the sample path, in an
interrupt handler too.
"""

from array import array

import micropython
from micropython import const

ADDRESSES = (0x18, 0x19)  # SDO/SA0 to ground, SDO/SA0 to 3.3 V

_WHO_AM_I = const(0x0F)
_CHIP_ID = const(0x33)
_CTRL_REG1 = const(0x20)
_CTRL_REG3 = const(0x22)
_CTRL_REG4 = const(0x23)
_STATUS_REG = const(0x27)
STATUS_ZYXOR = const(0x80)
SAMPLE_BYTES = const(7)  # STATUS_REG and OUT_X_L..OUT_Z_H
_AUTO_INCREMENT = const(0x80)

_ODR_400HZ_XYZ = const(0x77)  # ODR 0111 = 400 Hz, normal power, X, Y and Z enabled
SAMPLE_PERIOD_US = const(2500)  # 1 / 400 Hz
_INT1_DATA_READY = const(0x10)  # I1_ZYXDA
_BDU_8G_HIGH_RES = const(0xA8)  # block data update, FS 10 = ±8 g, HR
_MG_PER_DIGIT = const(4)  # ±8 g in high-resolution (12-bit) mode
_POWER_DOWN = const(0x00)


class Lis3dhError(OSError):
    pass


class Lis3dh:
    def __init__(self, i2c, addresses=ADDRESSES):
        self.i2c = i2c
        self._sample = bytearray(SAMPLE_BYTES)
        self._sample_view = memoryview(self._sample)
        self._decoded = array("i", bytes(16))
        self._register = bytearray(1)
        self.x = 0
        self.y = 0
        self.z = 0
        self.overrun = False
        self.address = self._find(addresses)
        self._write_register(_CTRL_REG4, _BDU_8G_HIGH_RES)
        self._write_register(_CTRL_REG3, _INT1_DATA_READY)
        self._write_register(_CTRL_REG1, _ODR_400HZ_XYZ)

    def _find(self, addresses):
        """The first of ``addresses`` whose WHO_AM_I reads 0x33; Lis3dhError if none does."""
        answers = ""
        for address in addresses:
            try:
                self.i2c.readfrom_mem_into(address, _WHO_AM_I, self._register)
            except OSError:
                answers += " 0x%02x: no answer;" % address
                continue
            if self._register[0] == _CHIP_ID:
                return address
            answers += " 0x%02x: WHO_AM_I 0x%02x;" % (address, self._register[0])
        raise Lis3dhError("no LIS3DH:" + answers[:-1])

    def _write_register(self, register, value):
        self._register[0] = value
        self.i2c.writeto_mem(self.address, register, self._register)

    def read_into(self, buffer):
        """One sample's ``SAMPLE_BYTES`` into ``buffer`` (a memoryview); clears data-ready."""
        self.i2c.readfrom_mem_into(self.address, _STATUS_REG | _AUTO_INCREMENT, buffer)

    def read(self):
        """One sample into ``x``, ``y``, ``z`` (milli-g) and ``overrun``; clears data-ready."""
        self.read_into(self._sample_view)
        decoded = self._decoded
        decode(self._sample, 0, decoded)
        self.overrun = bool(decoded[0] & STATUS_ZYXOR)
        self.x = decoded[1]
        self.y = decoded[2]
        self.z = decoded[3]

    def power_down(self):
        self._write_register(_CTRL_REG1, _POWER_DOWN)


@micropython.viper
def decode(raw, at: int, out):
    """The sample whose bytes start at ``raw[at]`` into ``out`` (an ``array("i")`` of 4): the
    status byte, then x, y, z in milli-g (12-bit readings, left-justified, 4 mg a digit)."""
    b = ptr8(raw)  # pyright: ignore[reportUndefinedVariable]
    o = ptr32(out)  # pyright: ignore[reportUndefinedVariable]
    o[0] = b[at]
    axis = 0
    while axis < 3:
        value = int(b[at + 1 + 2 * axis]) | (int(b[at + 2 + 2 * axis]) << 8)
        if value & 0x8000:
            value -= 0x10000
        o[1 + axis] = (value >> 4) * _MG_PER_DIGIT
        axis += 1
