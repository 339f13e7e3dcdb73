"""Register-level model of the handheld's SSD1306 OLED controller (Solomon Systech rev 1.1).

Runs inside MicroPython. ``on_change(part)`` tells the outside world when what the panel
shows has changed, so tests can drive the model directly. Like every simulated I2C part it
has ``address`` (``ADDRESS`` unless given: a module's jumper may select 0x3D),
``i2c_write(data)`` (one write transaction) and ``i2c_read(n)``.
"""

from micropython import const


def _ignore(*_args):
    pass


ADDRESS = const(0x3C)

# Commands and control bytes.
_CONTROL_CONTINUATION = const(0x80)
_CONTROL_DATA = const(0x40)
_SET_CONTRAST = const(0x81)
_SET_MEMORY_MODE = const(0x20)
_SET_COLUMN_ADDRESS = const(0x21)
_SET_PAGE_ADDRESS = const(0x22)
_DISPLAY_OFF = const(0xAE)
_DISPLAY_ON = const(0xAF)
_ENTIRE_DISPLAY_RAM = const(0xA4)
_ENTIRE_DISPLAY_ON = const(0xA5)
_NORMAL_DISPLAY = const(0xA6)
_INVERT_DISPLAY = const(0xA7)
_SEGMENT_REMAP_OFF = const(0xA0)
_SEGMENT_REMAP_ON = const(0xA1)
_COM_SCAN_UP = const(0xC0)
_COM_SCAN_DOWN = const(0xC8)
_MODE_HORIZONTAL = const(0)
_MODE_VERTICAL = const(1)
_MODE_PAGE = const(2)
_WIDTH = const(128)
_PAGES = const(8)

# Argument bytes of the commands that take any (the others are one byte).
_ARGUMENT_COUNT = {
    0x81: 1,  # contrast
    0x20: 1,  # memory addressing mode
    0x21: 2,  # column address window
    0x22: 2,  # page address window
    0x26: 6,  # horizontal scroll setup
    0x27: 6,
    0x29: 5,  # vertical and horizontal scroll setup
    0x2A: 5,
    0xA3: 2,  # vertical scroll area
    0xA8: 1,  # multiplex ratio
    0xD3: 1,  # display offset
    0xD5: 1,  # clock divide
    0xD9: 1,  # pre-charge period
    0xDA: 1,  # COM pins configuration
    0xDB: 1,  # VCOMH deselect level
    0x8D: 1,  # charge pump
}


class Ssd1306:
    """The 128x64 OLED controller: its command parser and its page-major frame buffer.

    The buffer is laid out as MicroPython's framebuf.MONO_VLSB (byte = 8 vertical pixels,
    least significant bit on top, pages of 128 bytes). ``on_change(part)`` runs at the end
    of a write transaction that changed what the panel shows.
    """

    def __init__(self, on_change=None, address=ADDRESS):
        self.address = address
        self.on_change = on_change or _ignore
        self.buffer = bytearray(_WIDTH * _PAGES)
        self.on = False
        self.contrast = 0x7F
        self.invert = False
        self.entire_on = False
        self.segment_remap = False
        self.com_reverse = False
        self.start_line = 0
        self.mode = _MODE_PAGE
        self.settings = {}  # command -> its argument bytes, for the commands not modelled
        self.column = 0
        self.page = 0
        self.column_start = 0
        self.column_end = _WIDTH - 1
        self.page_start = 0
        self.page_end = _PAGES - 1
        self._command = None
        self._arguments = bytearray()
        self._changed = False

    def i2c_write(self, data):
        i = 0
        n = len(data)
        while i < n:
            control = data[i]
            i += 1
            is_data = control & _CONTROL_DATA
            if control & _CONTROL_CONTINUATION:
                if i < n:
                    self._take(data[i], is_data)
                    i += 1
                continue
            while i < n:
                self._take(data[i], is_data)
                i += 1
        if self._changed:
            self._changed = False
            self.on_change(self)

    def i2c_read(self, n):
        status = 0 if self.on else 0x40
        return bytes([status]) * n

    def _take(self, byte, is_data):
        if is_data:
            self._write_data(byte)
        elif self._command is None:
            self._arguments = bytearray()
            if _ARGUMENT_COUNT.get(byte, 0):
                self._command = byte
            else:
                self._execute(byte, self._arguments)
        else:
            self._arguments.append(byte)
            if len(self._arguments) == _ARGUMENT_COUNT[self._command]:
                command = self._command
                self._command = None
                self._execute(command, self._arguments)

    def _execute(self, command, args):
        if command in (_DISPLAY_ON, _DISPLAY_OFF):
            self._set("on", command == _DISPLAY_ON)
        elif command == _SET_CONTRAST:
            self._set("contrast", args[0])
        elif command in (_NORMAL_DISPLAY, _INVERT_DISPLAY):
            self._set("invert", command == _INVERT_DISPLAY)
        elif command in (_ENTIRE_DISPLAY_RAM, _ENTIRE_DISPLAY_ON):
            self._set("entire_on", command == _ENTIRE_DISPLAY_ON)
        elif command in (_SEGMENT_REMAP_OFF, _SEGMENT_REMAP_ON):
            self._set("segment_remap", command == _SEGMENT_REMAP_ON)
        elif command in (_COM_SCAN_UP, _COM_SCAN_DOWN):
            self._set("com_reverse", command == _COM_SCAN_DOWN)
        elif command == _SET_MEMORY_MODE:
            if args[0] & 3 != 3:
                self.mode = args[0] & 3
        elif command == _SET_COLUMN_ADDRESS:
            self.column_start = args[0] & 0x7F
            self.column_end = args[1] & 0x7F
            self.column = self.column_start
        elif command == _SET_PAGE_ADDRESS:
            self.page_start = args[0] & 0x07
            self.page_end = args[1] & 0x07
            self.page = self.page_start
        elif 0x40 <= command <= 0x7F:
            self._set("start_line", command & 0x3F)
        elif command <= 0x0F:  # page mode: lower nibble of the column
            self.column = (self.column & 0xF0) | command
        elif command <= 0x1F:  # page mode: upper nibble of the column
            self.column = (self.column & 0x0F) | ((command & 0x07) << 4)
        elif 0xB0 <= command <= 0xB7:  # page mode: the page
            self.page = command & 0x07
        else:
            self.settings[command] = bytes(args)

    def _set(self, name, value):
        if getattr(self, name) != value:
            setattr(self, name, value)
            self._changed = True

    def _write_data(self, byte):
        index = self.page * _WIDTH + self.column
        if self.buffer[index] != byte:
            self.buffer[index] = byte
            self._changed = True
        if self.mode == _MODE_HORIZONTAL:
            if self.column >= self.column_end:
                self.column = self.column_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
            else:
                self.column += 1
        elif self.mode == _MODE_VERTICAL:
            if self.page >= self.page_end:
                self.page = self.page_start
                self.column = (
                    self.column_start if self.column >= self.column_end else self.column + 1
                )
            else:
                self.page += 1
        else:
            self.column = self.column_start if self.column >= _WIDTH - 1 else self.column + 1

    def state(self):
        return {
            "on": self.on,
            "contrast": self.contrast,
            "invert": self.invert,
            "entire_on": self.entire_on,
            "segment_remap": self.segment_remap,
            "com_reverse": self.com_reverse,
            "start_line": self.start_line,
        }
