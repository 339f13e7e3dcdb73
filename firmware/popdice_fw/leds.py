"""The five LED dice: 45 WS2812 as five 3×3 matrices, die 0 first, each row by row.

Faces are drawn into a frame here, then brightness is applied and the frame's estimated
current is capped before it is written: a WS2812B draws about 20 mA per colour channel at
full duty, so a frame's estimate is 20 mA × (sum of its channel values) / 255, and a frame
over the cap (default 400 mA, within the USB port's 500 mA) is scaled down to fit.

A die only ever shows one of nine patterns (dark, pips 1-6, a full face, a bar) in one of seven
colours, so each (colour, pattern) is built once at the current brightness, in RGB and in
the strip's wire order (``NeoPixel.buf`` by ``NeoPixel.ORDER``), with its channel sum.
Drawing a die records its pattern; showing a frame copies 27 bytes a die: on an RP2040 a
frame costs little more than the 1.4 ms the strip takes to clock out, where a byte-by-byte
frame took 15 ms, long enough to lose accelerometer samples. Only a frame over the cap is
scaled byte by byte.
"""

from micropython import const

DICE = const(5)
PIXELS_PER_DIE = const(9)
MA_PER_CHANNEL = const(20)
DEFAULT_CAP_MA = const(400)
DEFAULT_BRIGHTNESS = const(96)
_DIE_BYTES = const(27)  # 9 pixels × 3 channels
_FACE = const(7)  # pattern 7: every pixel lit; 0 is dark, 1-6 the pips
_BAR = const(8)  # pattern 8: the middle row, which no face has: a roll that is not counted

# Bit i lights pixel i of a 3×3 matrix (0 1 2 / 3 4 5 / 6 7 8): the standard pip layout.
PIPS = (0, 0x010, 0x101, 0x111, 0x145, 0x155, 0x16D)
_MASKS = PIPS + (0x1FF, 0x038)

RGB = {
    "red": (255, 0, 0),
    "orange": (255, 72, 0),
    "yellow": (255, 190, 0),
    "green": (0, 255, 0),
    "blue": (0, 40, 255),
    "purple": (150, 0, 255),
    "white": (255, 255, 255),
}
_DARK_COLOUR = "white"  # a dark die is pattern 0 of any colour


def frame_milliamps(frame):
    """The estimated current of a frame (bytes r, g, b per pixel), in mA."""
    return sum(frame) * MA_PER_CHANNEL // 255


def _pattern(mask, rgb, brightness, order):
    """One die's 27 bytes: RGB at ``brightness`` and in wire ``order``, and their sum."""
    plain = bytearray(_DIE_BYTES)
    wire = bytearray(_DIE_BYTES)
    for pixel in range(PIXELS_PER_DIE):
        if mask >> pixel & 1:
            for channel in range(3):
                value = rgb[channel] * brightness // 255
                plain[3 * pixel + channel] = value
                wire[3 * pixel + order[channel]] = value
    return bytes(plain), bytes(wire), sum(plain)


class LedDice:
    def __init__(self, pixels, brightness=DEFAULT_BRIGHTNESS, cap_ma=DEFAULT_CAP_MA):
        self.pixels = pixels
        self.dice = DICE
        # the frame last made (RGB): written, or prepared to be
        self.shown = bytearray(3 * PIXELS_PER_DIE * DICE)
        self.cap_ma = cap_ma
        self.frames_capped = 0
        self.last_ma = 0
        self._order = pixels.ORDER
        self._dimmed = {}  # colour -> its 9 patterns at the current brightness
        self._colours = [_DARK_COLOUR] * DICE
        self._patterns = [0] * DICE
        self._brightness = brightness
        self._writes = 0  # frames written to the strip
        self._prepared = -1  # ``_writes`` when the frame in the buffer was prepared

    @property
    def brightness(self):
        return self._brightness

    @brightness.setter
    def brightness(self, value):
        if value != self._brightness:
            self._brightness = value
            self._dimmed = {}

    def _patterns_of(self, colour):
        patterns = self._dimmed.get(colour)
        if patterns is None:
            rgb = RGB[colour]
            brightness = self._brightness
            patterns = [_pattern(mask, rgb, brightness, self._order) for mask in _MASKS]
            self._dimmed[colour] = patterns
        return patterns

    def _paint(self, die, pattern, colour):
        if colour not in RGB:
            raise ValueError("no LED colour %r" % colour)
        self._colours[die] = colour
        self._patterns[die] = pattern

    def clear(self):
        for die in range(DICE):
            self._paint(die, 0, _DARK_COLOUR)

    def pips(self, die, number, colour):
        """Die ``die`` shows ``number`` (1-6) as pips in ``colour``."""
        self._paint(die, number, colour)

    def face(self, die, colour):
        """Die ``die`` is lit all over in ``colour``."""
        self._paint(die, _FACE, colour)

    def dark(self, die):
        self._paint(die, 0, _DARK_COLOUR)

    def bar(self, die):
        """Die ``die`` shows a bar across its middle: no face, a roll not counted."""
        self._paint(die, _BAR, _DARK_COLOUR)

    def limit(self):
        """The drawn dice with brightness applied and scaled under the cap, into ``shown``
        (RGB) and the strip's buffer (wire order); returns ``shown``."""
        shown = self.shown
        wire = self.pixels.buf
        colours = self._colours
        patterns = self._patterns
        total = 0
        start = 0
        for die in range(DICE):
            plain, ordered, channels = self._patterns_of(colours[die])[patterns[die]]
            shown[start : start + _DIE_BYTES] = plain
            wire[start : start + _DIE_BYTES] = ordered
            total += channels
            start += _DIE_BYTES
        budget = self.cap_ma * 255 // MA_PER_CHANNEL
        if total > budget:
            self.frames_capped += 1
            order = self._order
            for i in range(len(shown)):
                value = shown[i] * budget // total
                shown[i] = value
                wire[i - i % 3 + order[i % 3]] = value
            total = sum(shown)
        self.last_ma = total * MA_PER_CHANNEL // 255
        return shown

    def show(self):
        self.limit()
        self.pixels.write()
        self._writes += 1

    def prepare(self):
        """Makes the drawn dice ready in the strip's buffer without writing them, so that
        ``show_prepared`` can start writing at once later. ``shown`` is then this frame."""
        self.limit()
        self._prepared = self._writes

    def show_prepared(self):
        """Writes the prepared frame, unless another was written since (or none was
        prepared); whether it did."""
        if self._prepared != self._writes:
            return False
        self.pixels.write()
        self._writes += 1
        return True

    def cue(self, shift):
        """The frame last shown, dimmed (each channel shifted right by ``shift``), at once:
        a press is felt before its pop. Allocates nothing; ``show`` brings it back."""
        shown = self.shown
        wire = self.pixels.buf
        for i in range(len(shown)):
            wire[i] = wire[i] >> shift
        self.pixels.write()
        self._writes += 1
