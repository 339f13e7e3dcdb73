"""`popdice check ringer`: judge a run of plays onto one Ringer Play Stack, card by card
(docs/formats.md, docs/rules.md §2.4-2.6). A bad document raises ``InputError``."""

from __future__ import annotations

from ..errors import Reason
from ..fields import Field, faces_text
from .rules import (
    POWER_NAMES,
    Card,
    Power,
    RingerConfig,
    RingerData,
    play_problem,
    scores_ringer,
)

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import Any

EVENT_KINDS = ("play", "roll", "start")


def read_card(field: Field, data: RingerData) -> Card:
    suit = field.key("suit").choice(data.suits, "a Ringer suit")
    power_field = field.optional("power")
    power = None if power_field is None else Power(power_field.choice(POWER_NAMES, "a power"))
    number_field = field.optional("number")
    if number_field is None:
        if power is not Power.REROLL:
            field.fail('a card without a number must be a Reroll ("power": "reroll")')
        return Card(suit, None, power)
    if power is Power.REROLL:
        number_field.fail("a Reroll card has no number: leave it out or write null")
    number = number_field.number_in(data.faces, f"a card number ({faces_text(data.faces)})")
    return Card(suit, number, power)


def check_ringer(
    doc: Field, data: RingerData | None = None, config: RingerConfig | None = None
) -> dict[str, Any]:
    data = data or RingerData.load()
    config = config or RingerConfig()
    die_kind = f"a die number ({faces_text(data.faces)})"
    die = doc.key("die").number_in(data.faces, die_kind)
    top_field = doc.key("top")
    top = None if top_field.is_null() else read_card(top_field, data)
    stack_size = 0 if top is None else 1

    events = []
    for event in doc.key("events").items():
        kinds = [kind for kind in EVENT_KINDS if kind in event.mapping()]
        if len(kinds) != 1:
            event.fail("an event has exactly one of play, roll, start")
        kind = kinds[0]
        if kind == "roll":
            events.append((kind, event.key("roll").number_in(data.faces, die_kind), False))
            continue
        card = read_card(event.key(kind), data)
        out_field = event.optional("out_of_turn")
        events.append((kind, card, out_field is not None and out_field.boolean()))

    results: list[dict[str, Any]] = []
    for kind, value, out_of_turn in events:
        if kind == "roll":
            assert isinstance(value, int)
            die = value
            results.append({"legal": True})
            continue
        assert isinstance(value, Card)
        if kind == "start":
            top, stack_size = value, 1
            results.append({"legal": True})
            continue
        if top is None:
            problem: Reason | None = Reason.NO_STACK
        elif out_of_turn and value.power is not Power.TAKE_OVER:
            problem = Reason.OUT_OF_TURN
        else:
            problem = play_problem(value, top, data, config)
        if problem is not None:
            results.append({"legal": False, "reason": problem.value})
            continue
        stack_size += 1
        if not out_of_turn and scores_ringer(value, die):
            results.append({"legal": True, "ringer": True, "power": None, "won": stack_size})
            top, stack_size = None, 0
            continue
        power = value.power
        if power is Power.TAKE_OVER and not out_of_turn:
            power = None
        results.append(
            {"legal": True, "ringer": False, "power": None if power is None else power.value}
        )
        top = value
    return {"results": results}
