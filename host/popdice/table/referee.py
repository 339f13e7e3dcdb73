"""What every game's table referee is: a pure state rebuilt from the journal's moves and rolls.

A referee keeps the score of a game played with real cards (Ringer, Popalotsy) or on the
laptop (Lowdown). ``apply(move)`` and ``roll(dice)`` either change the state or raise
``Refused`` and change nothing, so replaying the journal's accepted entries in order
rebuilds the state exactly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..games.errors import InvalidMove

Move = dict[str, Any]
"""A move as the journal keeps it: JSON with a ``type`` and that type's fields."""


class Refused(Exception):
    """A move or roll the rules refuse: ``code`` (a rules Reason value or a table code), and
    ``detail`` saying why to a person."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail

    @classmethod
    def from_invalid_move(cls, error: InvalidMove) -> Refused:
        return cls(error.reason.value, error.detail or error.reason.value)


class Referee(ABC):
    """One game at the table, seats 0..n-1 named by ``players``."""

    game: str = ""

    def __init__(self, players: list[str]) -> None:
        self.players = list(players)
        self.over = False

    @abstractmethod
    def wants_roll(self) -> bool:
        """Whether the game waits for the popper (the first roll, or a re-roll)."""

    @abstractmethod
    def roll(self, dice: list[dict[str, Any]]) -> None:
        """Take the popper's ``dice`` (as a ``pop`` reports them), or raise ``Refused``."""

    @abstractmethod
    def apply(self, move: Move) -> str:
        """Play ``move`` and say what it did in one line, or raise ``Refused``."""

    @abstractmethod
    def scores(self) -> list[int]: ...

    @abstractmethod
    def winners(self) -> list[int]: ...

    @abstractmethod
    def status(self) -> str:
        """What the table waits for now, in one line."""

    def seat(self, move: Move, key: str = "seat") -> int:
        value = move.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise Refused("bad_move", f"{key} must be a seat number")
        if not 0 <= value < len(self.players):
            raise Refused("no_such_player", f"there is no seat {value}")
        return value

    def count(self, move: Move, key: str, low: int, high: int) -> int:
        value = move.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise Refused("bad_count", f"{key} must be a whole number from {low} to {high}")
        return value

    def require_playing(self) -> None:
        if self.over:
            raise Refused("game_over", "the game is over")
