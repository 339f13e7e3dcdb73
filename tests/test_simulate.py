"""Thousands of bot games under invariants (every card accounted for, scores equal to their
formula, no illegal move ever applied, refused moves change nothing), and `popdice simulate`."""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from popdice.cli.main import main
from popdice.games.bots import BotSettings
from popdice.games.catalog import GAMES
from popdice.games.engine import GameState
from popdice.games.errors import InvalidMove
from popdice.games.lowdown.rules import BLACKOUT, lines_of, qualifies
from popdice.games.lowdown.state import Blackout, Cross, Done, LowdownState, Place, Reveal, Skip
from popdice.games.popalotsy.state import Drop, Pass, PopalotsyState
from popdice.games.ringer.state import Bury, Give, Play, RingerState, Start, Stop
from popdice.games.ringer.state import Pass as RingerPass
from popdice.games.simulate import play_game, simulate

PROBE_RATE = 0.05
DATA_DIR = Path(__file__).parents[1] / "host/popdice/games/data"


def snapshot(state: GameState[Any]) -> dict:
    fields = {key: value for key, value in vars(state).items() if key != "rng"}
    return copy.deepcopy({**fields, "rng": state.rng.getstate()})


# --- what a wrong move could look like, per game -------------------------------------------


def some_card(hand: list, deck: Any, rng: random.Random) -> Any:
    """Mostly a card the seat holds (so the rules, not ownership, decide), else any card."""
    return rng.choice(hand) if hand and rng.random() < 0.7 else rng.choice(deck)


def popalotsy_candidates(state: PopalotsyState, seat: int, rng: random.Random) -> Any:
    if rng.random() < 0.2:
        return Pass()
    card = some_card(state.hands[seat], state.data.deck, rng)
    return Drop(card, rng.randrange(-1, len(state.dice) + 1))


def ringer_candidates(state: RingerState, seat: int, rng: random.Random) -> Any:
    card = some_card(state.hands[seat], state.data.deck, rng)
    kind = rng.randrange(8)
    if kind <= 2:
        target = rng.choice([None, None, rng.randrange(-1, state.num_players + 1)])
        ask = rng.choice([None, None, rng.randrange(0, 8), "pink", "wild", "red"])
        return Play(card, target, ask)
    return [
        Stop(),
        RingerPass(rng.choice([None, card])),
        Give(card),
        Bury(card),
        Start(card),
    ][kind - 3]


def lowdown_candidates(state: LowdownState, seat: int, rng: random.Random) -> Any:
    grid = rng.choice([*state.data.grid_names, "pink/blue"])
    row, col = rng.randrange(-1, 4), rng.randrange(-1, 4)
    kind = rng.randrange(7)
    if kind <= 2:
        color = rng.choice([None, *range(-1, 3)])
        return Place(rng.randrange(-1, 3), color, grid, row, col, wild=rng.random() < 0.3)
    return [
        Blackout(grid, row, col),
        Cross(grid, rng.choice([*lines_of(3), "x1"])),
        rng.choice([Done(), Reveal()]),
        Skip(),
    ][kind - 3]


CANDIDATES = {
    "popalotsy": popalotsy_candidates,
    "ringer": ringer_candidates,
    "lowdown": lowdown_candidates,
}


# --- invariants, per game -------------------------------------------------------------------


def same_cards(cards: list, deck: Any) -> bool:
    """Whether ``cards`` are the deck's cards, each as often. Compared as plain dicts: a
    Counter's own == walks both in Python, and this runs after every move of every game."""
    return dict(Counter(cards)) == dict(Counter(deck))


def popalotsy_invariants(state: PopalotsyState) -> None:
    held = [card for hand in state.hands for card in hand]
    piled = [placed.card for pile in state.piles for placed in pile]
    assert same_cards(held + piled + state.deck + state.discard, state.data.deck)
    assert state.scores() == [len(hand) for hand in state.hands]
    if state.is_terminal() and state.winner is not None:
        assert state.hands[state.winner] == []
        assert state.history[-1].winner == state.winner or not state.config.win_after_verification


def ringer_invariants(state: RingerState) -> None:
    held = [card for hand in state.hands for card in hand]
    won = [card for pile in state.collected for card in pile]
    assert same_cards(held + won + state.pile + state.stack, state.data.deck)
    burying = {need.player for need in state.pending if need.need.value == "bury"}
    for seat, hand in enumerate(state.hands):
        assert len(hand) <= state.config.hand_limit or seat in burying
    assert state.scores() == [
        len(w) - len(h) for w, h in zip(state.collected, state.hands, strict=True)
    ]
    if state.is_terminal() and not state.aborted:
        best = max(state.scores())
        assert state.winners() == [s for s, v in enumerate(state.scores()) if v == best]


def lowdown_invariants(state: LowdownState, before: list[dict] | None) -> list[dict]:
    lines = lines_of(3)
    scores = []
    for sheet in state.sheets:
        assert 0 <= sheet.wilds <= state.data.wild_boxes
        total = 0
        for grid, rows in sheet.grids.items():
            crossed = sheet.crossed[grid]
            dead = [cell for line in crossed for cell in lines[line]]
            assert len(dead) == len(set(dead)), "crossed lines share a box"
            for line in crossed:
                assert qualifies([rows[r][c] for r, c in lines[line]], 10)
            for r in range(3):
                for c in range(3):
                    box = rows[r][c]
                    total += 6 if box == BLACKOUT else 0
                    if isinstance(box, int) and (r, c) not in dead:
                        total += box
        scores.append(total)
    assert state.scores() == scores
    grids = [copy.deepcopy(sheet.grids) for sheet in state.sheets]
    for old, new in zip(before or [], grids, strict=False):  # nothing before the first move
        for grid in old:
            for r in range(3):
                for c in range(3):
                    assert old[grid][r][c] is None or old[grid][r][c] == new[grid][r][c]
    if state.is_terminal():
        assert any(sheet.full_grids() >= 2 for sheet in state.sheets)
        best = min(scores)
        assert state.winners() == [s for s, v in enumerate(scores) if v == best]
    return grids


def play_checked(game: str, players: int, seed: int, settings: list[str],
                 bots: BotSettings | None = None) -> GameState[Any]:  # fmt: skip
    """Play one bot game, checking every move and the invariants after it."""
    spec = GAMES[game]
    bots = bots or BotSettings()
    state = spec.new_state(players, seed, [spec.safety_stop, *settings] if spec.safety_stop
                           else settings)  # fmt: skip
    rng = random.Random(seed)
    probe = random.Random(seed + 1)
    grids = None
    accepts_any_drop = accepts_any_card(state)
    while not state.is_terminal():
        seat, action = spec.next_move(state, rng, bots)
        legal = state.legal_actions(seat)
        mistake = accepts_any_drop and bots.mistakes > 0 and isinstance(action, Drop)
        assert action in legal or mistake, f"the bot chose an illegal {action!r}"
        if probe.random() < PROBE_RATE:
            wrong_seat = probe.randrange(players)
            wrong = CANDIDATES[game](state, wrong_seat, probe)
            accepted_anyway = accepts_any_drop and isinstance(wrong, Drop)
            if wrong not in state.legal_actions(wrong_seat) and not accepted_anyway:
                before = snapshot(state)
                with pytest.raises(InvalidMove):
                    state.apply(wrong_seat, wrong)
                assert snapshot(state) == before
        state.apply(seat, action)
        grids = check_invariants(state, grids)
    return state


def accepts_any_card(state: Any) -> bool:
    """Popalotsy in faithful mode lets any held card land anywhere (judged later)."""
    return isinstance(state, PopalotsyState) and state.config.mode == "faithful"


def check_invariants(state: Any, grids: list[dict] | None) -> list[dict] | None:
    if isinstance(state, PopalotsyState):
        popalotsy_invariants(state)
    elif isinstance(state, RingerState):
        ringer_invariants(state)
    else:
        assert isinstance(state, LowdownState)
        return lowdown_invariants(state, grids)
    return None


POPALOTSY_RUNS = [
    ([], 2), ([], 6), (["mode=strict"], 4), (["mode=strict", "turn_taking=true"], 3),
    (["penalised_card=last", "cleared_piles=deck", "popper_rotates=true"], 5),
    (["win_after_verification=false", "hand_size=8"], 4), (["reshuffle_discard=false"], 6),
]  # fmt: skip


@pytest.mark.parametrize(("settings", "players"), POPALOTSY_RUNS)
def test_popalotsy_bot_games_keep_every_card_and_every_rule(settings, players):
    for seed in range(150):
        state = play_checked("popalotsy", players, seed, settings)
        assert state.is_terminal()


def test_popalotsy_faithful_games_with_mistakes_are_verified_and_penalised():
    penalties = 0
    for seed in range(300):
        state = play_checked("popalotsy", 4, seed, [], BotSettings(mistakes=0.3))
        assert isinstance(state, PopalotsyState)
        penalties += sum(
            verdict.takes_back is not None for result in state.history for verdict in result.piles
        )
        for result in state.history:
            for verdict in result.piles:
                if verdict.takes_back is not None:
                    assert verdict.reason is not None and verdict.first_bad is not None
    assert penalties > 100


RINGER_RUNS = [
    ([], 2), ([], 3), ([], 5),
    (["wrap_numbers=true", "wild_reroll_is_wild=false", "refill_after_pass=false"], 4),
    (["limit_after_ask_and_steal=false", "turn_goes_on_after_ringer=false",
      "streak_on_take_over=false"], 3),
]  # fmt: skip


@pytest.mark.parametrize(("settings", "players"), RINGER_RUNS)
def test_ringer_bot_games_keep_every_card_and_every_rule(settings, players):
    finished = 0
    for seed in range(100):
        state = play_checked("ringer", players, seed, settings)
        assert isinstance(state, RingerState)
        finished += not state.aborted
    assert finished == 100


LOWDOWN_RUNS = [
    ([], 2), ([], 4),
    (["hidden_roller=left", "cross_any_turn=false", "forced_wild=false"], 3),
    (["must_write=false", "hidden_with_wild=false"], 2),
]  # fmt: skip


@pytest.mark.parametrize(("settings", "players"), LOWDOWN_RUNS)
def test_lowdown_bot_games_keep_every_rule(settings, players):
    for seed in range(50):
        state = play_checked("lowdown", players, seed, settings)
        assert state.is_terminal()


# --- simulate() and the command ----------------------------------------------------------


def test_simulate_sums_up_and_replays_with_the_same_seed():
    calls: list[tuple[int, int, str]] = []
    summary = simulate("ringer", 3, 60, 7, progress=lambda d, t, i: calls.append((d, t, i)))
    again = simulate("ringer", 3, 60, 7)
    assert summary.as_dict() == again.as_dict()
    assert summary.games == 60 and len(summary.wins) == 3
    assert sum(summary.wins) == pytest.approx(60 - summary.no_winner)
    assert summary.min_length <= summary.mean_length <= summary.max_length
    assert calls[-1] == (60, 60, "game 60") and len(calls) <= 60
    assert [d for d, _, _ in calls] == sorted(d for d, _, _ in calls)
    other = simulate("ringer", 3, 60, 8)
    assert other.as_dict() != summary.as_dict()


def test_play_game_reports_what_happened():
    state, record = play_game(GAMES["lowdown"], 2, seed=3)
    assert state.is_terminal() and record.finished
    assert record.scores == state.scores() and record.winners == state.winners()
    assert record.length == state.length() and record.moves > 0


def test_the_simulate_command_prints_a_summary_and_a_progress_bar(capsys):
    assert main(["simulate", "popalotsy", "--players", "3", "--games", "40", "--seed", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("popalotsy: 40 games, 3 players, seed 2")
    assert "win rate" in out and "game length: mean" in out and "rounds" in out
    assert "simulating popalotsy [" in err and "40/40" in err
    assert main(["simulate", "lowdown", "--players", "2", "--games", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "lowdown" and len(summary["win_rate"]) == 2
    assert summary["length"]["unit"] == "turns"


def test_the_simulate_command_takes_rule_settings(capsys):
    argv = ["simulate", "popalotsy", "--games", "20", "--rule", "mode=strict",
            "--rule", "turn_taking=true", "--json"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["settings"] == ["mode=strict", "turn_taking=true"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "ringer", "--players", "6"], "error: ringer takes 2 to 5 players, not 6"),
        (["simulate", "ringer", "--games", "0"],
         "error: popdice simulate: argument --games: expected a whole number from 1 to 100,000, "
         "not '0'"),
        (["simulate", "lowdown", "--rule", "hidden_roller=up"],
         "error: rule hidden_roller: 'up' is not one of right, left"),
        (["simulate", "lowdown", "--rule", "speed"], "error: rule 'speed': write it as NAME=VALUE"),
        (["simulate", "lowdown", "--rule", "=1"], "error: rule '=1': write it as NAME=VALUE"),
        (["simulate", "ringer", "--rule", "hand_size=" + "9" * 5000],
         "error: rule hand_size: a number of over 100 digits"),
        (["simulate", "lowdown", "--rule", "end_grids=9"],
         "error: rule end_grids: 9 is more than the 3 grids"),
        (["simulate", "lowdown", "--rule", "blackout_points=-1"],
         "error: rule blackout_points: -1 is less than 0"),
        (["simulate", "lowdown", "--rule", "line_sum=2"],
         "error: rule line_sum: 2 is not a sum the 3 numbers of a line can make (3 to 18)"),
        (["simulate", "lowdown", "--rule", "line_sum=19"],
         "error: rule line_sum: 19 is not a sum the 3 numbers of a line can make (3 to 18)"),
        (["simulate", "popalotsy", "--mistakes", "2"], "error: --mistakes: 2.0 is not a chance"),
        (["simulate", "ringer", "--mistakes", "0.5"],
         "error: --mistakes: applies only to popalotsy in faithful mode (the default)"),
        (["simulate", "popalotsy", "--rule", "mode=strict", "--mistakes", "0.5"],
         "error: --mistakes: applies only to popalotsy in faithful mode (the default)"),
        (["simulate", "ringer", "--rule", "hand_size=999999999"],
         "error: rule hand_size: 999999999 is more than hand_limit (10)"),
        (["simulate", "ringer", "--rule", "hand_limit=3"],
         "error: rule hand_limit: 3 is less than hand_size (6)"),
        (["simulate", "ringer", "--rule", "hand_limit=99999999999",
          "--rule", "hand_size=99999999999"],
         "error: rule hand_size: 99999999999 is more than the 105 cards of the deck"),
        (["simulate", "ringer", "--rule", "hand_limit=106"],
         "error: rule hand_limit: 106 is more than the 105 cards of the deck"),
        (["simulate", "popalotsy", "--rule", "hand_size=99999999999"],
         "error: rule hand_size: 99999999999 is more than the 40 cards of the deck"),
        (["simulate", "popalotsy", "--rule", "cards_per_round=41"],
         "error: rule cards_per_round: 41 is more than the 40 cards of the deck"),
    ],
)  # fmt: skip
def test_bad_simulate_arguments_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and err.count("\n") == 1


NUMERIC_RULES = [
    (game, field.name)
    for game, spec in GAMES.items()
    for field in dataclasses.fields(spec.config_type())
    if type(field.default) is int
]


@pytest.mark.parametrize(("game", "rule"), NUMERIC_RULES)
def test_every_numeric_rule_refuses_a_negative_value(capsys, game, rule):
    assert main(["simulate", game, "--games", "1", "--rule", f"{rule}=-1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: rule {rule}: -1 is ") and err.count("\n") == 1


def test_mistakes_are_taken_in_faithful_mode(capsys):
    argv = ["simulate", "popalotsy", "--rule", "mode=faithful", "--mistakes", "0.5", "--games", "3"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("popalotsy: 3 games")


def test_a_simulated_data_file_with_a_huge_card_count_is_one_line(capsys, tmp_path):
    data = json.loads((DATA_DIR / "popalotsy.json").read_text())
    data["cards"][0]["count"] = 10**12
    (tmp_path / "big.json").write_text(json.dumps(data))
    assert main(["simulate", "popalotsy", "--data", str(tmp_path / "big.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("error: data file ")
    assert err.endswith("cards[0].count: 1000000000000 is not a card count (1 to 10,000)\n")


def test_a_simulated_data_file_that_is_a_folder_or_not_text_is_said_so(capsys, tmp_path):
    (tmp_path / "bytes.json").write_bytes(b"\xf1\xf2{}")
    for name, why in [("", "is a folder, not a file"), ("bytes.json", "not UTF-8 text (byte 0xf1")]:
        assert main(["simulate", "ringer", "--data", str(tmp_path / name)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and why in err, err


def test_progress_goes_to_standard_error_only(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["simulate", "ringer", "--games", "5"]) == 0
    assert "simulating" not in capsys.readouterr().out
