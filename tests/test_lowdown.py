"""Lowdown: boards and the default box layout from data, the active player's choice and the
hidden pair, the others' choices, wilds, blackouts, crossing out, the end and the score, the
best crossings (docs/rules.md §3, every example of §3.7 and case of §3.8)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from popdice.games.errors import DataFileError, InvalidMove, Reason
from popdice.games.lowdown.rules import (
    BLACKOUT,
    LowdownConfig,
    LowdownData,
    Sheet,
    lines_of,
    placement_problem,
    qualifies,
)
from popdice.games.lowdown.state import (
    Blackout,
    Cross,
    Done,
    LowdownState,
    Place,
    Reveal,
    Skip,
    Step,
)

DATA = LowdownData.load()
DATA_FILE = Path(__file__).parents[1] / "host/popdice/games/data/lowdown.json"
RO, PB, GY = "red/orange", "purple/blue", "green/yellow"
X = BLACKOUT
EMPTY = [[None] * 3 for _ in range(3)]
FULL = [[1, 2, 3], [4, 5, 6], [1, 2, 3]]


def sheet(grids: dict, crossed: dict | None = None, wilds: int = 0) -> Sheet:
    made = Sheet.empty(DATA.grid_names, 3)
    for name, rows in grids.items():
        made.grids[name] = copy.deepcopy(rows)
    for name, lines in (crossed or {}).items():
        made.crossed[name] = list(lines)
    made.wilds = wilds
    return made


def rig(state: LowdownState, numbers: list[int], colors: list[str], hidden: tuple) -> None:
    state.own_numbers, state.own_colors = numbers, colors
    state.hidden_number, state.hidden_color = hidden


def snapshot(state: LowdownState) -> dict:
    fields = {key: value for key, value in vars(state).items() if key != "rng"}
    return copy.deepcopy({**fields, "rng": state.rng.getstate()})


def refused(state: LowdownState, seat: int, action) -> Reason:
    before = snapshot(state)
    with pytest.raises(InvalidMove) as error:
        state.apply(seat, action)
    assert snapshot(state) == before, "a refused move changed the state"
    return error.value.reason


def finish_turn(state: LowdownState) -> None:
    """Everyone still to act writes the first legal thing and says Done."""
    while state.step is Step.WRITE:
        seat = state.current_players()[0]
        actions = state.legal_actions(seat)
        state.apply(seat, Done() if Done() in actions else actions[0])


# --- components ---------------------------------------------------------------------------


def test_the_default_layout_is_the_latin_square_of_full_and_half_boxes():
    assert DATA.grid_names == (RO, PB, GY) and DATA.size == 3 and DATA.wild_boxes == 4
    assert DATA.number_faces == (1, 2, 3, 4, 5, 6)
    assert set(DATA.color_faces) == {"red", "orange", "purple", "blue", "green", "yellow"}
    assert len(DATA.layouts) == 4
    for layout in DATA.layouts:
        for spec in DATA.grids:
            a, b = spec.colors
            half = frozenset(spec.colors)
            expected = [[{a}, {b}, half], [{b}, half, {a}], [half, {a}, {b}]]
            assert [[set(box) for box in row] for row in layout.boxes[spec.name]] == expected


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["boards"][0]["layout"]["red/orange"][1].append("red"),
         "boards[0].layout.red/orange[1]: has 4 boxes, not 3"),
        (lambda d: d["boards"][1]["layout"]["purple/blue"][0].__setitem__(0, "red"),
         'boards[1].layout.purple/blue[0][0]: "red" is not a box kind (purple, blue, half)'),
        (lambda d: d["boards"][0]["layout"].pop("green/yellow"),
         "boards[0].layout.green/yellow: missing"),
        (lambda d: d["grids"][0].update(colors=["red", "pink"]),
         'grids[0].colors[1]: "pink" is not one of the colour faces'),
        (lambda d: d["number_faces"].__setitem__(5, 10**309),
         "number_faces[5]: 10000000"),
    ],
)  # fmt: skip
def test_a_bad_data_file_is_refused_with_the_field_named(tmp_path, change, message):
    doc = json.loads(DATA_FILE.read_text())
    change(doc)
    bad = tmp_path / "lowdown.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(DataFileError) as error:
        LowdownData.load(bad)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_boards_may_differ_and_seats_take_them_in_turn(tmp_path):
    doc = json.loads(DATA_FILE.read_text())
    doc["boards"][1]["layout"][RO] = [["half"] * 3] * 3
    mine = tmp_path / "lowdown.json"
    mine.write_text(json.dumps(doc))
    data = LowdownData.load(mine)
    state = LowdownState(3, seed=1, data=data)
    assert state.layouts[1].accepts(RO, 0, 0, "orange")
    assert not state.layouts[0].accepts(RO, 0, 0, "orange")


def test_the_lines_of_a_3x3_grid():
    lines = lines_of(3)
    assert list(lines) == ["r0", "r1", "r2", "c0", "c1", "c2", "d0", "d1"]
    assert lines["c2"] == ((0, 2), (1, 2), (2, 2))
    assert lines["d1"] == ((0, 2), (1, 1), (2, 0))


# --- §3.5 qualifying lines and the §3.7 examples --------------------------------------------


def test_qualifying_lines_are_three_of_a_kind_or_a_sum_of_ten():
    assert qualifies([2, 2, 2], 10)
    assert qualifies([1, 3, 6], 10) and qualifies([5, 4, 1], 10)
    assert not qualifies([2, 3, 4], 10)
    assert not qualifies([3, 3, None], 10)
    assert not qualifies([6, 6, X], 10)
    tens = {
        tuple(sorted((a, b, c)))
        for a in range(1, 7)
        for b in range(1, 7)
        for c in range(1, 7)
        if qualifies([a, b, c], 10) and len({a, b, c}) > 1
    }
    assert tens == {(1, 3, 6), (1, 4, 5), (2, 2, 6), (2, 3, 5), (2, 4, 4), (3, 3, 4)}


def test_crossed_lines_may_not_share_a_box():
    board = sheet({RO: [[1, 3, 6], [4, 2, 4], [5, 5, 5]]}, {RO: ["r0"]})
    config = LowdownConfig()
    assert board.crossing_problem(RO, "c0", config) is Reason.LINES_CROSS  # 1 4 5, shares (0,0)
    assert board.crossing_problem(RO, "r1", config) is None
    assert board.crossing_problem(RO, "r2", config) is None
    assert board.crossing_problem(RO, "r0", config) is Reason.ALREADY_CROSSED
    free = LowdownConfig(crossed_lines_may_share_box=True)
    assert board.crossing_problem(RO, "c0", free) is None


def test_a_crossed_diagonal_blocks_every_other_line_of_its_grid():
    board = sheet({PB: [[4, 4, 4], [4, 2, 4], [4, 4, 4]]}, {PB: ["d0"]})
    assert board.crossing_problem(PB, "d0", LowdownConfig()) is Reason.ALREADY_CROSSED
    for line in ("r0", "r1", "r2", "c0", "c1", "c2", "d1"):
        assert board.crossing_problem(PB, line, LowdownConfig()) is Reason.LINES_CROSS


def test_the_score_example_is_32():
    board = sheet(
        {
            RO: [[1, 3, 6], [2, 2, 2], [5, 4, 1]],
            PB: [[4, 2, 4], [6, 2, 1], [3, 5, 4]],
            GY: [[3, 2, X], [None] * 3, [None] * 3],
        },
        {RO: ["r0", "r1", "r2"], PB: ["d0"]},
        wilds=4,
    )
    assert board.score() == 32 and board.full_grids() == 2


def test_the_best_crossings_lower_the_score_most_and_prefer_earlier_lines_on_ties():
    board = sheet({RO: [[2] * 3] * 3, PB: [[4, 2, 4], [6, 2, 1], [3, 5, 4]]})
    config = LowdownConfig()
    assert board.best_crossings(RO, config) == ["r0", "r1", "r2"]  # rows and columns tie
    assert board.best_crossings(PB, config) == ["r0"]  # 4 2 4 as a row or the diagonal
    assert board.best_crossings(GY, config) == []
    board.crossed[RO] = ["c1"]
    assert board.best_crossings(RO, config) == ["c0", "c2"]


# --- placing numbers (§3.2-3.4) -------------------------------------------------------------


def test_case_3_full_boxes_take_one_colour_half_boxes_two_wild_any_empty():
    layout = DATA.layouts[0]
    empty = sheet({})
    assert placement_problem(empty, layout, (RO, 0, 0), "red", False, 4) is None
    assert placement_problem(empty, layout, (RO, 0, 0), "orange", False, 4) is Reason.WRONG_COLOR
    assert placement_problem(empty, layout, (RO, 0, 2), "orange", False, 4) is None
    assert placement_problem(empty, layout, (RO, 0, 2), "red", False, 4) is None
    assert placement_problem(empty, layout, (RO, 0, 2), "blue", False, 4) is Reason.WRONG_COLOR
    assert placement_problem(empty, layout, (GY, 1, 1), None, True, 4) is None
    full = sheet({RO: FULL}, wilds=4)
    assert placement_problem(full, layout, (RO, 0, 0), "red", False, 4) is Reason.BOX_FILLED
    assert placement_problem(full, layout, (GY, 0, 0), None, True, 4) is Reason.NO_WILDS_LEFT


def test_the_wild_example_with_5_1_purple_red():
    state = LowdownState(3, seed=2)
    state.sheets[0] = sheet({RO: FULL, PB: FULL})
    rig(state, [5, 1], ["purple", "red"], (3, "green"))
    actions = state.legal_actions(0)
    assert not [a for a in actions if isinstance(a, Place) and not a.wild]
    assert not [a for a in actions if isinstance(a, Blackout)]  # a wild is left: no blackout
    assert refused(state, 0, Place(0, 0, GY, 0, 0)) is Reason.WRONG_COLOR
    assert refused(state, 0, Blackout(GY, 0, 0)) is Reason.MUST_USE_WILD
    assert refused(state, 0, Place(1, None, GY, 0, 0, wild=True)) is Reason.NO_SUCH_DIE
    state.apply(0, Place(1, 0, GY, 0, 0, wild=True))  # the 1, wild; the purple die is removed
    assert state.sheets[0].grids[GY][0][0] == 1 and state.sheets[0].wilds == 1
    assert state.shared_numbers == [5, 3] and state.shared_colors == ["red", "green"]


def test_case_1_revealing_commits_the_active_player_to_the_hidden_pair():
    state = LowdownState(3, seed=3)
    rig(state, [2, 3], ["red", "blue"], (6, "orange"))
    state.apply(0, Reveal())
    assert refused(state, 0, Reveal()) is Reason.HIDDEN_ALREADY_SEEN
    assert state.offered_dice(0) == ([6], ["orange"])
    assert refused(state, 0, Place(1, 0, RO, 0, 1)) is Reason.NO_SUCH_DIE  # no mixing
    assert refused(state, 0, Place(0, 0, RO, 0, 0)) is Reason.WRONG_COLOR  # a red box
    places = [a for a in state.legal_actions(0) if isinstance(a, Place) and not a.wild]
    assert {(p.grid, p.row, p.col) for p in places} == {
        (RO, 0, 1), (RO, 0, 2), (RO, 1, 0), (RO, 1, 1), (RO, 2, 0), (RO, 2, 2)
    }  # fmt: skip
    state.apply(0, Place(0, 0, RO, 0, 1))
    assert state.sheets[0].grids[RO][0][1] == 6
    assert state.shared_numbers == [2, 3] and state.shared_colors == ["red", "blue"]


def test_case_1_the_hidden_number_may_go_with_a_wild_unless_set_otherwise():
    for allowed in (True, False):
        state = LowdownState(2, seed=4, config=LowdownConfig(hidden_with_wild=allowed))
        state.sheets[0] = sheet({RO: FULL})
        rig(state, [2, 3], ["red", "blue"], (6, "orange"))
        state.apply(0, Reveal())
        wild = Place(0, 0, GY, 0, 0, wild=True)
        if allowed:
            state.apply(0, wild)
            assert state.sheets[0].grids[GY][0][0] == 6
        else:
            assert refused(state, 0, wild) is Reason.MUST_USE_HIDDEN
            assert Blackout(GY, 0, 0) in state.legal_actions(0)  # still no move: black out


def test_case_2_the_others_share_the_four_dice_left_over():
    state = LowdownState(3, seed=5)
    rig(state, [2, 5], ["red", "blue"], (4, "green"))
    state.apply(0, Place(0, 0, RO, 0, 0))  # the 2 and the red: set aside
    assert state.step is Step.WRITE and state.current_players() == [0, 1, 2]
    assert state.offered_dice(1) == ([5, 4], ["blue", "green"])
    assert state.legal_actions(0) == [Done()]  # the active player has written already
    state.apply(1, Place(0, 1, GY, 0, 0))  # 5 green
    state.apply(2, Place(0, 1, GY, 0, 0))  # the same combination: allowed
    assert refused(state, 1, Place(1, 0, PB, 0, 1)) is Reason.ALREADY_WROTE
    fresh = LowdownState(3, seed=5)
    rig(fresh, [2, 5], ["red", "blue"], (4, "green"))
    fresh.apply(0, Place(0, 0, RO, 0, 0))
    assert refused(fresh, 1, Place(0, 0, RO, 2, 0)) is Reason.WRONG_COLOR  # red is gone
    assert refused(fresh, 1, Place(2, 0, PB, 0, 1)) is Reason.NO_SUCH_DIE
    assert refused(fresh, 1, Cross(RO, "r0")) is Reason.MUST_WRITE


def test_case_4_four_wilds_at_most_and_the_wild_is_forced_before_a_blackout():
    state = LowdownState(2, seed=6)
    state.sheets[1] = sheet({RO: FULL, PB: FULL}, wilds=3)
    rig(state, [2, 5], ["red", "purple"], (4, "orange"))
    state.apply(0, Place(0, 0, RO, 0, 0))
    # seat 1 has 5/4 with purple/orange: no free box for either, one wild left
    assert refused(state, 1, Blackout(GY, 0, 0)) is Reason.MUST_USE_WILD
    state.apply(1, Place(0, None, GY, 1, 1, wild=True))
    assert state.sheets[1].wilds == 4
    assert refused(state, 1, Place(0, None, GY, 1, 2, wild=True)) is Reason.ALREADY_WROTE


def test_case_5_no_move_and_no_wild_left_means_a_blackout():
    state = LowdownState(2, seed=7)
    state.sheets[0] = sheet({RO: FULL, PB: FULL}, wilds=4)
    rig(state, [2, 5], ["red", "purple"], (4, "orange"))
    actions = state.legal_actions(0)
    assert Reveal() in actions
    blackouts = [a for a in actions if isinstance(a, Blackout)]
    assert len(blackouts) == 9 and all(a.grid == GY for a in blackouts)
    assert refused(state, 0, Place(0, 0, GY, 0, 0, wild=True)) is Reason.NO_WILDS_LEFT
    assert refused(state, 0, Blackout(RO, 0, 0)) is Reason.BOX_FILLED
    state.apply(0, Blackout(GY, 0, 0))
    board = state.sheets[0]
    assert board.grids[GY][0][0] == X and board.score() == 2 * sum(map(sum, FULL)) + 6
    assert state.shared_numbers == [2, 5] and state.shared_colors == ["red", "purple"]
    board.grids[GY][0][1:] = [4, 4]
    assert board.crossing_problem(GY, "r0", LowdownConfig()) is Reason.BLACKOUT_IN_LINE


def test_a_blackout_is_refused_while_a_number_can_be_written():
    state = LowdownState(2, seed=8)
    rig(state, [2, 5], ["red", "purple"], (4, "orange"))
    assert refused(state, 0, Blackout(GY, 0, 0)) is Reason.HAS_MOVE


def test_case_6_and_7_crossing_out_during_the_turn():
    state = LowdownState(2, seed=9)
    state.sheets[0] = sheet({RO: [[2, 2, 2], [1, 4, 5], [3, 3, None]]})
    rig(state, [4, 6], ["orange", "red"], (1, "green"))
    state.apply(0, Place(0, 0, RO, 2, 2))  # 4 orange: row 2 becomes 3 3 4
    crossings = {a.line for a in state.legal_actions(0) if isinstance(a, Cross)}
    assert crossings == {"r0", "r1", "r2", "d0"}  # 2 2 2, 1 4 5, 3 3 4 and 2 4 4
    state.apply(0, Cross(RO, "r0"))
    state.apply(0, Cross(RO, "r2"))  # parallel rows stack
    assert refused(state, 0, Cross(RO, "d0")) is Reason.LINES_CROSS
    assert refused(state, 0, Cross(RO, "c0")) is Reason.NOT_QUALIFYING  # 2 1 3
    assert refused(state, 0, Cross(PB, "r0")) is Reason.INCOMPLETE_LINE
    assert refused(state, 0, Cross(RO, "z9")) is Reason.NO_SUCH_LINE
    assert state.sheets[0].score() == 1 + 4 + 5


def test_lines_completed_earlier_may_be_crossed_later_unless_set_otherwise():
    for any_turn in (True, False):
        state = LowdownState(2, seed=10, config=LowdownConfig(cross_any_turn=any_turn))
        state.sheets[1] = sheet({RO: [[3, 3, 3], [None] * 3, [None] * 3]})
        rig(state, [2, 5], ["red", "purple"], (4, "orange"))
        state.apply(0, Place(0, 0, RO, 0, 0))
        state.apply(1, Place(0, 0, PB, 0, 0))
        if any_turn:
            state.apply(1, Cross(RO, "r0"))
        else:
            assert refused(state, 1, Cross(RO, "r0")) is Reason.NOT_WRITTEN_THIS_TURN


def test_writing_is_compulsory_unless_set_otherwise_or_the_board_is_full():
    state = LowdownState(2, seed=11)
    rig(state, [2, 5], ["red", "purple"], (4, "orange"))
    assert refused(state, 0, Skip()) is Reason.MUST_WRITE
    relaxed = LowdownState(2, seed=11, config=LowdownConfig(must_write=False))
    assert Skip() in relaxed.legal_actions(0)
    full = LowdownState(2, seed=11)
    full.sheets[0] = sheet({RO: FULL, PB: FULL, GY: FULL})
    assert full.legal_actions(0) == [Reveal(), Skip()]


def test_case_8_the_game_ends_once_the_turn_is_finished_and_lowest_wins():
    state = LowdownState(3, seed=12)
    almost: list[list[int | None]] = [[*row] for row in FULL]
    almost[0][2] = None
    state.sheets[1] = sheet({RO: FULL, PB: almost})
    rig(state, [2, 3], ["purple", "blue"], (4, "yellow"))
    state.apply(0, Place(0, 0, PB, 0, 0))  # 2 purple
    state.apply(1, Place(0, 0, PB, 0, 2))  # 3 blue in the half box: two grids full
    assert state.sheets[1].full_grids() == 2 and not state.is_terminal()
    state.apply(1, Done())
    state.apply(0, Done())
    assert not state.is_terminal()  # seat 2 still has to finish its part of the turn
    state.apply(2, Place(1, 1, GY, 0, 1))
    state.apply(2, Done())
    assert state.is_terminal() and state.current_players() == []
    assert state.scores() == [2, 2 * sum(map(sum, FULL)), 4]
    assert state.winners() == [0]
    assert refused(state, 0, Done()) is Reason.GAME_OVER


def test_ties_share_the_win():
    state = LowdownState(2, seed=13)
    state.sheets[0] = sheet({RO: FULL, PB: FULL})
    state.sheets[1] = sheet({RO: FULL, PB: FULL})
    rig(state, [2, 2], ["green", "green"], (2, "green"))
    state.apply(0, Place(0, 0, GY, 0, 0))
    state.apply(1, Place(0, 0, GY, 0, 0))
    state.apply(0, Done())
    state.apply(1, Done())
    assert state.is_terminal() and state.winners() == [0, 1]


def test_turns_pass_left_and_the_previous_active_player_rolls_the_hidden_pair():
    state = LowdownState(4, seed=14)
    assert (state.active, state.roller) == (0, 3)
    state.apply(0, state.legal_actions(0)[1])
    finish_turn(state)
    assert (state.active, state.roller, state.turns) == (1, 0, 2)
    left = LowdownState(4, seed=14, config=LowdownConfig(hidden_roller="left"))
    assert left.roller == 1


def test_case_9_with_two_players_the_other_one_rolls_the_hidden_pair():
    state = LowdownState(2, seed=15)
    assert state.roller == 1
    state.apply(0, state.legal_actions(0)[1])
    finish_turn(state)
    assert (state.active, state.roller) == (1, 0)


def test_case_10_the_hidden_pair_is_secret_until_the_active_player_has_chosen():
    state = LowdownState(3, seed=16)
    assert state.view(2)["hidden_dice"] is not None  # the roller may look
    assert state.view(0)["hidden_dice"] is None and state.view(1)["hidden_dice"] is None
    state.apply(0, Reveal())
    assert state.view(0)["hidden_dice"] is not None and state.view(1)["hidden_dice"] is None
    state.apply(0, next(a for a in state.legal_actions(0) if isinstance(a, (Place, Blackout))))
    assert all(state.view(seat)["hidden_dice"] is not None for seat in range(3))
    assert state.view(1)["shared_dice"] is not None


def test_player_counts_outside_two_to_four_are_refused():
    from popdice.games.errors import ConfigError

    with pytest.raises(ConfigError, match="2 to 4 players, not 5"):
        LowdownState(5, seed=0)


def test_a_game_end_no_board_can_reach_is_refused():
    """end_grids above the number of grids: no game would ever end (a simulation ran for ever)."""
    from popdice.games.errors import ConfigError

    with pytest.raises(ConfigError, match="rule end_grids: 4 is more than the 3 grids"):
        LowdownState(2, seed=0, config=LowdownConfig(end_grids=4))
    assert not LowdownState(2, seed=0, config=LowdownConfig(end_grids=3)).is_terminal()
