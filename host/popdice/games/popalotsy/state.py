"""The Popalotsy engine: deal, pop, the race (or turns), verification, the +1-card rounds.

Drops are serialised in the order ``apply`` receives them, so two players racing for one die
are judged against the top card as it is when each card lands (docs/rules.md §1.5). In ``faithful``
mode any card a player holds may be dropped on any die (``legal_actions`` still lists only the
drops the rules allow); wrong drops are punished when the piles are checked. In ``strict``
mode a wrong drop raises ``InvalidMove`` and the card stays in the hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import require_at_most
from ..engine import GameState, check_player_count
from ..errors import InvalidMove, Reason
from .rules import (
    Card,
    Die,
    PopalotsyConfig,
    PopalotsyData,
    drop_problem,
    penalised_card,
)


@dataclass(frozen=True, slots=True)
class Drop:
    """Drop ``card`` from the hand onto the pile of die number ``die`` (0-based)."""

    card: Card
    die: int


@dataclass(frozen=True, slots=True)
class Pass:
    """In the race: "I'm done this round". In the turn-taking variant: pass this turn."""


PopalotsyAction = Drop | Pass


@dataclass(frozen=True, slots=True)
class Placed:
    """A card on a pile; ``owner`` is the seat its arrow points at."""

    card: Card
    owner: int


@dataclass(frozen=True)
class PileVerdict:
    """The check of one pile at the end of a round."""

    die: int
    cards: int
    first_bad: int | None = None
    reason: Reason | None = None
    takes_back: int | None = None


@dataclass(frozen=True)
class RoundResult:
    round: int
    piles: tuple[PileVerdict, ...]
    emptied: tuple[int, ...]
    winner: int | None


class PopalotsyState(GameState[PopalotsyAction]):
    """One game of Popalotsy; see the module docstring for how drops are judged."""

    game_name = "popalotsy"
    length_unit = "rounds"
    score_meaning = "cards left in hand (fewer is better)"

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        config: PopalotsyConfig | None = None,
        data: PopalotsyData | None = None,
    ) -> None:
        super().__init__(num_players, seed)
        self.config = config or PopalotsyConfig()
        self.data = data or PopalotsyData.load()
        check_player_count("popalotsy", num_players, self.data.min_players, self.data.max_players)
        deck = len(self.data.deck)
        for name in ("hand_size", "cards_per_round"):
            require_at_most(name, getattr(self.config, name), deck, f"the {deck} cards of the deck")
        self.deck: list[Card] = list(self.data.deck)
        self.rng.shuffle(self.deck)
        self.discard: list[Card] = []
        self.hands: list[list[Card]] = [[] for _ in range(num_players)]
        self.piles: list[list[Placed]] = [[] for _ in self.data.colors]
        self.dice: list[Die] = []
        self.popper = 0
        self.round = 1
        self.done = [False] * num_players
        self.emptied: list[int] = []
        self.turn = self.popper
        self.passes_in_row = 0
        self.winner: int | None = None
        self.over = False
        self.history: list[RoundResult] = []
        self._deal(self.config.hand_size)
        self._pop()
        self._settle()

    # --- the engine interface ---------------------------------------------------------

    def current_players(self) -> list[int]:
        if self.over:
            return []
        if self.config.turn_taking:
            return [self.turn]
        return [seat for seat in range(self.num_players) if not self.done[seat]]

    def legal_actions(self, player: int) -> list[PopalotsyAction]:
        if player not in self.current_players():
            return []
        actions: list[PopalotsyAction] = list(self.legal_drops(player))
        actions.append(Pass())
        return actions

    def legal_drops(self, player: int) -> list[Drop]:
        return [
            Drop(card, index)
            for card in dict.fromkeys(self.hands[player])
            for index, die in enumerate(self.dice)
            if drop_problem(card, die, self.top(index)) is None
        ]

    def apply(self, player: int, action: PopalotsyAction) -> None:
        self._check_seat(player)
        if player not in self.current_players():
            raise InvalidMove(Reason.NOT_YOUR_TURN, f"seat {player} cannot act now")
        if isinstance(action, Drop):
            self._drop(player, action)
        elif isinstance(action, Pass):
            self._pass(player)
        else:
            raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, f"{action!r} is not a Popalotsy move")
        self._settle()

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def length(self) -> int:
        return self.round

    def view(self, player: int) -> dict[str, Any]:
        return {
            "game": self.game_name,
            "you": player,
            "round": self.round,
            "hand": [_card_json(card) for card in self.hands[player]],
            "hand_sizes": [len(hand) for hand in self.hands],
            "dice": [{"color": die.color, "number": die.number} for die in self.dice],
            "piles": [
                [{**_card_json(placed.card), "by": placed.owner} for placed in pile]
                for pile in self.piles
            ],
            "deck": len(self.deck),
            "discard": len(self.discard),
            "done": list(self.done),
            "turn": self.turn if self.config.turn_taking else None,
            "over": self.over,
            "winner": self.winner,
        }

    # --- also for apps ----------------------------------------------------------------

    def top(self, die: int) -> Card | None:
        pile = self.piles[die]
        return pile[-1].card if pile else None

    def stop_race(self) -> None:
        """End the round now, e.g. when the table's timer runs out (§1.3 c)."""
        if not self.over:
            self._end_round()
            self._settle()

    # --- moves ------------------------------------------------------------------------

    def _drop(self, player: int, drop: Drop) -> None:
        if not 0 <= drop.die < len(self.dice):
            raise InvalidMove(Reason.NO_SUCH_DIE, f"there is no die {drop.die}")
        hand = self.hands[player]
        if drop.card not in hand:
            raise InvalidMove(Reason.NOT_IN_HAND, f"seat {player} holds no {drop.card}")
        problem = drop_problem(drop.card, self.dice[drop.die], self.top(drop.die))
        if problem is not None and self.config.mode == "strict":
            raise InvalidMove(problem, f"{drop.card} on {self.dice[drop.die]}")
        hand.remove(drop.card)
        self.piles[drop.die].append(Placed(drop.card, player))
        self.passes_in_row = 0
        if not hand:
            self.emptied.append(player)
            if self.config.win_after_verification:
                self._end_round()
            else:
                self.winner = player
                self.over = True
            return
        if self.config.turn_taking:
            self.turn = self.left_of(self.turn)

    def _pass(self, player: int) -> None:
        if not self.config.turn_taking:
            self.done[player] = True
            return
        self.passes_in_row += 1
        if self.passes_in_row >= self.num_players:
            self._end_round()
        else:
            self.turn = self.left_of(self.turn)

    # --- rounds -----------------------------------------------------------------------

    def _settle(self) -> None:
        """End race rounds that are over by themselves: everyone done or stuck (§1.3 b)."""
        while not self.over and not self.config.turn_taking and self._race_is_over():
            self._end_round()

    def _race_is_over(self) -> bool:
        return all(
            self.done[seat] or (self.config.stuck_counts_as_done and not self.legal_drops(seat))
            for seat in range(self.num_players)
        )

    def _end_round(self) -> None:
        verdicts = tuple(self._verify(index) for index in range(len(self.piles)))
        winner = next((seat for seat in self.emptied if not self.hands[seat]), None)
        self.history.append(RoundResult(self.round, verdicts, tuple(self.emptied), winner))
        if winner is not None:
            self.winner = winner
            self.over = True
            return
        cleared = [placed.card for pile in self.piles for placed in pile]
        for pile in self.piles:
            pile.clear()
        if self.config.cleared_piles == "discard":
            self.discard.extend(cleared)
        else:
            self.deck.extend(cleared)
            self.rng.shuffle(self.deck)
        if self.config.popper_rotates:
            self.popper = self.left_of(self.popper)
        self._deal(self.config.cards_per_round)
        self.round += 1
        if self.config.max_rounds and self.round > self.config.max_rounds:
            self.over = True
            return
        self.done = [False] * self.num_players
        self.emptied = []
        self.passes_in_row = 0
        self.turn = self.popper
        self._pop()

    def _verify(self, index: int) -> PileVerdict:
        """Check one pile; the owner of the penalised card takes all of it into hand (§1.5)."""
        pile = self.piles[index]
        cards = [placed.card for placed in pile]
        bad = penalised_card(cards, self.dice[index], self.config.penalised_card)
        if bad is None:
            return PileVerdict(index, len(cards))
        position, reason = bad
        owner = pile[position].owner
        self.hands[owner].extend(cards)
        pile.clear()
        return PileVerdict(index, len(cards), position, reason, owner)

    def _deal(self, count: int) -> None:
        """Deal ``count`` cards each, one at a time clockwise from the popper, while any last."""
        for _ in range(count):
            for step in range(self.num_players):
                card = self._draw()
                if card is None:
                    return
                self.hands[self.left_of(self.popper, step)].append(card)

    def _draw(self) -> Card | None:
        if not self.deck and self.config.reshuffle_discard and self.discard:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
        return self.deck.pop() if self.deck else None

    def _pop(self) -> None:
        self.dice = [Die(color, self.rng.choice(self.data.faces)) for color in self.data.colors]


def _card_json(card: Card) -> dict[str, Any]:
    return {"color": card.color, "number": card.number}
