"""The one shape every game engine has, after OpenSpiel's State.

A state is created with the number of players, a seed and the rule settings; all chance
(dice, shuffles, blind picks) comes from ``random.Random(seed)``, so a seed replays a game.
Players are seats 0..n-1, clockwise; "left" is the next seat.

- ``current_players()``: who may act now (several at once in real-time phases).
- ``legal_actions(player)``: the moves the rules allow that player now.
- ``apply(player, action)``: play a move, or raise ``InvalidMove`` and change nothing.
- ``is_terminal()``, ``scores()`` (game points), ``winners()``, ``returns()`` (1 shared by
  the winners), ``length()`` (rounds or turns played).
- ``view(player)``: what that player may see, as JSON-ready data; others' hands and secret
  dice are left out.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from .errors import ConfigError, InvalidMove, Reason

ActionT = TypeVar("ActionT")


class GameState(ABC, Generic[ActionT]):
    """Base of the game states; subclasses hold the game's own fields."""

    game_name: str = ""
    length_unit: str = "turns"
    score_meaning: str = "points"

    def __init__(self, num_players: int, seed: int | None) -> None:
        self.num_players = num_players
        self.rng = random.Random(seed)

    # --- what each game provides ------------------------------------------------------

    @abstractmethod
    def current_players(self) -> list[int]: ...

    @abstractmethod
    def legal_actions(self, player: int) -> list[ActionT]: ...

    @abstractmethod
    def apply(self, player: int, action: ActionT) -> None: ...

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[int]: ...

    @abstractmethod
    def winners(self) -> list[int]: ...

    @abstractmethod
    def length(self) -> int: ...

    @abstractmethod
    def view(self, player: int) -> dict[str, Any]: ...

    # --- shared -----------------------------------------------------------------------

    def returns(self) -> list[float]:
        """1 shared equally by the winners, 0 for everyone else (and for an unfinished game)."""
        winners = self.winners() if self.is_terminal() else []
        share = 1.0 / len(winners) if winners else 0.0
        return [share if seat in winners else 0.0 for seat in range(self.num_players)]

    def left_of(self, seat: int, steps: int = 1) -> int:
        return (seat + steps) % self.num_players

    def _check_seat(self, player: int) -> None:
        if not 0 <= player < self.num_players:
            raise InvalidMove(Reason.NO_SUCH_PLAYER, f"no seat {player}")
        if self.is_terminal():
            raise InvalidMove(Reason.GAME_OVER, "the game is over")


def check_player_count(game: str, num_players: int, low: int, high: int) -> None:
    if not low <= num_players <= high:
        raise ConfigError(f"{game} takes {low} to {high} players, not {num_players}")
