"""The popper's LED dice as a builder wires them: where each die sits under the dome, and the
number the firmware gives each pixel (die 0's first pixel is 0, die 4's last is 44).

The places are the case's (``popdice.case``: the pip holes ``popdice case`` cuts), in
millimetres from the lid's centre, seen from above with the USB opening towards you: +x to
the right, +y away. Within a die, pixel i is in row i // 3 (row 0 farthest away) and column
i % 3 (left to right), and the data runs row by row, each row left to right: never snaked.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..case import dimensions, placement
from ..errors import PopdiceError

PIXELS_PER_DIE = 9
COLOURS = ("red", "orange", "yellow", "green", "blue")
"""Each die's colour in Popalotsy, die 0 first (the firmware's modes)."""


@dataclass(frozen=True)
class DiceLayout:
    centres: tuple[tuple[float, float], ...]  # each die's, die 0 first
    pixels: tuple[tuple[float, float], ...]  # every pixel's, in the chain's order
    pitch: float  # between neighbouring pixels of a die, mm
    pip_hole: float  # the hole over each pixel, mm across
    dome_diameter: float

    @property
    def count(self) -> int:
        return len(self.centres)

    def centre(self, die: int) -> tuple[float, float]:
        return self.centres[die]

    def pixel(self, die: int, index: int) -> tuple[float, float]:
        """Where pixel ``index`` (0-8) of ``die`` sits, seen from above."""
        return self.pixels[self.number(die, index)]

    @staticmethod
    def number(die: int, index: int) -> int:
        """The firmware's number of a pixel: its place in the one chain of 45."""
        return die * PIXELS_PER_DIE + index


def layout(kind: str = "popper") -> DiceLayout:
    """The dice of ``kind``'s case; a board without LED dice is refused in one line."""
    case = dimensions.load(kind)
    if not isinstance(case, dimensions.PopperCase):
        raise PopdiceError(f"the {kind} has no LED dice")
    if case.dice.count != len(COLOURS):
        raise PopdiceError(f"boards/{kind}/case.json: the firmware drives {len(COLOURS)} dice")
    return DiceLayout(
        placement.die_centres(case),
        placement.pip_centres(case),
        case.dice.pixel_pitch,
        case.dice.pip_hole,
        case.dome.diameter,
    )


def text(dice: DiceLayout) -> str:
    """Each die's place and its pixels' numbers, for a terminal."""
    lines = ["seen from above, the USB opening towards you; x right, y away (mm)"]
    for die in range(dice.count):
        x, y = dice.centre(die)
        first = dice.number(die, 0)
        feed = "R1 (the data, 5 V)" if die == 0 else f"die {die - 1}'s pixel {first - 1}"
        lines.append(
            f"die {die} ({COLOURS[die]}): centre x {x:.1f} y {y:.1f}; pixels {first}-"
            f"{first + 8}; DIN from {feed}"
        )
        for row in range(3):
            numbers = (dice.number(die, 3 * row + column) for column in range(3))
            lines.append("    " + " ".join(f"{n:>3}" for n in numbers))
    return "\n".join(lines)
