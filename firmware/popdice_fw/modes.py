"""The popper's game modes: which dice pop, what each die is, and how it is shown.

- popalotsy: five dice, die i in its fixed colour (red, orange, yellow, green, blue),
  pips 1-6 in that colour;
- lowdown: dice 0-1 are number dice (white pips), dice 2-3 colour dice (a face fully lit
  in one of red, orange, purple, blue, green, yellow), die 4 dark;
- ringer: die 0 is a d6 in white, the rest dark.

A roll is a list of dice, each ``{"number": n}``, ``{"color": c}`` or both (popalotsy).
"""

from popdice_fw.dice import COLOURS

POPALOTSY = "popalotsy"
LOWDOWN = "lowdown"
RINGER = "ringer"
MODES = (POPALOTSY, LOWDOWN, RINGER)
POPALOTSY_COLOURS = ("red", "orange", "yellow", "green", "blue")

_NUMBER = "number"
_COLOUR = "color"
# What each die of a mode is: a number die, a colour die, or a popalotsy die (both).
_KINDS = {
    POPALOTSY: ("both",) * 5,
    LOWDOWN: (_NUMBER, _NUMBER, _COLOUR, _COLOUR),
    RINGER: (_NUMBER,),
}


def dice_count(mode):
    return len(_KINDS[mode])


def roll_die(mode, die, dice):
    """A fresh value for die ``die`` of ``mode``, from ``dice`` (a ``Dice``)."""
    kind = _KINDS[mode][die]
    if kind == _NUMBER:
        return {"number": dice.roll(6)}
    if kind == _COLOUR:
        return {"color": COLOURS[dice.roll(6) - 1]}
    return {"color": POPALOTSY_COLOURS[die], "number": dice.roll(6)}


def roll(mode, dice):
    return [roll_die(mode, die, dice) for die in range(dice_count(mode))]


def face_index(value):
    """0-5: the face of a die value, for counting (number 1-6, or the colour's place)."""
    if _COLOUR in value and _NUMBER not in value:
        return COLOURS.index(value[_COLOUR])
    return value[_NUMBER] - 1


def draw(mode, result, leds):
    """Puts ``result`` (a roll of ``mode``) into the LED frame; dice it lacks are dark."""
    for die in range(leds.dice):
        if die >= len(result):
            leds.dark(die)
            continue
        value = result[die]
        if mode == POPALOTSY:
            leds.pips(die, value[_NUMBER], value[_COLOUR])
        elif _NUMBER in value:
            leds.pips(die, value[_NUMBER], "white")
        else:
            leds.face(die, value[_COLOUR])


def draw_void(mode, leds):
    """A bar on each die of ``mode`` (the rest dark): the roll shown is not counted."""
    for die in range(leds.dice):
        if die < len(_KINDS[mode]):
            leds.bar(die)
        else:
            leds.dark(die)


def tumble(mode, leds, face):
    """Puts a face of ``face(6)`` (1-6) on each die of ``mode``: a frame of the tumble,
    drawn as ``draw`` would draw a roll, without building one."""
    kinds = _KINDS[mode]
    for die in range(leds.dice):
        if die >= len(kinds):
            leds.dark(die)
        elif kinds[die] == _COLOUR:
            leds.face(die, COLOURS[face(6) - 1])
        elif mode == POPALOTSY:
            leds.pips(die, face(6), POPALOTSY_COLOURS[die])
        else:
            leds.pips(die, face(6), "white")
