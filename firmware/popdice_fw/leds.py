"""The five LED dice: 45 WS2812 as five 3×3 matrices, die 0 first, each row by row.

Faces are drawn into a frame here, then brightness is applied and the frame's estimated
current is capped before it is written: a WS2812B draws about 20 mA per colour channel at
full duty, so a frame's estimate is 20 mA × (sum of its channel values) / 255, and a frame
over the cap (default 400 mA, within the USB port's 500 mA) is scaled down to fit.
"""

from micropython import const

DICE = const(5)
PIXELS_PER_DIE = const(9)
MA_PER_CHANNEL = const(20)
DEFAULT_CAP_MA = const(400)
DEFAULT_BRIGHTNESS = const(96)

# Bit i lights pixel i of a 3×3 matrix (0 1 2 / 3 4 5 / 6 7 8): the standard pip layout.
PIPS = (0, 0x010, 0x101, 0x111, 0x145, 0x155, 0x16D)

RGB = {
    "red": (255, 0, 0),
    "orange": (255, 72, 0),
    "yellow": (255, 190, 0),
    "green": (0, 255, 0),
    "blue": (0, 40, 255),
    "purple": (150, 0, 255),
    "white": (255, 255, 255),
}


def frame_milliamps(frame):
    """The estimated current of a frame (bytes r, g, b per pixel), in mA."""
    return sum(frame) * MA_PER_CHANNEL // 255


class LedDice:
    def __init__(self, pixels, brightness=DEFAULT_BRIGHTNESS, cap_ma=DEFAULT_CAP_MA):
        self.pixels = pixels
        self.count = len(pixels)
        self.frame = bytearray(3 * self.count)
        self.shown = bytearray(3 * self.count)
        self.brightness = brightness
        self.cap_ma = cap_ma
        self.frames_capped = 0
        self.last_ma = 0

    def clear(self):
        for i in range(len(self.frame)):
            self.frame[i] = 0

    def _paint(self, die, mask, rgb):
        base = 3 * PIXELS_PER_DIE * die
        for pixel in range(PIXELS_PER_DIE):
            lit = mask >> pixel & 1
            at = base + 3 * pixel
            self.frame[at] = rgb[0] if lit else 0
            self.frame[at + 1] = rgb[1] if lit else 0
            self.frame[at + 2] = rgb[2] if lit else 0

    def pips(self, die, number, colour):
        """Die ``die`` shows ``number`` (1-6) as pips in ``colour``."""
        self._paint(die, PIPS[number], RGB[colour])

    def face(self, die, colour):
        """Die ``die`` is lit all over in ``colour``."""
        self._paint(die, 0x1FF, RGB[colour])

    def dark(self, die):
        self._paint(die, 0, (0, 0, 0))

    def limit(self):
        """``frame`` with brightness applied and scaled under the cap, into ``shown``."""
        frame = self.frame
        shown = self.shown
        brightness = self.brightness
        total = 0
        for i in range(len(frame)):
            value = frame[i] * brightness // 255
            shown[i] = value
            total += value
        budget = self.cap_ma * 255 // MA_PER_CHANNEL
        if total > budget:
            self.frames_capped += 1
            for i in range(len(shown)):
                shown[i] = shown[i] * budget // total
        self.last_ma = frame_milliamps(shown)
        return shown

    def show(self):
        shown = self.limit()
        pixels = self.pixels
        for i in range(self.count):
            pixels[i] = (shown[3 * i], shown[3 * i + 1], shown[3 * i + 2])
        pixels.write()
