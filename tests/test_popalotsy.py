"""Popalotsy: the drop rules, verification and penalties, rounds and the deck, winning, the
younger-players variant, the data file (docs/rules.md §1, every example of §1.7 and case of
§1.8)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from popdice.games.config import with_settings
from popdice.games.errors import ConfigError, DataFileError, InvalidMove, Reason
from popdice.games.popalotsy.rules import (
    Card,
    Die,
    Match,
    PopalotsyConfig,
    PopalotsyData,
    drop_problem,
    match,
    penalised_card,
    pile_problems,
)
from popdice.games.popalotsy.state import Drop, Pass, Placed, PopalotsyState

RED3 = Die("red", 3)
DATA_FILE = Path(__file__).parents[1] / "host/popdice/games/data/popalotsy.json"


def card(text: str) -> Card:
    color, number = text.split()
    return Card(color, int(number))


def cards(*texts: str) -> list[Card]:
    return [card(text) for text in texts]


def dice(*texts: str) -> list[Die]:
    return [Die(c.color, c.number) for c in cards(*texts)]


def rig(
    state: PopalotsyState,
    hands: list[list[str]],
    dice_shown: list[str] | None = None,
    deck: list[str] | None = None,
    discard: list[str] | None = None,
) -> PopalotsyState:
    """Put a state into a known position: hands, dice (all five colours), deck, discard."""
    state.hands = [cards(*hand) for hand in hands]
    state.dice = dice(*(dice_shown or ["red 3", "orange 5", "yellow 1", "green 2", "blue 6"]))
    state.piles = [[] for _ in state.dice]
    state.deck = cards(*(deck or []))
    state.discard = cards(*(discard or []))
    return state


def snapshot(state: PopalotsyState) -> dict:
    """Everything in the state, the random generator's position included."""
    fields = {key: value for key, value in vars(state).items() if key != "rng"}
    return copy.deepcopy({**fields, "rng": state.rng.getstate()})


def everything(state: PopalotsyState) -> Counter[Card]:
    held = [c for hand in state.hands for c in hand]
    piled = [placed.card for pile in state.piles for placed in pile]
    return Counter(held + piled + state.deck + state.discard)


# --- components ------------------------------------------------------------------------


def test_default_data_has_forty_cards_in_five_colours_with_the_spec_spread():
    data = PopalotsyData.load()
    assert data.colors == ("red", "orange", "yellow", "green", "blue")
    assert data.faces == (1, 2, 3, 4, 5, 6)
    assert len(data.deck) == 40
    per_color = Counter(c.color for c in data.deck)
    assert set(per_color.values()) == {8}
    per_number = Counter(c.number for c in data.deck)
    assert [per_number[n] for n in range(1, 7)] == [7, 7, 7, 7, 6, 6]
    copies = Counter(data.deck)
    assert copies[Card("red", 1)] == 2 and copies[Card("blue", 4)] == 2
    assert copies[Card("red", 3)] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"][0].update(color="pink"), 'cards[0].color: "pink" is not one of'),
        (lambda d: d["cards"][3].update(number=7), "cards[3].number: 7 is not a die face"),
        (lambda d: d.update(deck_size=41), "deck_size: says 41 cards but the card list has 40"),
        (lambda d: d["cards"][1].pop("count"), "cards[1].count: missing"),
        (
            lambda d: d["cards"][0].update(count=10**12),
            "cards[0].count: 1000000000000 is not a card count (1 to 10,000)",
        ),
        (
            lambda d: d.update(deck_size=10_001),
            "deck_size: 10001 is not a card count (1 to 10,000)",
        ),
        (lambda d: d.update(colors=["red", "red"]), "colors: a colour is listed twice"),
    ],
)
def test_a_bad_data_file_is_refused_with_the_field_named(tmp_path, change, message):
    doc = json.loads(DATA_FILE.read_text())
    change(doc)
    bad = tmp_path / "popalotsy.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(DataFileError) as error:
        PopalotsyData.load(bad)
    assert str(error.value).startswith(f"data file {bad}: ")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_data_file_that_is_not_json_or_missing_is_refused(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{ nope")
    with pytest.raises(DataFileError, match="not valid JSON"):
        PopalotsyData.load(bad)
    with pytest.raises(DataFileError, match="no such file"):
        PopalotsyData.load(tmp_path / "absent.json")


def test_settings_are_checked_and_changed_by_name():
    assert PopalotsyConfig().mode == "faithful"
    assert with_settings(PopalotsyConfig(), ["mode=strict", "popper_rotates=yes"]).popper_rotates
    with pytest.raises(ConfigError, match="rule mode: 'fast' is not one of faithful, strict"):
        with_settings(PopalotsyConfig(), ["mode=fast"])
    with pytest.raises(ConfigError, match="rule speed: unknown"):
        with_settings(PopalotsyConfig(), ["speed=3"])
    with pytest.raises(ConfigError, match="not true or false"):
        with_settings(PopalotsyConfig(), ["turn_taking=maybe"])
    younger = PopalotsyConfig.younger_players()
    assert younger.turn_taking and younger.mode == "strict"


# --- §1.4 matching and the §1.7 worked example --------------------------------------------


def test_match_types_rank_none_colour_number_exact():
    assert match(card("red 3"), RED3) is Match.EXACT
    assert match(card("orange 3"), RED3) is Match.NUMBER
    assert match(card("red 5"), RED3) is Match.COLOR
    assert match(card("green 5"), RED3) is Match.NONE
    assert Match.NONE < Match.COLOR < Match.NUMBER < Match.EXACT


WORKED_EXAMPLE = [
    ("red 4", None, None),
    ("red 5", "red 4", None),
    ("orange 3", "red 5", None),
    ("red 3", "orange 3", None),
    ("red 3", "red 3", Reason.LOCKED),
    ("blue 3", "red 3", Reason.LOCKED),
    ("red 6", "red 3", Reason.LOCKED),
]


@pytest.mark.parametrize(("dropped", "top", "verdict"), WORKED_EXAMPLE)
def test_worked_example_on_a_red_3(dropped, top, verdict):
    assert drop_problem(card(dropped), RED3, card(top) if top else None) == verdict


def test_worked_example_as_one_pile_is_all_legal_and_then_locked():
    pile = cards("red 4", "red 5", "orange 3", "red 3")
    assert pile_problems(pile, RED3) == []
    assert pile_problems([*pile, card("red 3")], RED3) == [(4, Reason.LOCKED)]


def test_more_cases_on_a_red_3():
    # [red 4, red 5] + red 4: not higher
    assert pile_problems(cards("red 4", "red 5", "red 4"), RED3) == [(2, Reason.NOT_HIGHER)]
    # [orange 3] + blue 3: a number match cannot beat a number match
    assert drop_problem(card("blue 3"), RED3, card("orange 3")) is Reason.NUMBER_ON_NUMBER
    # [orange 3] + red 6: colour after a number match
    assert drop_problem(card("red 6"), RED3, card("orange 3")) is Reason.COLOR_AFTER_NUMBER
    # [] + blue 3 is legal; then red 3 is, red 1 is not
    assert drop_problem(card("blue 3"), RED3, None) is None
    assert drop_problem(card("red 3"), RED3, card("blue 3")) is None
    assert drop_problem(card("red 1"), RED3, card("blue 3")) is Reason.COLOR_AFTER_NUMBER


def test_a_colour_run_may_skip_the_die_number():
    assert drop_problem(card("red 4"), RED3, card("red 2")) is None


def test_one_card_may_fit_several_dice_and_the_player_chooses():
    state = PopalotsyState(3, seed=1, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["orange 3", "blue 1"], ["green 1"], ["yellow 2"]],
        ["red 3", "orange 6", "yellow 3", "green 2", "blue 5"])  # fmt: skip
    targets = {drop.die for drop in state.legal_drops(0) if drop.card == card("orange 3")}
    assert targets == {0, 1, 2}  # number on red 3 and yellow 3, colour on orange 6
    state.dice[1] = Die("orange", 3)
    targets = {drop.die for drop in state.legal_drops(0) if drop.card == card("orange 3")}
    assert targets == {0, 1, 2}  # now EXACT on the orange die


# --- §1.8 edge cases ----------------------------------------------------------------------


def test_case_1_the_owner_of_the_first_wrong_card_takes_the_whole_pile():
    """Also §1.7's penalty example: A emptied with legal cards and still wins."""
    state = PopalotsyState(4, seed=2, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["red 4", "blue 6"], ["red 5", "yellow 4"], ["green 5", "green 6"],
                ["orange 3", "blue 2"]])  # fmt: skip
    before = everything(state)
    state.apply(0, Drop(card("red 4"), 0))
    state.apply(1, Drop(card("red 5"), 0))
    state.apply(2, Drop(card("green 5"), 0))  # matches nothing: faithful mode lets it land
    state.apply(3, Drop(card("orange 3"), 0))
    state.apply(0, Drop(card("blue 6"), 4))  # A's last card: the race stops
    result = state.history[-1]
    verdict = result.piles[0]
    assert (verdict.cards, verdict.first_bad, verdict.reason) == (4, 2, Reason.NO_MATCH)
    assert verdict.takes_back == 2
    assert Counter(state.hands[2]) == Counter(cards("green 6", "red 4", "red 5", "green 5",
                                                   "orange 3"))  # fmt: skip
    assert result.piles[4].first_bad is None
    assert state.is_terminal() and state.winners() == [0] and state.winner == 0
    assert everything(state) == before


def test_several_wrong_cards_penalise_the_first_or_by_setting_the_last():
    pile = cards("red 4", "green 5", "orange 3", "red 3", "red 6")
    assert pile_problems(pile, RED3) == [
        (1, Reason.NO_MATCH),
        (2, Reason.ON_WRONG_CARD),  # judged against a top card that was already wrong
        (4, Reason.LOCKED),
    ]
    assert penalised_card(pile, RED3, "first") == (1, Reason.NO_MATCH)
    assert penalised_card(pile, RED3, "last") == (4, Reason.LOCKED)


def test_case_2_nothing_lands_on_an_exact_match_not_even_its_twin():
    for dropped in ("red 3", "orange 3", "red 6", "red 1", "blue 3"):
        assert drop_problem(card(dropped), RED3, card("red 3")) is Reason.LOCKED


def test_case_3_number_on_number_colour_on_number_colour_needs_higher():
    assert drop_problem(card("blue 3"), RED3, card("green 3")) is Reason.NUMBER_ON_NUMBER
    assert drop_problem(card("red 5"), RED3, card("green 3")) is Reason.COLOR_AFTER_NUMBER
    assert drop_problem(card("red 5"), RED3, card("red 5")) is Reason.NOT_HIGHER
    assert drop_problem(card("red 4"), RED3, card("red 5")) is Reason.NOT_HIGHER
    assert drop_problem(card("red 6"), RED3, card("red 5")) is None
    assert drop_problem(card("blue 3"), RED3, card("red 6")) is None  # number beats colour


def test_case_4_a_card_matching_nothing_is_illegal_everywhere():
    for top in (None, "red 4", "orange 3", "red 3"):
        problem = drop_problem(card("green 5"), RED3, card(top) if top else None)
        assert problem is Reason.NO_MATCH


@pytest.mark.parametrize("mode", ["strict", "faithful"])
def test_case_5_drops_on_one_die_are_judged_in_arrival_order(mode):
    config = PopalotsyConfig(mode=mode, stuck_counts_as_done=False)
    state = PopalotsyState(2, seed=3, config=config)
    rig(state, [["red 5", "blue 1"], ["red 5", "blue 2"]])
    state.piles[0] = [Placed(card("red 4"), 1)]
    state.apply(0, Drop(card("red 5"), 0))  # lands first: legal on red 4
    if mode == "strict":
        before = snapshot(state)
        with pytest.raises(InvalidMove) as refused:
            state.apply(1, Drop(card("red 5"), 0))
        assert refused.value.reason is Reason.NOT_HIGHER
        assert snapshot(state) == before  # the card stays in the hand, nothing changes
    else:
        state.apply(1, Drop(card("red 5"), 0))  # lands second: judged against red 5
        state.stop_race()
        verdict = state.history[-1].piles[0]
        assert (verdict.first_bad, verdict.reason, verdict.takes_back) == (
            2,
            Reason.NOT_HIGHER,
            1,
        )


def test_case_6_a_penalty_that_refills_the_emptied_hand_cancels_the_win():
    state = PopalotsyState(3, seed=4, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["green 5"], ["red 1", "red 2"], ["blue 1", "blue 2"]], deck=["yellow 3"] * 6)
    state.apply(0, Drop(card("green 5"), 0))  # wrong, and the last card: the race stops
    first = state.history[-1]
    assert first.emptied == (0,) and first.winner is None
    assert first.piles[0].takes_back == 0
    assert not state.is_terminal() and state.round == 2
    assert [len(hand) for hand in state.hands] == [2, 3, 3]  # the card back, then +1 each


def test_case_7_of_several_empty_hands_the_first_to_empty_wins():
    state = PopalotsyState(3, seed=5, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [[], [], ["blue 1"]])
    state.emptied = [1, 0]
    state.stop_race()
    assert state.winners() == [1]


def test_case_8_a_short_deck_is_refilled_from_the_discard_then_dealt_partially():
    config = PopalotsyConfig(stuck_counts_as_done=False)
    state = PopalotsyState(4, seed=6, config=config)
    rig(state, [["red 1"], ["red 2"], ["red 4"], ["red 5"]], deck=["blue 1", "blue 2"],
        discard=["green 1"])  # fmt: skip
    state.popper = 1
    before = everything(state)
    state.stop_race()
    assert [len(hand) for hand in state.hands] == [1, 2, 2, 2]  # seats 1, 2, 3 first
    assert state.deck == [] and state.discard == []
    assert everything(state) == before


def test_an_empty_deck_is_made_again_from_the_shuffled_discard():
    state = PopalotsyState(2, seed=7, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["red 1"], ["red 2"]], discard=["blue 1", "blue 2", "blue 3", "blue 4"])
    state.stop_race()
    assert [len(hand) for hand in state.hands] == [2, 2]
    assert len(state.deck) == 2 and state.discard == []


def test_without_reshuffling_an_empty_deck_deals_nothing():
    config = PopalotsyConfig(stuck_counts_as_done=False, reshuffle_discard=False)
    state = PopalotsyState(2, seed=7, config=config)
    rig(state, [["red 1"], ["red 2"]], discard=["blue 1", "blue 2"])
    state.stop_race()
    assert [len(hand) for hand in state.hands] == [1, 1] and len(state.discard) == 2


def test_case_9_a_penalised_player_still_gets_the_extra_card():
    state = PopalotsyState(2, seed=8, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["green 5", "blue 1"], ["red 1", "red 2"]], deck=["yellow 1", "yellow 2"])
    state.apply(0, Drop(card("green 5"), 0))
    state.stop_race()
    assert len(state.hands[0]) == 3  # blue 1, green 5 taken back, +1
    assert state.history[-1].piles[0].takes_back == 0


def test_case_10_strict_round_ends_when_nobody_can_drop():
    state = PopalotsyState(2, seed=9, config=PopalotsyConfig(mode="strict"))
    rig(state, [["blue 6", "red 4"], ["green 4", "yellow 6"]], deck=["blue 1"] * 4)
    for index, top in enumerate(cards("red 3", "orange 5", "yellow 1", "green 2", "blue 5")):
        state.piles[index] = [Placed(top, 1)]  # four dice locked, blue waits for its 6
    state.apply(0, Drop(card("blue 6"), 4))  # afterwards nobody has a legal drop
    assert state.round == 2 and state.history[-1].piles[4].cards == 2


def test_case_10_faithful_round_ends_when_everyone_has_said_done():
    config = PopalotsyConfig(stuck_counts_as_done=False)
    state = PopalotsyState(3, seed=10, config=config)
    rig(state, [["red 4", "red 5"], ["red 6", "blue 6"], ["orange 5", "green 2"]])
    state.apply(1, Pass())
    state.apply(0, Pass())
    assert state.round == 1 and state.current_players() == [2]
    with pytest.raises(InvalidMove) as refused:
        state.apply(0, Drop(card("red 4"), 0))
    assert refused.value.reason is Reason.NOT_YOUR_TURN
    state.apply(2, Pass())
    assert state.round == 2


# --- the engine ---------------------------------------------------------------------------


def test_a_new_game_deals_five_each_and_pops_one_die_per_colour():
    state = PopalotsyState(6, seed=11)
    assert [len(hand) for hand in state.hands] == [5] * 6 or state.round > 1
    assert [die.color for die in state.dice] == list(PopalotsyData.load().colors)
    assert all(1 <= die.number <= 6 for die in state.dice)
    assert sum(everything(state).values()) == 40
    again = PopalotsyState(6, seed=11)
    assert again.hands == state.hands and again.dice == state.dice


def test_player_counts_outside_two_to_six_are_refused():
    with pytest.raises(ConfigError, match="2 to 6 players, not 7"):
        PopalotsyState(7, seed=0)
    with pytest.raises(ConfigError):
        PopalotsyState(1, seed=0)


def test_strict_mode_refuses_a_wrong_drop_and_faithful_mode_accepts_it():
    strict = rig(PopalotsyState(2, seed=12, config=PopalotsyConfig(mode="strict")),
                 [["green 5", "red 4"], ["red 6", "blue 6"]])  # fmt: skip
    with pytest.raises(InvalidMove) as refused:
        strict.apply(0, Drop(card("green 5"), 0))
    assert refused.value.reason is Reason.NO_MATCH
    assert card("green 5") in strict.hands[0] and strict.piles[0] == []
    faithful = rig(PopalotsyState(2, seed=12), [["green 5", "red 4"], ["red 6", "blue 6"]])
    faithful.apply(0, Drop(card("green 5"), 0))
    assert faithful.piles[0] == [Placed(card("green 5"), 0)]
    assert Drop(card("green 5"), 0) not in faithful.legal_actions(0)


def test_moves_the_engine_cannot_take_raise_typed_reasons():
    state = rig(PopalotsyState(2, seed=13, config=PopalotsyConfig(stuck_counts_as_done=False)),
                [["red 4", "blue 1"], ["red 6"]])  # fmt: skip
    with pytest.raises(InvalidMove) as refused:
        state.apply(0, Drop(card("red 6"), 0))
    assert refused.value.reason is Reason.NOT_IN_HAND
    with pytest.raises(InvalidMove) as refused:
        state.apply(0, Drop(card("red 4"), 9))
    assert refused.value.reason is Reason.NO_SUCH_DIE
    with pytest.raises(InvalidMove) as refused:
        state.apply(5, Pass())
    assert refused.value.reason is Reason.NO_SUCH_PLAYER


def test_rounds_go_on_with_one_more_card_each_and_fresh_dice_until_someone_wins():
    state = PopalotsyState(3, seed=14, config=PopalotsyConfig(stuck_counts_as_done=False))
    rig(state, [["red 1", "red 2"], ["orange 1", "orange 2"], ["blue 5", "blue 4"]],
        deck=["yellow 1", "yellow 2", "yellow 3", "yellow 4"])  # fmt: skip
    for seat in range(3):
        state.apply(seat, Pass())
    assert state.round == 2 and [len(hand) for hand in state.hands] == [3, 3, 3]
    assert len(state.deck) == 1 and not state.is_terminal()
    assert all(pile == [] for pile in state.piles)


def test_cleared_piles_go_to_the_discard_pile_or_back_into_the_deck():
    for where in ("discard", "deck"):
        config = PopalotsyConfig(stuck_counts_as_done=False, cleared_piles=where)
        state = rig(PopalotsyState(2, seed=15, config=config),
                    [["red 4", "blue 1"], ["red 5", "blue 2"]], deck=["green 1"] * 5)  # fmt: skip
        state.apply(0, Drop(card("red 4"), 0))
        state.apply(1, Drop(card("red 5"), 0))
        state.stop_race()
        assert (len(state.discard), len(state.deck)) == ((2, 3) if where == "discard" else (0, 5))


def test_the_popper_stays_unless_set_to_rotate():
    for rotates, popper in ((False, 0), (True, 1)):
        config = PopalotsyConfig(stuck_counts_as_done=False, popper_rotates=rotates)
        state = rig(PopalotsyState(3, seed=16, config=config), [["red 1"], ["red 2"], ["red 4"]],
                    deck=["blue 1"] * 6)  # fmt: skip
        state.stop_race()
        assert state.popper == popper


def test_without_verification_the_first_empty_hand_wins_at_once():
    config = PopalotsyConfig(stuck_counts_as_done=False, win_after_verification=False)
    state = rig(PopalotsyState(2, seed=17, config=config), [["green 5"], ["red 4"]])
    state.apply(0, Drop(card("green 5"), 0))
    assert state.is_terminal() and state.winners() == [0] and state.history == []


def test_younger_players_take_turns_of_one_drop_or_a_pass():
    state = PopalotsyState(3, seed=18, config=PopalotsyConfig.younger_players())
    rig(state, [["red 4", "red 6", "green 1"], ["red 5", "green 1"], ["blue 1", "blue 2"]],
        deck=["yellow 1"] * 6)  # fmt: skip
    state.turn = 0
    assert state.current_players() == [0]
    with pytest.raises(InvalidMove) as refused:
        state.apply(1, Drop(card("red 5"), 0))
    assert refused.value.reason is Reason.NOT_YOUR_TURN
    state.apply(0, Drop(card("red 4"), 0))
    assert state.current_players() == [1]
    with pytest.raises(InvalidMove) as refused:
        state.apply(1, Drop(card("green 1"), 0))  # strict: refused, still seat 1's turn
    assert refused.value.reason is Reason.NO_MATCH and state.current_players() == [1]
    state.apply(1, Drop(card("red 5"), 0))
    state.apply(2, Pass())
    state.apply(0, Drop(card("red 6"), 0))
    state.apply(1, Pass())
    state.apply(2, Pass())
    assert state.round == 1  # two passes in a row are not a lap yet
    state.apply(0, Pass())  # seat 0 still holds nothing legal but passes: a lap of passes
    assert state.round == 2 and state.turn == state.popper


def test_views_show_your_hand_and_only_the_sizes_of_the_others():
    state = rig(PopalotsyState(3, seed=19), [["red 1"], ["blue 2", "blue 3"], ["green 4"]])
    view = state.view(1)
    assert view["hand"] == [{"color": "blue", "number": 2}, {"color": "blue", "number": 3}]
    assert view["hand_sizes"] == [1, 2, 1]
    assert "red" not in json.dumps({k: v for k, v in view.items() if k != "dice"})
    assert view["deck"] == 0 and len(view["dice"]) == 5


def test_legal_actions_are_exactly_the_drops_the_rules_allow():
    state = PopalotsyState(4, seed=20)
    for seat in state.current_players():
        for action in state.legal_actions(seat):
            if isinstance(action, Drop):
                assert (
                    drop_problem(action.card, state.dice[action.die], state.top(action.die)) is None
                )
