"""Ringer's cards, rule settings and play rules (docs/rules.md §2.1, §2.4-2.6).

The deck, suits and die faces come from games/data/ringer.json; the rules' open questions
are ``RingerConfig`` settings. ``play_problem`` is the legality test shared by the engine and
the ``check ringer`` command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path

from ..config import require_at_least, require_not_above
from ..data import read_data_file, read_deck
from ..errors import Reason
from ..fields import Field


class Power(str, Enum):
    ASK = "ask"
    DRAW1 = "draw1"
    DRAW2 = "draw2"
    TAKE_OVER = "take_over"
    REROLL = "reroll"
    STEAL1 = "steal1"


POWER_NAMES = tuple(power.value for power in Power)


@dataclass(frozen=True, slots=True)
class Card:
    """A ring card: a suit, a number (None on a Reroll) and perhaps a power."""

    suit: str
    number: int | None
    power: Power | None = None

    @property
    def is_reroll(self) -> bool:
        return self.number is None

    def __str__(self) -> str:
        text = f"{self.suit} {'reroll' if self.number is None else self.number}"
        return text if self.power in (None, Power.REROLL) else f"{text} ({self.power.value})"


Ask = int | str
"""What an Ask names: a number, or a suit other than the wild one."""


@dataclass(frozen=True)
class RingerConfig:
    """The settings of docs/rules.md §2.10, defaults first."""

    hand_size: int = 6
    """Cards dealt, and the refill target at the end of a turn and on a streak."""
    hand_limit: int = 10
    wrap_numbers: bool = False
    """Whether 6 and 1 count as consecutive (§2.4)."""
    wild_reroll_is_wild: bool = True
    """A Wild Reroll goes on any card and takes any card but a Take Over (§2.4)."""
    refill_after_pass: bool = True
    """A player who passed also draws up to the hand size (§2.3)."""
    limit_after_ask_and_steal: bool = True
    """The hand limit is enforced after Ask and Steal 1 too, not just Draw 1 / Draw 2 (§2.3)."""
    turn_goes_on_after_ringer: bool = True
    """The scorer of a Ringer keeps playing (§2.5)."""
    streak_on_take_over: bool = True
    """A Take Over that empties the taker's hand refills it at once (§2.6)."""
    end_when_blocked: bool = True
    """The game also ends when no card in any hand or in the draw pile can go on the top card:
    nobody can ever play again ("until everyone can no longer play", §2.7). Without it, full
    hands that pass keep cycling cards through a draw pile that never empties."""
    max_turns: int = 0
    """A safety stop for simulations: end the game after this many turns (0: never)."""

    def __post_init__(self) -> None:
        require_at_least("hand_size", self.hand_size, 1)
        require_not_above(self, "hand_size", "hand_limit")
        require_at_least("max_turns", self.max_turns, 0)


@dataclass(frozen=True)
class RingerData:
    """The components: suits (with their letters), the wild suit, die faces and the deck."""

    suits: tuple[str, ...]
    letters: dict[str, str]
    wild: str
    faces: tuple[int, ...]
    deck: tuple[Card, ...]
    min_players: int
    max_players: int

    @property
    def plain_suits(self) -> tuple[str, ...]:
        """The suits an Ask may name: every suit but the wild one (§2.6)."""
        return tuple(suit for suit in self.suits if suit != self.wild)

    @classmethod
    def load(cls, path: str | Path | None = None) -> RingerData:
        """Read and check games/data/ringer.json, or the replacement at ``path``."""
        if path is None:
            return _packaged_ringer()
        return _load_ringer(path)


def identical(card: Card, top: Card) -> bool:
    """Same suit and same number (or both Rerolls): powers are ignored (§2.4)."""
    return card.suit == top.suit and card.number == top.number


def play_problem(
    card: Card, top: Card, data: RingerData, config: RingerConfig | None = None
) -> Reason | None:
    """Why ``card`` may not be played on ``top`` (None: it may), docs/rules.md §2.4: where several
    reasons apply, the first of take_over_on_wild_reroll, identical, suit_mismatch,
    not_consecutive, not_matching; a wild card on either side not one apart is not_matching."""
    config = config or RingerConfig()
    wild = data.wild
    if card.power is Power.TAKE_OVER and top.is_reroll and top.suit == wild:
        return Reason.TAKE_OVER_ON_WILD_REROLL
    if identical(card, top):
        return Reason.IDENTICAL
    if top.number is None:
        if top.suit == wild and config.wild_reroll_is_wild:
            return None
        return None if card.suit in (top.suit, wild) else Reason.SUIT_MISMATCH
    if card.number is None:
        if card.suit == wild and config.wild_reroll_is_wild:
            return None
        return None if card.suit == top.suit or top.suit == wild else Reason.SUIT_MISMATCH
    apart = _distance(card.number, top.number, data.faces, config.wrap_numbers)
    if wild in (card.suit, top.suit):
        return None if apart <= 1 else Reason.NOT_MATCHING
    if card.suit == top.suit:
        return None if apart == 1 else Reason.NOT_CONSECUTIVE
    return None if apart == 0 else Reason.NOT_MATCHING


def _distance(a: int, b: int, faces: Sequence[int], wrap: bool) -> int:
    apart = abs(a - b)
    return min(apart, len(faces) - apart) if wrap else apart


def scores_ringer(card: Card, die: int) -> bool:
    """Whether ``card`` matches the die (played in turn, this is a Ringer, §2.5)."""
    return card.number is not None and card.number == die


def answers_ask(card: Card, ask: Ask) -> bool:
    """Whether ``card`` is one an Ask for ``ask`` can be answered with (printed number/suit)."""
    if isinstance(ask, int):
        return card.number == ask
    return card.suit == ask


@lru_cache(maxsize=1)
def _packaged_ringer() -> RingerData:
    return _load_ringer(None)


def _load_ringer(path: str | Path | None) -> RingerData:
    doc = read_data_file("ringer.json", path)
    players = doc.key("players")
    low = players.key("min").integer(2, None, "a player count of at least 2")
    high = players.key("max").integer(low, None, f"a player count of at least {low}")
    letters: dict[str, str] = {}
    for entry in doc.key("suits").items():
        name = entry.key("name").string("a suit name")
        if name in letters:
            entry.key("name").fail(f"suit {name!r} is listed twice")
        letters[name] = entry.key("letter").string("a letter")
    suits = tuple(letters)
    wild = doc.key("wild_suit").choice(suits, "one of the suits")
    faces = tuple(item.integer(what="a die face") for item in doc.key("die_faces").items())
    if not faces or len(set(faces)) != len(faces):
        doc.key("die_faces").fail("must list distinct die faces")

    def read_card(entry: Field) -> Card:
        suit = entry.key("suit").choice(suits, "one of the suits")
        number_field = entry.key("number")
        power_field = entry.optional("power")
        power = None if power_field is None else Power(power_field.choice(POWER_NAMES, "a power"))
        if number_field.is_null():
            if power is not Power.REROLL:
                number_field.fail("only a Reroll card has no number")
            return Card(suit, None, power)
        if power is Power.REROLL:
            number_field.fail("a Reroll card has no number: write null")
        return Card(suit, number_field.number_in(faces, "a die face"), power)

    return RingerData(suits, letters, wild, faces, read_deck(doc, read_card), low, high)
