"""The settings the simulation bots share: ``BotSettings``, the rates of their preferences.
Each game's bot is its package's ``bot`` module (``lowdown.bot``, ``ringer.bot``,
``popalotsy.bot``), whose ``next_<game>_move(state, rng, settings)`` answers (seat, action):
who acts next and what they do, a seeded random choice among the legal moves nudged by a few
preferences so that games end in a sensible number of turns. In real-time phases (the
Popalotsy race, Ringer's Take Over window) it also decides who gets in first, at random."""

from __future__ import annotations

from dataclasses import dataclass


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
