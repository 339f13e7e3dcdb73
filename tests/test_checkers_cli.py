"""The rule-check commands of docs/formats.md: worked examples (input -> output), every reason,
one-line errors with exit code 2, help that teaches, and property-based tests of the checkers
against oracles written here straight from the rules (docs/rules.md §1.4, §2.4, §3.5).

The tests at the end named `test_wired_*` run the installed `popdice` console script and need
`popdice.cli.main` to list `check`, `score` and `simulate` with `games.cli`'s arguments."""

from __future__ import annotations

import codecs
import copy
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from popdice.cli.main import main
from popdice.games.errors import InputError
from popdice.games.fields import Field
from popdice.games.lowdown.check import check_lowdown_move, score_lowdown
from popdice.games.popalotsy.check import check_popalotsy
from popdice.games.ringer.check import check_ringer

POPDICE = str(Path(sys.executable).with_name("popdice"))
DATA = Path(__file__).parents[1] / "host/popdice/games/data"
COLORS = ["red", "orange", "yellow", "green", "blue"]
SUITS = ["pink", "blue", "green", "yellow", "wild"]
POWERS = ["ask", "draw1", "draw2", "take_over", "steal1"]
GRIDS = ["red/orange", "purple/blue", "green/yellow"]
LOW_COLORS = ["red", "orange", "purple", "blue", "green", "yellow"]
FEW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(capsys, monkeypatch, argv: list[str], doc: Any = None, text: str | None = None):
    """Run a command with ``doc`` (or raw ``text``) on standard input: (code, stdout, stderr)."""
    if doc is not None or text is not None:
        data = text if text is not None else json.dumps(doc)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def judge(capsys, monkeypatch, argv: list[str], doc: Any) -> Any:
    code, out, err = run(capsys, monkeypatch, [*argv, "-"], doc)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def fails(capsys, monkeypatch, argv: list[str], doc: Any = None, text: str | None = None) -> str:
    code, out, err = run(capsys, monkeypatch, [*argv, "-"], doc, text)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()


def doc_field(doc: Any) -> Field:
    return Field(doc, "", InputError)


# --- worked examples ----------------------------------------------------------------------

POPALOTSY_EXAMPLE = {
    "dice": [{"color": "red", "number": 3}, {"color": "orange", "number": 5}],
    "piles": [
        [{"color": "red", "number": 4, "by": "ann"}, {"color": "red", "number": 5, "by": "bob"}],
        [],
    ],
    "hands": {"ann": 0, "bob": 2, "cy": 1},
    "emptied": ["ann"],
}

POPALOTSY_OUTPUT = {
    "piles": [
        {"die": 0, "ok": True, "cards": 2},
        {"die": 1, "ok": False, "cards": 4, "first_bad": 2, "reason": "not_higher",
         "takes_back": "cy"},
    ],
    "hands": {"ann": 0, "bob": 2, "cy": 5},
    "winner": "ann",
}  # fmt: skip

RINGER_EXAMPLE = {
    "die": 4,
    "top": {"suit": "pink", "number": 2},
    "events": [
        {"play": {"suit": "pink", "number": 3}},
        {"play": {"suit": "blue", "number": 3, "power": "draw1"}},
        {"play": {"suit": "blue", "number": 4}},
        {"roll": 6},
        {"start": {"suit": "yellow", "number": 6}},
        {"play": {"suit": "green", "number": 6, "power": "take_over"}, "out_of_turn": True},
    ],
}

RINGER_OUTPUT = {
    "results": [
        {"legal": True, "ringer": False, "power": None},
        {"legal": True, "ringer": False, "power": "draw1"},
        {"legal": True, "ringer": True, "power": None, "won": 4},
        {"legal": True},
        {"legal": True},
        {"legal": True, "ringer": False, "power": "take_over"},
    ]
}

LOWDOWN_EXAMPLE = {
    "boards": {
        "ann": {
            "grids": {
                "red/orange": [[1, 3, 6], [2, 2, 2], [5, 4, 1]],
                "purple/blue": [[4, 2, 4], [6, 2, 1], [3, 5, 4]],
                "green/yellow": [[3, 2, "X"], [None, None, None], [None, None, None]],
            },
            "crossed": {"red/orange": ["r0", "r1", "r2"], "purple/blue": ["d0"]},
            "wilds": 4,
        }
    }
}

LOWDOWN_OUTPUT = {
    "scores": {"ann": 32},
    "finished": {"ann": 2},
    "game_over": True,
    "winners": ["ann"],
    "errors": [],
}

MOVE_EXAMPLE = {
    "board": {"grids": {"red/orange": [[None, None, None]] * 3}, "wilds": 0},
    "move": {"grid": "red/orange", "row": 0, "col": 2, "number": 5, "color": "orange",
             "wild": False},
}  # fmt: skip


def test_popalotsy_example_input(capsys, monkeypatch):
    assert judge(capsys, monkeypatch, ["check", "popalotsy"], POPALOTSY_EXAMPLE) == {
        "piles": [{"die": 0, "ok": True, "cards": 2}, {"die": 1, "ok": True, "cards": 0}],
        "hands": {"ann": 0, "bob": 2, "cy": 1},
        "winner": "ann",
    }


def test_popalotsy_example_output(capsys, monkeypatch):
    """The example output belongs to a race in which cy dropped a wrong orange card third."""
    race = copy.deepcopy(POPALOTSY_EXAMPLE)
    race["piles"][1] = [
        {"color": "orange", "number": 1, "by": "ann"},
        {"color": "orange", "number": 3, "by": "bob"},
        {"color": "orange", "number": 2, "by": "cy"},
        {"color": "orange", "number": 4, "by": "bob"},
    ]
    assert judge(capsys, monkeypatch, ["check", "popalotsy"], race) == POPALOTSY_OUTPUT


def test_ringer_example(capsys, monkeypatch):
    assert judge(capsys, monkeypatch, ["check", "ringer"], RINGER_EXAMPLE) == RINGER_OUTPUT


def test_lowdown_score_example(capsys, monkeypatch):
    assert judge(capsys, monkeypatch, ["score", "lowdown"], LOWDOWN_EXAMPLE) == LOWDOWN_OUTPUT


def test_lowdown_move_example(capsys, monkeypatch):
    assert judge(capsys, monkeypatch, ["check", "lowdown-move"], MOVE_EXAMPLE) == {"legal": True}


def test_the_error_example(capsys, monkeypatch):
    doc = {
        "dice": [{"color": "red", "number": 3}, {"color": "blue", "number": 2}],
        "piles": [[], [{"color": "blue", "number": 1, "by": "a"},
                       {"color": "blue", "number": 4, "by": "b"},
                       {"color": "blue", "number": 7, "by": "a"}]],
    }  # fmt: skip
    message = fails(capsys, monkeypatch, ["check", "popalotsy"], doc)
    assert message == "error: piles[1][2].number: 7 is not a die number (1-6)"


def test_a_file_argument_works_as_well_as_standard_input(tmp_path, capsys):
    path = tmp_path / "race.json"
    path.write_text(json.dumps(RINGER_EXAMPLE))
    assert main(["check", "ringer", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == RINGER_OUTPUT


# --- every reason ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pile", "first_bad", "reason"),
    [
        (["green 5"], 0, "no_match"),
        (["red 3", "orange 3"], 1, "locked"),
        (["orange 3", "blue 3"], 1, "number_on_number"),
        (["orange 3", "red 6"], 1, "color_after_number"),
        (["red 4", "red 5", "red 4"], 2, "not_higher"),
    ],
)
def test_popalotsy_reasons(capsys, monkeypatch, pile, first_bad, reason):
    cards = [{"color": t.split()[0], "number": int(t.split()[1]), "by": f"p{i}"}
             for i, t in enumerate(pile)]  # fmt: skip
    doc = {"dice": [{"color": "red", "number": 3}], "piles": [cards]}
    verdict = judge(capsys, monkeypatch, ["check", "popalotsy"], doc)["piles"][0]
    assert verdict == {"die": 0, "ok": False, "cards": len(pile), "first_bad": first_bad,
                       "reason": reason, "takes_back": f"p{first_bad}"}  # fmt: skip


def test_popalotsy_winner_is_the_first_emptied_hand_still_empty(capsys, monkeypatch):
    doc = {
        "dice": [{"color": "red", "number": 3}],
        "piles": [[{"color": "green", "number": 1, "by": "bob"}]],
        "hands": {"ann": 0, "bob": 0, "cy": 0},
        "emptied": ["bob", "cy", "ann"],
    }
    result = judge(capsys, monkeypatch, ["check", "popalotsy"], doc)
    assert result["hands"] == {"ann": 0, "bob": 1, "cy": 0} and result["winner"] == "cy"
    doc["emptied"] = ["bob"]
    assert judge(capsys, monkeypatch, ["check", "popalotsy"], doc)["winner"] is None
    del doc["hands"]
    assert "winner" not in judge(capsys, monkeypatch, ["check", "popalotsy"], doc)


def card(text: str) -> dict[str, Any]:
    suit, number, *power = text.split()
    made: dict[str, Any] = {"suit": suit}
    if number == "reroll":
        made["power"] = "reroll"
    else:
        made["number"] = int(number)
        if power:
            made["power"] = power[0]
    return made


def ringer_results(capsys, monkeypatch, die: int, top: str | None, *events: Any):
    doc = {"die": die, "top": None if top is None else card(top), "events": list(events)}
    return judge(capsys, monkeypatch, ["check", "ringer"], doc)["results"]


@pytest.mark.parametrize(
    ("top", "played", "reason"),
    [
        ("pink 3 draw1", {"play": card("pink 3")}, "identical"),
        ("pink 3", {"play": card("pink 5")}, "not_consecutive"),
        ("pink 3", {"play": card("blue 4")}, "not_matching"),
        ("pink 3", {"play": card("blue reroll")}, "suit_mismatch"),
        ("wild reroll", {"play": card("blue 2 take_over")}, "take_over_on_wild_reroll"),
        ("pink 3", {"play": card("pink 4"), "out_of_turn": True}, "out_of_turn"),
        (None, {"play": card("pink 4")}, "no_stack"),
    ],
)
def test_ringer_reasons(capsys, monkeypatch, top, played, reason):
    results = ringer_results(capsys, monkeypatch, 6, top, played, {"play": card("pink 2")})
    assert results[0] == {"legal": False, "reason": reason}
    if top == "pink 3":  # an illegal play leaves the stack as it was
        assert results[1] == {"legal": True, "ringer": False, "power": None}


def test_ringer_needs_top_and_null_means_no_stack_yet(capsys, monkeypatch):
    message = fails(capsys, monkeypatch, ["check", "ringer"], {"die": 3, "events": []})
    assert message == "error: top: missing"
    results = ringer_results(
        capsys, monkeypatch, 3, None,
        {"play": card("pink 4")},
        {"start": card("pink 4")},
        {"play": card("pink 5")},
    )  # fmt: skip
    assert results == [
        {"legal": False, "reason": "no_stack"},
        {"legal": True},
        {"legal": True, "ringer": False, "power": None},
    ]


@pytest.mark.parametrize(
    ("top", "played", "reason"),
    [
        (None, {"play": card("pink 4"), "out_of_turn": True}, "no_stack"),
        ("wild 4", {"play": card("wild 6")}, "not_matching"),
        ("wild 2", {"play": card("wild 5 draw1")}, "not_matching"),
        ("wild 5", {"play": card("wild 3"), "out_of_turn": True}, "out_of_turn"),
    ],
)
def test_where_several_reasons_apply_the_first_in_the_stated_order_is_given(
    capsys, monkeypatch, top, played, reason
):
    """no_stack, out_of_turn, take_over_on_wild_reroll, identical, suit_mismatch,
    not_consecutive, not_matching; a wild card on either side not one apart: not_matching."""
    results = ringer_results(capsys, monkeypatch, 6, top, played)
    assert results == [{"legal": False, "reason": reason}]


def test_ringer_after_a_ringer_plays_wait_for_a_start(capsys, monkeypatch):
    results = ringer_results(
        capsys, monkeypatch, 3, "pink 2",
        {"play": card("pink 3 draw2")},  # a Ringer: the power is cancelled
        {"play": card("pink 4")},
        {"roll": 1},
        {"start": card("pink 1 ask")},  # never a Ringer, no power
        {"play": card("pink reroll")},
        {"roll": 2},
        {"play": card("wild 2 steal1")},
    )  # fmt: skip
    assert results == [
        {"legal": True, "ringer": True, "power": None, "won": 2},
        {"legal": False, "reason": "no_stack"},
        {"legal": True},
        {"legal": True},
        {"legal": True, "ringer": False, "power": "reroll"},
        {"legal": True},
        {"legal": True, "ringer": True, "power": None, "won": 3},
    ]


def test_ringer_take_over_in_turn_has_no_power_but_scores(capsys, monkeypatch):
    results = ringer_results(
        capsys, monkeypatch, 6, "blue 4",
        {"play": card("blue 5 take_over")},
        {"play": card("blue 6 take_over")},
    )  # fmt: skip
    assert results == [
        {"legal": True, "ringer": False, "power": None},
        {"legal": True, "ringer": True, "power": None, "won": 3},
    ]


def boards(**named: dict) -> dict:
    return {"boards": named}


def test_lowdown_score_errors_are_reported_and_boards_scored_as_written(capsys, monkeypatch):
    doc = boards(
        ann={
            "grids": {"red/orange": [[1, 2, 3], [4, 4, 2], [None, 6, 6]],
                      "purple/blue": [[6, 6, "X"], [1, 1, 1], [5, 5, 5]]},
            "crossed": {"red/orange": ["r0", "r2", "c0"], "purple/blue": ["r0", "r1", "c2"]},
            "wilds": 5,
        },
        bob={},
    )  # fmt: skip
    result = judge(capsys, monkeypatch, ["score", "lowdown"], doc)
    assert result["errors"] == [
        {"player": "ann", "grid": "red/orange", "line": "r0", "reason": "not_qualifying"},
        {"player": "ann", "grid": "red/orange", "line": "r2", "reason": "incomplete_line"},
        {"player": "ann", "grid": "red/orange", "line": "c0", "reason": "incomplete_line"},
        {"player": "ann", "grid": "red/orange", "line": "c0", "reason": "lines_cross"},
        {"player": "ann", "grid": "purple/blue", "line": "r0", "reason": "blackout_in_line"},
        {"player": "ann", "grid": "purple/blue", "line": "c2", "reason": "blackout_in_line"},
        {"player": "ann", "grid": "purple/blue", "line": "c2", "reason": "lines_cross"},
        {"player": "ann", "grid": None, "reason": "too_many_wilds"},
    ]
    # crossed boxes count 0 even on a broken line; the X still costs 6
    assert result["scores"] == {"ann": 4 + 2 + 6 + 5 + 5, "bob": 0}
    assert result["finished"] == {"ann": 1, "bob": 0} and not result["game_over"]
    assert result["winners"] == ["bob"]


def test_a_crossed_line_breaking_two_rules_gets_an_entry_for_each(capsys, monkeypatch):
    """An empty box and a blackout in one crossed line: incomplete_line and blackout_in_line
    (the shared contract: one entry per rule broken), and lines_cross after them."""
    doc = boards(
        ann={"grids": {"green/yellow": [["X", None, 3], [2, 2, 2], [1, 1, 1]]},
             "crossed": {"green/yellow": ["r1", "r0", "c0"]}},
    )  # fmt: skip
    result = judge(capsys, monkeypatch, ["score", "lowdown"], doc)
    assert result["errors"] == [
        {"player": "ann", "grid": "green/yellow", "line": "r0", "reason": "incomplete_line"},
        {"player": "ann", "grid": "green/yellow", "line": "r0", "reason": "blackout_in_line"},
        {"player": "ann", "grid": "green/yellow", "line": "c0", "reason": "blackout_in_line"},
        {"player": "ann", "grid": "green/yellow", "line": "c0", "reason": "lines_cross"},
    ]
    assert result["scores"] == {"ann": 6 + 1 + 1}  # as written: crossed boxes count nothing


def test_lowdown_suggest_adds_the_best_crossings(capsys, monkeypatch):
    doc = boards(
        ann={"grids": {"red/orange": [[2, 2, 2], [2, 2, 2], [2, 2, 2]],
                       "purple/blue": [[4, 2, 4], [6, 2, 1], [3, 5, 4]],
                       "green/yellow": [[6, 6, 6], [1, 3, 6], [None, 2, 2]]},
             "crossed": {"red/orange": ["c1"]}},
        bob={"grids": {"red/orange": [[1, 3, 5], [None] * 3, [None] * 3]}},
    )  # fmt: skip
    result = judge(capsys, monkeypatch, ["score", "lowdown", "--suggest"], doc)
    assert result["suggest"] == {
        "ann": {"red/orange": ["c0", "c2"], "purple/blue": ["r0"], "green/yellow": ["r0", "r1"]},
        "bob": {},
    }
    assert result["suggested_scores"] == {"ann": 0 + 21 + 4, "bob": 9}
    assert result["scores"] == {"ann": 12 + 31 + 32, "bob": 9}


@pytest.mark.parametrize(
    ("board", "move", "verdict"),
    [
        ({}, {"grid": "red/orange", "row": 0, "col": 0, "color": "red"}, {"legal": True}),
        ({}, {"grid": "red/orange", "row": 0, "col": 0, "color": "orange"},
         {"legal": False, "reason": "wrong_color"}),
        ({"grids": {"red/orange": [[1, None, None], [None] * 3, [None] * 3]}},
         {"grid": "red/orange", "row": 0, "col": 0, "color": "red"},
         {"legal": False, "reason": "box_filled"}),
        ({"wilds": 3}, {"grid": "green/yellow", "row": 1, "col": 0, "color": "red", "wild": True},
         {"legal": True}),
        ({"wilds": 4}, {"grid": "green/yellow", "row": 1, "col": 0, "color": "blue",
                        "wild": True},
         {"legal": False, "reason": "no_wilds_left"}),
        ({"grids": {"purple/blue": [[None] * 3, [None, 3, None], [None] * 3]}, "wilds": 4},
         {"grid": "purple/blue", "row": 1, "col": 1, "color": "red", "wild": True},
         {"legal": False, "reason": "box_filled"}),
        ({}, {"grid": "purple/blue", "row": 1, "col": 1, "color": "blue"}, {"legal": True}),
    ],
)  # fmt: skip
def test_lowdown_move_verdicts(capsys, monkeypatch, board, move, verdict):
    doc = {"board": board, "move": {"number": 4, **move}}
    assert judge(capsys, monkeypatch, ["check", "lowdown-move"], doc) == verdict


# --- errors: exit 2, one line, nothing on stdout --------------------------------------------

BAD_INPUTS = [
    (["check", "popalotsy"], [], "error: document: expected an object, got a list"),
    (["check", "popalotsy"], {"piles": []}, "error: dice: missing"),
    (["check", "popalotsy"], {"dice": [{"color": "pink", "number": 3}], "piles": [[]]},
     'error: dice[0].color: "pink" is not a Popalotsy colour (red, orange, yellow, green, blue)'),
    (["check", "popalotsy"], {"dice": [{"color": "red", "number": 3}], "piles": []},
     "error: piles: 0 piles for 1 dice: give one pile per die"),
    (["check", "popalotsy"], {"dice": [{"color": "red", "number": True}], "piles": [[]]},
     "error: dice[0].number: expected a die number (1-6), got true/false"),
    (["check", "popalotsy"], {"dice": [{"color": "red", "number": 3.0}], "piles": [[]]},
     "error: dice[0].number: 3.0 is not a die number (1-6): write it as an integer"),
    (["check", "popalotsy"], {"dice": [{"color": "red", "number": 3}],
                              "piles": [[{"color": "red", "number": 4}]]},
     "error: piles[0][0].by: missing"),
    (["check", "popalotsy"], {"dice": [{"color": "red", "number": 3}],
                              "piles": [[{"color": "red", "number": 4, "by": "zed"}]],
                              "hands": {"ann": 1}},
     "error: piles[0][0].by: 'zed' is not one of the players in hands"),
    (["check", "popalotsy"], {"dice": [], "piles": [], "hands": {"ann": -1}},
     "error: hands.ann: -1 is not a card count (0 or more)"),
    (["check", "ringer"], {"die": 7, "events": []}, "error: die: 7 is not a die number (1-6)"),
    (["check", "ringer"], {"die": 3, "top": None, "events": [{"roll": 2, "start": {}}]},
     "error: events[0]: an event has exactly one of play, roll, start"),
    (["check", "ringer"], {"die": 3, "top": None, "events": [{"play": {"suit": "pink"}}]},
     'error: events[0].play: a card without a number must be a Reroll ("power": "reroll")'),
    (["check", "ringer"], {"die": 3, "top": None,
                           "events": [{"play": {"suit": "pink", "number": 3, "power": "reroll"}}]},
     "error: events[0].play.number: a Reroll card has no number: leave it out or write null"),
    (["check", "ringer"], {"die": 3, "top": None,
                           "events": [{"play": {"suit": "red", "number": 3}}]},
     'error: events[0].play.suit: "red" is not a Ringer suit (pink, blue, green, yellow, wild)'),
    (["check", "ringer"], {"die": 3, "top": None,
                           "events": [{"play": {"suit": "pink", "number": 3, "power": "skip"}}]},
     'error: events[0].play.power: "skip" is not a power (ask, draw1, draw2, take_over, '
     "reroll, steal1)"),
    (["check", "ringer"], {"die": 3, "top": None,
                           "events": [{"play": {"suit": "pink", "number": 3},
                                       "out_of_turn": "yes"}]},
     "error: events[0].out_of_turn: expected true or false, got a string"),
    (["score", "lowdown"], {"boards": {"ann": {"grids": {"pink/blue": []}}}},
     "error: boards.ann.grids.pink/blue: unknown grid (the grids are red/orange, purple/blue, "
     "green/yellow)"),
    (["score", "lowdown"], {"boards": {"ann": {"grids": {"red/orange": [[1, 2, 3]]}}}},
     "error: boards.ann.grids.red/orange: has 1 rows, not 3"),
    (["score", "lowdown"], {"boards": {"ann": {"grids": {"red/orange": [[1, 2, 3], [1, 2],
                                                                       [1, 2, 3]]}}}},
     "error: boards.ann.grids.red/orange[1]: has 2 boxes, not 3"),
    (["score", "lowdown"], {"boards": {"ann": {"grids": {"red/orange": [[1, 2, 3], [1, 2, 0],
                                                                       [1, 2, 3]]}}}},
     'error: boards.ann.grids.red/orange[1][2]: 0 is not a box value (a number 1-6, "X" or '
     "null)"),
    (["score", "lowdown"], {"boards": {"ann": {"crossed": {"red/orange": ["r3"]}}}},
     'error: boards.ann.crossed.red/orange[0]: "r3" is not a line (r0, r1, r2, c0, c1, c2, d0, '
     "d1)"),
    (["score", "lowdown"], {"boards": {"ann": {"crossed": {"red/orange": ["r1", "r1"]}}}},
     "error: boards.ann.crossed.red/orange[1]: r1 is listed twice"),
    (["score", "lowdown"], {"boards": {"ann": {"wilds": -1}}},
     "error: boards.ann.wilds: -1 is not a count of wild boxes (0 or more)"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 3, "col": 0,
                                                       "number": 2, "color": "red"}},
     "error: move.row: 3 is not a row (0-2)"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0,
                                                       "number": 2, "color": "pink"}},
     'error: move.color: "pink" is not a Lowdown colour (red, orange, purple, blue, green, '
     "yellow)"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0,
                                                       "number": 9, "color": "red"}},
     "error: move.number: 9 is not a number (1-6)"),
    (["check", "lowdown-move"], {"move": {}}, "error: board: missing"),
    # a wild move still names a colour of the game (the shared contract)
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0,
                                                       "number": 2, "wild": True}},
     "error: move.color: missing: a wild move names a colour too (red, orange, purple, blue, "
     "green, yellow)"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0,
                                                       "number": 2, "color": None,
                                                       "wild": True}},
     "error: move.color: expected a Lowdown colour, got null"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0,
                                                       "number": 2, "color": "pink",
                                                       "wild": True}},
     'error: move.color: "pink" is not a Lowdown colour (red, orange, purple, blue, green, '
     "yellow)"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "doc", "message"), BAD_INPUTS)
def test_bad_documents_get_one_line_naming_the_field(capsys, monkeypatch, argv, doc, message):
    assert fails(capsys, monkeypatch, argv, doc) == message


def test_bad_json_and_missing_files_get_one_line(capsys, monkeypatch, tmp_path):
    message = fails(capsys, monkeypatch, ["check", "ringer"], text='{"die": 3,\n "events": [}')
    assert message == "error: standard input: not valid JSON (line 2, column 13): Expecting value"
    message = fails(capsys, monkeypatch, ["check", "ringer"], text="[" * 100000)
    assert message.startswith("error: standard input: not valid JSON")
    monkeypatch.chdir(tmp_path)  # short names: a long path would be shortened in the line
    code, out, err = run(capsys, monkeypatch, ["score", "lowdown", "no.json"])
    assert (code, out, err) == (2, "", "error: no.json: no such file\n")
    Path("binary.json").write_bytes(b"\xff{}")
    code, out, err = run(capsys, monkeypatch, ["score", "lowdown", "binary.json"])
    message = "not UTF-8 text (nor UTF-16 or UTF-32 with a byte-order mark)"
    assert (code, out, err) == (2, "", f"error: binary.json: {message}\n")
    Path("odd.json").write_bytes(codecs.BOM_UTF16_LE + b"{}{")  # half a UTF-16 character
    code, out, err = run(capsys, monkeypatch, ["score", "lowdown", "odd.json"])
    assert (code, out, err) == (2, "", f"error: odd.json: {message}\n")


@pytest.mark.parametrize(
    ("encoding", "mark"),
    [
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),  # what Windows PowerShell 5.1's `>` writes
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
    ],
)
def test_documents_and_data_files_with_a_byte_order_mark_are_read(tmp_path, capsys, encoding, mark):
    plays = tmp_path / "plays.json"
    plays.write_bytes(mark + json.dumps(RINGER_EXAMPLE).encode(encoding))
    cards = tmp_path / "cards.json"
    cards.write_bytes(mark + (DATA / "ringer.json").read_text().encode(encoding))
    assert main(["check", "ringer", "--data", str(cards), str(plays)]) == 0
    assert json.loads(capsys.readouterr().out) == RINGER_OUTPUT


@pytest.mark.parametrize("number", ["1e400", "-1e400", "Infinity", "NaN"])
def test_a_number_that_is_not_finite_is_called_so(capsys, monkeypatch, number):
    text = f'{{"die": {number}, "top": null, "events": []}}'
    message = fails(capsys, monkeypatch, ["check", "ringer"], text=text)
    assert message == (
        "error: die: expected a die number (1-6), "
        "got a number that is not finite (Infinity, NaN or too large)"
    )


def test_an_integer_beyond_a_floats_range_is_still_an_integer(capsys, monkeypatch):
    huge = 10**309  # float(huge) raises OverflowError
    move = {**MOVE_EXAMPLE, "board": {**MOVE_EXAMPLE["board"], "wilds": huge}}
    move["move"] = {**MOVE_EXAMPLE["move"], "wild": True}
    assert judge(capsys, monkeypatch, ["check", "lowdown-move"], move) == {
        "legal": False,
        "reason": "no_wilds_left",
    }
    hands = {**POPALOTSY_EXAMPLE, "hands": {"ann": 0, "bob": huge, "cy": 1}}
    assert judge(capsys, monkeypatch, ["check", "popalotsy"], hands)["hands"]["bob"] == huge


@pytest.mark.parametrize(
    ("game", "doc"), [("ringer", RINGER_EXAMPLE), ("popalotsy", POPALOTSY_EXAMPLE)]
)
def test_a_data_file_with_a_huge_card_count_is_one_line(capsys, monkeypatch, tmp_path, game, doc):
    data = json.loads((DATA / f"{game}.json").read_text())
    data["cards"][0]["count"] = 10**12
    (tmp_path / "big.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    message = fails(capsys, monkeypatch, ["check", game, "--data", "big.json"], doc)
    expected = "error: data file big.json: cards[0].count: 1000000000000 is not a card count"
    assert message == f"{expected} (1 to 10,000)"


def test_a_bad_replacement_data_file_is_one_line_too(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    Path("cards.json").write_text('{"players": {"min": 2, "max": 6}}')
    code, out, err = run(capsys, monkeypatch, ["check", "popalotsy", "--data", "cards.json", "-"],
                         POPALOTSY_EXAMPLE)  # fmt: skip
    assert (code, out) == (2, "") and err == "error: data file cards.json: colors: missing\n"


def test_help_teaches_each_command(capsys):
    for argv, words in (
        (["check", "--help"], ["popalotsy", "ringer", "lowdown-move", "examples:", "Exit code"]),
        (["check", "popalotsy", "--help"], ["first_bad", "not_higher", "FILE"]),
        (["check", "ringer", "--help"], ["out_of_turn", "take_over", "Reroll"]),
        (["check", "lowdown-move", "--help"], ["wrong_color", "no_wilds_left"]),
        (["score", "lowdown", "--help"], ["--suggest", "lines_cross", "d1"]),
        (["simulate", "--help"], ["--players", "--games", "--seed", "--rule", "examples:"]),
    ):
        assert main(argv) == 0
        out = capsys.readouterr().out
        for word in words:
            assert word in out, (argv, word)


# --- property-based tests against oracles written from the rules (docs/rules.md) ----------


def oracle_rank(card: dict, die: dict) -> int:
    same_color, same_number = card["color"] == die["color"], card["number"] == die["number"]
    return 3 if same_color and same_number else 2 if same_number else 1 if same_color else 0


def oracle_can_drop(x: dict, die: dict, below: list[dict]) -> bool:
    m = oracle_rank(x, die)
    if m == 0:
        return False
    if not below:
        return True
    t = oracle_rank(below[-1], die)
    if t == 3:
        return False
    if m == 3:
        return True
    if m == 2:
        return t == 1
    return t == 1 and x["number"] > below[-1]["number"]


PLAYERS = ["ann", "bob", "cy", "dan"]
popalotsy_cards = st.fixed_dictionaries(
    {"color": st.sampled_from(COLORS), "number": st.integers(1, 6), "by": st.sampled_from(PLAYERS)}
)
popalotsy_docs = st.integers(1, 5).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "dice": st.lists(
                st.fixed_dictionaries(
                    {"color": st.sampled_from(COLORS), "number": st.integers(1, 6)}
                ),
                min_size=n,
                max_size=n,
            ),
            "piles": st.lists(st.lists(popalotsy_cards, max_size=6), min_size=n, max_size=n),
            "hands": st.fixed_dictionaries({p: st.integers(0, 6) for p in PLAYERS}),
            "emptied": st.lists(st.sampled_from(PLAYERS), max_size=4, unique=True),
        }
    )
)


@FEW
@given(popalotsy_docs)
def test_popalotsy_checker_agrees_with_the_pseudo_code(doc):
    result = check_popalotsy(doc_field(doc))
    penalties = dict.fromkeys(PLAYERS, 0)
    for index, (die, pile, verdict) in enumerate(
        zip(doc["dice"], doc["piles"], result["piles"], strict=True)
    ):
        bad = [i for i in range(len(pile)) if not oracle_can_drop(pile[i], die, pile[:i])]
        assert verdict["die"] == index and verdict["cards"] == len(pile)
        assert verdict["ok"] == (not bad)
        if bad:
            assert verdict["first_bad"] == bad[0] and verdict["takes_back"] == pile[bad[0]]["by"]
            penalties[pile[bad[0]]["by"]] += len(pile)
    assert result["hands"] == {p: doc["hands"][p] + penalties[p] for p in PLAYERS}
    still_empty = [p for p in doc["emptied"] if result["hands"][p] == 0]
    assert result["winner"] == (still_empty[0] if still_empty else None)


def oracle_reason(x: dict, t: dict) -> str | None:
    """Why ``x`` may not go on ``t`` (None: it may), the first reason in docs/formats.md's order."""
    xn, tn = x.get("number"), t.get("number")
    if x.get("power") == "take_over" and tn is None and t["suit"] == "wild":
        return "take_over_on_wild_reroll"
    if x["suit"] == t["suit"] and xn == tn:
        return "identical"
    if tn is None:
        legal = t["suit"] == "wild" or x["suit"] in (t["suit"], "wild")
        return None if legal else "suit_mismatch"
    if xn is None:
        legal = x["suit"] == "wild" or x["suit"] == t["suit"] or t["suit"] == "wild"
        return None if legal else "suit_mismatch"
    d = abs(xn - tn)
    if "wild" in (x["suit"], t["suit"]):
        return None if d <= 1 else "not_matching"
    if x["suit"] == t["suit"]:
        return None if d == 1 else "not_consecutive"
    return None if d == 0 else "not_matching"


def ringer_card(draw: Any) -> dict[str, Any]:
    if draw(st.integers(0, 6)) == 0:
        return {"suit": draw(st.sampled_from(SUITS)), "power": "reroll", "number": None}
    made = {"suit": draw(st.sampled_from(SUITS)), "number": draw(st.integers(1, 6))}
    power = draw(st.sampled_from([None, None, None, *POWERS]))
    if power:
        made["power"] = power
    return made


@FEW
@given(st.data())
def test_ringer_checker_agrees_with_the_pseudo_code(data):
    draw = data.draw
    die = draw(st.integers(1, 6))
    top = None if draw(st.integers(0, 5)) == 0 else ringer_card(draw)
    events: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["play"] * 6 + ["roll", "start"]))
        if kind == "roll":
            events.append({"roll": draw(st.integers(1, 6))})
        else:
            event: dict[str, Any] = {kind: ringer_card(draw)}
            if kind == "play" and draw(st.booleans()):
                event["out_of_turn"] = draw(st.booleans())
            events.append(event)
    results = check_ringer(doc_field({"die": die, "top": top, "events": events}))["results"]
    assert len(results) == len(events)
    stack: list[dict] = [] if top is None else [top]
    for event, result in zip(events, results, strict=True):
        if "roll" in event:
            die = event["roll"]
            assert result == {"legal": True}
        elif "start" in event:
            stack = [event["start"]]
            assert result == {"legal": True}
        else:
            x, out = event["play"], event.get("out_of_turn", False)
            if not stack:
                reason = "no_stack"
            elif out and x.get("power") != "take_over":
                reason = "out_of_turn"
            else:
                reason = oracle_reason(x, stack[-1])
            assert result["legal"] == (reason is None) and result.get("reason") == reason
            if reason is not None:
                continue
            stack.append(x)
            ringer = not out and x.get("number") == die
            assert result["ringer"] == ringer
            if ringer:
                assert result["won"] == len(stack) and result["power"] is None
                stack = []
            else:
                in_turn_take_over = x.get("power") == "take_over" and not out
                expected = None if in_turn_take_over else x.get("power")
                assert result["power"] == expected


ORACLE_LINES = {
    **{f"r{i}": [(i, 0), (i, 1), (i, 2)] for i in range(3)},
    **{f"c{i}": [(0, i), (1, i), (2, i)] for i in range(3)},
    "d0": [(0, 0), (1, 1), (2, 2)],
    "d1": [(0, 2), (1, 1), (2, 0)],
}
boxes = st.sampled_from([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 2, 4, "X", None])
grids = st.lists(st.lists(boxes, min_size=3, max_size=3), min_size=3, max_size=3)
lowdown_boards = st.fixed_dictionaries(
    {
        "grids": st.dictionaries(st.sampled_from(GRIDS), grids, max_size=3),
        "crossed": st.dictionaries(
            st.sampled_from(GRIDS),
            st.lists(st.sampled_from(list(ORACLE_LINES)), max_size=3, unique=True),
            max_size=2,
        ),
        "wilds": st.integers(0, 5),
    }
)


def oracle_score(board: dict, crossed: dict) -> int:
    total = 0
    for name, rows in board.items():
        dead = {cell for line in crossed.get(name, []) for cell in ORACLE_LINES[line]}
        for r in range(3):
            for c in range(3):
                if rows[r][c] == "X":
                    total += 6
                elif rows[r][c] is not None and (r, c) not in dead:
                    total += rows[r][c]
    return total


def oracle_line_ok(rows: list, line: str) -> bool:
    values = [rows[r][c] for r, c in ORACLE_LINES[line]]
    if any(v is None or v == "X" for v in values):
        return False
    return len(set(values)) == 1 or sum(values) == 10


def oracle_errors(player: str, full: dict, crossed: dict, wilds: int) -> list[dict]:
    """docs/formats.md's errors: one entry per rule broken, grid by grid, line by line."""
    found = []
    for name in GRIDS:
        earlier: set = set()
        for line in crossed.get(name, []):
            values = [full[name][r][c] for r, c in ORACLE_LINES[line]]
            reasons = []
            if None in values:
                reasons.append("incomplete_line")
            if "X" in values:
                reasons.append("blackout_in_line")
            if not reasons and not oracle_line_ok(full[name], line):
                reasons.append("not_qualifying")
            if earlier & set(ORACLE_LINES[line]):
                reasons.append("lines_cross")
            earlier |= set(ORACLE_LINES[line])
            found += [{"player": player, "grid": name, "line": line, "reason": r} for r in reasons]
    if wilds > 4:
        found.append({"player": player, "grid": None, "reason": "too_many_wilds"})
    return found


def oracle_best_crossings(rows: list, crossed: list[str]) -> tuple[int, list[str]]:
    """The saving and the lines of docs/formats.md's suggestion: the most saved; on a tie the
    fewest lines, then the smaller sorted list in the order r0 r1 r2 c0 c1 c2 d0 d1."""
    used = {cell for line in crossed for cell in ORACLE_LINES[line]}
    options = [
        line
        for line in ORACLE_LINES
        if line not in crossed and oracle_line_ok(rows, line)
        and not used & set(ORACLE_LINES[line])
    ]  # fmt: skip
    order = list(ORACLE_LINES)
    ranked = []
    for count in range(len(options) + 1):
        for chosen in itertools.combinations(options, count):
            cells = [cell for line in chosen for cell in ORACLE_LINES[line]]
            if len(cells) == len(set(cells)):
                saving = sum(rows[r][c] for r, c in cells)
                lines = sorted(chosen, key=order.index)
                ranked.append((-saving, len(lines), [order.index(x) for x in lines], lines))
    best = min(ranked)
    return -best[0], best[3]


def oracle_best_saving(rows: list, crossed: list[str]) -> int:
    return oracle_best_crossings(rows, crossed)[0]


@FEW
@given(st.dictionaries(st.sampled_from(PLAYERS), lowdown_boards, min_size=1, max_size=4))
def test_lowdown_scoring_agrees_with_the_formula_and_suggestions_keep_the_rules(named):
    result = score_lowdown(doc_field({"boards": named}), suggest=True)
    empty = [[None] * 3 for _ in range(3)]
    for player, board in named.items():
        full = {name: board["grids"].get(name, empty) for name in GRIDS}
        assert result["scores"][player] == oracle_score(full, board["crossed"])
        finished = sum(all(v is not None for row in rows for v in row) for rows in full.values())
        assert result["finished"][player] == finished
        errors = [e for e in result["errors"] if e["player"] == player]
        assert errors == oracle_errors(player, full, board["crossed"], board["wilds"])
        # the suggestion: rule-abiding additions, as good as the best found by brute force
        added = result["suggest"][player]
        saving = 0
        for name, lines in added.items():
            assert lines, "grids without suggestions are left out"
            before = board["crossed"].get(name, [])
            for line in lines:
                assert oracle_line_ok(full[name], line) and line not in before
            cells = [cell for line in [*before, *lines] for cell in ORACLE_LINES[line]]
            new_cells = [cell for line in lines for cell in ORACLE_LINES[line]]
            assert not set(new_cells) & set(cells[: 3 * len(before)])
            assert len(set(new_cells)) == len(new_cells)
            saving += oracle_best_saving(full[name], before)
            assert lines == oracle_best_crossings(full[name], before)[1]
        assert result["suggested_scores"][player] == result["scores"][player] - saving
        for name in GRIDS:
            if name not in added:
                assert oracle_best_saving(full[name], board["crossed"].get(name, [])) == 0
    best = min(result["scores"].values())
    assert result["winners"] == [p for p, s in result["scores"].items() if s == best]
    assert result["game_over"] == any(n >= 2 for n in result["finished"].values())


@pytest.mark.parametrize(
    ("rows", "suggested"),
    [
        ([[4, 2, 6], [5, 2, 3], [3, 4, 1]], ["r1"]),  # r1 or c2 saves 10: rows first
        ([[3, 1, 2], [5, 4, 6], [4, 5, 3]], ["c1"]),  # c1, d0 or d1 saves 10: columns first
        ([[2, 2, 2], [2, 2, 2], [2, 2, 2]], ["r0", "r1", "r2"]),  # or c0 c1 c2, 18 each
    ],
)
def test_lowdown_suggestion_ties_go_to_rows_then_columns_then_diagonals(
    capsys, monkeypatch, rows, suggested
):
    doc = {"boards": {"ann": {"grids": {"red/orange": rows}}}}
    result = judge(capsys, monkeypatch, ["score", "lowdown", "--suggest"], doc)
    assert result["suggest"] == {"ann": {"red/orange": suggested}}


LAYOUT = [["A", "B", "H"], ["B", "H", "A"], ["H", "A", "B"]]


@FEW
@given(lowdown_boards, st.sampled_from(GRIDS), st.integers(0, 2), st.integers(0, 2),
       st.sampled_from(LOW_COLORS), st.booleans())  # fmt: skip
def test_lowdown_move_checker_agrees_with_the_default_layout(board, grid, row, col, color, wild):
    move = {"grid": grid, "row": row, "col": col, "number": 3, "color": color, "wild": wild}
    verdict = check_lowdown_move(doc_field({"board": board, "move": move}))
    rows = board["grids"].get(grid)
    filled = rows is not None and rows[row][col] is not None
    first, second = grid.split("/")
    kind = LAYOUT[row][col]
    takes = {"A": {first}, "B": {second}, "H": {first, second}}[kind]
    if filled:
        expected = {"legal": False, "reason": "box_filled"}
    elif wild:
        expected = (
            {"legal": True} if board["wilds"] < 4 else {"legal": False, "reason": "no_wilds_left"}
        )
    else:
        expected = {"legal": True} if color in takes else {"legal": False, "reason": "wrong_color"}
    assert verdict == expected


# --- fuzzing: a damaged document is an InputError, never anything else ---------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.floats(-3, 9) | st.sampled_from(
        ["", "X", "red", "pink", "wild", "r0", "ann", "take_over", "reroll", "red/orange"]
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=8,
)  # fmt: skip


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def damaged(doc: Any, path: tuple, replacement: Any, delete: bool) -> Any:
    doc = copy.deepcopy(doc)
    if not path:
        return replacement
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return doc


CHECKERS = [
    (check_popalotsy, POPALOTSY_EXAMPLE),
    (check_ringer, RINGER_EXAMPLE),
    (lambda field: score_lowdown(field, suggest=True), LOWDOWN_EXAMPLE),
    (check_lowdown_move, MOVE_EXAMPLE),
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(range(len(CHECKERS))), st.data(), json_values, st.booleans())
def test_damaged_documents_give_an_input_error_naming_a_field(which, data, junk, delete):
    checker, example = CHECKERS[which]
    path = data.draw(st.sampled_from(paths(example)))
    doc = damaged(example, path, junk, delete and bool(path))
    try:
        result = checker(doc_field(doc))
    except InputError as error:
        message = str(error)
        assert "\n" not in message and ": " in message
        field = message.split(": ", 1)[0]
        assert field == "document" or field.split(".")[0].split("[")[0] in example
    else:
        json.dumps(result)  # a verdict, and JSON-ready


# --- the installed console script: these need popdice.cli.main to list games.cli's commands ------


def script(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([POPDICE, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_wired_check_commands_run_from_the_console_script(tmp_path):
    race = tmp_path / "race.json"
    race.write_text(json.dumps(POPALOTSY_EXAMPLE))
    done = script("check", "popalotsy", str(race))
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["winner"] == "ann"
    done = script("check", "ringer", "-", stdin=json.dumps(RINGER_EXAMPLE))
    assert json.loads(done.stdout) == RINGER_OUTPUT
    done = script("score", "lowdown", "-", stdin=json.dumps(LOWDOWN_EXAMPLE))
    assert json.loads(done.stdout) == LOWDOWN_OUTPUT
    done = script("check", "lowdown-move", "-", stdin=json.dumps(MOVE_EXAMPLE))
    assert json.loads(done.stdout) == {"legal": True}


def test_wired_bad_input_is_one_line_and_exit_2():
    doc = {"dice": [{"color": "red", "number": 3}, {"color": "blue", "number": 2}],
           "piles": [[], [{}, {}, {"color": "blue", "number": 7, "by": "a"}]]}  # fmt: skip
    doc["piles"][1][:2] = [{"color": "blue", "number": 1, "by": "a"}] * 2
    done = script("check", "popalotsy", "-", stdin=json.dumps(doc))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "error: piles[1][2].number: 7 is not a die number (1-6)\n"


def test_wired_help_lists_the_game_commands():
    out = script("--help").stdout
    for command in ("check", "score", "simulate"):
        assert command in out


def test_a_key_with_a_line_break_is_named_on_one_line():
    """Found by the test above: a hand named "\\n" made a two-line error."""
    doc = copy.deepcopy(POPALOTSY_EXAMPLE)
    doc["hands"] = {"\n": None}
    with pytest.raises(InputError) as caught:
        check_popalotsy(doc_field(doc))
    assert str(caught.value) == 'hands["\\n"]: expected a card count (0 or more), got null'
