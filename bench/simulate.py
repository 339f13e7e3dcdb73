"""Simulation benchmark: bot games per second for each game, as ``popdice simulate`` plays them.

Plays the same number of games of each game with its bots, in this process (the interpreter's
start is not counted), once per fixed run seed (1, 2, 3, ...), and prints the median games/s
of the runs with the fastest and slowest beside it. Target: Lowdown at least 500 games/s
(issue 14, item 4); the other two have none.

    .venv/bin/python bench/simulate.py [--games K] [--runs R] [--players N] [--game NAME]
"""

from __future__ import annotations

import statistics
import sys
import time

from popdice.games.catalog import GAMES
from popdice.games.simulate import simulate
from popdice_lab.bench import parser as bench_parser

TARGETS = {"lowdown": 500.0}
"""Games per second each game must reach; a game not listed has no target."""


def games_per_second(game: str, players: int, games: int, seed: int) -> float:
    """Plays ``games`` games of ``game`` from run seed ``seed``; their number over the time."""
    start = time.perf_counter()
    simulate(game, players, games, seed)
    return games / (time.perf_counter() - start)


def measure(game: str, players: int, games: int, runs: int) -> list[float]:
    """Games/s of each run, after one game to load the game's data and warm up."""
    simulate(game, players, 1, 0)
    return [games_per_second(game, players, games, seed) for seed in range(1, runs + 1)]


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--games", type=int, default=300, help="games a run (default 300)")
    parser.add_argument("--runs", type=int, default=3, help="runs, seeds 1..R (default 3)")
    parser.add_argument("--players", type=int, default=4, help="players (default 4)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only these")
    args = parser.parse_args(argv)
    games = args.game or ["lowdown", "ringer", "popalotsy"]
    version = ".".join(map(str, sys.version_info[:3]))
    print(
        f"simulate benchmark: {args.games} games a run, {args.players} players, "
        f"run seeds 1-{args.runs}, median of {args.runs} runs (Python {version})"
    )
    print(f"{'game':12} {'games/s':>10} {'runs min-max':>16}  target")
    ok = True
    for game in games:
        rates = measure(game, args.players, args.games, args.runs)
        median = statistics.median(rates)
        target = TARGETS.get(game)
        ok = ok and (target is None or median >= target)
        spread = f"{min(rates):,.0f}-{max(rates):,.0f}"
        wanted = f">= {target:,.0f}" if target is not None else ""
        print(f"{game:12} {median:>10,.0f} {spread:>16}  {wanted}")
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
