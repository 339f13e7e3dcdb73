"""The Ringer referee: the popper is the die; Ringers, Rerolls, rulings and the final count.

The cards are real, on the table. The laptop knows the die (from the popper), records each
Ringer and how many cards it won, takes a Reroll power to the popper, rules on a disputed
play (``play_problem`` of games/ringer/rules.py, the engine's own test), and at the end
takes the cards left in each hand and computes the scores (docs/rules.md §2.5, §2.7).
"""

from __future__ import annotations

from typing import Any

from ..games.ringer.rules import Card, Power, RingerConfig, RingerData, play_problem, scores_ringer
from .referee import Move, Referee, Refused, Settings

MAX_HAND = 105


class RingerTable(Referee):
    game = "ringer"

    def __init__(self, players: list[str], settings: Settings | None = None) -> None:
        super().__init__(players, settings)
        self.data = RingerData.load()
        self.config = RingerConfig()
        if not self.data.min_players <= len(players) <= self.data.max_players:
            raise Refused(
                "bad_players",
                f"ringer takes {self.data.min_players} to {self.data.max_players} players",
            )
        self.die: int | None = None
        self.awaiting_roll = True
        self.won = [0] * len(players)
        self.ringers = [0] * len(players)
        self.in_hand: list[int] | None = None

    def wants_roll(self) -> bool:
        return self.awaiting_roll and not self.over

    def roll(self, dice: list[dict[str, Any]]) -> None:
        self.require_playing()
        if not self.awaiting_roll:
            raise Refused("no_roll_wanted", "the die is rolled only after a Ringer or a Reroll")
        numbers = [die.get("number") for die in dice]
        if len(numbers) != 1 or numbers[0] not in self.data.faces:
            raise Refused("bad_roll", f"Ringer needs one number die, not {dice}")
        self.die = numbers[0]
        self.awaiting_roll = False

    def apply(self, move: Move) -> str:
        self.require_playing()
        kind = move.get("type")
        if kind == "end":
            return self._end(move)
        if kind == "ruling":
            return self._ruling(move)
        if self.awaiting_roll:
            raise Refused("awaiting_roll", "roll the die first: press the dome")
        seat = self.seat(move)
        name = self.players[seat]
        if kind == "ringer":
            cards = self.count(move, "cards", 2, MAX_HAND)
            self.won[seat] += cards
            self.ringers[seat] += 1
            self.awaiting_roll = True
            return f"{name} scores a Ringer on {self.die}: {cards} cards; re-roll the die"
        if kind == "reroll":
            self.awaiting_roll = True
            return f"{name} plays a Reroll: the popper re-rolls the die"
        raise Refused("bad_move", f"{kind!r} is not a Ringer move")

    def _ruling(self, move: Move) -> str:
        card = self.card(move.get("card"))
        top = self.card(move.get("top"))
        problem = play_problem(card, top, self.data, self.config)
        if problem is not None:
            return f"ruling: {card} on {top} is not legal ({problem.value})"
        ringer = self.die is not None and scores_ringer(card, self.die)
        return f"ruling: {card} on {top} is legal" + (" and a Ringer" if ringer else "")

    def _end(self, move: Move) -> str:
        hands = move.get("hands")
        if not isinstance(hands, list) or len(hands) != len(self.players):
            raise Refused("bad_move", "give the cards left in every player's hand")
        for seat, count in enumerate(hands):
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_HAND:
                raise Refused("bad_count", f"{self.players[seat]}'s hand must be 0 to {MAX_HAND}")
        self.in_hand = list(hands)
        self.over = True
        names = ", ".join(self.players[seat] for seat in self.winners())
        return f"game over: {names} win" if len(self.winners()) > 1 else f"game over: {names} wins"

    def card(self, value: object) -> Card:
        """A card from JSON ``{"suit", "number", "power"}``, checked against the deck's data."""
        if not isinstance(value, dict):
            raise Refused("bad_move", "a card is {suit, number, power}")
        suit, number, power = value.get("suit"), value.get("number"), value.get("power")
        if suit not in self.data.suits:
            raise Refused("bad_card", f"no suit {suit!r}")
        if number is not None and number not in self.data.faces:
            raise Refused("bad_card", f"no number {number!r}")
        if power is not None and power not in {p.value for p in Power}:
            raise Refused("bad_card", f"no power {power!r}")
        return Card(suit, number, None if power is None else Power(power))

    def scores(self) -> list[int]:
        hands = self.in_hand or [0] * len(self.players)
        return [won - held for won, held in zip(self.won, hands, strict=True)]

    def winners(self) -> list[int]:
        if not self.over:
            return []
        scores = self.scores()
        return [seat for seat, score in enumerate(scores) if score == max(scores)]

    def status(self) -> str:
        if self.over:
            return "game over"
        if self.awaiting_roll:
            return "press the dome to roll the die"
        return f"the die shows {self.die}: play your cards"
