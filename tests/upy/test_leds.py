"""The LED dice inside MicroPython: pip layout, colours, brightness and the current cap."""

from fakestrip import Strip

from popdice_fw.leds import PIPS, RGB, LedDice, frame_milliamps


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
    dice.cap_ma = 10000
    assert frame_milliamps(dice.limit()) == 2700 and dice.frames_capped == 0
    dice.cap_ma = 400
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


def test_the_strip_gets_what_is_shown_in_its_wire_order():
    strip = Strip()
    dice = LedDice(strip, brightness=200, cap_ma=10000)
    dice.pips(1, 5, "orange")
    dice.face(4, "blue")
    dice.show()
    shown = dice.shown
    assert strip.values == [tuple(shown[3 * i : 3 * i + 3]) for i in range(45)]
    assert strip.buf[27:30] == bytes([72 * 200 // 255, 255 * 200 // 255, 0])  # G, R, B
    dice.cap_ma = 400
    for die in range(5):  # a capped frame too
        dice.face(die, "white")
    dice.show()
    assert dice.frames_capped == 1 and dice.last_ma <= 400
    assert strip.values == [tuple(dice.shown[3 * i : 3 * i + 3]) for i in range(45)]


def test_a_prepared_frame_goes_out_only_if_no_other_frame_went_first():
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=10000)
    assert not dice.show_prepared() and strip.writes == 0  # nothing prepared
    dice.pips(0, 3, "red")
    dice.prepare()
    prepared = bytes(strip.buf)
    assert strip.writes == 0 and any(prepared)
    assert dice.show_prepared() and strip.writes == 1 and bytes(strip.buf) == prepared
    assert not dice.show_prepared() and strip.writes == 1  # once
    for other in (dice.show, lambda: dice.cue(2)):
        dice.prepare()
        other()
        assert not dice.show_prepared() and strip.writes == 2
        strip.writes = 1


def test_a_new_brightness_applies_to_the_faces_already_drawn():
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=10000)
    dice.pips(0, 1, "white")
    dice.show()
    assert strip.values[4] == (255, 255, 255)
    dice.brightness = 100
    dice.show()
    assert strip.values[4] == (100, 100, 100) and dice.brightness == 100


def test_drawing_over_a_die_replaces_it_whole():
    strip = Strip()
    dice = LedDice(strip, brightness=255, cap_ma=10000)
    dice.face(2, "green")
    dice.pips(2, 2, "red")
    dice.show()
    assert lit(strip, 2) == [0, 8] and strip.values[18] == (255, 0, 0)
    dice.clear()
    dice.show()
    assert not any(dice.shown) and not any(strip.buf)


def test_an_unknown_colour_is_refused_when_drawn():
    dice = LedDice(Strip())
    try:
        dice.face(0, "mauve")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown colour was drawn")
    dice.show()  # what was drawn before still shows
