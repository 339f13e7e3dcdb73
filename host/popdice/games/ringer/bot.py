"""Ringer's simulation bot: ``next_ringer_move(state, rng, settings)`` answers who acts next
and what they do, a seeded random choice among the legal moves, nudged by ``BotSettings`` (how
often a Take Over comes out of turn, how often a player plays on rather than stopping) and by
a preference for a card that scores a Ringer, so that games end in a sensible number of
turns."""

from __future__ import annotations

import random
from typing import Any

from ..bots import BotSettings
from .rules import scores_ringer
from .state import Play, RingerState


def next_ringer_move(
    state: RingerState, rng: random.Random, settings: BotSettings
) -> tuple[int, Any]:
    current = state.current_players()
    for seat in current[1:]:
        if rng.random() < settings.take_over_rate:
            return seat, rng.choice(state.legal_actions(seat))
    seat = current[0]
    actions = state.legal_actions(seat)
    plays = [action for action in actions if isinstance(action, Play)]
    if not plays or len(plays) == len(actions):
        return seat, rng.choice(actions)
    ringers = [play for play in plays if scores_ringer(play.card, state.die)]
    if ringers:
        return seat, rng.choice(ringers)
    if rng.random() < settings.keep_playing:
        return seat, rng.choice(plays)
    return seat, rng.choice([action for action in actions if not isinstance(action, Play)])
