"""`popdice score lowdown` and `popdice check lowdown-move` (docs/formats.md; the rules:
docs/rules.md §3.2-3.6).

Boards are read into ``Sheet``s (grids left out are empty); scoring reports the rule breaks it
finds but scores the boards as written. A bad document raises ``InputError``.
"""

from __future__ import annotations

from typing import Any

from ..errors import Reason
from ..fields import Field, faces_text, shown
from .rules import (
    BLACKOUT,
    Box,
    LowdownConfig,
    LowdownData,
    Sheet,
    line_problems,
    lines_of,
    placement_problem,
    qualifies,
)


def read_sheet(board: Field, data: LowdownData) -> Sheet:
    """A board document (``grids``, ``crossed``, ``wilds``, all optional) as a ``Sheet``."""
    size = data.size
    sheet = Sheet.empty(data.grid_names, size)
    box_kind = f'a box value (a number {faces_text(data.number_faces)}, "X" or null)'
    grids = board.optional("grids")
    for name, grid in grids.entries() if grids else []:
        if name not in data.grid_names:
            grid.fail(f"unknown grid (the grids are {', '.join(data.grid_names)})")
        rows = grid.items()
        if len(rows) != size:
            grid.fail(f"has {len(rows)} rows, not {size}")
        for row_index, row in enumerate(rows):
            boxes = row.items()
            if len(boxes) != size:
                row.fail(f"has {len(boxes)} boxes, not {size}")
            for col_index, box in enumerate(boxes):
                sheet.grids[name][row_index][col_index] = _read_box(box, data, box_kind)
    crossed = board.optional("crossed")
    line_names = tuple(lines_of(size))
    for name, lines in crossed.entries() if crossed else []:
        if name not in data.grid_names:
            lines.fail(f"unknown grid (the grids are {', '.join(data.grid_names)})")
        for line in lines.items():
            line_name = line.choice(line_names, "a line")
            if line_name in sheet.crossed[name]:
                line.fail(f"{line_name} is listed twice")
            sheet.crossed[name].append(line_name)
    wilds = board.optional("wilds")
    sheet.wilds = (
        0 if wilds is None else wilds.integer(0, None, "a count of wild boxes (0 or more)")
    )
    return sheet


def _read_box(box: Field, data: LowdownData, box_kind: str) -> Box:
    value = box.value
    if value is None or value == BLACKOUT:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in data.number_faces:
        return value
    box.fail(f"{shown(value)} is not {box_kind}")


def sheet_errors(
    player: str, sheet: Sheet, data: LowdownData, config: LowdownConfig
) -> list[dict[str, Any]]:
    """Every rule the board breaks (§3.3-3.5), one entry each: a crossed line that breaks
    two rules (an empty box and a blackout) has two."""
    errors: list[dict[str, Any]] = []
    lines = lines_of(sheet.size)
    for grid, crossed in sheet.crossed.items():
        earlier: set[tuple[int, int]] = set()
        for line in crossed:
            values = sheet.line_values(grid, line)
            problems = line_problems(values)
            if not problems and not qualifies(values, config.line_sum):
                problems = [Reason.NOT_QUALIFYING]
            errors += [_error(player, grid, line, problem) for problem in problems]
            cells = set(lines[line])
            if not config.crossed_lines_may_share_box and cells & earlier:
                errors.append(_error(player, grid, line, Reason.LINES_CROSS))
            earlier |= cells
    if sheet.wilds > data.wild_boxes:
        errors.append({"player": player, "grid": None, "reason": Reason.TOO_MANY_WILDS.value})
    return errors


def _error(player: str, grid: str, line: str, reason: Reason) -> dict[str, Any]:
    return {"player": player, "grid": grid, "line": line, "reason": reason.value}


def score_lowdown(
    doc: Field,
    suggest: bool = False,
    data: LowdownData | None = None,
    config: LowdownConfig | None = None,
) -> dict[str, Any]:
    data = data or LowdownData.load()
    config = config or LowdownConfig()
    sheets = {name: read_sheet(board, data) for name, board in doc.key("boards").entries()}
    scores = {name: sheet.score(config.blackout_points) for name, sheet in sheets.items()}
    finished = {name: sheet.full_grids() for name, sheet in sheets.items()}
    best = min(scores.values(), default=None)
    result: dict[str, Any] = {
        "scores": scores,
        "finished": finished,
        "game_over": any(count >= config.end_grids for count in finished.values()),
        "winners": [name for name, score in scores.items() if score == best],
        "errors": [
            error
            for name, sheet in sheets.items()
            for error in sheet_errors(name, sheet, data, config)
        ],
    }
    if suggest:
        suggestions: dict[str, dict[str, list[str]]] = {}
        after: dict[str, int] = {}
        for name, sheet in sheets.items():
            mine = {grid: sheet.best_crossings(grid, config) for grid in sheet.grids}
            suggestions[name] = {grid: lines for grid, lines in mine.items() if lines}
            for grid, lines in mine.items():
                sheet.crossed[grid].extend(lines)
            after[name] = sheet.score(config.blackout_points)
        result["suggest"] = suggestions
        result["suggested_scores"] = after
    return result


def check_lowdown_move(doc: Field, data: LowdownData | None = None) -> dict[str, Any]:
    data = data or LowdownData.load()
    sheet = read_sheet(doc.key("board"), data)
    move = doc.key("move")
    last = data.size - 1
    grid = move.key("grid").choice(data.grid_names, "a Lowdown grid")
    row = move.key("row").integer(0, last, f"a row (0-{last})")
    col = move.key("col").integer(0, last, f"a column (0-{last})")
    move.key("number").number_in(data.number_faces, f"a number ({faces_text(data.number_faces)})")
    wild_field = move.optional("wild")
    wild = wild_field is not None and wild_field.boolean()
    # A wild move still names a colour of the game (docs/formats.md), though it is not
    # judged: any empty box takes a wild colour.
    missing = f"missing: a wild move names a colour too ({', '.join(data.color_faces)})"
    color_field = move.key("color", missing if wild else "missing")
    color = color_field.choice(data.color_faces, "a Lowdown colour")
    problem = placement_problem(
        sheet, data.layouts[0], (grid, row, col), None if wild else color, wild, data.wild_boxes
    )
    return {"legal": True} if problem is None else {"legal": False, "reason": problem.value}
