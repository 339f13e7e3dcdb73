"""Lowdown on screen: the dice (open, and the hidden pair once revealed) and every board.

A board is five lines: the player (``▶`` when active), their score, wilds used, and who holds
the hidden dice or is done; then the three grids side by side, headed by the names typed in
commands (``ro``, ``pb``, ``gy``), with row numbers. A box shows its number (struck through
when its line is crossed out), ``X`` when blacked out, and when empty the colour it takes:
the colour's initial (``r`` red ...), or ``·`` for a half box, which takes either colour of
its grid. Two boards to a row: 2-4 players fit 80x24.

Each board is a ``BoardView``: click a box, or Tab to the board, move with the arrows and
press Enter; Esc lets go. The boxes the pointing player's pick may go in are lit (marked
``>`` before them too, not by colour alone), and the keyboard's box is shown reversed.

Nothing here can show the hidden pair before its reveal: it reads ``LowdownTable.hidden``,
which is None until the handheld has revealed the dice.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from ..games.lowdown.rules import BLACKOUT
from ..games.lowdown.state import Step
from . import lowdown_pick
from .dice_view import COLOURS, DiceView
from .lowdown_pick import (
    SAYS,
    Pick,
    actions,
    boxes,
    crossings,
    needs,
    offered,
    ready,
)
from .lowdown_table import LowdownTable, grid_short, line_label
from .names import literal
from .pointing import ChipSpec

BOARD_LINES = 5
GRID_COLUMNS = 8  # a grid's width on screen: three boxes and their spaces, then a gap
FIRST_BOX = (2, 2)  # where the first grid's top left box is: column, line

Box = tuple[str, int, int]


def name_cell(name: str, width: int) -> str:
    """``name`` as typed (names.py), cut or padded to ``width`` columns of the screen."""
    shown = literal(name)
    while cell_len(shown) > width:
        shown = shown[:-1]
    return shown + " " * (width - cell_len(shown))


def board_text(
    table: LowdownTable, seat: int, lit: Collection[Box] = (), cursor: Box | None = None
) -> Text:
    """One player's board, five lines (see the module), the boxes ``lit`` lit and marked
    and the keyboard's ``cursor`` box reversed."""
    state = table.state
    sheet = state.sheets[seat]
    layout = state.layouts[seat]
    text = Text()
    active = seat == state.active and not table.over
    role = table.role(seat)
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
                extra = ""
                if (name, row, col) in lit:
                    extra = " underline on dark_green"
                    text.right_crop(1)  # the space before the box
                    text.append(">", style="bold green")
                if (name, row, col) == cursor:
                    extra += " reverse"
                if box == BLACKOUT:
                    text.append("X", style="bold reverse" + extra)
                elif box is not None:
                    style = "strike dim" if (row, col) in crossed else "bold"
                    text.append(str(box), style=style + extra)
                else:
                    colours = sorted(layout.boxes[name][row][col])
                    if len(colours) == 1:
                        shown = f"dim {COLOURS[colours[0]]}" if not extra else "bold"
                        text.append(colours[0][0], style=shown + extra)
                    else:
                        text.append("·", style=("dim" if not extra else "bold") + extra)
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
                yield BoardView(self.table, seat, id=f"board-{seat}", classes="board")

    def show(self, lit: Mapping[int, Collection[Box]] | None = None) -> None:
        """Redraws the dice, the turn and every board, the boxes ``lit`` by seat lit."""
        table = self.table
        self.query_one("#lowdown-dice", DiceView).show(dice_of(table), dice_caption(table))
        self.query_one("#lowdown-info", Static).update(info_text(table))
        for seat in range(len(table.players)):
            self.query_one(f"#board-{seat}", BoardView).show((lit or {}).get(seat, ()))


class BoardView(Static, can_focus=True):
    """One player's board, to point at: a click on a box (or Enter on the keyboard's box)
    posts ``Pointed`` with it; a click elsewhere on the board, or the board taking the
    keyboard, posts it without a box (the player steps up to the screen)."""

    BINDINGS = [
        Binding("up", "move(0, -1)", show=False),
        Binding("down", "move(0, 1)", show=False),
        Binding("left", "move(-1, 0)", show=False),
        Binding("right", "move(1, 0)", show=False),
        Binding("enter,space", "choose", show=False),
        Binding("escape", "let_go", show=False),
    ]

    class Pointed(Message):
        def __init__(self, seat: int, box: Box | None) -> None:
            super().__init__()
            self.seat = seat
            self.box = box

    class LetGo(Message):
        def __init__(self, seat: int) -> None:
            super().__init__()
            self.seat = seat

    def __init__(self, table: LowdownTable, seat: int, *, id: str, classes: str) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.table = table
        self.seat = seat
        self.cursor: Box | None = None
        self.lit: frozenset[Box] = frozenset()

    def show(self, lit: Collection[Box] = ()) -> None:
        self.lit = frozenset(lit)
        cursor = self.cursor if self.has_focus else None
        self.update(board_text(self.table, self.seat, self.lit, cursor))

    def box_at(self, x: int, y: int) -> Box | None:
        """The box drawn at column ``x``, line ``y`` of the board, if any."""
        data = self.table.state.data
        row, across = y - FIRST_BOX[1], x - FIRST_BOX[0]
        if not 0 <= row < data.size or across < 0:
            return None
        grid, within = divmod(across, GRID_COLUMNS)
        col, off = divmod(within, 2)
        if grid >= len(data.grid_names) or col >= data.size or off:
            return None
        return (data.grid_names[grid], row, col)

    def on_click(self, event: events.Click) -> None:
        box = self.box_at(event.x, event.y)
        if box is not None:
            self.cursor = box
        self.post_message(self.Pointed(self.seat, box))

    def on_focus(self) -> None:
        if self.cursor is None:
            self.cursor = (self.table.state.data.grid_names[0], 0, 0)
        self.post_message(self.Pointed(self.seat, None))

    def on_blur(self) -> None:
        self.show(self.lit)

    def action_move(self, across: int, down: int) -> None:
        data = self.table.state.data
        grid, row, col = self.cursor or (data.grid_names[0], 0, 0)
        size, grids = data.size, data.grid_names
        column = (grids.index(grid) * size + col + across) % (size * len(grids))
        row = (row + down) % size
        self.cursor = (grids[column // size], row, column % size)
        self.show(self.lit)

    def action_choose(self) -> None:
        self.post_message(self.Pointed(self.seat, self.cursor))

    def action_let_go(self) -> None:
        self.post_message(self.LetGo(self.seat))


def pick_bar(table: LowdownTable, pick: Pick | None) -> tuple[str, list[ChipSpec], str]:
    """What the bar shows for ``pick``: who plays, the chips of their dice and of the actions
    open to them, and a hint of what to do next."""
    if not ready(table):
        return "", [], table.status()
    if pick is None:
        return "", [], "click a player's board (or Tab to it) to play for them · F1: commands"
    name = name_cell(table.players[pick.seat], 12).rstrip() + ":"
    numbers, colours = offered(table, pick.seat)
    chips = [
        ChipSpec(f"n:{i}", str(n), pick.number == i, "a number die") for i, n in enumerate(numbers)
    ]
    chips += [
        ChipSpec(f"c:{i}", colour, pick.colour == i, "a colour die")
        for i, colour in enumerate(colours)
    ]
    for action in actions(table, pick.seat):
        chips.append(ChipSpec(f"a:{action}", action, pick.mode == action, SAYS[action]))
    for cross in crossings(table, pick.seat):
        label = f"cross {grid_short(cross.grid)} {line_label(cross.line)}"
        chips.append(ChipSpec(f"x:{cross.grid}:{cross.line}", label, says="cross out this line"))
    if not chips:
        return name, [], "nothing to do now: wait for the others"
    lacking = needs(table, pick)
    if lacking:
        hint = f"pick {lacking}, then a lit box"
    elif pick.mode == lowdown_pick.BLACKOUT:
        hint = "click a lit box (>) to black it out"
    elif boxes(table, pick):
        hint = "click a lit box (>) to write there; Esc lets go"
    else:
        hint = "no box takes these dice: other dice, a wild, or skip"
    return name, chips, hint
