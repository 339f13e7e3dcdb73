"""What a Lowdown player can point at now, and the move each choice makes.

A player picks a number die and a colour die from the dice offered to them (their own, the
hidden pair once revealed, or the ones the active player left), and the boxes that pair may
go in are the ones to point at; a wild takes a number die (and, for the active player, the
colour die to drop), a blackout any box it may black out. Reveal, wild, blackout, skip and
done are offered only when legal, and so is each line to cross out. Everything comes from
the engine's legal actions, so a box is offered only when the engine would take it; each
choice becomes the same move a typed command makes, and goes through the same referee.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..games.lowdown.state import Blackout, Cross, Done, Place, Reveal, Skip, Step
from .lowdown_table import LowdownTable
from .referee import Move

WRITE, WILD, BLACKOUT = "write", "wild", "blackout"
ACTIONS = ("reveal", WILD, BLACKOUT, "skip", "done")
"""The actions besides writing with a pair, in the order they are offered."""
SAYS = {
    "reveal": "see the hidden pair (then write with it)",
    WILD: "write a number die in any empty box, its colour wild",
    BLACKOUT: "black out an empty box (+6)",
    "skip": "write nothing this turn",
    "done": "end your turn (nothing more to cross out)",
}
"""What each action does, as the screen says it."""

Box = tuple[str, int, int]


@dataclass(frozen=True)
class Pick:
    """One player's choice so far: their seat, the offered dice chosen (by index), and
    whether the box they point at next is written, written wild or blacked out."""

    seat: int
    number: int | None = None
    colour: int | None = None
    mode: str = WRITE

    def toggled(self, kind: str, index: int) -> Pick:
        """The pick with number (or colour) die ``index`` chosen, or let go if it was."""
        if kind == "number":
            return replace(self, number=None if self.number == index else index)
        return replace(self, colour=None if self.colour == index else index)


def ready(table: LowdownTable) -> bool:
    """Whether the turn waits on the players, not on the dome, the handheld or a reveal."""
    if table.over:
        return False
    if table.state.step is Step.CHOOSE:
        return table.dice_in and table.commitment is not None and table.pending is None
    return True


def _legal(table: LowdownTable, seat: int) -> list[object]:
    return list(table.state.legal_actions(seat)) if ready(table) else []


def offered(table: LowdownTable, seat: int) -> tuple[list[int], list[str]]:
    """The number and colour dice ``seat`` may write with now; none when they may not."""
    if not any(isinstance(a, Place) for a in _legal(table, seat)):
        return [], []
    numbers, colours = table.state.offered_dice(seat)
    return list(numbers), list(colours)


def actions(table: LowdownTable, seat: int) -> list[str]:
    """The actions open to ``seat`` now, of ``ACTIONS``."""
    legal = _legal(table, seat)
    kinds = {
        "reveal": any(isinstance(a, Reveal) for a in legal),
        WILD: any(isinstance(a, Place) and a.wild for a in legal),
        BLACKOUT: any(isinstance(a, Blackout) for a in legal),
        "skip": any(isinstance(a, Skip) for a in legal),
        "done": any(isinstance(a, Done) for a in legal),
    }
    return [kind for kind in ACTIONS if kinds[kind]]


def crossings(table: LowdownTable, seat: int) -> list[Cross]:
    """The lines ``seat`` may cross out now."""
    return [a for a in _legal(table, seat) if isinstance(a, Cross)]


def boxes(table: LowdownTable, pick: Pick) -> set[Box]:
    """The boxes ``pick`` may go in: none until it names what a box needs."""
    found: set[Box] = set()
    for action in _legal(table, pick.seat):
        if pick.mode == BLACKOUT and isinstance(action, Blackout):
            found.add((action.grid, action.row, action.col))
        elif isinstance(action, Place) and action.number == pick.number:
            wild = pick.mode == WILD
            fits = action.color == pick.colour or (wild and action.color is None)
            if action.wild == wild and fits:
                found.add((action.grid, action.row, action.col))
    return found


def needs(table: LowdownTable, pick: Pick) -> str:
    """What ``pick`` still lacks before a box can be pointed at, in a few words ('' if
    nothing)."""
    if pick.mode == BLACKOUT:
        return ""
    numbers, colours = offered(table, pick.seat)
    lacking = []
    if pick.number is None and numbers:
        lacking.append("a number die")
    dropping = table.state.step is Step.CHOOSE and pick.mode == WILD
    if pick.colour is None and colours and (pick.mode == WRITE or dropping):
        lacking.append("the colour die to drop" if dropping else "a colour die")
    return " and ".join(lacking)


def box_move(table: LowdownTable, pick: Pick, box: Box) -> Move:
    """The move of writing ``pick`` into ``box`` (or blacking it out)."""
    grid, row, col = box
    move: Move = {"seat": pick.seat, "grid": grid, "row": row, "col": col}
    if pick.mode == BLACKOUT:
        return {"type": BLACKOUT, **move}
    numbers, colours = offered(table, pick.seat)
    number = numbers[pick.number] if pick.number is not None else None
    colour = colours[pick.colour] if pick.colour is not None else None
    return {"type": pick.mode, "number": number, "color": colour, **move}


def action_move(pick: Pick, action: str) -> Move:
    """The move of an action that needs no box: reveal, skip or done."""
    if action == "reveal":
        return {"type": "reveal"}
    return {"type": action, "seat": pick.seat}


def cross_move(pick: Pick, cross: Cross) -> Move:
    return {"type": "cross", "seat": pick.seat, "grid": cross.grid, "line": cross.line}
