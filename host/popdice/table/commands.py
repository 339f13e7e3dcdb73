"""The table's command line: what a player types, turned into a move (or refused, with why).

Players are named by name (any unique prefix, any case) or by seat number from 1. Dice are
numbered from 1 as the popper shows them left to right.

Ringer:    ringer PLAYER CARDS · reroll PLAYER · rule CARD on CARD · end N N ...
           (a card is SUITNUMBER like pink4, SUIT-reroll, with /POWER: blue5/take_over)
Popalotsy: pile DIE COLOURNUMBER:PLAYER ... (bottom card first) · check [PLAYER ...]
Lowdown:   write PLAYER NUMBER COLOUR BOX   (write ann 4 red ro 1 3: a 4 with the red die)
           wild PLAYER NUMBER BOX [COLOUR]  (the active player names the colour die to drop)
           blackout PLAYER BOX · skip PLAYER · cross PLAYER GRID LINE · done PLAYER · reveal
           Dice are named by what they show (4, red; a colour by any prefix: r, pu). A BOX
           is GRID ROW COL: the grid as shown (ro, pb, gy; or a colour of it, or its full
           name), row and column from 1 (ro 1 3, ro 1,3). A LINE is r1-r3, c1-c3, d1 (top
           left to bottom right) or d2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..games.lowdown.rules import LowdownData
from .lowdown_table import MOVES as LOWDOWN_MOVES
from .lowdown_table import grid_short, line_of_label
from .referee import Move, Refused

HELP = {
    "ringer": "ringer PLAYER CARDS · reroll PLAYER · rule pink4 on pink3 · end N N..",
    "popalotsy": "pile DIE red4:Ann red5:Bob · check [FIRST-OUT]",
    "lowdown": "write P 4 red ro 1 3 · wild P 4 gy 2 2 [red] · blackout P pb 3 3 · skip P\n"
    "cross P ro r1 (r1-3 c1-3 d1 d2) · done P · reveal · P: name or seat",
}

_CARD = re.compile(r"^([a-z]+?)-?(\d|reroll|r)(?:/([a-z_0-9]+))?$")


@dataclass(frozen=True)
class Command:
    """A parsed line: a ``move`` for the referee, or a Reroll (move and popper together)."""

    move: Move
    reroll: bool = False


def parse(text: str, game: str, players: list[str]) -> Command:
    words = text.strip().lower().split()
    if not words:
        raise Refused("bad_command", "type a command (help is below)")
    verb, args = words[0], words[1:]
    if game == "ringer":
        return _ringer(verb, args, players)
    if game == "popalotsy":
        return _popalotsy(verb, args, players)
    if game == "lowdown":
        words = text.strip().lower().replace(",", " ").replace(":", " ").split()
        return _lowdown(words[0], words[1:], players)
    raise Refused("bad_command", f"no commands for {game}")


def seat_of(word: str, players: list[str]) -> int:
    if word.isdigit() and 1 <= int(word) <= len(players):
        return int(word) - 1
    matches = [seat for seat, name in enumerate(players) if name.lower().startswith(word)]
    if len(matches) != 1:
        raise Refused("no_such_player", f"{word!r} names no single player")
    return matches[0]


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise Refused("bad_command", f"{what} must be a number, not {word!r}")
    return int(word)


def _expect(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise Refused("bad_command", f"usage: {usage}")


def _ringer(verb: str, args: list[str], players: list[str]) -> Command:
    if verb == "ringer":
        _expect(args, 2, "ringer PLAYER CARDS")
        seat = seat_of(args[0], players)
        return Command({"type": "ringer", "seat": seat, "cards": _number(args[1], "CARDS")})
    if verb == "reroll":
        _expect(args, 1, "reroll PLAYER")
        return Command({"type": "reroll", "seat": seat_of(args[0], players)}, reroll=True)
    if verb == "rule":
        if len(args) != 3 or args[1] != "on":
            raise Refused("bad_command", "usage: rule CARD on CARD")
        card, top = _ringer_card(args[0]), _ringer_card(args[2])
        return Command({"type": "ruling", "seat": 0, "card": card, "top": top})
    if verb == "end":
        _expect(args, len(players), "end " + " ".join(f"{name}'S-CARDS" for name in players))
        return Command({"type": "end", "hands": [_number(word, "a hand") for word in args]})
    raise Refused("bad_command", f"unknown command {verb!r}: {HELP['ringer']}")


def _ringer_card(word: str) -> dict[str, object]:
    found = _CARD.match(word)
    if found is None:
        raise Refused("bad_card", f"{word!r} is not a card like pink4 or blue-reroll")
    suit, number, power = found.groups()
    reroll = number in ("r", "reroll")
    return {
        "suit": suit,
        "number": None if reroll else int(number),
        "power": "reroll" if reroll else power,
    }


def _popalotsy(verb: str, args: list[str], players: list[str]) -> Command:
    if verb == "pile":
        if not args:
            raise Refused("bad_command", "usage: pile DIE CARD:PLAYER ...")
        die = _number(args[0], "DIE") - 1
        cards = []
        for word in args[1:]:
            name, _, owner = word.partition(":")
            found = re.match(r"^([a-z]+)(\d)$", name)
            if found is None or not owner:
                raise Refused("bad_card", f"{word!r} is not a card like red4:Ann")
            color, number = found.groups()
            cards.append({"color": color, "number": int(number), "by": seat_of(owner, players)})
        return Command({"type": "pile", "die": die, "cards": cards})
    if verb == "check":
        return Command({"type": "check", "first_out": [seat_of(w, players) for w in args]})
    raise Refused("bad_command", f"unknown command {verb!r}: {HELP['popalotsy']}")


def _lowdown(verb: str, args: list[str], players: list[str]) -> Command:
    if verb not in LOWDOWN_MOVES:
        raise Refused("bad_command", f"unknown command {verb!r}: {' · '.join(LOWDOWN_MOVES)}")
    if verb == "reveal":
        _expect(args, 0, "reveal")
        return Command({"type": "reveal"})
    usage = {
        "write": "write PLAYER NUMBER COLOUR GRID ROW COL",
        "wild": "wild PLAYER NUMBER GRID ROW COL [COLOUR]",
        "blackout": "blackout PLAYER GRID ROW COL",
        "skip": "skip PLAYER",
        "cross": "cross PLAYER GRID LINE",
        "done": "done PLAYER",
    }[verb]
    counts = {"write": (6,), "wild": (5, 6), "blackout": (4,), "skip": (1,), "cross": (3,)}
    if len(args) not in counts.get(verb, (1,)):
        raise Refused("bad_command", f"usage: {usage}")
    move: Move = {"type": verb, "seat": seat_of(args[0], players)}
    rest = args[1:]
    if verb in ("write", "wild"):
        move["number"] = _number(rest.pop(0), "NUMBER")
    if verb == "write":
        move["color"] = _colour(rest.pop(0))
    if verb == "wild":
        move["color"] = _colour(rest.pop()) if len(rest) == 4 else None
    if verb == "cross":
        move["grid"] = _grid(rest[0])
        line = line_of_label(rest[1], _lowdown_data().size)
        if line is None:
            raise Refused("bad_command", f"{rest[1]!r} is no line: r1-r3, c1-c3, d1 or d2")
        move["line"] = line
    elif rest:
        move["grid"] = _grid(rest[0])
        move["row"] = _number(rest[1], "ROW") - 1
        move["col"] = _number(rest[2], "COL") - 1
    return Command(move)


def _lowdown_data() -> LowdownData:
    return LowdownData.load()


def _colour(word: str) -> str:
    matches = [c for c in _lowdown_data().color_faces if c.startswith(word)]
    if len(matches) != 1:
        colours = ", ".join(_lowdown_data().color_faces)
        raise Refused("bad_command", f"{word!r} names no single colour ({colours})")
    return matches[0]


def _grid(word: str) -> str:
    for grid in _lowdown_data().grids:
        if word in (grid.name, grid_short(grid.name)) or word in grid.colors:
            return grid.name
    shown = ", ".join(grid_short(name) for name in _lowdown_data().grid_names)
    raise Refused("bad_command", f"{word!r} is no grid ({shown})")
