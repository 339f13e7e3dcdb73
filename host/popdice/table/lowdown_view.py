"""Lowdown on screen: the dice (open, and the hidden pair once revealed) and every board.

A board is five lines: the player (``▶`` when active), their score, wilds used, and who holds
the hidden dice or is done; then the three grids side by side, headed by the names typed in
commands (``ro``, ``pb``, ``gy``), with row numbers. A box shows its number (struck through
when its line is crossed out), ``X`` when blacked out, and when empty the colour it takes:
the colour's initial (``r`` red ...), or ``·`` for a half box, which takes either colour of
its grid. Two boards to a row: 2-4 players fit 80x24.

Nothing here can show the hidden pair before its reveal: it reads ``LowdownTable.hidden``,
which is None until the handheld has revealed the dice.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Static

from ..games.lowdown.rules import BLACKOUT
from ..games.lowdown.state import Step
from .dice_view import COLOURS, DiceView
from .lowdown_table import LowdownTable, grid_short
from .names import literal

BOARD_LINES = 5


def name_cell(name: str, width: int) -> str:
    """``name`` as typed (names.py), cut or padded to ``width`` columns of the screen."""
    shown = literal(name)
    while cell_len(shown) > width:
        shown = shown[:-1]
    return shown + " " * (width - cell_len(shown))


def board_text(table: LowdownTable, seat: int) -> Text:
    """One player's board, five lines (see the module)."""
    state = table.state
    sheet = state.sheets[seat]
    layout = state.layouts[seat]
    text = Text()
    active = seat == state.active and not table.over
    role = ""
    if table.over:
        role = "wins" if seat in table.winners() else ""
    elif state.step is Step.WRITE:
        role = "done" if state.done[seat] else ("to cross" if state.wrote[seat] else "to write")
    elif seat == state.roller:
        role = "hidden"
    text.append("▶ " if active else "  ", style="bold yellow")
    text.append(name_cell(table.players[seat], 10), style="bold" if active else "")
    text.append(f"{state.scores()[seat]:>4} pts wild {sheet.wilds}/{state.data.wild_boxes} ")
    text.append(role, style="italic")
    text.append("\n  ")
    for name in state.data.grid_names:
        text.append(f"{grid_short(name):<8}", style="bold")
    for row in range(state.data.size):
        text.append(f"\n{row + 1} ", style="dim")
        for name in state.data.grid_names:
            crossed = sheet.crossed_cells(name)
            for col in range(state.data.size):
                box = sheet.grids[name][row][col]
                if box == BLACKOUT:
                    text.append("X", style="bold reverse")
                elif box is not None:
                    style = "strike dim" if (row, col) in crossed else "bold"
                    text.append(str(box), style=style)
                else:
                    colours = sorted(layout.boxes[name][row][col])
                    if len(colours) == 1:
                        text.append(colours[0][0], style=f"dim {COLOURS[colours[0]]}")
                    else:
                        text.append("·", style="dim")
                text.append(" " if col < state.data.size - 1 else "   ")
    return text


def dice_of(table: LowdownTable) -> list[tuple[str | None, int | None]]:
    """The open dice (none before the pop), then the hidden pair (``?`` until revealed)."""
    state = table.state
    dice: list[tuple[str | None, int | None]] = []
    if table.dice_in:
        dice += [(None, number) for number in state.own_numbers]
        dice += [(colour, None) for colour in state.own_colors]
    if table.hidden is not None:
        colour, number = table.hidden
        dice += [(None, number), (colour, None)]
    elif table.commitment is not None:
        dice += [(None, None), (None, None)]
    return dice


def dice_caption(table: LowdownTable) -> str:
    state = table.state
    parts = []
    if table.dice_in:
        parts.append("open " + " ".join(map(str, [*state.own_numbers, *state.own_colors])))
    if table.hidden is not None:
        parts.append(f"hidden {table.hidden[1]} {table.hidden[0]}")
    elif table.commitment is not None:
        parts.append("hidden ? ?")
    return " · ".join(parts)


def info_text(table: LowdownTable) -> str:
    """The turn: who is active, who holds the hidden dice, and the dice the others share."""
    state = table.state
    lines = [
        f"turn {state.turns}",
        f"active: {literal(table.players[state.active])}",
        f"hidden: {literal(table.players[state.roller])}",
    ]
    if state.step is Step.WRITE:
        shared = [*state.shared_numbers, *state.shared_colors]
        lines.append("others: " + " ".join(map(str, shared)))
    return "\n".join(lines)


class LowdownView(Vertical):
    """The dice and the turn, then every player's board; ``show`` redraws them."""

    DEFAULT_CSS = """
    LowdownView { height: auto; }
    LowdownView #lowdown-top { height: 4; }
    LowdownView #lowdown-dice { width: 50; padding: 0 1; }
    LowdownView #lowdown-info { width: 1fr; }
    LowdownView #boards { grid-size: 2; grid-rows: 5; grid-gutter: 0 1; height: auto; }
    LowdownView .board { height: 5; }
    """

    def __init__(self, table: LowdownTable, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table

    def compose(self) -> ComposeResult:
        with Horizontal(id="lowdown-top"):
            yield DiceView(id="lowdown-dice")
            yield Static(id="lowdown-info", markup=False)
        with Grid(id="boards"):
            for seat in range(len(self.table.players)):
                yield Static(id=f"board-{seat}", classes="board")

    def show(self) -> None:
        table = self.table
        self.query_one("#lowdown-dice", DiceView).show(dice_of(table), dice_caption(table))
        self.query_one("#lowdown-info", Static).update(info_text(table))
        for seat in range(len(table.players)):
            self.query_one(f"#board-{seat}", Static).update(board_text(table, seat))
