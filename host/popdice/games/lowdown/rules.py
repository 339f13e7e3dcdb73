"""Lowdown's boards, rule settings and rules (docs/rules.md §3.1, §3.3-3.6).

The dice faces, grids and the layout of full and half colour boxes come from
games/data/lowdown.json; the rules' open questions are ``LowdownConfig`` settings. The
functions here (where a number may be written, which lines may be crossed out, the score,
the best crossings) are shared by the engine and the ``score lowdown`` /
``check lowdown-move`` commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain, combinations
from pathlib import Path

from ..config import require_at_least, require_choice
from ..data import read_data_file
from ..errors import Reason

BLACKOUT = "X"
HALF = "half"
MOST_FACE = 1000
"""The largest number a data file's die may show: a grid's sum stays a number people read."""

Box = int | str | None
"""A box as written: a number, ``BLACKOUT``, or None while empty."""
Cell = tuple[int, int]


@dataclass(frozen=True)
class LowdownConfig:
    """The settings of docs/rules.md §3.9, defaults first."""

    hidden_roller: str = "right"
    """Who rolls the hidden pair: the active player's `right` neighbour (the seed) or `left`."""
    hidden_with_wild: bool = True
    """After revealing the hidden pair, its number may go with a wild colour (§3.2)."""
    must_write: bool = True
    """Every player writes each turn when any placement is possible (§3.2)."""
    forced_wild: bool = True
    """With no normal placement and a wild left, the wild must be used, not a blackout (§3.3)."""
    crossed_lines_may_share_box: bool = False
    """False: "lines may never cross" means no two crossed lines share a box (§3.5)."""
    cross_any_turn: bool = True
    """Any qualifying line may be crossed in any turn, not only when completed (§3.5)."""
    end_grids: int = 2
    """The game ends after the turn in which a player has filled this many grids (§3.6)."""
    blackout_points: int = 6
    """What a blacked-out box costs (§3.4): 0 or more."""
    line_sum: int = 10
    """The sum that lets a line be crossed out (§3.5); ``LowdownState`` holds it to what a line
    of the data file's dice can add up to."""

    def __post_init__(self) -> None:
        require_choice("hidden_roller", self.hidden_roller, ("right", "left"))
        require_at_least("end_grids", self.end_grids, 1)
        require_at_least("blackout_points", self.blackout_points, 0)
        require_at_least("line_sum", self.line_sum, 1)


@dataclass(frozen=True)
class GridSpec:
    name: str
    colors: tuple[str, ...]


@dataclass(frozen=True)
class BoardLayout:
    """Which colours each box of each grid takes (full box: one colour; half box: both)."""

    name: str
    boxes: Mapping[str, tuple[tuple[frozenset[str], ...], ...]]

    def accepts(self, grid: str, row: int, col: int, color: str) -> bool:
        return color in self.boxes[grid][row][col]

    def accepting(self, grid: str, color: str) -> tuple[bool, ...] | None:
        """For each box of ``grid``, row by row, whether it takes ``color`` (``accepts``);
        None when no box of the grid takes it."""
        return self._accepting.get((grid, color))

    @cached_property
    def _accepting(self) -> dict[tuple[str, str], tuple[bool, ...]]:
        """``accepting`` for every grid and every colour some box of it takes, made once."""
        table: dict[tuple[str, str], tuple[bool, ...]] = {}
        for grid, rows in self.boxes.items():
            boxes = [colors for row in rows for colors in row]
            for color in frozenset().union(*boxes):
                table[grid, color] = tuple(color in colors for colors in boxes)
        return table


@dataclass(frozen=True)
class LowdownData:
    """The components: dice faces, the grids, their size, wild boxes and the board layouts."""

    number_faces: tuple[int, ...]
    color_faces: tuple[str, ...]
    grids: tuple[GridSpec, ...]
    size: int
    wild_boxes: int
    layouts: tuple[BoardLayout, ...]
    min_players: int
    max_players: int

    @cached_property
    def grid_names(self) -> tuple[str, ...]:
        return tuple(grid.name for grid in self.grids)

    def layout_for(self, seat: int) -> BoardLayout:
        return self.layouts[seat % len(self.layouts)]

    @classmethod
    def load(cls, path: str | Path | None = None) -> LowdownData:
        """Read and check games/data/lowdown.json, or the replacement at ``path``."""
        if path is None:
            return _packaged_lowdown()
        return _load_lowdown(path)


@lru_cache(maxsize=8)
def lines_of(size: int) -> dict[str, tuple[Cell, ...]]:
    """The lines of a square grid: rows r0.., columns c0.., diagonals d0 (top-left to
    bottom-right) and d1 (top-right to bottom-left), in this order."""
    lines: dict[str, tuple[Cell, ...]] = {}
    for i in range(size):
        lines[f"r{i}"] = tuple((i, col) for col in range(size))
    for i in range(size):
        lines[f"c{i}"] = tuple((row, i) for row in range(size))
    lines["d0"] = tuple((i, i) for i in range(size))
    lines["d1"] = tuple((i, size - 1 - i) for i in range(size))
    return lines


def qualifies(values: Sequence[Box], line_sum: int) -> bool:
    """Three of a kind, or numbers adding up to ``line_sum`` (all boxes must hold numbers)."""
    numbers = [v for v in values if isinstance(v, int)]
    if len(numbers) != len(values):
        return False
    return len(set(numbers)) == 1 or sum(numbers) == line_sum


def line_problem(values: Sequence[Box]) -> Reason | None:
    """Why a line with these boxes can never be crossed out as written (None: it is full):
    the first of ``line_problems``, without listing the others."""
    if any(v is None for v in values):
        return Reason.INCOMPLETE_LINE
    if any(v == BLACKOUT for v in values):
        return Reason.BLACKOUT_IN_LINE
    return None


def line_problems(values: Sequence[Box]) -> list[Reason]:
    """Every reason a line with these boxes can never be crossed out as written, in the
    order incomplete_line, blackout_in_line (an empty box and a blackout: both)."""
    problems: list[Reason] = []
    if any(v is None for v in values):
        problems.append(Reason.INCOMPLETE_LINE)
    if any(v == BLACKOUT for v in values):
        problems.append(Reason.BLACKOUT_IN_LINE)
    return problems


@lru_cache(maxsize=1 << 12)
def qualifying_lines(boxes: tuple[Box, ...], size: int, line_sum: int) -> tuple[str, ...]:
    """The lines of a grid holding ``boxes`` (row by row) that are full, have no blackout and
    qualify, in the order of ``lines_of``: what of ``Sheet.crossing_problem`` depends on the
    numbers written alone. Cached, since a grid changes at most once a turn while its lines
    are looked at after every move."""
    found = []
    for name, offsets in line_offsets(size):
        values = [boxes[at] for at in offsets]
        # An empty box makes the line incomplete (line_problem would say so), the common case.
        if None not in values and full_line_qualifies(tuple(values), line_sum):
            found.append(name)
    return tuple(found)


@lru_cache(maxsize=1 << 12)
def full_line_qualifies(values: tuple[Box, ...], line_sum: int) -> bool:
    """Whether a line with these boxes has no blackout and qualifies (``line_problem`` and
    ``qualifies``); cached, since lines take few values."""
    return line_problem(values) is None and qualifies(values, line_sum)


@lru_cache(maxsize=8)
def line_offsets(size: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each line of ``lines_of(size)`` with its boxes as offsets into a grid row by row."""
    return tuple(
        (name, tuple(row * size + col for row, col in cells))
        for name, cells in lines_of(size).items()
    )


@lru_cache(maxsize=1 << 12)
def empty_offsets(boxes: tuple[Box, ...]) -> tuple[int, ...]:
    """Where ``boxes`` (a grid row by row) has an empty box, as offsets into it."""
    return tuple(offset for offset, box in enumerate(boxes) if box is None)


@dataclass
class Sheet:
    """One player's board as written: grids of boxes, crossed lines per grid, wilds used."""

    grids: dict[str, list[list[Box]]]
    size: int
    crossed: dict[str, list[str]] = field(default_factory=dict)
    wilds: int = 0

    @classmethod
    def empty(cls, grid_names: Iterable[str], size: int) -> Sheet:
        grids: dict[str, list[list[Box]]] = {
            name: [[None] * size for _ in range(size)] for name in grid_names
        }
        return cls(grids, size, {name: [] for name in grids})

    def boxes(self, grid: str) -> tuple[Box, ...]:
        """The boxes of ``grid`` row by row (box (row, col) at ``row * size + col``)."""
        flat: list[Box] = []
        for row in self.grids[grid]:
            flat += row
        return tuple(flat)

    def line_values(self, grid: str, line: str) -> list[Box]:
        values = self.grids[grid]
        return [values[row][col] for row, col in lines_of(self.size)[line]]

    def crossed_cells(self, grid: str) -> set[Cell]:
        lines = lines_of(self.size)
        return {cell for name in self.crossed.get(grid, []) for cell in lines[name]}

    def empty_cells(self) -> list[tuple[str, int, int]]:
        return [
            (grid, row, col)
            for grid, values in self.grids.items()
            for row, line in enumerate(values)
            for col, box in enumerate(line)
            if box is None
        ]

    def full_grids(self) -> int:
        """How many grids have no empty box."""
        return sum(None not in chain.from_iterable(rows) for rows in self.grids.values())

    def score(self, blackout_points: int = 6) -> int:
        """Numbers not crossed out, plus ``blackout_points`` a blacked-out box (§3.6)."""
        total = 0
        for grid, values in self.grids.items():
            crossed = self.crossed_cells(grid)
            for row, line in enumerate(values):
                for col, box in enumerate(line):
                    if box == BLACKOUT:
                        total += blackout_points
                    elif isinstance(box, int) and (row, col) not in crossed:
                        total += box
        return total

    def crossing_problem(self, grid: str, line: str, config: LowdownConfig) -> Reason | None:
        """Why ``line`` of ``grid`` may not be crossed out now (None: it may), §3.5."""
        if line not in lines_of(self.size):
            return Reason.NO_SUCH_LINE
        if line in self.crossed.get(grid, []):
            return Reason.ALREADY_CROSSED
        values = self.line_values(grid, line)
        problem = line_problem(values)
        if problem is not None:
            return problem
        if not qualifies(values, config.line_sum):
            return Reason.NOT_QUALIFYING
        if not config.crossed_lines_may_share_box and self.crossed_cells(grid) & set(
            lines_of(self.size)[line]
        ):
            return Reason.LINES_CROSS
        return None

    def qualifying_lines(self, grid: str, line_sum: int) -> tuple[str, ...]:
        """The lines of ``grid`` that are full, have no blackout and qualify, crossed or not
        (``qualifying_lines``, cached)."""
        return qualifying_lines(self.boxes(grid), self.size, line_sum)

    def crossable_lines(self, grid: str, config: LowdownConfig) -> list[str]:
        """The lines of ``grid`` that may be crossed out now (``crossing_problem`` is None), in
        the order of ``lines_of``. Only the qualifying lines, few, go through the check."""
        return [
            line
            for line in self.qualifying_lines(grid, config.line_sum)
            if self.crossing_problem(grid, line, config) is None
        ]

    def best_crossings(self, grid: str, config: LowdownConfig) -> list[str]:
        """The lines to add to ``grid`` that lower its score the most; ties: fewer lines, then
        the earlier lines (r0.. c0.. d0 d1)."""
        return self.best_of_lines(grid, self.crossable_lines(grid, config), config)

    def best_of_lines(self, grid: str, candidates: list[str], config: LowdownConfig) -> list[str]:
        """Of ``candidates`` (lines ``grid`` may take, in order), the set to add that lowers
        its score the most, with ``best_crossings``' tie-break."""
        lines = lines_of(self.size)
        already = self.crossed_cells(grid)
        values = self.grids[grid]
        best: tuple[int, tuple[str, ...]] = (0, ())
        for count in range(1, len(candidates) + 1):
            for chosen in combinations(candidates, count):
                cells = [cell for name in chosen for cell in lines[name]]
                if not config.crossed_lines_may_share_box and len(set(cells)) != len(cells):
                    continue
                saving = sum(int(values[row][col] or 0) for row, col in set(cells) - already)
                if saving > best[0]:
                    best = (saving, chosen)
        return list(best[1])


def placement_problem(
    sheet: Sheet,
    layout: BoardLayout,
    box: tuple[str, int, int],
    color: str | None,
    wild: bool,
    wild_boxes: int,
) -> Reason | None:
    """Why a number may not be written in ``box`` with ``color`` (or a wild colour), §3.2-3.3."""
    grid, row, col = box
    if sheet.grids[grid][row][col] is not None:
        return Reason.BOX_FILLED
    if wild:
        return Reason.NO_WILDS_LEFT if sheet.wilds >= wild_boxes else None
    if color is None or not layout.accepts(grid, row, col, color):
        return Reason.WRONG_COLOR
    return None


@lru_cache(maxsize=1)
def _packaged_lowdown() -> LowdownData:
    return _load_lowdown(None)


def _load_lowdown(path: str | Path | None) -> LowdownData:
    doc = read_data_file("lowdown.json", path)
    players = doc.key("players")
    low = players.key("min").integer(2, None, "a player count of at least 2")
    high = players.key("max").integer(low, None, f"a player count of at least {low}")
    number_faces = tuple(
        item.integer(1, MOST_FACE, f"a die face from 1 to {MOST_FACE}")
        for item in doc.key("number_faces").items()
    )
    color_faces = tuple(item.string("a colour name") for item in doc.key("color_faces").items())
    for name, faces in (("number_faces", number_faces), ("color_faces", color_faces)):
        if not faces or len(set(faces)) != len(faces):
            doc.key(name).fail("must list distinct faces")
    size = doc.key("grid_size").integer(1, 9, "a grid size (1-9)")
    grids: list[GridSpec] = []
    for entry in doc.key("grids").items():
        name = entry.key("name").string("a grid name")
        if name in (grid.name for grid in grids):
            entry.key("name").fail(f"grid {name!r} is listed twice")
        colors = tuple(
            item.choice(color_faces, "one of the colour faces")
            for item in entry.key("colors").items()
        )
        if not colors:
            entry.key("colors").fail("a grid needs at least one colour")
        grids.append(GridSpec(name, colors))
    wild_boxes = doc.key("wild_boxes").integer(0, None, "a count")
    layouts: list[BoardLayout] = []
    for board in doc.key("boards").items():
        layout = board.key("layout")
        boxes: dict[str, tuple[tuple[frozenset[str], ...], ...]] = {}
        for grid in grids:
            rows = layout.key(grid.name).items()
            if len(rows) != size:
                layout.key(grid.name).fail(f"has {len(rows)} rows, not {size}")
            parsed_rows = []
            for row in rows:
                cells = row.items()
                if len(cells) != size:
                    row.fail(f"has {len(cells)} boxes, not {size}")
                parsed_rows.append(
                    tuple(
                        frozenset(grid.colors)
                        if (kind := cell.choice((*grid.colors, HALF), "a box kind")) == HALF
                        else frozenset([kind])
                        for cell in cells
                    )
                )
            boxes[grid.name] = tuple(parsed_rows)
        layouts.append(BoardLayout(board.key("name").string("a board name"), boxes))
    if not layouts:
        doc.key("boards").fail("no boards")
    return LowdownData(
        number_faces, color_faces, tuple(grids), size, wild_boxes, tuple(layouts), low, high
    )
