"""The LED dice inside MicroPython: pip layout, colours, brightness and the current cap."""

from popdice_fw.leds import PIPS, RGB, LedDice, frame_milliamps


class Strip:
    def __init__(self, n=45):
        self.values = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.values)

    def __setitem__(self, i, rgb):
        self.values[i] = rgb

    def write(self):
        self.writes += 1


def lit(strip, die):
    return [i for i in range(9) if strip.values[9 * die + i] != (0, 0, 0)]


def test_standard_pip_layout():
    expected = {
        1: [4],
        2: [0, 8],
        3: [0, 4, 8],
        4: [0, 2, 6, 8],
        5: [0, 2, 4, 6, 8],
        6: [0, 2, 3, 5, 6, 8],
    }
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=10000)
    for number, pixels in expected.items():
        dice.pips(2, number, "red")
        dice.show()
        assert lit(strip, 2) == pixels, number
        assert bin(PIPS[number]).count("1") == number


def test_faces_colours_and_dark_dice():
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=10000)
    dice.face(3, "purple")
    dice.pips(0, 1, "white")
    dice.show()
    assert lit(strip, 3) == list(range(9)) and strip.values[27] == RGB["purple"]
    assert strip.values[4] == (255, 255, 255) and lit(strip, 1) == []
    dice.dark(3)
    dice.show()
    assert lit(strip, 3) == [] and strip.writes == 2


def test_brightness_scales_every_channel():
    strip = Strip()
    dice = LedDice(strip, brightness=51, cap_ma=10000)
    dice.pips(0, 1, "white")
    dice.show()
    assert strip.values[4] == (51, 51, 51)


def test_a_frame_over_the_cap_is_scaled_under_it():
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=400)
    for die in range(5):
        dice.face(die, "white")
    assert frame_milliamps(dice.frame) == 2700
    dice.show()
    assert dice.last_ma <= 400 and dice.frames_capped == 1
    assert strip.values[0][0] == strip.values[0][1] > 0


def test_every_frame_the_popper_can_show_stays_under_the_cap():
    # The brightest faces of every mode: all six pips on five coloured dice (popalotsy and
    # the tumble), two white number dice with two full colour faces (lowdown), at full
    # brightness and at the default.
    colours = ("red", "orange", "yellow", "green", "blue")
    for brightness in (255, 96):
        dice = LedDice(Strip(), brightness=brightness)
        for a in range(1, 7):
            for b in range(1, 7):
                for c in range(1, 7):
                    for d in range(1, 7):
                        for e in range(1, 7):
                            for die, number in enumerate((a, b, c, d, e)):
                                dice.pips(die, number, colours[die])
                            assert frame_milliamps(dice.limit()) <= dice.cap_ma
        for first in RGB:
            for second in RGB:
                dice.clear()
                dice.pips(0, 6, "white")
                dice.pips(1, 6, "white")
                dice.face(2, first)
                dice.face(3, second)
                assert frame_milliamps(dice.limit()) <= dice.cap_ma
