"""Lowdown at the table: the popper's open dice, the handheld's committed hidden pair, the
engine's rules, the journal, and the UI at 80x24 on stand-in devices."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from table_support import FakeHandheld, FakePopper, play_then_die
from test_table_app import SIZE, command, shown, wait_until
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from popdice.cli.table import add_table_arguments
from popdice.devices.handheld import CommitmentMismatch, Reveal
from popdice.table.app import TableApp
from popdice.table.commands import parse
from popdice.table.journal import Journal
from popdice.table.lowdown_table import LowdownTable
from popdice.table.referee import Refused
from popdice.table.session import Outcome, TableSession

PLAYERS = ["Ann", "Bob"]
SETTINGS = {"end_grids": 1}

# A whole game of two players, each filling the red/orange grid box by box (game over when
# one grid is full: end_grids 1). Box k takes NUMBERS[k]; the active player writes it with an
# open die, the other with the hidden pair, whose colour is the one box k takes.
NUMBERS = [1, 3, 6, 2, 2, 2, 5, 4, 1]
COLOURS = ["red", "orange", "red", "orange", "red", "red", "red", "red", "orange"]
TURNS = [
    ["write ann 1 red ro 1 1", "write bob 1 red ro 1 1"],
    ["reveal", "write bob 3 orange ro 1 2", "write ann 3 orange ro 1,2"],
    ["write ann 6 red ro 1 3", "write bob 6 red ro 1 3", "cross ann ro r1", "cross bob ro r1"],
    ["write bob 2 orange ro 2 1", "write ann 2 orange ro 2 1"],
    ["write ann 2 red ro 2 2", "wild bob 2 ro 2 2"],
    ["write bob 2 red ro 2 3", "write ann 2 red ro 2 3", "cross bob ro r2", "cross ann ro r2"],
    ["write ann 5 red ro 3 1", "write bob 5 red ro 3 1"],
    ["write bob 4 red ro 3 2", "write ann 4 red ro 3 2"],
    ["write ann 1 o ro 3 3", "write bob 1 orange ro 3 3", "cross ann ro r3", "done bob"],
]


def game_popper(session: str = "0000abcd") -> FakePopper:
    numbers = [value for n in NUMBERS for value in (n, 6)]
    return FakePopper(numbers, session=session, colours=["red", "orange"] * len(NUMBERS))


def game_handheld(session: str = "0000d1ce") -> FakeHandheld:
    return FakeHandheld(zip(COLOURS, NUMBERS, strict=True), session=session)


def start(
    journal: Journal, popper: FakePopper, handheld: FakeHandheld, players: list[str] = PLAYERS
) -> TableSession:
    return TableSession.start(journal, "lowdown", players, popper, handheld, SETTINGS)


def play(session: TableSession, text: str) -> Outcome:
    return session.move(parse(text, "lowdown", session.referee.players).move)


def table(session: TableSession) -> LowdownTable:
    referee = session.referee
    assert isinstance(referee, LowdownTable)
    return referee


def everything_public(session: TableSession, journal: Journal) -> str:
    """The journal and the log: what anyone at the table can read."""
    entries = [entry.data for entry in journal.entries(session.game_id)]
    return json.dumps(entries) + "\n".join(session.log)


def snapshot(referee: LowdownTable) -> dict[str, Any]:
    state = referee.state
    return {
        "table": {k: v for k, v in vars(referee).items() if k not in ("state", "settings")},
        "views": [state.view(seat) for seat in range(state.num_players)],
        "dice": (state.own_numbers, state.own_colors, state.hidden_number, state.hidden_color),
        "turn": (state.step, state.wrote, state.done, state.written, state.revealed),
    }


# --- the turn, step by step --------------------------------------------------------------


def test_a_turn_waits_for_both_rolls_and_reveals_only_a_legal_choice(journal: Journal) -> None:
    popper = FakePopper([4, 2], colours=["red", "blue"])
    handheld = FakeHandheld([("green", 5)])
    session = start(journal, popper, handheld)
    referee = table(session)
    assert popper.mode_now == "lowdown"
    assert play(session, "write ann 4 red ro 1 1").code == "awaiting_roll"
    session.press_dome()
    assert referee.state.own_numbers == [4, 2] and referee.state.own_colors == ["red", "blue"]
    assert referee.status() == "pass the handheld to Bob, press ROLL"
    assert play(session, "write ann 4 red ro 1 1").code == "awaiting_secret"
    assert session.roll_hidden() is not None
    assert session.log[-1] == "Bob rolled the hidden dice (roll 0000d1ce-1)"
    assert referee.status() == "Ann: write with your dice, or type reveal"
    assert play(session, "write bob 2 blue pb 1 2").code == "not_your_turn"

    refused = play(session, "write ann 4 red ro 1 2")  # a full orange box
    assert refused.text == "refused: ro 1,2 does not take red (wrong_color)"
    assert not handheld.revealed and "green" not in everything_public(session, journal)
    last = journal.entries(session.game_id)[-1]
    assert last.kind == "refused" and last.data["code"] == "wrong_color"

    chose = play(session, "write ann 4 red ro 1 1")
    assert chose.accepted and handheld.revealed  # the hidden pair is shared: revealed now
    assert session.log[-1] == "the hidden dice: green 5; Ann writes 4 (red) in ro 1,1, " + (
        "nothing to cross: done"
    )
    assert referee.state.shared_numbers == [2, 5]
    assert referee.state.shared_colors == ["blue", "green"]
    assert play(session, "write bob 4 red gy 1 1").code == "no_such_die"  # Ann's set aside
    assert play(session, "write bob 5 green gy 1 1").accepted
    assert session.log[-1].endswith("turn 2: Bob rolls")
    assert referee.status() == "Bob, press the dome; pass the handheld to Ann, press ROLL"
    kinds = [entry.kind for entry in journal.entries(session.game_id)]
    assert kinds == [
        *("device", "refused", "roll", "refused", "secret", "refused", "refused"),
        *("move", "reveal", "refused", "move"),
    ]


def test_the_hidden_dice_stay_secret_until_revealed(journal: Journal) -> None:
    handheld = FakeHandheld([("green", 5)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    session.press_dome()
    session.roll_hidden()
    assert play(session, "blackout ann ro 1 1").code == "has_move"
    assert play(session, "wild ann 4 pb 1 1").code == "no_such_die"  # name the colour to drop
    nonce = handheld.current.nonce if handheld.current else ""
    public = everything_public(session, journal)
    assert "green" not in public and nonce not in public
    assert table(session).hidden is None and table(session).state.hidden_color == ""
    assert play(session, "wild ann 4 pb 1 1 red").accepted  # a wild shares the pair too
    assert "green" in session.log[-1] and nonce in everything_public(session, journal)


def test_reveal_means_the_active_player_must_use_the_hidden_dice(journal: Journal) -> None:
    handheld = FakeHandheld([("purple", 6)])
    session = start(journal, FakePopper([1, 2], colours=["red", "orange"]), handheld)
    session.press_dome()
    session.roll_hidden()
    assert play(session, "reveal").accepted
    assert session.log[-1] == "the hidden dice: purple 6: Ann must use them"
    assert play(session, "reveal").code == "hidden_already_seen"
    assert play(session, "write ann 1 red ro 1 1").code == "no_such_die"
    assert play(session, "write ann 6 purple ro 1 1").code == "wrong_color"
    assert play(session, "write ann 6 purple pb 1 1").accepted
    assert table(session).state.shared_numbers == [1, 2]  # the open four go to the others


def test_a_reveal_the_active_player_did_not_ask_for_voids_the_pair(journal: Journal) -> None:
    """The holder's REVEAL before Ann chose: the pair binds nobody, it is void (journaled so,
    and so on resume), and Bob rolls a new one, which is the one Ann's choice reveals."""
    handheld = FakeHandheld([("purple", 6), ("green", 5)])
    session = start(journal, FakePopper([1, 2], colours=["red", "orange"]), handheld)
    session.press_dome()
    session.roll_hidden()
    handheld.press_reveal()
    outcomes = [session.take_handheld_notice(n) for n in drain(handheld)]
    assert [o.text for o in outcomes if o is not None][-1] == (
        "the hidden dice were shown without Ann choosing them (purple 6): they are void; "
        "Bob, press ROLL for a new pair"
    )
    referee = table(session)
    assert not referee.state.revealed and referee.hidden is None and referee.commitment is None
    assert referee.status() == "pass the handheld to Bob, press ROLL"
    (shown,) = [e for e in journal.entries(session.game_id) if e.kind == "reveal"]
    assert (shown.data["by"], shown.data["asked"]) == ("button", False)
    assert play(session, "write ann 1 red ro 1 1").code == "awaiting_secret"

    resumed = TableSession.resume(journal, FakePopper(), handheld=None)
    assert snapshot(table(resumed)) == snapshot(referee)

    assert session.roll_hidden() is not None
    assert session.log[-1] == "Bob rolled the hidden dice (roll 0000d1ce-2)"
    assert play(session, "write ann 1 red ro 1 1").accepted
    assert session.log[-1].startswith("the hidden dice: green 5; Ann writes 1 (red) in ro 1,1")
    assert referee.state.shared_numbers == [2, 5] and "purple" not in referee.state.shared_colors


def test_the_holders_reveal_after_the_active_player_asked_binds_them(journal: Journal) -> None:
    """Ann typed reveal, and the handheld refused the command (another link session's roll,
    as after a resume): the holder's REVEAL is then Ann's reveal, and she must use it."""
    handheld = FakeHandheld([("purple", 6)])
    session = start(journal, FakePopper([1, 2], colours=["red", "orange"]), handheld)
    session.press_dome()
    session.roll_hidden()
    handheld.other_link = True
    assert play(session, "reveal").accepted
    assert session.log[-1].endswith("(other_link)")
    assert table(session).status() == "Bob: hold REVEAL to show the hidden dice"
    handheld.press_reveal()
    outcomes = [session.take_handheld_notice(n) for n in drain(handheld)]
    assert [o.text for o in outcomes if o is not None][-1] == (
        "the hidden dice: purple 6: Ann must use them"
    )
    (shown,) = [e for e in journal.entries(session.game_id) if e.kind == "reveal"]
    assert (shown.data["by"], shown.data["asked"]) == ("button", True)
    assert table(session).state.revealed


def test_a_reveal_journaled_before_the_rule_replays_as_it_was_played(journal: Journal) -> None:
    """Journals from before ``asked``: an unasked reveal bound the active player then, and a
    resume rebuilds that game as it was, not voided."""
    handheld = FakeHandheld([("purple", 6)])
    session = start(journal, FakePopper([1, 2], colours=["red", "orange"]), handheld)
    session.press_dome()
    session.roll_hidden()
    assert handheld.current is not None
    opened = handheld.current
    journal.append(
        session.game_id,
        "reveal",
        {
            "roll_id": opened.roll_id,
            "colour": opened.colour,
            "number": opened.number,
            "nonce": opened.nonce,
            "by": "button",
            "key": f"reveal:0000d1ce:{opened.roll_id}",
            "text": "the hidden dice: purple 6: Ann must use them",
        },
    )
    resumed = TableSession.resume(journal, FakePopper(), handheld=None)
    assert table(resumed).state.revealed and table(resumed).hidden == ("purple", 6)
    assert play(resumed, "write ann 6 purple pb 1 1").accepted


def drain(device: FakeHandheld | FakePopper) -> list[Any]:
    notices = []
    while (notice := device.next_event(0)) is not None:
        notices.append(notice)
    return notices


def test_events_repeating_replies_are_taken_once(journal: Journal) -> None:
    handheld = FakeHandheld([("green", 5)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    session.press_dome()
    session.roll_hidden()
    play(session, "write ann 4 red ro 1 1")
    assert all(session.take_handheld_notice(n) is None for n in drain(handheld))
    kinds = [entry.kind for entry in journal.entries(session.game_id)]
    assert kinds.count("secret") == 1 and kinds.count("reveal") == 1


def test_a_second_roll_before_the_reveal_is_logged_and_replaces_the_first(
    journal: Journal,
) -> None:
    handheld = FakeHandheld([("green", 5), ("blue", 1), ("yellow", 2)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    session.press_dome()
    session.roll_hidden()
    session.roll_hidden()
    assert session.log[-1] == (
        "Bob rolled the hidden dice again: roll 0000d1ce-2 replaces 0000d1ce-1"
    )
    handheld.unplugged = True  # the reveal cannot be had yet: the choice waits for it
    assert play(session, "write ann 4 red ro 1 1").accepted
    assert session.log[-1] == (
        "the handheld is gone (the handheld was unplugged): waiting for it to return"
    )
    assert play(session, "write bob 2 blue pb 1 2").code == "awaiting_reveal"
    refused = session.roll_hidden()
    assert refused is not None and refused.code == "device_missing"
    handheld.unplugged = False
    handheld.press_roll()  # and once more, after Ann chose: still logged, still used
    for notice in drain(handheld):
        session.take_handheld_notice(notice)
    session.device_back("handheld", handheld)  # found again by its id: now it is asked
    log = "\n".join(session.log)
    assert "Bob rolled the hidden dice again after Ann chose: roll 0000d1ce-3" in log
    assert session.log[-1].startswith("the hidden dice: yellow 2; Ann writes 4 (red)")


def test_a_reveal_that_does_not_match_its_commitment_is_refused(journal: Journal) -> None:
    handheld = FakeHandheld([("green", 5), ("blue", 1)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    session.press_dome()
    session.roll_hidden()
    handheld.lie = ("yellow", 6)
    assert play(session, "write ann 4 red ro 1 1").accepted
    assert session.log[-1].endswith("(commitment_mismatch)")
    assert "yellow 6" in session.log[-1]
    last = journal.entries(session.game_id)[-1]
    assert last.kind == "refused" and last.data["code"] == "commitment_mismatch"
    assert table(session).pending is not None and table(session).hidden is None
    session.roll_hidden()  # the table's way on: roll again, in front of everyone
    assert session.log[-1].startswith("the hidden dice: blue 1; Ann writes 4")


def test_a_mismatch_the_handheld_client_finds_is_refused_too(journal: Journal) -> None:
    class Tampered(FakeHandheld):
        def reveal(self, roll_id: str | None = None, by: str = "host") -> Reveal:
            raise CommitmentMismatch(f"reveal of roll {roll_id} does not match")

    handheld = Tampered([("green", 5)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    session.press_dome()
    session.roll_hidden()
    play(session, "write ann 4 red ro 1 1")
    assert session.log[-1].endswith("(commitment_mismatch)")
    assert journal.entries(session.game_id)[-1].data["source"] == "handheld"


def test_referee_checks_settings_and_players() -> None:
    with pytest.raises(Refused, match="no setting colour"):
        LowdownTable(PLAYERS, {"colour": 1})
    with pytest.raises(Refused, match="end_grids"):
        LowdownTable(PLAYERS, {"end_grids": 0})
    with pytest.raises(Refused, match="2 to 4 players"):
        LowdownTable(["Ann"])


def test_commands_name_dice_by_value_and_boxes_from_one() -> None:
    def move(text: str) -> dict[str, Any]:
        return parse(text, "lowdown", ["Ann", "Bob", "Cy"]).move

    assert move("write ann 4 red ro 1 3") == {
        "type": "write",
        "seat": 0,
        "number": 4,
        "color": "red",
        "grid": "red/orange",
        "row": 0,
        "col": 2,
    }
    assert move("WILD 2 5 purple 2,2 y")["color"] == "yellow"
    assert move("wild cy 5 gy:3,3") == {
        "type": "wild",
        "seat": 2,
        "number": 5,
        "color": None,
        "grid": "green/yellow",
        "row": 2,
        "col": 2,
    }
    assert move("cross b pb d2") == {
        "type": "cross",
        "seat": 1,
        "grid": "purple/blue",
        "line": "d1",
    }
    assert move("blackout ann green/yellow 1 1")["grid"] == "green/yellow"
    assert move("reveal") == {"type": "reveal"}
    for text, message in [
        ("write ann 4 re ro 1", "usage: write"),
        ("write ann 4 x ro 1 1", "names no single colour"),
        ("cross ann ro r4", "is no line"),
        ("blackout ann zz 1 1", "is no grid"),
        ("jump ann", "unknown command"),
    ]:
        with pytest.raises(Refused, match=message):
            move(text)


# --- a whole game, and its replay --------------------------------------------------------


def test_a_whole_game_then_its_journal_replays_to_the_same_state(journal: Journal) -> None:
    handheld = game_handheld()
    session = start(journal, game_popper(), handheld)
    for turn in TURNS:
        assert session.press_dome() is not None
        assert session.roll_hidden() is not None
        for text in turn:
            outcome = play(session, text)
            assert outcome.accepted, outcome.text
    referee = table(session)
    assert referee.over and referee.scores() == [0, 10] and referee.winners() == [0]
    assert session.log[-1].endswith("game over: Ann wins")
    assert referee.state.sheets[1].wilds == 1
    record = journal.game(session.game_id)
    assert record.winners == ("Ann",) and record.scores == (0, 10)
    assert record.settings == SETTINGS


def test_refusals_name_the_player_not_their_seat(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    for turn in [*TURNS[:2], TURNS[2][:2]]:  # the third turn's writes: ro r1 to cross
        session.press_dome()
        session.roll_hidden()
        if turn is TURNS[0]:
            early = play(session, "write bob 1 red ro 1 1")
            assert early.text == "refused: Bob cannot act yet: Ann chooses first (not_your_turn)"
        for text in turn:
            assert play(session, text).accepted, text
    twice = play(session, "write ann 6 red ro 2 1")
    assert twice.text == "refused: Ann wrote this turn (already_wrote)"
    assert play(session, "cross bob ro r1").accepted  # nothing else to cross: done
    done = play(session, "done bob")
    assert done.text == "refused: Bob is done this turn (not_your_turn)"
    assert "seat" not in " ".join(session.log)


def to_the_fifth_turn(session: TableSession) -> None:
    """Four turns played, then the fifth's dice and hidden roll."""
    for turn in TURNS[:4]:
        session.press_dome()
        session.roll_hidden()
        for text in turn:
            play(session, text)
    session.press_dome()
    session.roll_hidden()


def test_resume_mid_turn_rebuilds_the_state_exactly(journal: Journal) -> None:
    handheld = game_handheld()
    session = start(journal, game_popper(), handheld)
    to_the_fifth_turn(session)
    handheld.unplugged = True
    play(session, TURNS[4][0])  # Ann chose; the hidden pair is not revealed yet
    play(session, "write bob 9 red ro 1 1")  # refused, journaled
    resumed = TableSession.resume(journal, FakePopper(), handheld=None)
    assert snapshot(table(resumed)) == snapshot(table(session))
    assert resumed.seen_rolls == session.seen_rolls
    assert resumed.log[: len(session.log)] == session.log
    handheld.unplugged = False
    again = TableSession.resume(journal, FakePopper(), handheld=handheld)
    assert again.log[-1].startswith("the hidden dice: red 2; Ann writes 2 (red) in ro 2,2")
    assert table(again).state.step.value == "write"


def test_a_hidden_roll_a_new_handheld_lacks_is_lost_and_nothing_plays_by_itself(
    journal: Journal,
) -> None:
    handheld = game_handheld()
    session = start(journal, game_popper(), handheld)
    to_the_fifth_turn(session)
    handheld.unplugged = True  # the table is killed before the pair is revealed
    play(session, TURNS[4][0])  # Ann chose, sharing the hidden pair
    refused = play(session, TURNS[4][0])  # typed again: refused while it waits
    assert refused.code == "awaiting_reveal"
    fresh = game_handheld(session="0000beef")  # a new handheld: it never made that roll
    fresh.dice = [("blue", 5)]
    resumed = TableSession.resume(journal, FakePopper(), handheld=fresh)
    referee = table(resumed)
    assert resumed.log[-1] == (
        "the handheld no longer has roll 0000d1ce-5 (it restarted): the hidden dice are lost; "
        "Ann's choice is void: choose again once it is in; Bob, press ROLL for a new pair"
    )
    assert referee.pending is None and referee.commitment is None
    assert resumed.referee.status() == "pass the handheld to Bob, press ROLL"
    rolled = resumed.roll_hidden()
    assert rolled is not None and rolled.accepted
    assert referee.pending is None and referee.hidden is None  # nothing was played by itself
    assert referee.state.step.value == "choose"
    assert resumed.referee.status() == "Ann: write with your dice, or type reveal"
    again = TableSession.resume(journal, FakePopper(), handheld=fresh)  # the loss replays
    assert snapshot(table(again)) == snapshot(referee)


# --- on screen ---------------------------------------------------------------------------


async def device_turn(pilot: Pilot[None], app: TableApp, popper: FakePopper, n: int) -> None:
    """The dome and ROLL: by the keys on even turns, by the devices' own events on odd ones."""
    referee = table(app.session)
    if n % 2:
        popper.press()
        handheld = app.session.handheld
        assert isinstance(handheld, FakeHandheld)
        handheld.press_roll()
    else:
        await pilot.press("f2")
        await pilot.press("f3")
    await wait_until(pilot, lambda: referee.dice_in and referee.commitment is not None)
    await pilot.pause()


def test_a_short_lowdown_game_at_80x24(journal: Journal) -> None:
    popper, handheld = game_popper(), game_handheld()
    session = start(journal, popper, handheld)

    async def play_it() -> None:
        app = TableApp(session, simulated=True)
        async with app.run_test(size=SIZE) as pilot:
            assert "(simulated)" in shown(app, "#status")
            assert "pass the handheld to Bob, press ROLL" in shown(app, "#status")
            for n, turn in enumerate(TURNS):
                await device_turn(pilot, app, popper, n)
                if n == 0:
                    status, dice = shown(app, "#status"), shown(app, "#lowdown-dice")
                    assert "Ann: write with your dice, or type reveal" in status
                    assert "open 1 6 red orange · hidden ? ?" in dice
                    await command(pilot, "write ann 1 orange ro 1 1")
                    assert session.log[-1].endswith("(wrong_color)")
                    secret = handheld.current.nonce if handheld.current else "?"
                    assert "hidden dice:" not in screen_text(app) + log_text(app)
                    assert secret not in screen_text(app) + log_text(app)
                for text in turn:
                    await command(pilot, text)
                    assert not session.log[-1].startswith("refused"), session.log[-1]
                    if n == 0 and text == turn[0]:
                        assert "hidden 1 red" in shown(app, "#lowdown-dice")
                        assert "the hidden dice: red 1" in log_text(app)
                if n == 4:
                    assert "wild 1/4" in shown(app, "#board-1")
            assert "game over" in shown(app, "#status")
            assert "wins" in shown(app, "#board-0") and "10 pts" in shown(app, "#board-1")

    asyncio.run(play_it())
    assert journal.game(session.game_id).winners == ("Ann",)


def screen_text(app: TableApp) -> str:
    return "\n".join(str(widget.content) for widget in app.query(Static))


def log_text(app: TableApp) -> str:
    return "\n".join(line.text for line in app.query_one("#log", RichLog).lines)


@pytest.mark.parametrize("players", [["Ann", "Bob", "Cy"], ["Ann", "Bob", "Cy", "Dee"]])
def test_every_board_fits_80x24(journal: Journal, players: list[str]) -> None:
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), FakeHandheld(), players)

    async def look() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2", "f3")
            await command(pilot, "write ann 4 red ro 1 1")
            for seat, name in enumerate(players):
                board = app.query_one(f"#board-{seat}", Static)
                region = board.region
                assert name in str(board.content)
                assert region.height == 5 and region.width >= 30
                assert region.right <= SIZE[0] and region.bottom <= SIZE[1] - 4
            assert app.query_one("#log").region.height >= 3
            assert app.check_action("hidden_roll", ())

    asyncio.run(look())


PLAY_THEN_DIE = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from test_table_lowdown import TURNS, game_handheld, game_popper, play, SETTINGS
from popdice.table.journal import Journal
from popdice.table.session import TableSession
handheld = game_handheld()
session = TableSession.start(Journal(), "lowdown", ["Ann", "Bob"], game_popper(), handheld,
                             SETTINGS)
for turn in TURNS[:2]:
    session.press_dome()
    session.roll_hidden()
    for text in turn:
        play(session, text)
session.press_dome()
session.roll_hidden()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_killed_mid_game_then_resumed(journal: Journal, tmp_path: Path) -> None:
    play_then_die(PLAY_THEN_DIE, tmp_path)
    # The same handheld, still holding turn 3's roll; a popper that rebooted meanwhile.
    handheld = game_handheld()
    for _ in range(3):
        handheld.roll()
    popper = game_popper(session="0000beef")
    popper.numbers = popper.numbers[6:]
    popper.colours = popper.colours[6:]
    session = TableSession.resume(journal, popper, handheld=handheld)
    referee = table(session)
    assert referee.state.turns == 3 and referee.dice_in and referee.commitment is not None

    async def finish() -> None:
        app = TableApp(session)
        async with app.run_test(size=SIZE) as pilot:
            assert "Ann: write with your dice" in shown(app, "#status")
            assert "3" in shown(app, "#board-0") and "open 6 6 red orange" in shown(
                app, "#lowdown-dice"
            )
            for n, turn in enumerate(TURNS[2:], start=2):
                if n > 2:
                    await device_turn(pilot, app, popper, n)
                for text in turn:
                    await command(pilot, text)
                    assert not session.log[-1].startswith("refused"), session.log[-1]
            assert "game over" in shown(app, "#status")

    asyncio.run(finish())
    assert journal.game(session.game_id).winners == ("Ann",)


def test_the_table_command_opens_the_popper_and_the_handheld(
    journal: Journal, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[TableApp] = []
    monkeypatch.setattr(TableApp, "run", lambda app: ran.append(app))
    monkeypatch.setattr("popdice.devices.discovery.find_devices", lambda **_kwargs: [])
    monkeypatch.setattr("popdice.table.cli.has_terminal", lambda: True)
    parser = argparse.ArgumentParser(prog="popdice")
    add_table_arguments(parser.add_subparsers(dest="command").add_parser("table"))

    def run(*argv: str) -> int:
        args = parser.parse_args(argv)
        return args.run(args)

    assert run("table", "lowdown", "--players", "Ann,Bob,Cy") == 0
    err = capsys.readouterr().err
    assert "no popper plugged in: using a simulated one" in err
    assert "no handheld plugged in: using a simulated one" in err
    started = ran[-1].session
    assert ran[-1].simulated and started.handheld is not None and started.popper is not None
    assert started.handheld.info.board == "handheld"
    assert run("table", "--resume", "--sim") == 0  # a Lowdown game needs both again
    resumed = ran[-1].session
    assert resumed.game_id == started.game_id and resumed.handheld is not None
    assert capsys.readouterr().err == ""


def test_a_mismatch_is_shouted_on_screen(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    handheld = FakeHandheld([("green", 5)])
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), handheld)
    shouted: list[str] = []

    async def look() -> None:
        app = TableApp(session)
        monkeypatch.setattr(app, "notify", lambda message, **_: shouted.append(str(message)))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f3", "f2")
            handheld.lie = ("yellow", 6)
            await command(pilot, "write ann 4 red ro 1 1")
            assert "(commitment_mismatch)" in log_text(app)
            assert "Bob: hold REVEAL" in shown(app, "#status")

    asyncio.run(look())
    assert len(shouted) == 1 and "does not match its commitment" in shouted[0]
