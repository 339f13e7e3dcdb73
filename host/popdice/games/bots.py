"""Simple bots for simulations: seeded random choices among the legal moves, nudged by a few
preferences so that games end in a sensible number of turns.

Each ``next_*_move(state, rng, settings)`` answers (seat, action): who acts next and what they
do. In real-time phases (the Popalotsy race, Ringer's Take Over window) it also decides who
gets in first, at random.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .popalotsy import Drop, Pass, PopalotsyState


@dataclass(frozen=True)
class BotSettings:
    mistakes: float = 0.0
    """Popalotsy, faithful mode: the chance a drop is a random card on a random die."""
    take_over_rate: float = 0.3
    """Ringer: the chance a player holding a legal Take Over plays it out of turn."""
    keep_playing: float = 0.8
    """Ringer: the chance of playing on (when a card can be played) rather than stopping."""
    reveal_rate: float = 0.1
    """Lowdown: the chance the active player reveals the hidden pair."""


def next_popalotsy_move(
    state: PopalotsyState, rng: random.Random, settings: BotSettings
) -> tuple[int, Any]:
    seat = rng.choice(state.current_players())
    hand = state.hands[seat]
    if settings.mistakes and state.config.mode == "faithful" and rng.random() < settings.mistakes:
        return seat, Drop(rng.choice(hand), rng.randrange(len(state.dice)))
    drops = state.legal_drops(seat)
    return seat, rng.choice(drops) if drops else Pass()
