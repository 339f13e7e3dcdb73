"""Lowdown's simulation bot: ``next_lowdown_move(state, rng, settings)`` answers who acts
next and what they do, a seeded random choice among the legal moves with a few preferences
(reveal now and then, write the lowest number, cross out the best lines), so that games end
in a sensible number of turns."""

from __future__ import annotations

import random
from typing import Any

from ..bots import BotSettings
from .state import Cross, Done, LowdownState, Reveal


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
