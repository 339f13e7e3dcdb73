"""The dice as the popper shows them: each die a 3x3 grid of coloured pips.

A die is ``(colour, number)``: a number die in white is ``(None, n)``, a Popalotsy die has
both, a colour die (Lowdown) is ``(colour, None)`` and shows a full face in its colour, and
a die not known yet (Lowdown's hidden pair before its reveal) is ``(None, None)``: ``?``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

# Which of the nine cells (row by row) hold a pip for each face.
PIPS = {
    1: {4},
    2: {0, 8},
    3: {0, 4, 8},
    4: {0, 2, 6, 8},
    5: {0, 2, 4, 6, 8},
    6: {0, 2, 3, 5, 6, 8},
}
COLOURS = {
    "red": "red",
    "orange": "dark_orange",
    "yellow": "yellow",
    "green": "green",
    "blue": "dodger_blue1",
    "purple": "purple",
}


def render_dice(dice: Sequence[tuple[str | None, int | None]]) -> Text:
    """Three lines of pips, one block per die (``(colour, number)``, see the module)."""
    text = Text()
    for row in range(3):
        for index, (colour, number) in enumerate(dice):
            if index:
                text.append("   ")
            style = COLOURS.get(colour or "", "white")
            cells = PIPS.get(number or 0, set())
            for column in range(3):
                cell = row * 3 + column
                if number is None:
                    glyph = "■" if colour else ("?" if cell == 4 else "·")
                else:
                    glyph = "●" if cell in cells else "·"
                text.append(glyph, style=style)
                text.append(" " if column < 2 else "")
        text.append("\n")
    return text


class DiceView(Static):
    """The popper's dice; ``show`` replaces them."""

    def show(self, dice: Sequence[tuple[str | None, int | None]], caption: str) -> None:
        text = render_dice(dice) if dice else Text("(no dice yet)\n\n\n")
        text.append(caption, style="bold")
        self.update(text)
