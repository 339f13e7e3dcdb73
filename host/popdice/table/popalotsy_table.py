"""The Popalotsy referee: each round's pop, the piles entered at the check, and the hands.

The cards are real. The laptop shows each round's pop (five coloured dice), takes each pile
as the players read it out at the check (bottom card first, with the seat its arrow points
at), rules on it with ``penalised_card`` of games/popalotsy/rules.py (the owner of the
penalised card takes the whole pile back, §1.5), and keeps every hand size, the deck and the
discard pile (+1 card each round, reshuffling the discard, §1.6) and the winner.
"""

from __future__ import annotations

from typing import Any

from ..games.popalotsy.rules import Card, Die, PopalotsyConfig, PopalotsyData, penalised_card
from .referee import Move, Referee, Refused, Settings


class PopalotsyTable(Referee):
    game = "popalotsy"

    def __init__(self, players: list[str], settings: Settings | None = None) -> None:
        super().__init__(players, settings)
        self.data = PopalotsyData.load()
        self.config = PopalotsyConfig()
        if not self.data.min_players <= len(players) <= self.data.max_players:
            raise Refused(
                "bad_players",
                f"popalotsy takes {self.data.min_players} to {self.data.max_players} players",
            )
        self.round = 1
        self.dice: list[Die] = []
        self.awaiting_pop = True
        self.hands = [0] * len(players)
        self.deck = len(self.data.deck)
        self.discard = 0
        self.piles: dict[int, list[tuple[Card, int]]] = {}
        self.winner: int | None = None
        self._deal(self.config.hand_size)

    def wants_roll(self) -> bool:
        return self.awaiting_pop and not self.over

    def roll(self, dice: list[dict[str, Any]]) -> None:
        self.require_playing()
        if not self.awaiting_pop:
            raise Refused("no_roll_wanted", "this round's dice are popped: check the piles first")
        by_color = {die.get("color"): die.get("number") for die in dice}
        if set(by_color) != set(self.data.colors) or len(dice) != len(self.data.colors):
            raise Refused("bad_roll", f"Popalotsy needs one die of each colour, not {dice}")
        popped: list[Die] = []
        for color in self.data.colors:
            number = by_color[color]
            if not isinstance(number, int) or number not in self.data.faces:
                raise Refused("bad_roll", f"the {color} die shows no face of {self.data.faces}")
            popped.append(Die(color, number))
        self.dice = popped
        self.awaiting_pop = False

    def apply(self, move: Move) -> str:
        self.require_playing()
        if self.awaiting_pop:
            raise Refused("awaiting_roll", "pop the dice first: press the dome")
        kind = move.get("type")
        if kind == "pile":
            return self._pile(move)
        if kind == "check":
            return self._check(move)
        raise Refused("bad_move", f"{kind!r} is not a Popalotsy move")

    def _pile(self, move: Move) -> str:
        index = self.count(move, "die", 0, len(self.dice) - 1)
        cards = move.get("cards")
        if not isinstance(cards, list):
            raise Refused("bad_move", "a pile is a list of cards, bottom first")
        pile = [(self.card(card), self.seat(card, "by")) for card in cards]
        self.piles[index] = pile
        shown = ", ".join(f"{card} ({self.players[owner]})" for card, owner in pile) or "empty"
        return f"pile on {self.dice[index]}: {shown}"

    def _check(self, move: Move) -> str:
        """Rule on every pile, move the cards, then declare the winner or deal the next round."""
        dropped = [0] * len(self.players)
        for pile in self.piles.values():
            for _, owner in pile:
                dropped[owner] += 1
        for seat, count in enumerate(dropped):
            if count > self.hands[seat]:
                raise Refused(
                    "bad_count",
                    f"{self.players[seat]} holds {self.hands[seat]} cards, not {count} to drop",
                )
        first_out = move.get("first_out", [])
        if not isinstance(first_out, list):
            raise Refused("bad_move", "first_out is a list of seats")
        order = [self.seat({"seat": seat}) for seat in first_out]
        hands = [held - count for held, count in zip(self.hands, dropped, strict=True)]
        lines = []
        cleared = 0
        for index in sorted(self.piles):
            pile = self.piles[index]
            bad = penalised_card([card for card, _ in pile], self.dice[index], "first")
            if bad is None:
                cleared += len(pile)
                continue
            position, reason = bad
            owner = pile[position][1]
            hands[owner] += len(pile)
            lines.append(
                f"{self.players[owner]} takes back the {self.dice[index]} pile "
                f"({pile[position][0]}: {reason.value})"
            )
        self.hands = hands
        self.discard += cleared
        self.piles = {}
        empty = [seat for seat in range(len(self.players)) if not hands[seat]]
        if empty:
            ranked = [seat for seat in order if seat in empty] + empty
            self.winner = ranked[0]
            self.over = True
            lines.append(f"{self.players[self.winner]} wins")
        else:
            self._deal(self.config.cards_per_round)
            self.round += 1
            self.awaiting_pop = True
            lines.append(f"round {self.round}: everyone draws a card; pop the dice")
        return "check: " + "; ".join(lines)

    def _deal(self, count: int) -> None:
        for _ in range(count):
            for seat in range(len(self.players)):
                if not self.deck and self.discard:
                    self.deck, self.discard = self.discard, 0
                if not self.deck:
                    return
                self.deck -= 1
                self.hands[seat] += 1

    def card(self, value: object) -> Card:
        """A card from JSON ``{"color", "number"}``, checked against the deck's data."""
        if not isinstance(value, dict):
            raise Refused("bad_move", "a card is {color, number, by}")
        color, number = value.get("color"), value.get("number")
        if color not in self.data.colors or number not in self.data.faces:
            raise Refused("bad_card", f"there is no {color} {number} card")
        return Card(color, number)

    def scores(self) -> list[int]:
        return list(self.hands)

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def status(self) -> str:
        if self.over:
            return "game over"
        if self.awaiting_pop:
            return f"round {self.round}: press the dome to pop the dice"
        return f"round {self.round}: race! then enter the piles and check"
