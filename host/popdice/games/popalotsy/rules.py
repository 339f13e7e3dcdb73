"""Popalotsy's components, rule settings and drop rules (docs/rules.md §1.1, §1.4-1.6).

The components (colours, die faces, the card list) come from games/data/popalotsy.json; the
rules' open questions are ``PopalotsyConfig`` settings. The drop rules are plain functions
shared by the engine and the ``check popalotsy`` command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from pathlib import Path

from ..config import require_at_least, require_choice
from ..data import read_data_file, read_deck
from ..errors import Reason
from ..fields import Field


@dataclass(frozen=True, slots=True)
class Card:
    """A ring card: one colour and one number. Copies of the same card are interchangeable."""

    color: str
    number: int

    def __str__(self) -> str:
        return f"{self.color} {self.number}"


@dataclass(frozen=True, slots=True)
class Die:
    """A popped die: its fixed colour and the number on top."""

    color: str
    number: int

    def __str__(self) -> str:
        return f"{self.color} {self.number}"


class Match(IntEnum):
    """How a card matches a die; a higher value beats a lower one (§1.4)."""

    NONE = 0
    COLOR = 1
    NUMBER = 2
    EXACT = 3


def match(card: Card, die: Die) -> Match:
    same_color = card.color == die.color
    same_number = card.number == die.number
    if same_color and same_number:
        return Match.EXACT
    if same_number:
        return Match.NUMBER
    if same_color:
        return Match.COLOR
    return Match.NONE


def drop_problem(card: Card, die: Die, top: Card | None) -> Reason | None:
    """Why ``card`` may not land on ``die`` whose pile shows ``top`` (None: it may)."""
    mine = match(card, die)
    if mine is Match.NONE:
        return Reason.NO_MATCH
    if top is None:
        return None
    beneath = match(top, die)
    if beneath is Match.EXACT:
        return Reason.LOCKED
    if mine is Match.EXACT:
        return None
    if beneath is Match.NONE:
        # Only an exact match goes on a card that should not be there (a later card of a
        # pile that is already wrong; the first wrong card never lies on one).
        return Reason.ON_WRONG_CARD
    if mine is Match.NUMBER:
        return None if beneath is Match.COLOR else Reason.NUMBER_ON_NUMBER
    # a colour match: only on a colour match, and only higher
    if beneath is not Match.COLOR:
        return Reason.COLOR_AFTER_NUMBER
    return None if card.number > top.number else Reason.NOT_HIGHER


def pile_problems(pile: Sequence[Card], die: Die) -> list[tuple[int, Reason]]:
    """Every card of ``pile`` (bottom first) that could not be dropped on what lay beneath."""
    return [
        (index, reason)
        for index, card in enumerate(pile)
        if (reason := drop_problem(card, die, pile[index - 1] if index else None)) is not None
    ]


def penalised_card(pile: Sequence[Card], die: Die, which: str) -> tuple[int, Reason] | None:
    """The bad card whose owner takes the pile back: the ``first`` or ``last`` one (§1.5)."""
    problems = pile_problems(pile, die)
    if not problems:
        return None
    return problems[0] if which == "first" else problems[-1]


@dataclass(frozen=True)
class PopalotsyConfig:
    """The settings of docs/rules.md §1.9, defaults first."""

    mode: str = "faithful"
    """`faithful`: any drop lands and wrong ones are punished at verification; `strict`: an
    illegal drop is refused at once and stays in the hand (§1.5)."""
    turn_taking: bool = False
    """The variant for younger players: clockwise turns of one drop or a pass (§1.6)."""
    hand_size: int = 5
    cards_per_round: int = 1
    penalised_card: str = "first"
    """Which bad card's owner takes a pile with several bad cards: `first` or `last` (§1.5)."""
    popper_rotates: bool = False
    """False: the same player pops every round (§1.2). The popper is dealt to first."""
    cleared_piles: str = "discard"
    """Where the piles go after a round: `discard` (reshuffled when the deck runs out) or
    `deck` (shuffled straight back into the deck) (§1.6)."""
    reshuffle_discard: bool = True
    """When the deck runs out, shuffle the discard pile into a new deck (§1.6)."""
    win_after_verification: bool = True
    """An emptied hand wins only if it is still empty after the piles are checked (§1.6)."""
    stuck_counts_as_done: bool = True
    """The race ends when every player has said done or has no legal drop (§1.3)."""
    max_rounds: int = 0
    """A safety stop for simulations: end without a winner after this many rounds (0: never)."""

    def __post_init__(self) -> None:
        require_choice("mode", self.mode, ("faithful", "strict"))
        require_choice("penalised_card", self.penalised_card, ("first", "last"))
        require_choice("cleared_piles", self.cleared_piles, ("discard", "deck"))
        require_at_least("hand_size", self.hand_size, 1)
        require_at_least("cards_per_round", self.cards_per_round, 0)
        require_at_least("max_rounds", self.max_rounds, 0)

    @classmethod
    def younger_players(cls) -> PopalotsyConfig:
        """The variant "For Younger Players": turns instead of a race, strict legality."""
        return cls(mode="strict", turn_taking=True)


@dataclass(frozen=True)
class PopalotsyData:
    """The components: colours (one die each), die faces, and the deck (with copies)."""

    colors: tuple[str, ...]
    faces: tuple[int, ...]
    deck: tuple[Card, ...]
    min_players: int
    max_players: int

    @classmethod
    def load(cls, path: str | Path | None = None) -> PopalotsyData:
        """Read and check games/data/popalotsy.json, or the replacement at ``path``."""
        if path is None:
            return _packaged_popalotsy()
        return _load_popalotsy(path)


@lru_cache(maxsize=1)
def _packaged_popalotsy() -> PopalotsyData:
    return _load_popalotsy(None)


def _load_popalotsy(path: str | Path | None) -> PopalotsyData:
    doc = read_data_file("popalotsy.json", path)
    players = doc.key("players")
    low = players.key("min").integer(1, None, "a player count")
    high = players.key("max").integer(low, None, f"a player count of at least {low}")
    colors = tuple(item.string("a colour name") for item in doc.key("colors").items())
    if not colors:
        doc.key("colors").fail("no colours")
    if len(set(colors)) != len(colors):
        doc.key("colors").fail("a colour is listed twice")
    faces = tuple(item.integer(what="a die face") for item in doc.key("die_faces").items())
    if not faces or len(set(faces)) != len(faces):
        doc.key("die_faces").fail("must list distinct die faces")

    def read_card(entry: Field) -> Card:
        color = entry.key("color").choice(colors, "one of the colours")
        return Card(color, entry.key("number").number_in(faces, "a die face"))

    return PopalotsyData(colors, faces, read_deck(doc, read_card), low, high)
