"""Whole games played by bots, many at a time, summed up: win rate per seat, mean scores, length.

Every game gets its own seed drawn from the run's seed, so a run replays exactly. The bots only
ever play moves the engine lists as legal; an ``observer`` (tests use one) sees every state
after every move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bots import BotSettings
from .catalog import GAMES, GameSpec
from .config import with_settings
from .engine import GameState
from .errors import InputError

MAX_GAMES = 100_000  # about five minutes of Ringer, the slowest (bench/simulate.py)
MAX_PLAYERS = 99  # above any game's own limit, which gives the message
MAX_SEED = 2**32 - 1

Observer = Callable[[GameState[Any], int, Any], None]
Progress = Callable[[int, int, str], None]


@dataclass
class GameRecord:
    seed: int
    winners: list[int]
    scores: list[int]
    length: int
    moves: int
    finished: bool


@dataclass
class Summary:
    game: str
    players: int
    games: int
    seed: int
    settings: list[str]
    score_meaning: str
    length_unit: str
    wins: list[float] = field(default_factory=list)
    mean_scores: list[float] = field(default_factory=list)
    mean_length: float = 0.0
    min_length: int = 0
    max_length: int = 0
    mean_moves: float = 0.0
    no_winner: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "settings": self.settings,
            "win_rate": [wins / self.games for wins in self.wins],
            "mean_scores": self.mean_scores,
            "score_meaning": self.score_meaning,
            "length": {
                "unit": self.length_unit,
                "mean": self.mean_length,
                "min": self.min_length,
                "max": self.max_length,
            },
            "mean_moves": self.mean_moves,
            "no_winner": self.no_winner,
        }

    def text(self) -> str:
        lines = [
            f"{self.game}: {self.games} games, {self.players} players, seed {self.seed}"
            + (f", rules {' '.join(self.settings)}" if self.settings else ""),
            f"  {'seat':>4}  {'win rate':>8}  {'mean score':>10}",
        ]
        for seat in range(self.players):
            rate = 100 * self.wins[seat] / self.games
            lines.append(f"  {seat:>4}  {rate:>7.1f}%  {self.mean_scores[seat]:>10.2f}")
        lines.append(
            f"  game length: mean {self.mean_length:.1f} {self.length_unit} "
            f"(min {self.min_length}, max {self.max_length}), "
            f"{self.mean_moves:.0f} moves on average"
        )
        lines.append(f"  score: {self.score_meaning}; ties share a win")
        lines.append(f"  games without a winner: {self.no_winner}")
        return "\n".join(lines)


def play_game(
    spec: GameSpec,
    players: int,
    seed: int,
    settings: Sequence[str] = (),
    bots: BotSettings | None = None,
    data_path: str | Path | None = None,
    observer: Observer | None = None,
) -> tuple[GameState[Any], GameRecord]:
    """Play one game to its end with the game's bots."""
    bots = bots or BotSettings()
    safety = [spec.safety_stop] if spec.safety_stop else []
    state = spec.new_state(players, seed, [*safety, *settings], data_path)
    rng = random.Random(seed ^ 0x5EED)
    moves = 0
    while not state.is_terminal():
        seat, action = spec.next_move(state, rng, bots)
        state.apply(seat, action)
        moves += 1
        if observer is not None:
            observer(state, seat, action)
    winners = state.winners()
    record = GameRecord(seed, winners, state.scores(), state.length(), moves, bool(winners))
    return state, record


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int,
    settings: Sequence[str] = (),
    bots: BotSettings | None = None,
    data_path: str | Path | None = None,
    progress: Progress | None = None,
    observer: Observer | None = None,
) -> Summary:
    if game not in GAMES:
        raise InputError(f"game {game!r}: not one of {', '.join(GAMES)}")
    if not 1 <= games <= MAX_GAMES:
        raise InputError(f"--games: {games} is not a number of games (1 to {MAX_GAMES:,})")
    spec = GAMES[game]
    if bots is not None and bots.mistakes and not _bots_make_mistakes(game, settings):
        raise InputError("--mistakes: applies only to popalotsy in faithful mode (the default)")
    seeds = random.Random(seed)
    records: list[GameRecord] = []
    step = max(1, games // 50)
    for index in range(games):
        _, record = play_game(
            spec, players, seeds.randrange(2**32), settings, bots, data_path, observer
        )
        records.append(record)
        done = index + 1
        if progress is not None and (done % step == 0 or done == games):
            progress(done, games, f"game {done}")
    return summarise(spec, players, seed, list(settings), records)


def _bots_make_mistakes(game: str, settings: Sequence[str]) -> bool:
    """Whether the game's bots drop wrong cards on purpose: Popalotsy's, in faithful mode."""
    if game != "popalotsy":
        return False
    return with_settings(GAMES[game].config_type(), settings).mode == "faithful"


def summarise(
    spec: GameSpec, players: int, seed: int, settings: list[str], records: list[GameRecord]
) -> Summary:
    probe = spec.state_type  # the class carries the meaning of its scores and length
    summary = Summary(
        spec.name,
        players,
        len(records),
        seed,
        settings,
        getattr(probe, "score_meaning", "points"),
        getattr(probe, "length_unit", "turns"),
    )
    summary.wins = [0.0] * players
    totals = [0] * players
    for record in records:
        for seat in record.winners:
            summary.wins[seat] += 1 / len(record.winners)
        for seat, score in enumerate(record.scores):
            totals[seat] += score
    count = len(records)
    summary.mean_scores = [total / count for total in totals]
    lengths = [record.length for record in records]
    summary.mean_length = sum(lengths) / count
    summary.min_length = min(lengths)
    summary.max_length = max(lengths)
    summary.mean_moves = sum(record.moves for record in records) / count
    summary.no_winner = sum(not record.finished for record in records)
    return summary
