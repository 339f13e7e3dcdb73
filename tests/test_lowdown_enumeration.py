"""Lowdown's legal moves, as the engine lists them fast (interned actions, lines and empty
boxes cached per grid), against the from-scratch enumeration it replaced, kept here as the
reference: the same moves in the same order in every state of many playouts under every rule
setting that changes writing or crossing out; the bot's choices against the bot as it was;
and seeded games move for move as they were before (issue 14, item 4)."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from typing import Any

import pytest

from popdice.games.bots import BotSettings
from popdice.games.catalog import GAMES, GameSpec
from popdice.games.lowdown.bot import next_lowdown_move
from popdice.games.lowdown.rules import (
    BLACKOUT,
    Box,
    LowdownConfig,
    LowdownData,
    Sheet,
    lines_of,
)
from popdice.games.lowdown.state import (
    Blackout,
    Cross,
    Done,
    LowdownAction,
    LowdownState,
    Place,
    Reveal,
    Skip,
    Step,
    Write,
)
from popdice.games.simulate import play_game

DATA = LowdownData.load()
RO = "red/orange"

# --- the from-scratch enumeration (the engine's before issue 14, item 4) ----------------------


def reference_writes(state: LowdownState, player: int) -> list[Write]:
    """Every box tried with every die, one new action at a time."""
    numbers, colors = state.offered_dice(player)
    layout = state.layouts[player]
    empty = state.sheets[player].empty_cells()
    if not empty:
        return [Skip()]
    writes: list[Write] = [
        Place(ni, ci, grid, row, col)
        for ni in range(len(numbers))
        for ci, color in enumerate(colors)
        for grid, row, col in empty
        if layout.accepts(grid, row, col, color)
    ]
    has_normal = bool(writes)
    choosing = state.step is Step.CHOOSE and player == state.active
    wild = state.sheets[player].wilds < state.data.wild_boxes and not (
        choosing and state.revealed and not state.config.hidden_with_wild
    )
    if wild:
        removals = list(range(len(colors))) if choosing else [None]
        writes.extend(
            Place(ni, removed, grid, row, col, wild=True)
            for ni in range(len(numbers))
            for removed in removals
            for grid, row, col in empty
        )
    if not has_normal and not (wild and state.config.forced_wild):
        writes.extend(Blackout(grid, row, col) for grid, row, col in empty)
    if not state.config.must_write:
        writes.append(Skip())
    return writes


def reference_crossing_allowed(state: LowdownState, player: int, grid: str, line: str) -> bool:
    """``Sheet.crossing_problem`` from scratch, and the line written in this turn if so set."""
    sheet = state.sheets[player]
    if grid not in sheet.grids or sheet.crossing_problem(grid, line, state.config) is not None:
        return False
    if state.config.cross_any_turn:
        return True
    cells = {(grid, row, col) for row, col in lines_of(state.data.size)[line]}
    return bool(cells & state.written[player])


def reference_crossings(state: LowdownState, player: int) -> list[Cross]:
    """Every line of every grid put through the whole check."""
    return [
        Cross(grid, line)
        for grid in state.data.grid_names
        for line in lines_of(state.data.size)
        if reference_crossing_allowed(state, player, grid, line)
    ]


def reference_legal_actions(state: LowdownState, player: int) -> list[LowdownAction]:
    if player not in state.current_players():
        return []
    if state.step is Step.CHOOSE:
        reveal: list[LowdownAction] = [] if state.revealed else [Reveal()]
        return [*reveal, *reference_writes(state, player)]
    if not state.wrote[player]:
        return list(reference_writes(state, player))
    return [*reference_crossings(state, player), Done()]


def reference_best_crossings(sheet: Sheet, grid: str, config: LowdownConfig) -> list[str]:
    """``Sheet.best_crossings`` with every line checked from scratch (the search among the
    candidates is unchanged, and shared)."""
    lines = lines_of(sheet.size)
    candidates = [name for name in lines if sheet.crossing_problem(grid, name, config) is None]
    return sheet.best_of_lines(grid, candidates, config)


def reference_bot(
    state: LowdownState, rng: random.Random, settings: BotSettings
) -> tuple[int, Any]:
    """The Lowdown bot as it was: everything it does, it picks out of ``legal_actions``."""
    seat = rng.choice(state.current_players())
    actions = reference_legal_actions(state, seat)
    if (
        any(isinstance(action, Reveal) for action in actions)
        and rng.random() < settings.reveal_rate
    ):
        return seat, Reveal()
    crossings = [action for action in actions if isinstance(action, Cross)]
    if crossings:
        sheet = state.sheets[seat]
        for cross in crossings:
            if cross.line in reference_best_crossings(sheet, cross.grid, state.config):
                return seat, cross
    if any(isinstance(action, Done) for action in actions):
        return seat, Done()
    writes = [action for action in actions if not isinstance(action, Reveal)]
    normal = [a for a in writes if isinstance(a, Place) and not a.wild]
    if normal:
        numbers = state.offered_dice(seat)[0]
        lowest = min(numbers[place.number] for place in normal)
        return seat, rng.choice([p for p in normal if numbers[p.number] == lowest])
    return seat, rng.choice(writes)


# --- states to compare in ----------------------------------------------------------------------

SETTINGS = [
    [],
    ["crossed_lines_may_share_box=true"],
    ["cross_any_turn=false"],
    ["cross_any_turn=false", "crossed_lines_may_share_box=true"],
    ["line_sum=9"],
    ["line_sum=13", "crossed_lines_may_share_box=true"],
    ["must_write=false"],
    ["forced_wild=false"],
    ["hidden_with_wild=false", "hidden_roller=left"],
    ["must_write=false", "forced_wild=false", "hidden_with_wild=false", "end_grids=3"],
]


def playout_states(players: int, seed: int, settings: Sequence[str]):
    """Every state of one game in which each move is the bot's or, one time in three, any
    legal move (more wilds, blackouts, skips and crossings than the bot would make)."""
    state = GAMES["lowdown"].new_state(players, seed, list(settings))
    assert isinstance(state, LowdownState)
    rng = random.Random(seed)
    bots = BotSettings(reveal_rate=0.3)
    while not state.is_terminal():
        yield state
        if rng.random() < 1 / 3:
            seat = rng.choice(state.current_players())
            action = rng.choice(reference_legal_actions(state, seat))
        else:
            seat, action = next_lowdown_move(state, rng, bots)
        state.apply(seat, action)
    yield state


def assert_same_moves(state: LowdownState) -> None:
    """Every seat's legal moves, and the pieces the bot asks for, as the reference lists them."""
    for seat in range(state.num_players):
        expected = reference_legal_actions(state, seat)
        assert state.legal_actions(seat) == expected, f"seat {seat}, turn {state.turns}"
        if seat not in state.current_players():
            continue
        assert state.may_reveal(seat) == (Reveal() in expected)
        if state.step is Step.WRITE and state.wrote[seat]:
            assert state.legal_crossings(seat) == expected[:-1]
            continue
        writes = reference_writes(state, seat)
        assert state.legal_writes(seat) == writes
        normal = [w for w in writes if isinstance(w, Place) and not w.wild]
        assert state.normal_places(seat) == normal
        for dice in ([0], [1], [0, 1]):
            dice = [ni for ni in dice if ni < len(state.offered_dice(seat)[0])]
            assert state.normal_places(seat, dice) == [p for p in normal if p.number in dice]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: " ".join(s) or "defaults")
def test_the_legal_moves_are_the_from_scratch_ones_in_every_playout_state(settings):
    states = 0
    for players, seed in ((2, 1), (3, 2), (4, 3), (4, 4)):
        for state in playout_states(players, seed, settings):
            assert_same_moves(state)
            states += 1
    assert states > 250


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: " ".join(s) or "defaults")
def test_the_bot_chooses_as_it_did_from_the_whole_list(settings):
    for players, seed in ((2, 5), (4, 6)):
        for state in playout_states(players, seed, settings):
            if state.is_terminal():
                continue
            for draw in range(3):
                mine, theirs = random.Random(draw), random.Random(draw)
                bots = BotSettings(reveal_rate=0.5)
                assert next_lowdown_move(state, mine, bots) == reference_bot(state, theirs, bots)
                assert mine.getstate() == theirs.getstate(), "a different number of draws"


# --- sheets no game would reach --------------------------------------------------------------


def random_sheet(rng: random.Random) -> Sheet:
    """Boxes empty, blacked out or numbered (mostly full, low numbers: lines that qualify),
    and some lines crossed out, sharing boxes or not."""
    sheet = Sheet.empty(DATA.grid_names, DATA.size)
    for rows in sheet.grids.values():
        for row in rows:
            for col in range(DATA.size):
                kind = rng.random()
                box: Box = None if kind < 0.15 else BLACKOUT if kind < 0.2 else rng.randint(1, 4)
                row[col] = box
    for grid in sheet.grids:
        sheet.crossed[grid] = rng.sample(list(lines_of(DATA.size)), rng.choice([0, 0, 1, 2]))
    return sheet


@pytest.mark.parametrize(
    "config",
    [LowdownConfig(), LowdownConfig(crossed_lines_may_share_box=True), LowdownConfig(line_sum=8)],
    ids=["defaults", "share boxes", "line sum 8"],
)
def test_a_sheets_crossable_and_best_lines_are_the_from_scratch_ones(config):
    rng = random.Random(14)
    for _ in range(600):
        sheet = random_sheet(rng)
        for grid in sheet.grids:
            expected = [
                line
                for line in lines_of(sheet.size)
                if sheet.crossing_problem(grid, line, config) is None
            ]
            assert sheet.crossable_lines(grid, config) == expected
            assert sheet.best_crossings(grid, config) == reference_best_crossings(
                sheet, grid, config
            )
        assert sheet.full_grids() == sum(
            all(box is not None for row in rows for box in row) for rows in sheet.grids.values()
        )


def test_what_is_cached_follows_a_sheet_changed_in_place():
    state = LowdownState(2, seed=3)
    state.own_numbers, state.own_colors = [4, 6], ["red", "purple"]
    state.hidden_number, state.hidden_color = 4, "orange"
    rows = state.sheets[0].grids[RO]
    assert_same_moves(state)
    rows[0][:2] = [3, 3]
    rows[1][:] = [1, None, 2]
    assert_same_moves(state)
    state.apply(0, Place(0, 0, RO, 0, 2, wild=True))  # a 4: 3 3 4 adds up to ten
    assert state.legal_crossings(0) == [Cross(RO, "r0")]
    rows[0][2] = 5
    assert state.legal_crossings(0) == []
    rows[0][2] = 3  # three of a kind
    assert state.legal_crossings(0) == [Cross(RO, "r0")]
    for row in rows:
        row[:] = [None] * 3
    assert state.legal_crossings(0) == []
    assert_same_moves(state)


# --- seeded games, move for move ----------------------------------------------------------------

GAMES_BEFORE = {
    (4, ()): "718b8f25404a4085",
    (2, ("hidden_roller=left", "line_sum=9")): "ad1a30da7f0c9cc9",
    (3, ("cross_any_turn=false", "crossed_lines_may_share_box=true")): "04458d8f353e4a77",
    (3, ("must_write=false", "forced_wild=false", "hidden_with_wild=false")): "9aa8b820f788264b",
}
"""A digest of every move of seeded bot games (seeds 0-11), taken before the enumeration was
made incremental. Changing the rules or the bot on purpose changes them: take them again."""


def games_digest(players: int, settings: Sequence[str], spec: GameSpec = GAMES["lowdown"]) -> str:
    """A digest of every move of the bot games of seeds 0-11."""
    moves: list[str] = []
    for seed in range(12):
        play_game(
            spec,
            players,
            seed,
            list(settings),
            observer=lambda _state, seat, action: moves.append(f"{seat} {action!r}"),
        )
    return hashlib.sha256("\n".join(moves).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("players", "settings"), list(GAMES_BEFORE))
def test_seeded_games_are_the_games_they_were(players, settings):
    assert games_digest(players, settings) == GAMES_BEFORE[players, settings]


def test_the_reference_itself_is_the_engine_of_before():
    """The reference bot and enumeration above play the recorded games too: they are the
    engine of before, not merely something the engine agrees with."""
    spec = dataclasses.replace(GAMES["lowdown"], next_move=reference_bot)
    assert games_digest(4, (), spec) == GAMES_BEFORE[4, ()]
