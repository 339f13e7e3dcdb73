"""The table session: moves and pops refereed, journaled, and rebuilt exactly on resume."""

from __future__ import annotations

import pytest
from table_support import FakePopper

from popdice.table.journal import Journal, JournalError
from popdice.table.referee import Refused
from popdice.table.session import TableSession


def card(color: str, number: int, by: int) -> dict[str, object]:
    return {"color": color, "number": number, "by": by}


def test_ringer_game_scores_ringers_minus_hands(journal: Journal) -> None:
    popper = FakePopper([4, 2, 6])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
    assert popper.mode_now == "ringer"
    refused = session.move({"type": "ringer", "seat": 0, "cards": 3})
    assert not refused.accepted and refused.code == "awaiting_roll"
    assert session.press_dome() is not None
    assert session.referee.status() == "the die shows 4: play your cards"
    assert session.move({"type": "ringer", "seat": 0, "cards": 3}).accepted
    assert session.move({"type": "reroll", "seat": 1}).code == "awaiting_roll"
    session.press_dome()
    rerolled = session.reroll(1)
    assert rerolled.accepted and popper.rerolls == [0]
    assert "6" in rerolled.text
    assert session.move({"type": "ringer", "seat": 1, "cards": 5}).accepted
    session.press_dome()
    assert session.move({"type": "end", "hands": [1, 2]}).accepted
    assert session.referee.scores() == [2, 3]
    finished = journal.game(session.game_id)
    assert finished.winners == ("Bob",) and finished.scores == (2, 3)


def test_a_pop_reported_twice_is_taken_once(journal: Journal) -> None:
    popper = FakePopper([5])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
    session.press_dome()
    event = popper.next_event(1)
    assert event is not None
    assert session.take_notice(event) is None
    rolls = [entry for entry in journal.entries(session.game_id) if entry.kind == "roll"]
    assert len(rolls) == 1


def test_an_unwanted_pop_is_refused_and_journaled(journal: Journal) -> None:
    popper = FakePopper([5, 1])
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], popper)
    session.press_dome()
    popper.press()
    outcomes = []
    while (event := popper.next_event(0.5)) is not None:
        outcomes.append(session.take_notice(event))
    assert outcomes[0] is None  # the reply to press_dome, reported again as an event
    assert outcomes[1] is not None and outcomes[1].code == "no_roll_wanted"
    assert journal.entries(session.game_id)[-1].kind == "refused"
    assert session.referee.status() == "the die shows 5: play your cards"
    assert popper.voided == [2]  # the popper shows a bar, not a roll the game did not use
    assert session.log[-1] == "the popper shows a bar on each die: that roll is not counted"


def test_ringer_ruling_on_a_disputed_play(journal: Journal) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    session.press_dome()
    pink3 = {"suit": "pink", "number": 3, "power": None}
    pink4 = {"suit": "pink", "number": 4, "power": None}
    green5 = {"suit": "green", "number": 5, "power": None}
    legal = session.move({"type": "ruling", "seat": 0, "card": pink4, "top": pink3})
    assert legal.text.endswith("is legal and a Ringer")
    illegal = session.move({"type": "ruling", "seat": 0, "card": green5, "top": pink3})
    assert "not legal (not_matching)" in illegal.text


def test_popalotsy_round_with_a_penalty_then_a_win(journal: Journal) -> None:
    popper = FakePopper([3, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    session = TableSession.start(journal, "popalotsy", ["Ann", "Bob"], popper)
    assert session.referee.scores() == [5, 5]
    session.press_dome()  # red 3, orange 1, ...
    red = [card("red", 4, 0), card("red", 5, 1), card("red", 4, 1)]
    assert session.move({"type": "pile", "die": 0, "cards": red}).accepted
    checked = session.move({"type": "check"})
    assert "Bob takes back the red 3 pile" in checked.text
    assert session.referee.scores() == [4 + 1, 3 + 3 + 1]
    assert session.move({"type": "check"}).code == "awaiting_roll"
    session.press_dome()  # all 2s
    too_many = [card("yellow", 2, 0)] * 6
    assert session.move({"type": "pile", "die": 2, "cards": too_many}).accepted
    refused = session.move({"type": "check"})
    assert refused.code == "bad_count" and "Ann holds 5 cards" in refused.text
    for die, color in enumerate(("red", "orange", "yellow", "green", "blue")):
        assert session.move({"type": "pile", "die": die, "cards": [card(color, 2, 0)]}).accepted
    won = session.move({"type": "check"})
    assert won.accepted and won.text.endswith("Ann wins")
    assert journal.game(session.game_id).winners == ("Ann",)


def test_popalotsy_refuses_a_card_that_does_not_exist(journal: Journal) -> None:
    session = TableSession.start(journal, "popalotsy", ["Ann", "Bob"], FakePopper())
    session.press_dome()
    outcome = session.move({"type": "pile", "die": 0, "cards": [card("purple", 2, 0)]})
    assert outcome.code == "bad_card"


def test_resume_rebuilds_the_state_exactly(journal: Journal) -> None:
    popper = FakePopper([3, 1, 1, 1, 1])
    session = TableSession.start(journal, "popalotsy", ["Ann", "Bob", "Cy"], popper)
    session.press_dome()
    session.move({"type": "pile", "die": 0, "cards": [card("red", 5, 2), card("red", 4, 1)]})
    session.move({"type": "check"})
    session.move({"type": "bogus"})
    resumed = TableSession.resume(journal, FakePopper())
    assert resumed.game_id == session.game_id
    assert vars_of(resumed.referee) == vars_of(session.referee)
    assert resumed.seen_rolls == session.seen_rolls
    assert resumed.log[: len(session.log)] == session.log
    assert resumed.log[-1] == "game resumed"


def vars_of(referee: object) -> dict[str, object]:
    return {key: value for key, value in vars(referee).items() if key not in ("data", "config")}


def test_resume_without_an_unfinished_game_says_so(journal: Journal) -> None:
    with pytest.raises(JournalError, match="no unfinished game"):
        TableSession.resume(journal, None)


def test_an_unknown_game_or_player_count_is_refused(journal: Journal) -> None:
    with pytest.raises(Refused, match="not 'chess'"):
        TableSession.start(journal, "chess", ["Ann", "Bob"], None)
    with pytest.raises(Refused, match="2 to"):
        TableSession.start(journal, "ringer", ["Ann"], None)
