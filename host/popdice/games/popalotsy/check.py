"""`popdice check popalotsy`: verify the piles after a Popalotsy race (docs/formats.md; the
rules: docs/rules.md §1.4-1.6).

Reads the document described in docs/formats.md and answers with one verdict per pile,
the hand sizes after the penalties and the winner. A bad document raises ``InputError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..fields import Field, faces_text
from .rules import Card, Die, PopalotsyConfig, PopalotsyData, penalised_card


@dataclass(frozen=True)
class DroppedCard:
    card: Card
    by: str


def check_popalotsy(
    doc: Field, data: PopalotsyData | None = None, config: PopalotsyConfig | None = None
) -> dict[str, Any]:
    data = data or PopalotsyData.load()
    config = config or PopalotsyConfig()
    number_kind = f"a die number ({faces_text(data.faces)})"
    color_kind = "a Popalotsy colour"

    def read_number(field: Field) -> int:
        return field.key("number").number_in(data.faces, number_kind)

    dice = [
        Die(item.key("color").choice(data.colors, color_kind), read_number(item))
        for item in doc.key("dice").items()
    ]
    hands_field = doc.optional("hands")
    hands: dict[str, int] | None = None
    if hands_field is not None:
        hands = {
            name: count.integer(0, None, "a card count (0 or more)")
            for name, count in hands_field.entries()
        }

    def read_player(field: Field) -> str:
        name = field.string("a player name")
        if hands is not None and name not in hands:
            field.fail(f"{name!r} is not one of the players in hands")
        return name

    piles_field = doc.key("piles")
    piles = [
        [
            DroppedCard(
                Card(card.key("color").choice(data.colors, color_kind), read_number(card)),
                read_player(card.key("by")),
            )
            for card in pile.items()
        ]
        for pile in piles_field.items()
    ]
    if len(piles) != len(dice):
        piles_field.fail(f"{len(piles)} piles for {len(dice)} dice: give one pile per die")
    emptied_field = doc.optional("emptied")
    emptied = [read_player(item) for item in emptied_field.items()] if emptied_field else []

    verdicts: list[dict[str, Any]] = []
    after = dict(hands) if hands is not None else {}
    for index, (die, pile) in enumerate(zip(dice, piles, strict=True)):
        verdict: dict[str, Any] = {"die": index, "ok": True, "cards": len(pile)}
        bad = penalised_card([dropped.card for dropped in pile], die, config.penalised_card)
        if bad is not None:
            position, reason = bad
            owner = pile[position].by
            verdict.update(ok=False, first_bad=position, reason=reason.value, takes_back=owner)
            if owner in after:
                after[owner] += len(pile)
        verdicts.append(verdict)

    result: dict[str, Any] = {"piles": verdicts}
    if hands is not None:
        result["hands"] = after
        result["winner"] = next((name for name in emptied if after[name] == 0), None)
    return result
