"""Ringer and Popalotsy by pointing: each move as a short form of questions, each answered by
choosing one of a few chips (a player, a card's colour, a die) or by counting up and down.

The cards of these games are real, on the table, so the laptop asks what happened: whose
Ringer and how many cards it won, whose Reroll, which card on which for a ruling, the cards
left in each hand at the end; in Popalotsy, each pile card by card (bottom first) and who
ran out first at the check. A form is offered only when its move can be played now, and
its answers become the same move a typed command makes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .names import literal
from .popalotsy_table import PopalotsyTable
from .referee import Move, Referee
from .ringer_table import MAX_HAND, RingerTable

Answers = dict[str, Any]


@dataclass(frozen=True)
class Choice:
    label: str
    value: Any


@dataclass(frozen=True)
class Ask:
    """One question: its name among the answers, its prompt, and its choices; or, with
    ``count`` (lowest, highest, first shown), a number counted up and down."""

    name: str
    prompt: str
    choices: tuple[Choice, ...] = ()
    count: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Form:
    """A move as questions: ``ask`` gives the next one for the answers so far (None once
    complete), ``move`` the move they make."""

    key: str
    label: str
    says: str
    ask: Callable[[Answers], Ask | None]
    move: Callable[[Answers], Move]
    reroll: bool = False
    """A Ringer Reroll: the popper re-rolls as the move is played."""
    summary: Callable[[Answers], str] = field(default=lambda answers: "")


def _players(referee: Referee, prompt: str, name: str = "seat") -> Ask:
    choices = tuple(
        Choice(f"{seat + 1} {literal(player)[:12]}", seat)
        for seat, player in enumerate(referee.players)
    )
    return Ask(name, prompt, choices)


def _first_missing(answers: Answers, asks: list[Ask]) -> Ask | None:
    return next((ask for ask in asks if ask.name not in answers), None)


def ringer_forms(table: RingerTable) -> list[Form]:
    """The Ringer moves that can be played now."""
    suits = tuple(Choice(suit, suit) for suit in table.data.suits)
    faces = (*(Choice(str(n), n) for n in table.data.faces), Choice("reroll", "reroll"))

    def card(answers: Answers, which: str) -> dict[str, Any]:
        face = answers[f"{which}_face"]
        return {
            "suit": answers[f"{which}_suit"],
            "number": None if face == "reroll" else face,
            "power": "reroll" if face == "reroll" else None,
        }

    forms = []
    if not table.awaiting_roll and not table.over:
        ringer = [
            _players(table, "whose Ringer?"),
            Ask("cards", "how many cards did it win?", count=(2, MAX_HAND, 2)),
        ]
        forms.append(
            Form(
                "ringer",
                "Ringer",
                "a player's card matched the die: count the cards won",
                lambda a: _first_missing(a, ringer),
                lambda a: {"type": "ringer", "seat": a["seat"], "cards": a["cards"]},
            )
        )
        reroll = [_players(table, "whose Reroll?")]
        forms.append(
            Form(
                "reroll",
                "Reroll",
                "a player played a Reroll: the popper rolls the die again",
                lambda a: _first_missing(a, reroll),
                lambda a: {"type": "reroll", "seat": a["seat"]},
                reroll=True,
            )
        )
    if not table.over:
        rule = [
            Ask("card_suit", "the card played: its suit?", suits),
            Ask("card_face", "the card played: its number?", faces),
            Ask("top_suit", "the card it went on: its suit?", suits),
            Ask("top_face", "the card it went on: its number?", faces),
        ]
        forms.append(
            Form(
                "rule",
                "rule",
                "is this card legal on that one?",
                lambda a: _first_missing(a, rule),
                lambda a: {
                    "type": "ruling",
                    "seat": 0,
                    "card": card(a, "card"),
                    "top": card(a, "top"),
                },
            )
        )
        hands = [
            Ask(f"hand{seat}", f"cards left in {literal(name)}'s hand?", count=(0, MAX_HAND, 0))
            for seat, name in enumerate(table.players)
        ]
        forms.append(
            Form(
                "end",
                "end",
                "the game is over: count the cards left in every hand",
                lambda a: _first_missing(a, hands),
                lambda a: {"type": "end", "hands": [a[f"hand{s}"] for s in range(len(hands))]},
            )
        )
    return forms


def popalotsy_forms(table: PopalotsyTable) -> list[Form]:
    """The Popalotsy moves that can be played now: a pile, or the check."""
    if table.awaiting_pop or table.over:
        return []
    colours = tuple(Choice(colour, colour) for colour in table.data.colors)
    faces = tuple(Choice(str(n), n) for n in table.data.faces)
    dice = tuple(Choice(f"{die.color} {die.number}", i) for i, die in enumerate(table.dice))

    def pile_ask(answers: Answers) -> Ask | None:
        if "die" not in answers:
            return Ask("die", "which die is the pile on?", dice)
        card = 1
        while answers.get(f"more{card}") is True:
            card += 1
        asks = [
            Ask(f"colour{card}", f"card {card} from the bottom: its colour?", colours),
            Ask(f"number{card}", f"card {card}: its number?", faces),
            _players(table, f"card {card}: whose arrow does it show?", f"by{card}"),
            Ask(f"more{card}", "another card on the pile?",
                (Choice("another card", True), Choice("that is the pile", False))),
        ]  # fmt: skip
        return _first_missing(answers, asks)

    def pile_move(answers: Answers) -> Move:
        cards = []
        card = 1
        while f"by{card}" in answers:
            cards.append(
                {
                    "color": answers[f"colour{card}"],
                    "number": answers[f"number{card}"],
                    "by": answers[f"by{card}"],
                }
            )
            card += 1
        return {"type": "pile", "die": answers["die"], "cards": cards}

    def pile_summary(answers: Answers) -> str:
        move = pile_move(answers) if "die" in answers else {"cards": []}
        shown = [f"{c['color']} {c['number']}" for c in move["cards"]]
        return ("pile: " + ", ".join(shown)) if shown else ""

    first = _players(table, "who ran out of cards first?", "out")
    nobody = Ask("out", first.prompt, (*first.choices, Choice("no one", None)))
    return [
        Form("pile", "pile", "the cards on a die, bottom first, as read out at the check",
             pile_ask, pile_move, summary=pile_summary),
        Form("check", "check", "rule on every pile entered, and deal the next round",
             lambda a: _first_missing(a, [nobody]),
             lambda a: {"type": "check", "first_out": [] if a["out"] is None else [a["out"]]}),
    ]  # fmt: skip


def forms_of(referee: Referee) -> list[Form]:
    if isinstance(referee, RingerTable):
        return ringer_forms(referee)
    if isinstance(referee, PopalotsyTable):
        return popalotsy_forms(referee)
    return []
