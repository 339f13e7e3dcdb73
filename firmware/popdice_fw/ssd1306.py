"""SSD1306 128x64 OLED over I2C: a ``framebuf.FrameBuffer`` that ``show`` sends to the panel.

Takes the bus, never pins. Draw with the FrameBuffer methods, then ``show()`` writes the
whole frame (MONO_VLSB, page-major, as the controller's RAM is laid out) in one
transaction. The set-up is the datasheet's for a 128x64 module with the internal charge
pump, mounted with segment remap and reversed COM scan (upright on the usual modules).
The frame buffer and the command buffers are allocated once, here.

A module answers at 0x3C or 0x3D, as its D/C# (SA0) pin is tied (usually a solder jumper on
the back): the driver takes the candidate addresses and keeps the first that acknowledges a
display-off command. The controller has no identity register to read, and the emulated
RP2040 cannot scan the bus.
"""

import framebuf
from micropython import const

ADDRESSES = (0x3C, 0x3D)  # SA0 low, SA0 high

_CONTROL_COMMANDS = const(0x00)  # Co = 0, D/C# = 0: every byte that follows is a command
_CONTROL_DATA = const(0x40)  # Co = 0, D/C# = 1: every byte that follows is display RAM

_MEMORY_MODE = const(0x20)
_HORIZONTAL = const(0x00)
_COLUMN_ADDRESS = const(0x21)
_PAGE_ADDRESS = const(0x22)
_START_LINE = const(0x40)
_SET_CONTRAST = const(0x81)
_CHARGE_PUMP = const(0x8D)
_PUMP_ON = const(0x14)
_PUMP_OFF = const(0x10)
_SEGMENT_REMAP = const(0xA1)
_FOLLOW_RAM = const(0xA4)
_NORMAL = const(0xA6)
_INVERT = const(0xA7)
_MULTIPLEX = const(0xA8)
_DISPLAY_OFF = const(0xAE)
_DISPLAY_ON = const(0xAF)
_COM_SCAN_REVERSED = const(0xC8)
_DISPLAY_OFFSET = const(0xD3)
_CLOCK = const(0xD5)
_PRECHARGE = const(0xD9)
_COM_PINS = const(0xDA)
_VCOMH = const(0xDB)

_DEFAULT_CONTRAST = const(0xCF)


class Ssd1306(framebuf.FrameBuffer):
    """The panel and its frame buffer; ``on`` and ``contrast_level`` say what was last set."""

    def __init__(self, i2c, addresses=ADDRESSES, width=128, height=64):
        self.width = width
        self.height = height
        self.buffer = bytearray(width * height // 8)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        self.i2c = i2c
        self.address = _find(i2c, addresses)
        self.on = False
        self.contrast_level = _DEFAULT_CONTRAST
        self._command = bytearray(3)
        self._command[0] = _CONTROL_COMMANDS
        self._command_alone = memoryview(self._command)[:2]
        self._window = bytes(
            (_CONTROL_COMMANDS, _COLUMN_ADDRESS, 0, width - 1, _PAGE_ADDRESS, 0, height // 8 - 1)
        )
        self._data = (bytes((_CONTROL_DATA,)), self.buffer)
        self.init()

    def init(self):
        """Sets the controller up, clears its RAM and turns the panel on."""
        self.i2c.writeto(
            self.address,
            bytes(
                (
                    _CONTROL_COMMANDS,
                    _DISPLAY_OFF,
                    _CLOCK, 0x80,
                    _MULTIPLEX, self.height - 1,
                    _DISPLAY_OFFSET, 0x00,
                    _START_LINE | 0,
                    _MEMORY_MODE, _HORIZONTAL,
                    _SEGMENT_REMAP,
                    _COM_SCAN_REVERSED,
                    _COM_PINS, 0x12 if self.height == 64 else 0x02,
                    _SET_CONTRAST, self.contrast_level,
                    _PRECHARGE, 0xF1,
                    _VCOMH, 0x30,
                    _FOLLOW_RAM,
                    _NORMAL,
                )
            ),
        )  # fmt: skip
        self.fill(0)
        self.show()
        self.power_on()

    def _send(self, command, argument=-1):
        buf = self._command
        buf[1] = command
        if argument < 0:
            self.i2c.writeto(self.address, self._command_alone)
        else:
            buf[2] = argument
            self.i2c.writeto(self.address, buf)

    def show(self):
        """Writes the whole frame buffer to the panel's RAM."""
        self.i2c.writeto(self.address, self._window)
        self.i2c.writevto(self.address, self._data)

    def power_on(self):
        self._send(_CHARGE_PUMP, _PUMP_ON)
        self._send(_DISPLAY_ON)
        self.on = True

    def power_off(self):
        """Sleep mode (the panel dark, its RAM kept) with the charge pump off."""
        self._send(_DISPLAY_OFF)
        self._send(_CHARGE_PUMP, _PUMP_OFF)
        self.on = False

    def contrast(self, level):
        self.contrast_level = level & 0xFF
        self._send(_SET_CONTRAST, self.contrast_level)

    def invert(self, inverted):
        self._send(_INVERT if inverted else _NORMAL)


def _find(i2c, addresses):
    """The first of ``addresses`` that acknowledges a display-off command (OSError if none)."""
    off = bytes((_CONTROL_COMMANDS, _DISPLAY_OFF))
    for address in addresses:
        try:
            i2c.writeto(address, off)
        except OSError:
            continue
        return address
    raise OSError("no SSD1306 at " + " or ".join("0x%02x" % a for a in addresses))
