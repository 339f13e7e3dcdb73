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

from .lowdown import Cross, Done, LowdownState, Reveal
from .popalotsy import Drop, Pass, PopalotsyState
from .ringer import Play, RingerState
from .ringer_rules import scores_ringer


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


def next_lowdown_move(
    state: LowdownState, rng: random.Random, settings: BotSettings
) -> tuple[int, Any]:
    """Reveal now and then; after writing, cross out a line of the best crossings, if any, else
    say Done; else write the lowest number that can go in a box, or anything legal.

    It asks the engine for the kind of move it wants (``legal_writes``, ``normal_places``,
    ``legal_crossings``) rather than sorting ``legal_actions``, and draws from the same lists
    as it did from ``legal_actions``, the same way."""
    seat = rng.choice(state.current_players())
    if state.may_reveal(seat) and rng.random() < settings.reveal_rate:
        return seat, Reveal()
    if state.wrote[seat]:
        return seat, best_crossing_or_done(state, seat)
    lowest = state.normal_places(seat, lowest_number_dice(state, seat))
    if lowest:
        return seat, rng.choice(lowest)
    return seat, rng.choice(state.legal_writes(seat))


def lowest_number_dice(state: LowdownState, seat: int) -> list[int]:
    """The number dice offered to ``seat`` that show the lowest number. Any number die goes
    in the same boxes, so when a normal place exists, these dice's places are the normal
    places with the lowest number, in the order ``normal_places`` lists them."""
    numbers = state.offered_dice(seat)[0]
    lowest = min(numbers, default=None)
    return [index for index, number in enumerate(numbers) if number == lowest]


def best_crossing_or_done(state: LowdownState, seat: int) -> Cross | Done:
    """The first legal crossing that is one of its grid's best crossings, else Done."""
    sheet = state.sheets[seat]
    for cross in state.legal_crossings(seat):
        if cross.line in sheet.best_crossings(cross.grid, state.config):
            return cross
    return Done()
