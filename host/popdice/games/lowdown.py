"""The Lowdown engine: rolls, the active player's choice, the others' choices, wilds,
blackouts, crossing out, the end of the game.

A turn has two steps. CHOOSE: the active player writes with one number die and one colour die
of their own four, or reveals the hidden pair and must then use it. WRITE: every other player
writes with any number and colour die of the four left over (all at once, in any order); then
every player, the active one too, crosses out what they like and says ``Done``. When all are
done the turn ends, and the game ends if someone has filled ``end_grids`` grids.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from .engine import GameState, check_player_count
from .errors import ConfigError, InvalidMove, Reason
from .lowdown_rules import (
    BLACKOUT,
    BoardLayout,
    LowdownConfig,
    LowdownData,
    Sheet,
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


class Step(Enum):
    CHOOSE = "choose"
    WRITE = "write"
    OVER = "over"


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
        self.sheets = [
            Sheet.empty(self.data.grid_names, self.data.size) for _ in range(num_players)
        ]
        self.layouts: list[BoardLayout] = [self.data.layout_for(s) for s in range(num_players)]
        self.active = 0
        self.turns = 1
        self._start_turn()

    # --- the engine interface ---------------------------------------------------------

    def current_players(self) -> list[int]:
        if self.step is Step.CHOOSE:
            return [self.active]
        if self.step is Step.WRITE:
            return [seat for seat in range(self.num_players) if not self.done[seat]]
        return []

    def legal_actions(self, player: int) -> list[LowdownAction]:
        if player not in self.current_players():
            return []
        if self.step is Step.CHOOSE:
            reveal: list[LowdownAction] = [] if self.revealed else [Reveal()]
            return [*reveal, *self._writes(player)]
        if not self.wrote[player]:
            return list(self._writes(player))
        return [*self._crossings(player), Done()]

    def apply(self, player: int, action: LowdownAction) -> None:
        self._check_seat(player)
        if player not in self.current_players():
            raise InvalidMove(Reason.NOT_YOUR_TURN, f"seat {player} cannot act now")
        if isinstance(action, Reveal):
            if self.step is not Step.CHOOSE:
                raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, "only the active player reveals")
            if self.revealed:
                raise InvalidMove(Reason.HIDDEN_ALREADY_SEEN, "the hidden pair is already seen")
            self.revealed = True
        elif isinstance(action, (Place, Blackout, Skip)):
            if self.wrote[player]:
                raise InvalidMove(Reason.ALREADY_WROTE, f"seat {player} wrote this turn")
            self._write(player, action)
            if self.step is Step.CHOOSE:
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
        return self.step is Step.OVER

    def scores(self) -> list[int]:
        return [sheet.score(self.config.blackout_points) for sheet in self.sheets]

    def winners(self) -> list[int]:
        if self.step is not Step.OVER:
            return []
        scores = self.scores()
        best = min(scores)
        return [seat for seat, score in enumerate(scores) if score == best]

    def length(self) -> int:
        return self.turns

    def view(self, player: int) -> dict[str, Any]:
        hidden_seen = (
            player == self.roller
            or self.step is not Step.CHOOSE
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
            if self.step is Step.WRITE
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
        if self.step is Step.CHOOSE and player == self.active:
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
        self.step = Step.CHOOSE
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
        self.step = Step.WRITE

    def _end_turn(self) -> None:
        if any(sheet.full_grids() >= self.config.end_grids for sheet in self.sheets):
            self.step = Step.OVER
            return
        self.turns += 1
        self.active = self.left_of(self.active)
        self._start_turn()

    # --- writing ----------------------------------------------------------------------

    def _is_choosing(self, player: int) -> bool:
        return self.step is Step.CHOOSE and player == self.active

    def _wild_available(self, player: int) -> bool:
        if self.sheets[player].wilds >= self.data.wild_boxes:
            return False
        return not (
            self._is_choosing(player) and self.revealed and not self.config.hidden_with_wild
        )

    def _normal_places(self, player: int) -> list[Place]:
        numbers, colors = self.offered_dice(player)
        layout = self.layouts[player]
        empty = self.sheets[player].empty_cells()
        return [
            Place(ni, ci, grid, row, col)
            for ni in range(len(numbers))
            for ci, color in enumerate(colors)
            for grid, row, col in empty
            if layout.accepts(grid, row, col, color)
        ]

    def _writes(self, player: int) -> list[Write]:
        empty = self.sheets[player].empty_cells()
        if not empty:
            return [Skip()]
        writes: list[Write] = list(self._normal_places(player))
        has_normal = bool(writes)
        wild = self._wild_available(player)
        if wild:
            numbers, colors = self.offered_dice(player)
            removals = list(range(len(colors))) if self._is_choosing(player) else [None]
            writes.extend(
                Place(ni, removed, grid, row, col, wild=True)
                for ni in range(len(numbers))
                for removed in removals
                for grid, row, col in empty
            )
        if not has_normal and not (wild and self.config.forced_wild):
            writes.extend(Blackout(grid, row, col) for grid, row, col in empty)
        if not self.config.must_write:
            writes.append(Skip())
        return writes

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
        if self._normal_places(player):
            raise InvalidMove(Reason.HAS_MOVE, "a number can be written, so no blackout")
        if self._wild_available(player) and self.config.forced_wild:
            raise InvalidMove(Reason.MUST_USE_WILD, "a wild colour is left: use it")

    # --- crossing out -----------------------------------------------------------------

    def _crossings(self, player: int) -> list[Cross]:
        return [
            Cross(grid, line)
            for grid in self.data.grid_names
            for line in lines_of(self.data.size)
            if self._crossing_problem(player, grid, line) is None
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
        if self.step is not Step.WRITE:
            raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, "lines are crossed after writing")
        if not self.wrote[player]:
            raise InvalidMove(Reason.MUST_WRITE, "write first")
        problem = self._crossing_problem(player, cross.grid, cross.line)
        if problem is not None:
            raise InvalidMove(problem, f"{cross.grid} {cross.line}")
        self.sheets[player].crossed.setdefault(cross.grid, []).append(cross.line)
