"""Popalotsy's simulation bot: ``next_popalotsy_move(state, rng, settings)`` answers who acts
next and what they do: a player picked at random among those who may act (in the race, who
gets in first) drops a random legal card, or passes when none is legal; in faithful mode, at
the ``BotSettings.mistakes`` rate, a random card on a random die instead."""

from __future__ import annotations

import random
from typing import Any

from ..bots import BotSettings
from .state import Drop, Pass, PopalotsyState


def next_popalotsy_move(
    state: PopalotsyState, rng: random.Random, settings: BotSettings
) -> tuple[int, Any]:
    seat = rng.choice(state.current_players())
    hand = state.hands[seat]
    if settings.mistakes and state.config.mode == "faithful" and rng.random() < settings.mistakes:
        return seat, Drop(rng.choice(hand), rng.randrange(len(state.dice)))
    drops = state.legal_drops(seat)
    return seat, rng.choice(drops) if drops else Pass()
