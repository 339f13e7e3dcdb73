"""The Ringer engine: turns of plays onto the Play Stack, powers, Take Overs, the end and scores.

Decisions a power asks of someone (the card an Ask is answered with, the cards put back under
the hand limit, the card that starts a stack once the draw pile is empty) are pending
decisions: while one is open only its player may act. Otherwise the player whose turn it is
plays, stops or passes, and every other player holding a legal Take Over may play it out of
turn (docs/rules.md §2.6: who responds first is the caller's business; ``apply`` order decides).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..config import require_at_most
from ..engine import GameState, check_player_count
from ..errors import InvalidMove, Reason
from .rules import (
    Ask,
    Card,
    Power,
    RingerConfig,
    RingerData,
    answers_ask,
    play_problem,
    scores_ringer,
)


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` onto the stack. Ask and Steal 1 name a ``target`` seat; Ask names what it
    ``ask``s for (a number, or a suit other than wild). Both are ignored when the card scores."""

    card: Card
    target: int | None = None
    ask: Ask | None = None


@dataclass(frozen=True, slots=True)
class Stop:
    """End the turn after playing at least one card."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Play nothing: draw 1 and end the turn. With a full hand, ``bury`` a card first."""

    bury: Card | None = None


@dataclass(frozen=True, slots=True)
class Give:
    """Answer an Ask with this card."""

    card: Card


@dataclass(frozen=True, slots=True)
class Bury:
    """Put this card on the bottom of the draw pile (over the hand limit)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Start:
    """Start the new Play Stack with this card (the draw pile is empty)."""

    card: Card


RingerAction = Play | Stop | Pass | Give | Bury | Start


class Need(Enum):
    GIVE = "give"
    BURY = "bury"
    START = "start"


@dataclass
class Pending:
    """A decision someone owes before play goes on."""

    need: Need
    player: int
    asker: int | None = None
    ask: Ask | None = None
    count: int = 1


@dataclass(frozen=True)
class PlayResult:
    """What the last card played did: a Ringer (and how many cards it won), or its power."""

    player: int
    card: Card
    ringer: bool
    won: int
    power: Power | None
    out_of_turn: bool = False


class RingerState(GameState[RingerAction]):
    """One game of Ringer. The draw pile's top is the end of ``pile``."""

    game_name = "ringer"
    length_unit = "turns"
    score_meaning = "points (cards won minus cards in hand; higher is better)"

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        config: RingerConfig | None = None,
        data: RingerData | None = None,
    ) -> None:
        super().__init__(num_players, seed)
        self.config = config or RingerConfig()
        self.data = data or RingerData.load()
        check_player_count("ringer", num_players, self.data.min_players, self.data.max_players)
        deck = len(self.data.deck)
        for name in ("hand_size", "hand_limit"):
            require_at_most(name, getattr(self.config, name), deck, f"the {deck} cards of the deck")
        self.pile: list[Card] = list(self.data.deck)
        self.rng.shuffle(self.pile)
        self.hands: list[list[Card]] = [[] for _ in range(num_players)]
        self.collected: list[list[Card]] = [[] for _ in range(num_players)]
        self._deal()
        self.die = self._roll()
        self.stack: list[Card] = [self.pile.pop()] if self.pile else []
        self.current = 0
        self.turn_plays = 0
        self.pending: list[Pending] = []
        self.passes_in_row = 0
        self.turns = 1
        self.over = not self.stack
        self.aborted = False
        self.last_play: PlayResult | None = None
        self._turn_ends_when_settled = False

    # --- the engine interface ---------------------------------------------------------

    def current_players(self) -> list[int]:
        if self.over:
            return []
        if self.pending:
            return [self.pending[0].player]
        others = [self.left_of(self.current, step) for step in range(1, self.num_players)]
        return [self.current, *[seat for seat in others if self._take_overs(seat)]]

    def legal_actions(self, player: int) -> list[RingerAction]:
        if self.over or not 0 <= player < self.num_players:
            return []
        hand = list(dict.fromkeys(self.hands[player]))
        if self.pending:
            need = self.pending[0]
            if player != need.player:
                return []
            if need.need is Need.GIVE:
                assert need.ask is not None
                return [Give(card) for card in hand if answers_ask(card, need.ask)]
            if need.need is Need.BURY:
                return [Bury(card) for card in hand]
            return [Start(card) for card in hand]
        if player != self.current:
            return list(self._take_overs(player))
        actions: list[RingerAction] = []
        for card in hand:
            if self.stack and play_problem(card, self.stack[-1], self.data, self.config) is None:
                actions.extend(self._play_variants(player, card))
        if self.turn_plays:
            actions.append(Stop())
        elif len(self.hands[player]) >= self.config.hand_limit:
            actions.extend(Pass(bury=card) for card in hand)
        else:
            actions.append(Pass())
        return actions

    def apply(self, player: int, action: RingerAction) -> None:
        self._check_seat(player)
        out_of_turn_take_over = False
        if self.pending:
            self._decide(player, action)
        elif isinstance(action, Play):
            if player == self.current:
                self._play(player, action)
            else:
                self._take_over(player, action)
                out_of_turn_take_over = True
        elif isinstance(action, (Stop, Pass)):
            if player != self.current:
                raise InvalidMove(Reason.NOT_YOUR_TURN, f"it is seat {self.current}'s turn")
            if isinstance(action, Stop):
                self._stop()
            else:
                self._pass(action)
        else:
            raise InvalidMove(Reason.WRONG_KIND_OF_ACTION, f"nobody asked for {action!r}")
        self._settle(streak=not out_of_turn_take_over or self.config.streak_on_take_over)

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        return [len(won) - len(hand) for won, hand in zip(self.collected, self.hands, strict=True)]

    def winners(self) -> list[int]:
        if not self.over or self.aborted:
            return []
        scores = self.scores()
        best = max(scores)
        return [seat for seat, score in enumerate(scores) if score == best]

    def length(self) -> int:
        return self.turns

    def view(self, player: int) -> dict[str, Any]:
        need = self.pending[0] if self.pending else None
        return {
            "game": self.game_name,
            "you": player,
            "turn": self.current,
            "hand": [_card_json(card) for card in self.hands[player]],
            "hand_sizes": [len(hand) for hand in self.hands],
            "won": [len(won) for won in self.collected],
            "die": self.die,
            "stack": [_card_json(card) for card in self.stack],
            "draw_pile": len(self.pile),
            "pending": None
            if need is None
            else {"need": need.need.value, "player": need.player, "ask": need.ask},
            "over": self.over,
        }

    def blocked(self) -> bool:
        """No card in any hand or in the draw pile can be played on the top card."""
        if not self.stack:
            return False
        top = self.stack[-1]
        cards = {card for hand in self.hands for card in hand} | set(self.pile)
        return all(play_problem(card, top, self.data, self.config) is not None for card in cards)

    # --- legal moves ------------------------------------------------------------------

    def _take_overs(self, seat: int) -> list[Play]:
        if not self.stack:
            return []
        top = self.stack[-1]
        return [
            Play(card)
            for card in dict.fromkeys(self.hands[seat])
            if card.power is Power.TAKE_OVER
            and play_problem(card, top, self.data, self.config) is None
        ]

    def _play_variants(self, player: int, card: Card) -> list[Play]:
        power = None if scores_ringer(card, self.die) else card.power
        targets = [self.left_of(player, step) for step in range(1, self.num_players)]
        if power is Power.ASK:
            asks: list[Ask] = [*self.data.faces, *self.data.plain_suits]
            return [Play(card, target, ask) for target in targets for ask in asks]
        if power is Power.STEAL1:
            return [Play(card, target) for target in targets]
        return [Play(card)]

    # --- moves ------------------------------------------------------------------------

    def _play(self, player: int, play: Play) -> None:
        card = play.card
        self._require_in_hand(player, card)
        if not self.stack:
            raise InvalidMove(Reason.NO_STACK, "no Play Stack has been started")
        problem = play_problem(card, self.stack[-1], self.data, self.config)
        if problem is not None:
            raise InvalidMove(problem, f"{card} on {self.stack[-1]}")
        ringer = scores_ringer(card, self.die)
        power = None if ringer or card.power is Power.TAKE_OVER else card.power
        self._check_power_choice(player, power, play)
        self.hands[player].remove(card)
        self.stack.append(card)
        self.turn_plays += 1
        self.passes_in_row = 0
        won = len(self.stack) if ringer else 0
        self.last_play = PlayResult(player, card, ringer, won, power)
        if ringer:
            self._score(player)
        else:
            self._use_power(player, power, play)

    def _take_over(self, player: int, play: Play) -> None:
        card = play.card
        self._require_in_hand(player, card)
        if not self.stack:
            raise InvalidMove(Reason.NO_STACK, "no Play Stack has been started")
        if card.power is not Power.TAKE_OVER:
            raise InvalidMove(Reason.OUT_OF_TURN, "only a Take Over may be played out of turn")
        self._check_power_choice(player, None, play)
        problem = play_problem(card, self.stack[-1], self.data, self.config)
        if problem is not None:
            raise InvalidMove(problem, f"{card} on {self.stack[-1]}")
        self.hands[player].remove(card)
        self.stack.append(card)
        self.last_play = PlayResult(player, card, False, 0, Power.TAKE_OVER, out_of_turn=True)
        # The victim's turn ends here, without the refill to the hand size.
        self.current = player
        self.turn_plays = 1
        self.passes_in_row = 0
        self.turns += 1
        self._turn_ends_when_settled = False
        self._check_turn_limit()

    def _stop(self) -> None:
        if not self.turn_plays:
            raise InvalidMove(Reason.NOTHING_PLAYED, "play a card or pass")
        self._end_turn(refill=True)

    def _pass(self, action: Pass) -> None:
        if self.turn_plays:
            raise InvalidMove(Reason.ALREADY_PLAYED, "a card was played this turn: stop instead")
        hand = self.hands[self.current]
        if len(hand) >= self.config.hand_limit:
            if action.bury is None:
                raise InvalidMove(Reason.MUST_BURY, "a full hand puts one card back first")
            self._require_in_hand(self.current, action.bury)
        elif action.bury is not None:
            raise InvalidMove(Reason.NO_BURY_NEEDED, "only a full hand puts a card back")
        pile_was_empty = not self.pile
        if action.bury is not None:
            hand.remove(action.bury)
            self.pile.insert(0, action.bury)
        self._draw(self.current, 1)
        self.passes_in_row = self.passes_in_row + 1 if pile_was_empty else 0
        self._end_turn(refill=self.config.refill_after_pass)
        if self.config.end_when_blocked and not self.over and self.blocked():
            self.over = True

    def _decide(self, player: int, action: RingerAction) -> None:
        need = self.pending[0]
        if player != need.player:
            raise InvalidMove(Reason.NOT_YOUR_TURN, f"waiting for seat {need.player}")
        if need.need is Need.GIVE and isinstance(action, Give):
            assert need.asker is not None and need.ask is not None
            self._require_in_hand(player, action.card)
            if not answers_ask(action.card, need.ask):
                raise InvalidMove(Reason.NOT_ASKED_FOR, f"{action.card} is not a {need.ask}")
            self.hands[player].remove(action.card)
            self.hands[need.asker].append(action.card)
            self.pending.pop(0)
            if self.config.limit_after_ask_and_steal:
                self._enforce_limit(need.asker)
        elif need.need is Need.BURY and isinstance(action, Bury):
            self._require_in_hand(player, action.card)
            self.hands[player].remove(action.card)
            self.pile.insert(0, action.card)
            need.count -= 1
            if not need.count:
                self.pending.pop(0)
        elif need.need is Need.START and isinstance(action, Start):
            self._require_in_hand(player, action.card)
            self.hands[player].remove(action.card)
            self.stack = [action.card]
            self.pending.pop(0)
        else:
            raise InvalidMove(
                Reason.WRONG_KIND_OF_ACTION, f"seat {player} owes a {need.need.value}"
            )

    # --- consequences -----------------------------------------------------------------

    def _check_power_choice(self, player: int, power: Power | None, play: Play) -> None:
        """Ask needs a target and what to ask for, Steal 1 a target, every other play neither."""
        if power is not Power.ASK and play.ask is not None:
            raise InvalidMove(Reason.BAD_ASK, "only an Ask that takes effect asks for anything")
        if power is not Power.ASK and power is not Power.STEAL1:
            if play.target is not None:
                raise InvalidMove(Reason.BAD_TARGET, "this play aims at nobody")
            return
        target = play.target
        if target is None or not 0 <= target < self.num_players or target == player:
            raise InvalidMove(Reason.BAD_TARGET, f"{power.value} needs another player's seat")
        if power is Power.ASK:
            ask = play.ask
            good = (
                ask in self.data.faces
                if isinstance(ask, int) and not isinstance(ask, bool)
                else ask in self.data.plain_suits
            )
            if not good:
                raise InvalidMove(
                    Reason.BAD_ASK, f"ask for a number or a non-wild suit, not {ask!r}"
                )

    def _use_power(self, player: int, power: Power | None, play: Play) -> None:
        if power is Power.ASK:
            assert play.target is not None and play.ask is not None
            if any(answers_ask(card, play.ask) for card in self.hands[play.target]):
                self.pending.append(Pending(Need.GIVE, play.target, player, play.ask))
        elif power in (Power.DRAW1, Power.DRAW2):
            self._draw(player, 1 if power is Power.DRAW1 else 2)
            self._enforce_limit(player)
        elif power is Power.REROLL:
            self.die = self._roll()
        elif power is Power.STEAL1:
            assert play.target is not None
            victim = self.hands[play.target]
            if victim:
                stolen = victim.pop(self.rng.randrange(len(victim)))
                self.hands[player].append(stolen)
                if self.config.limit_after_ask_and_steal:
                    self._enforce_limit(player)

    def _score(self, player: int) -> None:
        """A Ringer: take the stack, re-roll, start the next stack (§2.5)."""
        self.collected[player].extend(self.stack)
        self.stack = []
        self.die = self._roll()
        if self.pile:
            self.stack = [self.pile.pop()]
        else:
            starters = [self.left_of(player, step) for step in range(self.num_players)]
            starter = next((seat for seat in starters if self.hands[seat]), None)
            if starter is None:
                self.over = True
                return
            self.pending.append(Pending(Need.START, starter))
        if not self.config.turn_goes_on_after_ringer:
            self._turn_ends_when_settled = True

    def _settle(self, streak: bool) -> None:
        """After a move: streaks, a turn that ends after a Ringer, the end of the game."""
        if self.over or self.pending:
            return
        hand = self.hands[self.current]
        if streak and not hand and self.turn_plays:
            self._draw(self.current, self.config.hand_size)
        if self._turn_ends_when_settled:
            self._turn_ends_when_settled = False
            self._end_turn(refill=True)
        if not self.pile and not any(self.hands):
            self.over = True

    def _end_turn(self, refill: bool) -> None:
        if refill:
            hand = self.hands[self.current]
            self._draw(self.current, self.config.hand_size - len(hand))
        self.current = self.left_of(self.current)
        self.turn_plays = 0
        self.turns += 1
        if not self.pile and self.passes_in_row >= self.num_players:
            self.over = True
        self._check_turn_limit()

    def _check_turn_limit(self) -> None:
        if self.config.max_turns and self.turns > self.config.max_turns and not self.over:
            self.over = True
            self.aborted = True

    def _enforce_limit(self, player: int) -> None:
        excess = len(self.hands[player]) - self.config.hand_limit
        if excess > 0:
            self.pending.append(Pending(Need.BURY, player, count=excess))

    def _deal(self) -> None:
        """Deal ``hand_size`` cards each, one at a time clockwise from seat 0, while any last."""
        for _ in range(self.config.hand_size):
            for hand in self.hands:
                if not self.pile:
                    return
                hand.append(self.pile.pop())

    def _draw(self, player: int, count: int) -> None:
        for _ in range(max(count, 0)):
            if not self.pile:
                return
            self.hands[player].append(self.pile.pop())

    def _roll(self) -> int:
        return self.rng.choice(self.data.faces)

    def _require_in_hand(self, player: int, card: Card) -> None:
        if card not in self.hands[player]:
            raise InvalidMove(Reason.NOT_IN_HAND, f"seat {player} holds no {card}")


def _card_json(card: Card) -> dict[str, Any]:
    return {
        "suit": card.suit,
        "number": card.number,
        "power": None if card.power is None else card.power.value,
    }
