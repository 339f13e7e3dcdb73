"""What every game's table referee is: a pure state rebuilt from the journal's moves and rolls.

A referee keeps the score of a game played with real cards (Ringer, Popalotsy) or on the
laptop (Lowdown). ``apply(move)``, ``roll(dice)`` and, for a game with secret dice (Lowdown's
handheld), ``secret(commitment)`` and ``reveal(dice)`` either change the state or raise
``Refused`` and change nothing, so replaying the journal's accepted entries in order
rebuilds the state exactly. ``settings`` are the game record's rule settings (none by default).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..games.errors import InvalidMove

Move = dict[str, Any]
"""A move as the journal keeps it: JSON with a ``type`` and that type's fields."""
Settings = dict[str, Any]
"""A game's rule settings as the journal keeps them (``GameRecord.settings``)."""


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

    def __init__(self, players: list[str], settings: Settings | None = None) -> None:
        self.players = list(players)
        self.settings = dict(settings or {})
        self.over = False
        if self.settings and not self.takes_settings():
            raise Refused("bad_settings", f"{self.game} takes no settings")

    def takes_settings(self) -> bool:
        """Whether this game reads ``settings`` (the ones without rule settings do not)."""
        return False

    @abstractmethod
    def wants_roll(self) -> bool:
        """Whether the game waits for the popper (the first roll, or a re-roll)."""

    @abstractmethod
    def roll(self, dice: list[dict[str, Any]]) -> None:
        """Take the popper's ``dice`` (as a ``pop`` reports them), or raise ``Refused``."""

    def wants_secret(self) -> bool:
        """Whether the game waits for the handheld's secret roll (its commitment)."""
        return False

    def wants_reveal(self) -> str | None:
        """The roll id of the secret roll the game needs revealed now, if any."""
        return None

    def secret(self, roll: dict[str, Any]) -> str:
        """Take a secret roll's commitment (``roll_id``, ``commitment``, ``device_id``,
        ``replaces``) and say what it was, or raise ``Refused``."""
        raise Refused("no_secret_dice", f"{self.game} has no secret dice")

    def reveal(self, dice: dict[str, Any]) -> str:
        """Take a revealed secret roll (``roll_id``, ``colour``, ``number``, ``nonce``),
        checked against its commitment, and say what it did, or raise ``Refused``."""
        raise Refused("no_secret_dice", f"{self.game} has no secret dice")

    def lose_secret(self, data: dict[str, Any]) -> str:
        """The handheld no longer holds the secret roll ``data["roll_id"]``: let it go and
        say what the players do now, or raise ``Refused``."""
        raise Refused("no_secret_dice", f"{self.game} has no secret dice")

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
