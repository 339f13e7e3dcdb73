"""Ringer: the deck from data, legal plays with wilds and rerolls, the six powers, Take Overs
out of turn, streaks, passing and the hand limit, the end and the scores (docs/rules.md §2, every
worked example of §2.8 and case of §2.9)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from popdice.games.errors import ConfigError, DataFileError, InvalidMove, Reason
from popdice.games.ringer.rules import Card, Power, RingerConfig, RingerData, play_problem
from popdice.games.ringer.state import (
    Bury,
    Give,
    Need,
    Pass,
    Play,
    PlayResult,
    RingerState,
    Start,
    Stop,
)

DATA = RingerData.load()
DATA_FILE = Path(__file__).parents[1] / "host/popdice/games/data/ringer.json"


def rc(text: str) -> Card:
    """'pink 3', 'pink 3 draw1', 'wild reroll' -> a Card."""
    suit, number, *power = text.split()
    if number == "reroll":
        return Card(suit, None, Power.REROLL)
    return Card(suit, int(number), Power(power[0]) if power else None)


def problem(card: str, top: str, config: RingerConfig | None = None) -> Reason | None:
    return play_problem(rc(card), rc(top), DATA, config)


def rig(
    state: RingerState,
    hands: list[list[str]],
    top: str,
    die: int,
    pile: Sequence[str] = (),
    current: int = 0,
) -> RingerState:
    """Set hands, the stack's one card, the die, the draw pile (top card first) and the turn."""
    state.hands = [[rc(text) for text in hand] for hand in hands]
    state.stack = [rc(top)]
    state.die = die
    state.pile = [rc(text) for text in reversed(pile)]
    state.current = current
    state.turn_plays = 0
    state.pending = []
    state.passes_in_row = 0
    state.collected = [[] for _ in hands]
    return state


def new(players: int = 2, **settings) -> RingerState:
    return RingerState(players, seed=1, config=RingerConfig(**settings))


def snapshot(state: RingerState) -> dict:
    fields = {key: value for key, value in vars(state).items() if key != "rng"}
    return copy.deepcopy({**fields, "rng": state.rng.getstate()})


def refused(state: RingerState, seat: int, action) -> Reason:
    before = snapshot(state)
    with pytest.raises(InvalidMove) as error:
        state.apply(seat, action)
    assert snapshot(state) == before, "a refused move changed the state"
    return error.value.reason


def last(state: RingerState) -> PlayResult:
    assert state.last_play is not None
    return state.last_play


def everything(state: RingerState) -> Counter[Card]:
    held = [card for hand in state.hands for card in hand]
    won = [card for pile in state.collected for card in pile]
    return Counter(held + won + state.pile + state.stack)


# --- the deck -----------------------------------------------------------------------------


def test_the_default_deck_has_105_cards_21_a_suit_and_powers_in_every_suit():
    deck = DATA.deck
    assert len(deck) == 105
    assert DATA.suits == ("pink", "blue", "green", "yellow", "wild") and DATA.wild == "wild"
    assert DATA.letters == {"pink": "P", "blue": "B", "green": "G", "yellow": "Y", "wild": "W"}
    assert set(Counter(card.suit for card in deck).values()) == {21}
    for s, suit in enumerate(DATA.suits):
        mine = [card for card in deck if card.suit == suit]
        assert sum(card.is_reroll for card in mine) == 3
        numbered = Counter(card.number for card in mine if not card.is_reroll)
        assert numbered == {n: 3 for n in range(1, 7)}
        powers = {
            card.power: card.number for card in mine if card.power not in (None, Power.REROLL)
        }
        order = [Power.ASK, Power.DRAW1, Power.DRAW2, Power.TAKE_OVER, Power.STEAL1]
        assert powers == {power: (s + k) % 6 + 1 for k, power in enumerate(order)}
    assert Card("wild", None, Power.REROLL) in deck  # a Wild Reroll exists


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"][0].update(power="reroll"), "cards[0].number: a Reroll card has no"),
        (lambda d: d["cards"][0].update(number=None), "cards[0].number: only a Reroll card"),
        (lambda d: d["cards"][2].update(suit="red"), 'cards[2].suit: "red" is not one of'),
        (lambda d: d["cards"][2].update(power="swap"), 'cards[2].power: "swap" is not a power'),
        (lambda d: d.update(wild_suit="joker"), 'wild_suit: "joker" is not one of the suits'),
        (lambda d: d.update(deck_size=104), "deck_size: says 104 cards"),
        (
            lambda d: d["cards"][0].update(count=10**12),
            "cards[0].count: 1000000000000 is not a card count (1 to 10,000)",
        ),
        (
            lambda d: d["cards"][-1].update(count=10_000),
            "deck_size: says 105 cards but the card list has 10102",
        ),
        (
            lambda d: d.update(deck_size=10**12),
            "deck_size: 1000000000000 is not a card count (1 to 10,000)",
        ),
    ],
)
def test_a_bad_data_file_is_refused_with_the_field_named(tmp_path, change, message):
    doc = json.loads(DATA_FILE.read_text())
    change(doc)
    bad = tmp_path / "ringer.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(DataFileError) as error:
        RingerData.load(bad)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_hand_size_and_limit_are_at_most_the_deck_and_refused_in_the_setting_given():
    with pytest.raises(ConfigError, match=r"^rule hand_size: 106 is more than the 105 cards of"):
        new(hand_size=106, hand_limit=106)
    with pytest.raises(ConfigError, match=r"^rule hand_size: 11 is more than hand_limit \(10\)$"):
        RingerConfig(hand_size=11)
    with pytest.raises(ConfigError, match=r"^rule hand_limit: 5 is less than hand_size \(6\)$"):
        RingerConfig(hand_limit=5)
    whole_deck = new(hand_size=105, hand_limit=105)  # everything dealt: no stack, no game
    assert sorted(len(hand) for hand in whole_deck.hands) == [52, 53]
    assert whole_deck.pile == [] and whole_deck.stack == [] and whole_deck.is_terminal()


# --- legal plays (§2.4) and the worked examples of §2.8 -----------------------------------


def test_example_2_on_a_green_5():
    for legal in ("wild 4", "wild 5", "wild 6", "green 4", "green 6", "pink 5", "blue 5",
                  "yellow 5"):  # fmt: skip
        assert problem(legal, "green 5") is None, legal
    assert problem("pink 4", "green 5") is Reason.NOT_MATCHING
    assert problem("green 5", "green 5") is Reason.IDENTICAL
    assert problem("green 3", "green 5") is Reason.NOT_CONSECUTIVE
    assert problem("wild 3", "green 5") is Reason.NOT_MATCHING


def test_example_3_on_a_wild_4():
    for suit in DATA.suits:
        for number in (3, 4, 5):
            expected = Reason.IDENTICAL if (suit, number) == ("wild", 4) else None
            assert problem(f"{suit} {number}", "wild 4") is expected
    assert problem("pink reroll", "wild 4") is None
    assert problem("pink 2", "wild 4") is Reason.NOT_MATCHING
    assert problem("wild 6", "wild 4") is Reason.NOT_MATCHING  # a wild card: not matching


def test_example_4_an_identical_card_is_illegal_whatever_its_power():
    assert problem("pink 3", "pink 3 draw1") is Reason.IDENTICAL
    assert problem("pink 2", "pink 3 draw1") is None
    assert problem("pink 4", "pink 3 draw1") is None


def test_case_1_identical_cards_are_illegal_wilds_included():
    assert problem("wild 2 ask", "wild 2") is Reason.IDENTICAL
    assert problem("blue 6 take_over", "blue 6 steal1") is Reason.IDENTICAL
    assert problem("pink reroll", "pink reroll") is Reason.IDENTICAL


def test_case_3_a_take_over_never_goes_on_a_wild_reroll():
    assert problem("pink 3 take_over", "wild reroll") is Reason.TAKE_OVER_ON_WILD_REROLL
    assert problem("wild 3 take_over", "wild reroll") is Reason.TAKE_OVER_ON_WILD_REROLL
    assert problem("pink 3", "wild reroll") is None  # anything else may


def test_case_12_a_reroll_follows_suits_only():
    assert problem("pink reroll", "pink 5") is None
    assert problem("pink reroll", "wild 5") is None
    assert problem("pink reroll", "blue 5") is Reason.SUIT_MISMATCH
    assert problem("pink 1", "pink reroll") is None
    assert problem("wild 6", "pink reroll") is None
    assert problem("blue 1", "pink reroll") is Reason.SUIT_MISMATCH
    assert problem("blue reroll", "pink reroll") is Reason.SUIT_MISMATCH
    assert problem("wild reroll", "blue 2") is None
    assert problem("blue 2", "wild reroll") is None


def test_the_wild_reroll_and_wrap_settings_change_legality():
    plain_wild = RingerConfig(wild_reroll_is_wild=False)
    assert problem("wild reroll", "blue 2", plain_wild) is Reason.SUIT_MISMATCH
    assert problem("blue 2", "wild reroll", plain_wild) is Reason.SUIT_MISMATCH
    assert problem("wild 2", "wild reroll", plain_wild) is None
    assert problem("pink 1", "pink 6") is Reason.NOT_CONSECUTIVE
    assert problem("pink 1", "pink 6", RingerConfig(wrap_numbers=True)) is None


def test_example_1_two_ringers_in_one_turn(monkeypatch):
    state = rig(new(), [["pink 3", "blue 3", "blue 4", "green 6", "yellow 1"], ["pink 1"]],
                top="pink 2", die=4, pile=["yellow 6", "blue 1", "blue 2"])  # fmt: skip
    state.apply(0, Play(rc("pink 3")))
    state.apply(0, Play(rc("blue 3")))
    monkeypatch.setattr(state, "_roll", lambda: 6)  # the re-roll after the Ringer
    state.apply(0, Play(rc("blue 4")))
    assert last(state).ringer and last(state).won == 4
    assert Counter(state.collected[0]) == Counter(map(rc, ["pink 2", "pink 3", "blue 3", "blue 4"]))
    assert state.die == 6 and state.stack == [rc("yellow 6")]  # matches, but no Ringer
    assert state.current == 0  # the turn goes on
    state.apply(0, Play(rc("green 6")))
    assert last(state).ringer and len(state.collected[0]) == 6


def test_example_5_a_take_over_out_of_turn_then_a_ringer_and_the_answer():
    state = rig(new(3), [["pink 5 take_over", "yellow 1"], ["blue 5 take_over", "green 5"],
                         ["yellow 2"]], top="blue 4", die=5, pile=["pink 1"] * 20)  # fmt: skip
    assert state.current_players() == [0, 1]  # seat 1 holds a legal Take Over
    state.apply(1, Play(rc("blue 5 take_over")))
    assert not last(state).ringer
    assert last(state).out_of_turn and state.stack[-1] == rc("blue 5 take_over")
    assert state.current == 1 and len(state.hands[0]) == 2  # A did not refill
    state.apply(1, Play(rc("green 5")))  # matches the top card and the die
    assert last(state).ringer and last(state).won == 3
    # the answer: had A played a Take Over back, the turn would have returned to A
    again = rig(new(3), [["pink 5 take_over", "yellow 1"], ["blue 5 take_over", "green 5"],
                         ["yellow 2"]], top="blue 4", die=5, pile=["pink 1"] * 20)  # fmt: skip
    again.apply(1, Play(rc("blue 5 take_over")))
    assert 0 in again.current_players()
    again.apply(0, Play(rc("pink 5 take_over")))
    assert again.current == 0 and not last(again).ringer


def test_example_6_a_reroll_then_a_ringer_on_the_new_number(monkeypatch):
    state = rig(new(), [["pink reroll", "pink 1", "wild 4", "blue 1"], ["pink 6"]],
                top="pink 2", die=3, pile=["blue 2"] * 10)  # fmt: skip
    monkeypatch.setattr(state, "_roll", lambda: 1)
    state.apply(0, Play(rc("pink reroll")))
    assert state.die == 1 and not last(state).ringer and last(state).power is Power.REROLL
    playable = {action.card for action in state.legal_actions(0) if isinstance(action, Play)}
    assert playable == {rc("pink 1"), rc("wild 4")}  # any pink number or any wild
    state.apply(0, Play(rc("pink 1")))
    assert last(state).ringer


def test_example_7_passing_with_ten_cards_and_drawing_two_with_ten():
    ten = ["yellow 1"] * 9
    state = rig(new(), [[*ten, "blue 6"], ["pink 1"]], top="pink 3", die=2,
                pile=["green 1", "green 2", "green 3"])  # fmt: skip
    assert refused(state, 0, Pass()) is Reason.MUST_BURY
    state.apply(0, Pass(bury=rc("blue 6")))
    assert len(state.hands[0]) == 10 and state.pile[0] == rc("blue 6")  # at the bottom
    assert rc("green 1") in state.hands[0]

    state = rig(new(), [[*ten, "pink 4 draw2"], ["pink 1"]], top="pink 3", die=2,
                pile=["green 1", "green 2", "green 3"])  # fmt: skip
    state.apply(0, Play(rc("pink 4 draw2")))
    assert len(state.hands[0]) == 11
    assert state.current_players() == [0] and state.pending[0].need is Need.BURY
    assert all(isinstance(action, Bury) for action in state.legal_actions(0))
    state.apply(0, Bury(rc("green 2")))
    assert len(state.hands[0]) == 10 and not state.pending and state.pile[0] == rc("green 2")


# --- §2.9 cases ---------------------------------------------------------------------------


def test_case_2_take_overs_out_of_turn_are_legal_plays_and_can_be_chained():
    state = rig(new(4), [["blue 1"], ["green 3"], ["blue 5 take_over", "pink 1"],
                         ["blue 5 take_over", "yellow 5 take_over", "pink 2"]],
                top="blue 4", die=5, pile=["pink 3"] * 30)  # fmt: skip
    assert refused(state, 1, Play(rc("green 3"))) is Reason.OUT_OF_TURN
    assert refused(state, 3, Play(rc("yellow 5 take_over"))) is Reason.NOT_MATCHING
    state.apply(2, Play(rc("blue 5 take_over")))  # never a Ringer though it matches the die
    assert state.current == 2 and state.collected == [[], [], [], []]
    state.apply(3, Play(rc("yellow 5 take_over")))  # on blue 5: same number, another suit
    assert state.current == 3
    assert state.current_players() == [3]  # nobody holds an answer any more
    state.apply(3, Stop())
    assert state.current == 0  # play continues from the taker, to the left
    assert [len(hand) for hand in state.hands[:3]] == [1, 1, 1]  # no refills for the victims
    assert len(state.hands[3]) == 6  # the taker refills at the end of the turn


def test_case_4_a_take_over_on_your_own_turn_does_nothing_but_may_score():
    state = rig(new(), [["blue 5 take_over", "blue 6 take_over", "pink 1"], ["pink 2"]],
                top="blue 4", die=6, pile=["green 1"] * 20)  # fmt: skip
    state.apply(0, Play(rc("blue 5 take_over")))
    assert state.current == 0 and last(state).power is None and state.turn_plays == 1
    state.apply(0, Play(rc("blue 6 take_over")))
    assert last(state).ringer and len(state.collected[0]) == 3


def test_case_5_a_power_card_that_scores_a_ringer_loses_its_power():
    state = rig(new(), [["pink 4 draw2", "pink 1"], ["blue 1"]], top="pink 3", die=4,
                pile=["green 1", "green 2", "green 3"])  # fmt: skip
    state.apply(0, Play(rc("pink 4 draw2")))
    assert last(state).ringer and last(state).power is None
    assert state.hands[0] == [rc("pink 1")] and state.stack == [rc("green 1")]


def test_case_6_the_revealed_starter_is_no_ringer_and_uses_no_power(monkeypatch):
    state = rig(new(), [["pink 4", "pink 1"], ["blue 1"]], top="pink 3", die=4,
                pile=["yellow 2 draw2", "green 2", "green 3"])  # fmt: skip
    monkeypatch.setattr(state, "_roll", lambda: 2)
    state.apply(0, Play(rc("pink 4")))  # a Ringer; the next stack starts with yellow 2 (draw2)
    assert state.stack == [rc("yellow 2 draw2")] and state.die == 2
    assert state.hands == [[rc("pink 1")], [rc("blue 1")]] and state.collected[1] == []
    fresh = RingerState(3, seed=3)
    assert [len(hand) for hand in fresh.hands] == [6, 6, 6] and len(fresh.stack) == 1
    assert all(won == [] for won in fresh.collected)


def test_case_7_a_hand_emptied_mid_turn_refills_at_once():
    state = rig(new(), [["pink 4"], ["blue 1"]], top="pink 3", die=1,
                pile=[f"green {n}" for n in (1, 2, 3, 4, 5, 6, 1, 2)])  # fmt: skip
    state.apply(0, Play(rc("pink 4")))
    assert len(state.hands[0]) == 6 and state.current == 0  # the turn goes on


def test_case_8_the_hand_limit_after_ask_and_steal():
    nine = ["yellow 1"] * 9
    state = rig(new(), [[*nine, "pink 2 ask", "pink 5"], ["blue 3", "pink 6"]],
                top="pink 3", die=6, pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 2 ask"), target=1, ask="pink"))
    assert state.pending[0].need is Need.GIVE and state.current_players() == [1]
    assert state.legal_actions(1) == [Give(rc("pink 6"))]
    state.apply(1, Give(rc("pink 6")))
    assert len(state.hands[0]) == 11 and state.pending[0].need is Need.BURY
    state.apply(0, Bury(rc("yellow 1")))
    assert len(state.hands[0]) == 10

    state = rig(new(), [[*nine, "pink 2 steal1", "pink 5"], ["blue 3"]],
                top="pink 3", die=6, pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 2 steal1"), target=1))
    assert state.hands[1] == [] and rc("blue 3") in state.hands[0]
    assert state.pending[0].need is Need.BURY and state.pending[0].count == 1

    loose = RingerConfig(limit_after_ask_and_steal=False)
    state = rig(RingerState(2, seed=1, config=loose), [[*nine, "pink 2 steal1", "pink 5"],
                ["blue 3"]], top="pink 3", die=6, pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 2 steal1"), target=1))
    assert len(state.hands[0]) == 11 and not state.pending


def test_case_9_refill_at_the_end_of_a_turn_but_not_for_a_stolen_turn():
    state = rig(new(3), [["pink 4", "yellow 1"], ["blue 4 take_over"], ["green 5"]],
                top="pink 3", die=1, pile=["green 1"] * 20)  # fmt: skip
    state.apply(0, Play(rc("pink 4")))
    state.apply(1, Play(rc("blue 4 take_over")))  # seat 1's hand empties: a streak
    assert len(state.hands[0]) == 1 and len(state.hands[1]) == 6
    state.apply(1, Stop())
    state.apply(2, Pass())  # one card drawn, then up to 6
    assert len(state.hands[2]) == 6
    assert len(state.hands[0]) == 1  # still waiting for its own end of turn
    no_refill = RingerState(3, seed=1, config=RingerConfig(refill_after_pass=False))
    state = rig(no_refill, [["yellow 1"], ["blue 1"], ["green 5"]], top="pink 3", die=1,
                pile=["green 1"] * 20)  # fmt: skip
    state.apply(0, Pass())
    assert len(state.hands[0]) == 2


def test_case_10_with_an_empty_draw_pile():
    state = rig(new(3), [["pink 4", "blue 2", "yellow 6"], ["blue 3"], []], top="pink 3",
                die=4)  # fmt: skip
    state.apply(0, Play(rc("pink 4")))  # a Ringer with nothing to turn over
    assert state.pending[0].need is Need.START and state.pending[0].player == 0
    assert state.current_players() == [0]
    state.apply(0, Start(rc("blue 2")))
    assert state.stack == [rc("blue 2")] and state.collected[0] == [rc("pink 3"), rc("pink 4")]
    state.apply(0, Stop())  # no refill: nothing to draw
    assert len(state.hands[0]) == 1
    state.apply(1, Pass())  # blue 3 could go on blue 2, but seat 1 passes
    assert len(state.hands[1]) == 1  # a pass draws nothing
    state.apply(2, Pass())
    assert not state.is_terminal()
    state.apply(0, Pass())  # three passes in a row with an empty pile: the end
    assert state.is_terminal()
    assert state.scores() == [2 - 1, 0 - 1, 0]
    assert state.winners() == [0]


def test_case_10_a_scorer_without_cards_hands_the_start_to_the_next_player():
    state = rig(new(3), [["pink 4"], [], ["green 1"]], top="pink 3", die=4)
    state.apply(0, Play(rc("pink 4")))
    assert state.pending[0].need is Need.START and state.pending[0].player == 2
    state.apply(2, Start(rc("green 1")))
    assert state.is_terminal()  # the draw pile and every hand are empty


def test_case_11_asks_never_name_wild_and_empty_hands_give_nothing():
    state = rig(new(), [["pink 2 ask", "pink 5", "pink 6"], ["wild 3", "pink reroll"]],
                top="pink 3", die=6, pile=["green 1"] * 10)  # fmt: skip
    assert refused(state, 0, Play(rc("pink 2 ask"), target=1, ask="wild")) is Reason.BAD_ASK
    assert refused(state, 0, Play(rc("pink 2 ask"), target=1, ask=7)) is Reason.BAD_ASK
    assert refused(state, 0, Play(rc("pink 2 ask"), target=0, ask=3)) is Reason.BAD_TARGET
    asks = {a.ask for a in state.legal_actions(0) if isinstance(a, Play) and a.card.power}
    assert asks == {1, 2, 3, 4, 5, 6, "pink", "blue", "green", "yellow"}
    state.apply(0, Play(rc("pink 2 ask"), target=1, ask=3))  # a Wild 3 answers "3"
    assert refused(state, 1, Give(rc("pink reroll"))) is Reason.NOT_ASKED_FOR
    state.apply(1, Give(rc("wild 3")))
    assert rc("wild 3") in state.hands[0]

    empty = rig(new(), [["pink 2 ask", "pink 1 steal1", "pink 5"], []], top="pink 3", die=6,
                pile=["green 1"] * 10)  # fmt: skip
    empty.apply(0, Play(rc("pink 2 ask"), target=1, ask="pink"))
    assert not empty.pending
    empty.apply(0, Play(rc("pink 1 steal1"), target=1))
    assert [len(hand) for hand in empty.hands] == [1, 0]


def test_ask_for_a_suit_may_be_answered_with_a_reroll_of_that_suit():
    state = rig(new(), [["pink 2 ask", "pink 5"], ["pink reroll", "blue 3"]], top="pink 3",
                die=6, pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 2 ask"), target=1, ask="pink"))
    assert state.legal_actions(1) == [Give(rc("pink reroll"))]
    assert refused(state, 0, Stop()) is Reason.NOT_YOUR_TURN  # waiting for the answer


def test_draw_powers_draw_what_there_is():
    state = rig(new(), [["pink 4 draw2", "blue 1"], ["blue 2"]], top="pink 3", die=6,
                pile=["green 1"])  # fmt: skip
    state.apply(0, Play(rc("pink 4 draw2")))
    assert len(state.hands[0]) == 2 and state.pile == []
    state = rig(new(), [["pink 4 draw1", "blue 1"], ["blue 2"]], top="pink 3", die=6,
                pile=["green 1", "green 2"])  # fmt: skip
    state.apply(0, Play(rc("pink 4 draw1")))
    assert state.hands[0] == [rc("blue 1"), rc("green 1")]


def test_steal_takes_a_random_card_and_the_victim_waits_for_its_own_refill():
    state = rig(new(), [["pink 4 steal1", "blue 1"], ["blue 2", "green 2", "yellow 2"]],
                top="pink 3", die=6, pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 4 steal1"), target=1))
    assert len(state.hands[0]) == 2 and len(state.hands[1]) == 2
    assert refused(state, 0, Play(rc("blue 1"))) is Reason.NOT_MATCHING


def test_turn_moves_stop_and_pass_are_checked():
    state = rig(new(), [["pink 4", "blue 1"], ["blue 2"]], top="pink 3", die=6,
                pile=["green 1"] * 10)  # fmt: skip
    assert refused(state, 0, Stop()) is Reason.NOTHING_PLAYED
    assert refused(state, 1, Pass()) is Reason.NOT_YOUR_TURN
    assert refused(state, 0, Pass(bury=rc("blue 1"))) is Reason.NO_BURY_NEEDED
    assert refused(state, 0, Play(rc("pink 5"))) is Reason.NOT_IN_HAND
    assert refused(state, 0, Give(rc("blue 1"))) is Reason.WRONG_KIND_OF_ACTION
    state.apply(0, Play(rc("pink 4")))
    assert refused(state, 0, Pass()) is Reason.ALREADY_PLAYED
    assert Pass() not in state.legal_actions(0) and Stop() in state.legal_actions(0)


def test_after_a_ringer_the_turn_may_be_set_to_end():
    state = rig(RingerState(2, seed=1, config=RingerConfig(turn_goes_on_after_ringer=False)),
                [["pink 4", "blue 1"], ["blue 2"]], top="pink 3", die=4,
                pile=["green 1"] * 10)  # fmt: skip
    state.apply(0, Play(rc("pink 4")))
    assert state.current == 1 and len(state.hands[0]) == 6


def test_a_game_where_nobody_can_ever_play_again_ends():
    state = rig(new(), [["blue 1"] * 10, ["green 1"] * 10], top="pink 6", die=3,
                pile=["yellow 1", "yellow 2"])  # fmt: skip
    state.apply(0, Pass(bury=rc("blue 1")))
    assert state.is_terminal() and state.scores() == [-10, -10] and state.winners() == [0, 1]


def test_views_hide_the_other_hands_and_the_draw_pile():
    state = rig(new(), [["pink 4", "blue 1"], ["wild 2"]], top="pink 3", die=6,
                pile=["green 1"] * 3)  # fmt: skip
    view = state.view(0)
    assert view["hand_sizes"] == [2, 1] and view["draw_pile"] == 3
    assert "wild" not in json.dumps(view) and "green" not in json.dumps(view)
    assert view["stack"] == [{"suit": "pink", "number": 3, "power": None}]


def test_a_seed_replays_the_deal_and_the_die():
    one, two = RingerState(4, seed=42), RingerState(4, seed=42)
    assert one.hands == two.hands and one.die == two.die and one.stack == two.stack
    assert everything(one) == Counter(DATA.deck)
