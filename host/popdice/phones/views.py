"""A player's page, as JSON: what the rules let that player see, and what they may do.

Everything public (the open dice, every board, the scores, the log) and, for that player
only, the dice they may write with now and, for each pick of dice, the boxes it may go in,
from the engine's legal moves (``lowdown_pick``). The hidden pair is in a page only once it
is revealed: the laptop itself has nothing of it before (only its commitment). A move a page
sends back is turned into the same move a typed command makes, for that page's player only.
Dice are picked by their place, so a move says which choices its page showed (``choices``):
one sent from a page the game has moved on from is refused, not read against other dice.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..games.lowdown.rules import BLACKOUT, lines_of
from ..games.lowdown.state import Cross, Step
from ..table import lowdown_pick
from ..table.lowdown_pick import Pick
from ..table.lowdown_table import LowdownTable, grid_short, line_label
from ..table.referee import Move, Refused

LOG_LINES = 40


def lowdown_page(table: LowdownTable, seat: int, log: list[str]) -> dict[str, Any]:
    """The page of the player at ``seat``."""
    state = table.state
    data = state.data
    dice_in = table.dice_in
    page: dict[str, Any] = {
        "game": "lowdown",
        "you": seat,
        "players": list(table.players),
        "status": table.status(),
        "over": table.over,
        "turn": state.turns,
        "active": state.active,
        "roller": state.roller,
        "step": state.step.value,
        "scores": table.scores(),
        "grids": [{"name": name, "short": grid_short(name)} for name in data.grid_names],
        "size": data.size,
        "dice": {
            "numbers": list(state.own_numbers) if dice_in else [],
            "colours": list(state.own_colors) if dice_in else [],
            "hidden": None if table.hidden is None else list(table.hidden),
            "hidden_rolled": table.commitment is not None,
        },
        "boards": [_board(table, s) for s in range(len(table.players))],
        "log": log[-LOG_LINES:],
        "mine": _mine(table, seat),
        "choices": choices(table, seat),
    }
    return page


def choices(table: LowdownTable, seat: int) -> str:
    """A short digest of what ``seat`` may choose from now (the turn, its step, the dice
    offered): it changes when a pick by place would mean other dice, not with the log."""
    state = table.state
    numbers, colours = lowdown_pick.offered(table, seat)
    shown = [state.turns, state.step.value, state.active, numbers, colours, table.dice_in]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:12]


def _board(table: LowdownTable, seat: int) -> dict[str, Any]:
    state = table.state
    sheet, layout = state.sheets[seat], state.layouts[seat]
    grids = {}
    for name in state.data.grid_names:
        crossed = sheet.crossed_cells(name)
        rows = []
        for row in range(state.data.size):
            cells = []
            for col in range(state.data.size):
                value = sheet.grids[name][row][col]
                cells.append(
                    {
                        "value": "X" if value == BLACKOUT else value,
                        "takes": sorted(layout.boxes[name][row][col]),
                        "crossed": (row, col) in crossed,
                    }
                )
            rows.append(cells)
        grids[name] = rows
    role = table.role(seat)
    role = "holds the handheld" if role == "hidden" else role
    return {"wilds": sheet.wilds, "wild_boxes": state.data.wild_boxes, "role": role, "grids": grids}


def _boxes(found: set[tuple[str, int, int]]) -> list[list[Any]]:
    return [list(box) for box in sorted(found)]


def _mine(table: LowdownTable, seat: int) -> dict[str, Any]:
    """What the player may do now: their dice, each pick's boxes, the actions, the lines."""
    numbers, colours = lowdown_pick.offered(table, seat)
    pairs = {}
    wilds = {}
    choosing = table.state.step is Step.CHOOSE
    for n in range(len(numbers)):
        for c in range(len(colours)):
            pairs[f"{n},{c}"] = _boxes(lowdown_pick.boxes(table, Pick(seat, n, c)))
        drops = range(len(colours)) if choosing else [None]
        for c in drops:
            key = f"{n}" if c is None else f"{n},{c}"
            wilds[key] = _boxes(lowdown_pick.boxes(table, Pick(seat, n, c, lowdown_pick.WILD)))
    actions = lowdown_pick.actions(table, seat)
    return {
        "numbers": numbers,
        "colours": colours,
        "pairs": pairs,
        "wild": wilds if lowdown_pick.WILD in actions else {},
        "wild_drops": choosing,
        "blackout": _boxes(lowdown_pick.boxes(table, Pick(seat, mode=lowdown_pick.BLACKOUT)))
        if lowdown_pick.BLACKOUT in actions
        else [],
        "actions": [{"key": a, "says": lowdown_pick.SAYS[a]} for a in actions],
        "crossings": [
            {"grid": c.grid, "line": c.line, "label": f"{grid_short(c.grid)} {line_label(c.line)}"}
            for c in lowdown_pick.crossings(table, seat)
        ],
    }


def move_of(table: LowdownTable, seat: int, message: Any) -> Move:
    """The move a page of ``seat`` asks for, as a typed command would make it; a message that
    is not one is refused (``bad_message``). The page's player is the only one it moves."""
    if not isinstance(message, dict):
        raise Refused("bad_message", "a move is a JSON object")
    seen = message.get("choices")
    if seen is not None and seen != choices(table, seat):
        raise Refused("stale", "the game moved on since your page showed it: look and choose again")
    kind = message.get("kind")
    if kind == "action":
        action = message.get("action")
        if action not in lowdown_pick.ACTIONS or action in (lowdown_pick.WILD, "blackout"):
            raise Refused("bad_message", "no such action")
        if action == "reveal" and seat != table.state.active:
            raise Refused("not_your_turn", "only the active player reveals the hidden pair")
        return lowdown_pick.action_move(Pick(seat), action)
    if kind == "cross":
        grid, line = message.get("grid"), message.get("line")
        if not isinstance(grid, str) or not isinstance(line, str):
            raise Refused("bad_message", "a crossing names a grid and a line")
        if grid not in table.state.data.grid_names or line not in lines_of(table.state.data.size):
            raise Refused("bad_message", "no such grid or line")
        return lowdown_pick.cross_move(Pick(seat), Cross(grid, line))
    if kind == "box":
        mode = message.get("mode")
        if mode not in (lowdown_pick.WRITE, lowdown_pick.WILD, lowdown_pick.BLACKOUT):
            raise Refused("bad_message", "a box is written, written wild or blacked out")
        number, colour, box = message.get("number"), message.get("colour"), message.get("box")
        for value in (number, colour):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise Refused("bad_message", "dice are chosen by their place")
        if not (
            isinstance(box, list)
            and len(box) == 3
            and isinstance(box[0], str)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in box[1:])
        ):
            raise Refused("bad_message", "a box is [grid, row, column]")
        if box[0] not in table.state.data.grid_names:
            raise Refused("bad_message", "no such grid")
        size = table.state.data.size
        if not (0 <= box[1] < size and 0 <= box[2] < size):
            raise Refused("bad_message", f"rows and columns are counted 0 to {size - 1}")
        if mode == lowdown_pick.WRITE and (number is None or colour is None):
            raise Refused("bad_message", "writing a box takes a number die and a colour die")
        numbers, colours = lowdown_pick.offered(table, seat)
        if (number is not None and not 0 <= number < len(numbers)) or (
            colour is not None and not 0 <= colour < len(colours)
        ):
            raise Refused("no_such_die", "that die is not yours to write with now")
        pick = Pick(seat, number, colour, mode)
        return lowdown_pick.box_move(table, pick, (box[0], box[1], box[2]))
    raise Refused("bad_message", "a move is a box, an action or a crossing")
