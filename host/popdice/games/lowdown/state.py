"""The Lowdown engine: rolls, the active player's choice, the others' choices, wilds,
blackouts, crossing out, the end of the game.

A turn has two steps. CHOOSE: the active player writes with one number die and one colour die
of their own four, or reveals the hidden pair and must then use it. WRITE: every other player
writes with any number and colour die of the four left over (all at once, in any order); then
every player, the active one too, crosses out what they like and says ``Done``. When all are
done the turn ends, and the game ends if someone has filled ``end_grids`` grids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any

from ..engine import GameState, check_player_count
from ..errors import ConfigError, InvalidMove, Reason
from .rules import (
    BLACKOUT,
    BoardLayout,
    LowdownConfig,
    LowdownData,
    Sheet,
    empty_offsets,
    lines_of,
    placement_problem,
)


@dataclass(frozen=True, slots=True)
class Reveal:
    """The active player looks at the hidden pair; from then on it must be used."""


@dataclass(frozen=True, slots=True)
class Place:
    """Write the number of number die ``number`` in a box, with the colour of colour die
    ``color``. Indices are into the dice offered to the player (``offered_dice``). With
    ``wild``, any empty box takes it; the active player's ``color`` then names the colour die
    removed from play, and another player's ``color`` is None."""

    number: int
    color: int | None
    grid: str
    row: int
    col: int
    wild: bool = False


@dataclass(frozen=True, slots=True)
class Blackout:
    """No move and no wild left: black out an empty box (+6)."""

    grid: str
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Skip:
    """Write nothing this turn: only with no empty box, or when writing is optional."""


@dataclass(frozen=True, slots=True)
class Cross:
    """Cross out a qualifying line (``r0``..``c0``..``d0``, ``d1``) of ``grid``."""

    grid: str
    line: str


@dataclass(frozen=True, slots=True)
class Done:
    """Finished writing and crossing out for this turn."""


LowdownAction = Reveal | Place | Blackout | Skip | Cross | Done
Write = Place | Blackout | Skip

EmptyBoxes = list[tuple[str, tuple[int, ...]]]
"""Boxes of a sheet: each grid's name with the offsets of some of its boxes (row by row)."""


@lru_cache(maxsize=4096)
def places_in_grid(
    grid: str, size: int, number: int, color: int | None, wild: bool
) -> tuple[Place, ...]:
    """``Place(number, color, grid, row, col, wild)`` for every box of ``grid``, row by row.
    Actions are immutable, so the legal writes share these instead of building a few hundred
    objects after every move."""
    return tuple(
        Place(number, color, grid, row, col, wild) for row in range(size) for col in range(size)
    )


@lru_cache(maxsize=1 << 13)
def places_at(
    grid: str, size: int, number: int, color: int | None, wild: bool, offsets: tuple[int, ...]
) -> tuple[Place, ...]:
    """The places of ``places_in_grid`` at ``offsets`` (boxes row by row), in their order."""
    row = places_in_grid(grid, size, number, color, wild)
    return tuple(row[at] for at in offsets)


@lru_cache(maxsize=1 << 12)
def fitting_offsets(offsets: tuple[int, ...], accepting: tuple[bool, ...]) -> tuple[int, ...]:
    """The ``offsets`` whose box takes the colour: ``accepting`` says for each box."""
    return tuple([at for at in offsets if accepting[at]])


@lru_cache(maxsize=256)
def blackouts_in_grid(grid: str, size: int) -> tuple[Blackout, ...]:
    """``Blackout(grid, row, col)`` for every box of ``grid``, row by row, made once."""
    return tuple(Blackout(grid, row, col) for row in range(size) for col in range(size))


class Step(Enum):
    CHOOSE = "choose"
    WRITE = "write"
    OVER = "over"


CHOOSE, WRITE, OVER = Step.CHOOSE, Step.WRITE, Step.OVER
"""The steps as module names: the engine reads the step several times a move, and on Python
3.11 reading a class attribute such as ``Step.CHOOSE`` takes several times as long."""


class LowdownState(GameState[LowdownAction]):
    """One game of Lowdown; see the module docstring for the turn's two steps."""

    game_name = "lowdown"
    length_unit = "turns"
    score_meaning = "points (lower is better)"

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        config: LowdownConfig | None = None,
        data: LowdownData | None = None,
    ) -> None:
        super().__init__(num_players, seed)
        self.config = config or LowdownConfig()
        self.data = data or LowdownData.load()
        check_player_count("lowdown", num_players, self.data.min_players, self.data.max_players)
        grids = len(self.data.grids)
        if self.config.end_grids > grids:
            raise ConfigError(
                f"rule end_grids: {self.config.end_grids} is more than the {grids} grids"
            )
        size, faces = self.data.size, self.data.number_faces
        least, most = size * min(faces), size * max(faces)
        if not least <= self.config.line_sum <= most:
            raise ConfigError(
                f"rule line_sum: {self.config.line_sum} is not a sum the {size} numbers of a "
                f"line can make ({least} to {most})"
            )
        self.sheets = [
            Sheet.empty(self.data.grid_names, self.data.size) for _ in range(num_players)
        ]
        self.layouts: list[BoardLayout] = [self.data.layout_for(s) for s in range(num_players)]
        self.active = 0
        self.turns = 1
        self._start_turn()

    # --- the engine interface ---------------------------------------------------------

    def current_players(self) -> list[int]:
        if self.step is CHOOSE:
            return [self.active]
        if self.step is WRITE:
            return [seat for seat in range(self.num_players) if not self.done[seat]]
        return []

    def _can_act(self, player: int) -> bool:
        """Whether ``player`` is one of ``current_players()``, without listing them."""
        if self.step is CHOOSE:
            return player == self.active
        return self.step is WRITE and 0 <= player < self.num_players and not self.done[player]

    def legal_actions(self, player: int) -> list[LowdownAction]:
        if not self._can_act(player):
            return []
        if self.step is CHOOSE:
            reveal: list[LowdownAction] = [Reveal()] if self.may_reveal(player) else []
            return [*reveal, *self.legal_writes(player)]
        if not self.wrote[player]:
            return list(self.legal_writes(player))
        return [*self.legal_crossings(player), Done()]

    def apply(self, player: int, action: LowdownAction) -> None:
        self._check_seat(player)
        if not self._can_act(player):
            raise InvalidMove(Reason.NOT_YOUR_TURN, f"seat {player} cannot act now")
        if isinstance(action, Reveal):
            if self.step is not CHOOSE:
                raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, "only the active player reveals")
            if self.revealed:
                raise InvalidMove(Reason.HIDDEN_ALREADY_SEEN, "the hidden pair is already seen")
            self.revealed = True
        elif isinstance(action, (Place, Blackout, Skip)):
            if self.wrote[player]:
                raise InvalidMove(Reason.ALREADY_WROTE, f"seat {player} wrote this turn")
            self._write(player, action)
            if self.step is CHOOSE:
                self._share_dice(action)
        elif isinstance(action, Cross):
            self._cross(player, action)
        elif isinstance(action, Done):
            if not self.wrote[player]:
                raise InvalidMove(Reason.MUST_WRITE, "write first")
            self.done[player] = True
            if all(self.done):
                self._end_turn()
        else:
            raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, f"{action!r} is not a Lowdown move")

    def is_terminal(self) -> bool:
        return self.step is OVER

    def scores(self) -> list[int]:
        return [sheet.score(self.config.blackout_points) for sheet in self.sheets]

    def winners(self) -> list[int]:
        if self.step is not OVER:
            return []
        scores = self.scores()
        best = min(scores)
        return [seat for seat, score in enumerate(scores) if score == best]

    def length(self) -> int:
        return self.turns

    def view(self, player: int) -> dict[str, Any]:
        hidden_seen = (
            player == self.roller
            or self.step is not CHOOSE
            or (player == self.active and self.revealed)
        )
        return {
            "game": self.game_name,
            "you": player,
            "turn": self.turns,
            "active": self.active,
            "hidden_roller": self.roller,
            "step": self.step.value,
            "own_dice": {"numbers": list(self.own_numbers), "colors": list(self.own_colors)},
            "hidden_dice": {"numbers": [self.hidden_number], "colors": [self.hidden_color]}
            if hidden_seen
            else None,
            "shared_dice": {
                "numbers": list(self.shared_numbers),
                "colors": list(self.shared_colors),
            }
            if self.step is WRITE
            else None,
            "boards": [
                {
                    "grids": {
                        name: [list(row) for row in rows] for name, rows in sheet.grids.items()
                    },
                    "crossed": {name: list(lines) for name, lines in sheet.crossed.items()},
                    "wilds": sheet.wilds,
                }
                for sheet in self.sheets
            ],
            "scores": self.scores(),
        }

    # --- dice -------------------------------------------------------------------------

    def offered_dice(self, player: int) -> tuple[list[int], list[str]]:
        """The number dice and colour dice ``player`` may write with now."""
        if self.step is CHOOSE and player == self.active:
            if self.revealed:
                return [self.hidden_number], [self.hidden_color]
            return self.own_numbers, self.own_colors
        return self.shared_numbers, self.shared_colors

    def _start_turn(self) -> None:
        n = self.num_players
        self.roller = (self.active + (-1 if self.config.hidden_roller == "right" else 1)) % n
        self.revealed = False
        self.roll_dice()
        self.shared_numbers: list[int] = []
        self.shared_colors: list[str] = []
        self.step = CHOOSE
        self.wrote = [False] * n
        self.done = [False] * n
        self.written: list[set[tuple[str, int, int]]] = [set() for _ in range(n)]

    def roll_dice(self) -> None:
        """Roll the turn's dice with ``rng``: the active player's two number and two colour
        dice, then the hidden pair. A subclass whose dice come from elsewhere (the table's
        popper and handheld) overrides this and sets them with ``set_open_dice`` and
        ``set_hidden_dice`` when they arrive."""
        self.set_open_dice(
            [self.rng.choice(self.data.number_faces) for _ in range(2)],
            [self.rng.choice(self.data.color_faces) for _ in range(2)],
        )
        self.set_hidden_dice(
            self.rng.choice(self.data.number_faces), self.rng.choice(self.data.color_faces)
        )

    def set_open_dice(self, numbers: list[int], colors: list[str]) -> None:
        """The active player's own dice of this turn (two number dice, two colour dice)."""
        self.own_numbers = list(numbers)
        self.own_colors = list(colors)

    def set_hidden_dice(self, number: int, color: str) -> None:
        """The hidden pair of this turn (its number die and its colour die)."""
        self.hidden_number = number
        self.hidden_color = color

    def _share_dice(self, action: Write) -> None:
        """After the active player's choice, the four dice left go to everyone else (§3.2)."""
        if isinstance(action, Place) and not self.revealed:
            kept_color = 1 - action.color if action.color is not None else 0
            self.shared_numbers = [self.own_numbers[1 - action.number], self.hidden_number]
            self.shared_colors = [self.own_colors[kept_color], self.hidden_color]
        else:
            self.shared_numbers = list(self.own_numbers)
            self.shared_colors = list(self.own_colors)
        self.step = WRITE

    def _end_turn(self) -> None:
        if any(sheet.full_grids() >= self.config.end_grids for sheet in self.sheets):
            self.step = OVER
            return
        self.turns += 1
        self.active = self.left_of(self.active)
        self._start_turn()

    # --- writing ----------------------------------------------------------------------

    def _is_choosing(self, player: int) -> bool:
        return self.step is CHOOSE and player == self.active

    def _wild_available(self, player: int) -> bool:
        if self.sheets[player].wilds >= self.data.wild_boxes:
            return False
        return not (
            self._is_choosing(player) and self.revealed and not self.config.hidden_with_wild
        )

    def may_reveal(self, player: int) -> bool:
        """Whether ``player`` may reveal the hidden pair now: the active player choosing,
        before revealing it."""
        return self._is_choosing(player) and not self.revealed

    def normal_places(self, player: int, number_dice: Sequence[int] | None = None) -> list[Place]:
        """The places with a die of each kind that ``player`` may write now (no wild): by
        number die, colour die, then box (grid, row, column). For a player yet to write.

        With ``number_dice`` (indices, ascending), only the places with those number dice: the
        same boxes for each, since a box takes colours, not numbers."""
        return self._normal_places(player, self._empty_boxes(player), number_dice)

    def legal_writes(self, player: int) -> list[Write]:
        """Everything ``player`` may write now (for a player yet to write): the normal places,
        then the wild ones, then blackouts when nothing else may be written, then Skip when
        writing is optional; only Skip when no box is empty."""
        empty = self._empty_boxes(player)
        if not empty:
            return [Skip()]
        writes: list[Write] = list(self._normal_places(player, empty))
        has_normal = bool(writes)
        wild = self._wild_available(player)
        if wild:
            writes.extend(self._wild_places(player, empty))
        if not has_normal and not (wild and self.config.forced_wild):
            writes.extend(self._blackouts(player, empty))
        if not self.config.must_write:
            writes.append(Skip())
        return writes

    def _normal_places(
        self, player: int, empty: EmptyBoxes, number_dice: Sequence[int] | None = None
    ) -> list[Place]:
        """``normal_places`` in the boxes ``empty`` (all the empty boxes of the sheet)."""
        numbers, colors = self.offered_dice(player)
        size = self.sheets[player].size
        fitting = [self._boxes_taking(player, color, empty) for color in colors]
        places: list[Place] = []
        for ni in range(len(numbers)) if number_dice is None else number_dice:
            for ci, boxes in enumerate(fitting):
                for grid, offsets in boxes:
                    places.extend(places_at(grid, size, ni, ci, False, offsets))
        return places

    def _boxes_taking(self, player: int, color: str, empty: EmptyBoxes) -> EmptyBoxes:
        """The boxes of ``empty`` that take ``color`` on ``player``'s board."""
        layout = self.layouts[player]
        fitting: EmptyBoxes = []
        for grid, offsets in empty:
            accepting = layout.accepting(grid, color)
            if accepting is not None:
                fitting.append((grid, fitting_offsets(offsets, accepting)))
        return fitting

    def _wild_places(self, player: int, empty: EmptyBoxes) -> list[Place]:
        """Wild places in the empty boxes: by number die, then the colour die the active
        player removes (None for the others), then box."""
        numbers, colors = self.offered_dice(player)
        removals = list(range(len(colors))) if self._is_choosing(player) else [None]
        size = self.sheets[player].size
        places: list[Place] = []
        for ni in range(len(numbers)):
            for removed in removals:
                for grid, offsets in empty:
                    places.extend(places_at(grid, size, ni, removed, True, offsets))
        return places

    def _blackouts(self, player: int, empty: EmptyBoxes) -> list[Blackout]:
        """A blackout of each of the empty boxes ``empty``, grid by grid."""
        size = self.sheets[player].size
        found: list[Blackout] = []
        for grid, offsets in empty:
            row = blackouts_in_grid(grid, size)
            found.extend([row[at] for at in offsets])
        return found

    def _empty_boxes(self, player: int) -> EmptyBoxes:
        """The empty boxes of ``player``'s sheet, grid by grid (grids without one left out)."""
        sheet = self.sheets[player]
        empty: EmptyBoxes = []
        for grid in sheet.grids:
            offsets = empty_offsets(sheet.boxes(grid))
            if offsets:
                empty.append((grid, offsets))
        return empty

    def _write(self, player: int, action: Write) -> None:
        sheet = self.sheets[player]
        if isinstance(action, Skip):
            if sheet.empty_cells() and self.config.must_write:
                raise InvalidMove(Reason.MUST_WRITE, "a box can be filled, so one must be")
        else:
            box = (action.grid, action.row, action.col)
            self._check_box(box)
            if isinstance(action, Place):
                number = self._check_place(player, action)
                sheet.grids[action.grid][action.row][action.col] = number
                if action.wild:
                    sheet.wilds += 1
            else:
                self._check_blackout(player, box)
                sheet.grids[action.grid][action.row][action.col] = BLACKOUT
            self.written[player].add(box)
        self.wrote[player] = True

    def _check_box(self, box: tuple[str, int, int]) -> None:
        grid, row, col = box
        size = self.data.size
        if grid not in self.data.grid_names or not (0 <= row < size and 0 <= col < size):
            raise InvalidMove(Reason.NO_SUCH_BOX, f"there is no box {grid} ({row}, {col})")

    def _check_place(self, player: int, place: Place) -> int:
        """The number ``place`` writes, if it is allowed; else InvalidMove."""
        numbers, colors = self.offered_dice(player)
        if not 0 <= place.number < len(numbers):
            raise InvalidMove(Reason.NO_SUCH_DIE, f"no number die {place.number} to use")
        color: str | None = None
        if place.wild:
            if self._is_choosing(player) and self.revealed and not self.config.hidden_with_wild:
                raise InvalidMove(Reason.MUST_USE_HIDDEN, "the hidden pair is used as rolled")
            removes_die = self._is_choosing(player)
            if removes_die and (place.color is None or not 0 <= place.color < len(colors)):
                raise InvalidMove(Reason.NO_SUCH_DIE, "name the colour die to remove")
            if not removes_die and place.color is not None:
                raise InvalidMove(Reason.NO_SUCH_DIE, "a wild colour uses no colour die")
        else:
            if place.color is None or not 0 <= place.color < len(colors):
                raise InvalidMove(Reason.NO_SUCH_DIE, f"no colour die {place.color} to use")
            color = colors[place.color]
        problem = placement_problem(
            self.sheets[player],
            self.layouts[player],
            (place.grid, place.row, place.col),
            color,
            place.wild,
            self.data.wild_boxes,
        )
        if problem is not None:
            raise InvalidMove(problem, f"{place.grid} ({place.row}, {place.col})")
        return numbers[place.number]

    def _check_blackout(self, player: int, box: tuple[str, int, int]) -> None:
        grid, row, col = box
        if self.sheets[player].grids[grid][row][col] is not None:
            raise InvalidMove(Reason.BOX_FILLED, f"{grid} ({row}, {col}) is filled")
        if self.normal_places(player):
            raise InvalidMove(Reason.HAS_MOVE, "a number can be written, so no blackout")
        if self._wild_available(player) and self.config.forced_wild:
            raise InvalidMove(Reason.MUST_USE_WILD, "a wild colour is left: use it")

    # --- crossing out -----------------------------------------------------------------

    def legal_crossings(self, player: int) -> list[Cross]:
        """The lines ``player`` may cross out now, by grid and in the order of ``lines_of``.
        Only the lines that qualify as written (``Sheet.qualifying_lines``, cached per grid)
        and are not crossed out yet go through the whole check; no other line can pass it."""
        sheet = self.sheets[player]
        return [
            Cross(grid, line)
            for grid in self.data.grid_names
            if grid in sheet.grids
            for line in sheet.qualifying_lines(grid, self.config.line_sum)
            if line not in sheet.crossed.get(grid, ())
            and self._crossing_problem(player, grid, line) is None
        ]

    def _crossing_problem(self, player: int, grid: str, line: str) -> Reason | None:
        sheet = self.sheets[player]
        if grid not in sheet.grids:
            return Reason.NO_SUCH_LINE
        problem = sheet.crossing_problem(grid, line, self.config)
        if problem is None and not self.config.cross_any_turn:
            cells = {(grid, row, col) for row, col in lines_of(self.data.size)[line]}
            if not cells & self.written[player]:
                return Reason.NOT_WRITTEN_THIS_TURN
        return problem

    def _cross(self, player: int, cross: Cross) -> None:
        if self.step is not WRITE:
            raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, "lines are crossed after writing")
        if not self.wrote[player]:
            raise InvalidMove(Reason.MUST_WRITE, "write first")
        problem = self._crossing_problem(player, cross.grid, cross.line)
        if problem is not None:
            raise InvalidMove(problem, f"{cross.grid} {cross.line}")
        self.sheets[player].crossed.setdefault(cross.grid, []).append(cross.line)
