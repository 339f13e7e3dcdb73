"""The three games by name: how to make a state, its settings and data, and its bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bots import BotSettings
from .config import with_settings
from .engine import GameState
from .lowdown.bot import next_lowdown_move
from .lowdown.rules import LowdownConfig, LowdownData
from .lowdown.state import LowdownState
from .popalotsy.bot import next_popalotsy_move
from .popalotsy.rules import PopalotsyConfig, PopalotsyData
from .popalotsy.state import PopalotsyState
from .ringer.bot import next_ringer_move
from .ringer.rules import RingerConfig, RingerData
from .ringer.state import RingerState


@dataclass(frozen=True)
class GameSpec:
    name: str
    state_type: Callable[..., GameState[Any]]
    config_type: Callable[[], Any]
    load_data: Callable[[str | Path | None], Any]
    next_move: Callable[[Any, random.Random, BotSettings], tuple[int, Any]]
    safety_stop: str
    """The setting that ends a runaway simulated game (``NAME=VALUE``)."""

    def new_state(
        self,
        players: int,
        seed: int | None,
        settings: list[str] | tuple[str, ...] = (),
        data_path: str | Path | None = None,
    ) -> GameState[Any]:
        config = with_settings(self.config_type(), settings)
        return self.state_type(players, seed, config, self.load_data(data_path))


GAMES: dict[str, GameSpec] = {
    "popalotsy": GameSpec(
        "popalotsy",
        PopalotsyState,
        PopalotsyConfig,
        PopalotsyData.load,
        next_popalotsy_move,
        "max_rounds=500",
    ),
    "ringer": GameSpec(
        "ringer", RingerState, RingerConfig, RingerData.load, next_ringer_move, "max_turns=3000"
    ),
    "lowdown": GameSpec(
        "lowdown", LowdownState, LowdownConfig, LowdownData.load, next_lowdown_move, ""
    ),
}
