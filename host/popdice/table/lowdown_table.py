"""The Lowdown referee: the rules engine (games/lowdown/state.py) with the table's dice.

The popper rolls the active player's open dice (in ``lowdown`` mode dice 0-1 are number
dice and 2-3 colour dice); the handheld rolls the hidden pair, which reaches the laptop
first as a commitment only (``secret``) and later as its values (``reveal``), checked here
against that commitment (the journal keeps both, so a replay checks them again). Every
board, choice, wild, blackout and crossing is the engine's (``LowdownState``), and so are
the reason codes of its refusals.

Secrecy, since the laptop's screen is public: the table does not know the hidden values
until the handheld reveals them, and it asks for them only when the game needs them:
- the active player types ``reveal`` (and must then use the hidden pair), or
- the active player writes with their own dice, which shares the hidden pair with the
  others. That move is first checked on a copy of the engine (a refused move never exposes
  the hidden pair), then journaled and kept as ``pending``, and played when the reveal comes.
A blackout or a skip by the active player shares their own four dice: no reveal is needed.

A second ROLL of the handheld (a new commitment; the handheld says which roll it
``replaces``) is accepted as long as the hidden pair is unrevealed and still needed, and
logged for the whole table to see ("Bob rolled the hidden dice again", with "after Ann
chose" when it came after the active player's choice): the old roll is gone from the
handheld, so refusing the new one would leave the turn stuck, and the log lets the players
object. Once the pair is revealed, or the turn no longer needs it, a roll is refused.

Only the active player chooses to see the hidden pair (docs/rules.md §3.2). A reveal the
game did not ask for (the holder's REVEAL before the active player has chosen; the session
journals it with ``asked: false``) binds nobody: the table says the pair was shown without
being chosen, voids it (its commitment is let go) and waits for the holder to ROLL a new
one. A reveal the game asked for (the active player's ``reveal`` or a move that shares the
pair) is the choice, by command or by the holder's button. A journaled reveal without
``asked`` (written before this rule) replays as it was played then: as the active player's.

At the end of every write or crossing, a player with nothing left to do but ``done`` is done.
"""

from __future__ import annotations

import copy
import dataclasses
import hmac
from typing import Any

from popdice_fw.commit import commitment

from ..games.errors import ConfigError, InvalidMove, Reason
from ..games.lowdown.rules import LowdownConfig, lines_of
from ..games.lowdown.state import (
    Blackout,
    Cross,
    Done,
    LowdownAction,
    LowdownState,
    Place,
    Reveal,
    Skip,
    Step,
)
from .referee import Move, Referee, Refused, Settings

MOVES = ("write", "wild", "blackout", "skip", "cross", "done", "reveal")
BOX_REASONS = {
    Reason.BOX_FILLED: "{box} is filled",
    Reason.WRONG_COLOR: "{box} does not take {colour}",
    Reason.NO_SUCH_BOX: "there is no box {box}",
}
OPEN_DICE = ("number", "number", "color", "color")
"""What each of the popper's dice is in ``lowdown`` mode (firmware popdice_fw/modes.py)."""


def grid_short(name: str) -> str:
    """A grid's short name, as typed and shown: ``red/orange`` is ``ro``."""
    return "".join(part[:1] for part in name.split("/"))


def line_label(line: str) -> str:
    """A line as typed and shown, counted from 1: rows r1-r3, columns c1-c3, diagonals d1
    (top left to bottom right) and d2; the engine counts from 0 (``r0``, ``d0``)."""
    return line[0] + str(int(line[1:]) + 1)


def line_of_label(label: str, size: int) -> str | None:
    """The engine's name of the line typed as ``label``, or None."""
    if len(label) < 2 or not label[1:].isdigit():
        return None
    line = label[0] + str(int(label[1:]) - 1)
    return line if line in lines_of(size) else None


class TableLowdownState(LowdownState):
    """The engine without dice of its own: the table sets them as the devices give them.
    Until then the open dice are empty and the hidden pair is a placeholder (number 0, no
    colour) that no played move reaches: the table plays nothing that needs it unrevealed."""

    def roll_dice(self) -> None:
        self.set_open_dice([], [])
        self.set_hidden_dice(0, "")


class LowdownTable(Referee):
    game = "lowdown"

    def __init__(self, players: list[str], settings: Settings | None = None) -> None:
        super().__init__(players, settings)
        names = {field.name for field in dataclasses.fields(LowdownConfig)}
        unknown = sorted(set(self.settings) - names)
        if unknown:
            raise Refused("bad_settings", f"lowdown has no setting {', '.join(unknown)}")
        try:
            config = LowdownConfig(**self.settings)
            self.state = TableLowdownState(len(players), config=config)
        except ConfigError as error:
            code = "bad_players" if "players" in str(error) else "bad_settings"
            raise Refused(code, str(error)) from None
        self._new_turn()

    def takes_settings(self) -> bool:
        return True

    def _new_turn(self) -> None:
        self.dice_in = False
        self.commitment: dict[str, str] | None = None
        """The hidden roll of this turn as committed: ``roll_id``, ``commitment``, ``device_id``."""
        self.hidden: tuple[str, int] | None = None
        """The hidden pair (colour, number), once revealed; None before."""
        self.pending: Move | None = None
        """The active player's checked move that waits for the hidden pair."""

    # --- what the devices give ------------------------------------------------------------

    def wants_roll(self) -> bool:
        return not self.over and not self.dice_in

    def roll(self, dice: list[dict[str, Any]]) -> None:
        self.require_playing()
        if self.dice_in:
            raise Refused("no_roll_wanted", "this turn's dice are rolled: play them first")
        data = self.state.data
        kinds = tuple(next(iter(die)) if len(die) == 1 else "" for die in dice)
        if kinds != OPEN_DICE:
            raise Refused("bad_roll", f"Lowdown needs 2 number dice then 2 colour dice: {dice}")
        numbers = [die["number"] for die in dice[:2]]
        colors = [die["color"] for die in dice[2:]]
        if any(n not in data.number_faces for n in numbers) or any(
            c not in data.color_faces for c in colors
        ):
            raise Refused("bad_roll", f"no such die face in {dice}")
        self.state.set_open_dice(numbers, colors)
        self.dice_in = True

    def wants_secret(self) -> bool:
        return not self.over and self.state.step is Step.CHOOSE and self.hidden is None

    def secret(self, roll: dict[str, Any]) -> str:
        self.require_playing()
        fields = {key: _text(roll, key) for key in ("roll_id", "commitment", "device_id")}
        if not self.wants_secret():
            raise Refused(
                "no_secret_wanted",
                "this turn's hidden dice are settled: roll the next pair when the turn starts",
            )
        before, self.commitment = self.commitment, fields
        roller = self.players[self.state.roller]
        if before is None:
            return f"{roller} rolled the hidden dice (roll {fields['roll_id']})"
        after = f" after {self.players[self.state.active]} chose" if self.pending else ""
        return (
            f"{roller} rolled the hidden dice again{after}: "
            f"roll {fields['roll_id']} replaces {before['roll_id']}"
        )

    def wants_reveal(self) -> str | None:
        if self.pending is None or self.commitment is None:
            return None
        return self.commitment["roll_id"]

    def reveal(self, dice: dict[str, Any]) -> str:
        """The hidden pair, checked against its commitment; then the pending move (or the
        active player's ``reveal``) is played. One the game did not ask for (``asked``:
        false) voids the pair instead, while the active player has yet to choose."""
        self.require_playing()
        roll_id, nonce, colour = (_text(dice, key) for key in ("roll_id", "nonce", "colour"))
        number = dice.get("number")
        asked = dice.get("asked", True)  # journals from before the rule: as it was played
        if not isinstance(asked, bool):
            raise Refused("bad_reveal", f"roll {roll_id}: asked must be true or false")
        promised = self.commitment
        if promised is None:
            raise Refused("no_secret_roll", "this turn has no hidden roll to reveal")
        if self.hidden is not None:
            raise Refused("already_revealed", "this turn's hidden dice are already revealed")
        if roll_id != promised["roll_id"]:
            raise Refused(
                "stale_roll", f"roll {roll_id} is not this turn's hidden roll {promised['roll_id']}"
            )
        data = self.state.data
        if (
            colour not in data.color_faces
            or not isinstance(number, int)
            or isinstance(number, bool)
            or number not in data.number_faces
        ):
            raise Refused("bad_reveal", f"roll {roll_id}: {colour} {number} is no pair of dice")
        actual = commitment(promised["device_id"], roll_id, nonce, colour, number)
        if not hmac.compare_digest(actual, promised["commitment"]):
            raise Refused(
                "commitment_mismatch",
                f"the reveal of roll {roll_id} ({colour} {number}) does not match its "
                "commitment: these are not the dice that were rolled",
            )
        active = self.state.active
        if not asked and self.state.step is Step.CHOOSE:
            if self.pending is not None:
                raise Refused("bad_reveal", f"roll {roll_id} was asked for: it is not void")
            self.commitment = None  # void: the holder rolls a new pair
            return (
                f"the hidden dice were shown without {self.players[active]} choosing them "
                f"({colour} {number}): they are void; "
                f"{self.players[self.state.roller]}, press ROLL for a new pair"
            )
        self.hidden = (colour, number)
        self.state.set_hidden_dice(number, colour)
        shown = f"the hidden dice: {colour} {number}"
        if self.state.step is not Step.CHOOSE:
            return shown + " (not in play this turn)"
        pending, self.pending = self.pending, None
        if pending is None or pending["type"] == "reveal":
            self._play(active, Reveal())
            return f"{shown}: {self.players[active]} must use them"
        return f"{shown}; " + self._play(active, self._action(active, pending))

    def lose_secret(self, data: dict[str, Any]) -> str:
        """The handheld no longer holds roll ``data["roll_id"]`` (it restarted): the pair is
        lost, and with it the active player's choice that waited for it; the holder rolls a
        new pair and the active player chooses again."""
        self.require_playing()
        roll_id = _text(data, "roll_id")
        promised = self.commitment
        if promised is None or promised["roll_id"] != roll_id or self.hidden is not None:
            raise Refused("stale_roll", f"roll {roll_id} is not this turn's unrevealed roll")
        self.commitment = None
        chose, self.pending = self.pending is not None, None
        active, roller = (self.players[s] for s in (self.state.active, self.state.roller))
        void = f"; {active}'s choice is void: choose again once it is in" if chose else ""
        return (
            f"the handheld no longer has roll {roll_id} (it restarted): the hidden dice are "
            f"lost{void}; {roller}, press ROLL for a new pair"
        )

    # --- moves ------------------------------------------------------------------------

    def apply(self, move: Move) -> str:
        self.require_playing()
        kind = move.get("type")
        if kind not in MOVES:
            raise Refused("bad_move", f"{kind!r} is not a Lowdown move")
        active, roller = (self.players[s] for s in (self.state.active, self.state.roller))
        if self.state.step is Step.CHOOSE:
            if not self.dice_in:
                raise Refused("awaiting_roll", f"{active}: press the dome to roll your dice")
            if self.commitment is None:
                raise Refused(
                    "awaiting_secret",
                    f"{roller} has not rolled the hidden dice: hand them the handheld, ROLL",
                )
            if self.pending is not None:
                raise Refused("awaiting_reveal", f"{roller}: hold REVEAL to show the hidden dice")
        if kind == "reveal":
            self._check(self.state.active, Reveal())
            self.pending = {"type": "reveal"}
            return f"{active} reveals the hidden dice: {roller}, hold REVEAL"
        seat = self.seat(move)
        action = self._action(seat, move)
        if self._shares_hidden(seat, action):
            self._check(seat, action)
            self.pending = dict(move)
            return f"{self._says(seat, action)}, sharing the hidden dice: revealing them"
        return self._play(seat, action)

    def _shares_hidden(self, seat: int, action: LowdownAction) -> bool:
        """Whether ``action`` is the active player writing with their own dice, which hands
        the unrevealed hidden pair to the others."""
        return (
            isinstance(action, Place)
            and self.state.step is Step.CHOOSE
            and seat == self.state.active
            and not self.state.revealed
        )

    def _check(self, seat: int, action: LowdownAction) -> None:
        """Refuse ``action`` as the engine would, without playing it (on a copy)."""
        memo: dict[int, Any] = {id(self.state.data): self.state.data}
        trial = copy.deepcopy(self.state, memo)
        try:
            trial.apply(seat, action)
        except InvalidMove as error:
            raise self._refusal(seat, action, error) from None

    def _play(self, seat: int, action: LowdownAction) -> str:
        turn = self.state.turns
        text = self._says(seat, action)  # before: the dice offered change as it is played
        try:
            self.state.apply(seat, action)
        except InvalidMove as error:
            raise self._refusal(seat, action, error) from None
        if isinstance(action, Place) and action.wild:
            text += f" (wild {self.state.sheets[seat].wilds}/{self.state.data.wild_boxes})"
        if self.state.step is Step.WRITE and self.state.legal_actions(seat) == [Done()]:
            self.state.apply(seat, Done())
            text += ", nothing to cross: done"
        if self.state.is_terminal():
            self.over = True
            names = ", ".join(self.players[s] for s in self.winners())
            return f"{text}; game over: {names} {'win' if len(self.winners()) > 1 else 'wins'}"
        if self.state.turns != turn:
            self._new_turn()
            return f"{text}; turn {self.state.turns}: {self.players[self.state.active]} rolls"
        return text

    def _refusal(self, seat: int, action: LowdownAction, error: InvalidMove) -> Refused:
        """The engine's refusal, its players named, its boxes and lines as at the table
        (from 1): the engine's own text names a seat by its number."""
        refused = Refused.from_invalid_move(error)
        name = self.players[seat]
        if error.reason is Reason.NOT_YOUR_TURN and not isinstance(action, Cross):
            step = self.state.step
            if step is Step.CHOOSE:
                chooser = self.players[self.state.active]
                return Refused(refused.code, f"{name} cannot act yet: {chooser} chooses first")
            why = "is done this turn" if step is Step.WRITE else "cannot act now"
            return Refused(refused.code, f"{name} {why}")
        if error.reason is Reason.ALREADY_WROTE:
            return Refused(refused.code, f"{name} wrote this turn")
        if isinstance(action, Cross):
            where = f"{grid_short(action.grid)} {action.line}"
            if action.line in lines_of(self.state.data.size):
                where = f"{grid_short(action.grid)} {line_label(action.line)}"
            return Refused(refused.code, f"{name} cannot cross out {where}")
        if isinstance(action, (Place, Blackout)) and error.reason in BOX_REASONS:
            colour = "that colour"
            if isinstance(action, Place) and action.color is not None:
                colors = self.state.offered_dice(seat)[1]
                if 0 <= action.color < len(colors):
                    colour = colors[action.color]
            box = _box(action.grid, action.row, action.col)
            return Refused(refused.code, BOX_REASONS[error.reason].format(box=box, colour=colour))
        return refused

    def _action(self, seat: int, move: Move) -> LowdownAction:
        kind = move["type"]
        if kind == "skip":
            return Skip()
        if kind == "done":
            return Done()
        grid = move.get("grid")
        if not isinstance(grid, str):
            raise Refused("bad_move", "name a grid")
        if kind == "cross":
            line = move.get("line")
            if not isinstance(line, str):
                raise Refused("bad_move", "name a line")
            return Cross(grid, line)
        row, col = move.get("row"), move.get("col")
        if not isinstance(row, int) or not isinstance(col, int):
            raise Refused("bad_move", "a box is a grid, a row and a column")
        if kind == "blackout":
            return Blackout(grid, row, col)
        numbers, colors = self.state.offered_dice(seat)
        number = self._die(seat, numbers, move.get("number"), "number")
        color = move.get("color")
        wild = kind == "wild"
        index = None if wild and color is None else self._die(seat, colors, color, "colour")
        return Place(number, index, grid, row, col, wild)

    def _die(self, seat: int, offered: list[Any], value: object, what: str) -> int:
        """The index of the offered die showing ``value``. A player who may write now but
        has no such die is refused here; anyone else gets the engine's reason (-1)."""
        if value in offered:
            return offered.index(value)
        state = self.state
        if seat in state.current_players() and not state.wrote[seat]:
            shown = " ".join(str(die) for die in offered) or "none"
            raise Refused(
                "no_such_die", f"{self.players[seat]} has no {what} die {value} (only {shown})"
            )
        return -1

    def _says(self, seat: int, action: LowdownAction) -> str:
        name = self.players[seat]
        if isinstance(action, Place):
            numbers, colors = self.state.offered_dice(seat)
            if not 0 <= action.number < len(numbers):
                return f"{name} writes"  # the engine refuses it
            number = numbers[action.number]
            box = _box(action.grid, action.row, action.col)
            if action.wild:
                return f"{name} writes {number} with a wild colour in {box}"
            index = action.color
            color = colors[index] if index is not None and 0 <= index < len(colors) else "?"
            return f"{name} writes {number} ({color}) in {box}"
        if isinstance(action, Blackout):
            return f"{name} blacks out {_box(action.grid, action.row, action.col)} (+6)"
        if isinstance(action, Cross):
            return f"{name} crosses out {grid_short(action.grid)} {line_label(action.line)}"
        if isinstance(action, Skip):
            return f"{name} writes nothing"
        if isinstance(action, Reveal):
            return f"{name} reveals the hidden dice"
        return f"{name} is done"

    # --- the score and what the table waits for -----------------------------------------

    def scores(self) -> list[int]:
        return self.state.scores()

    def winners(self) -> list[int]:
        return self.state.winners()

    def role(self, seat: int) -> str:
        """What ``seat`` is to do or is this turn, in a word or two: ``wins`` (the game over),
        ``to write``, ``to cross`` or ``done`` (everyone writes), ``hidden`` (holds the
        handheld, while the active player chooses), or nothing."""
        state = self.state
        if self.over:
            return "wins" if seat in self.winners() else ""
        if state.step is Step.WRITE:
            return "done" if state.done[seat] else ("to cross" if state.wrote[seat] else "to write")
        return "hidden" if seat == state.roller else ""

    def status(self) -> str:
        state = self.state
        active, roller = self.players[state.active], self.players[state.roller]
        if self.over:
            return "game over (lowest score wins)"
        if state.step is Step.WRITE:
            writing = [self.players[s] for s in state.current_players() if not state.wrote[s]]
            if writing:
                return "to write: " + ", ".join(writing)
            return "to cross or say done: " + ", ".join(
                self.players[s] for s in state.current_players()
            )
        waits = []
        if not self.dice_in:
            waits.append(f"{active}, press the dome")
        if self.commitment is None:
            waits.append(f"pass the handheld to {roller}, press ROLL")
        if waits:
            return "; ".join(waits)
        if self.pending is not None:
            return f"{roller}: hold REVEAL to show the hidden dice"
        if state.revealed:
            return f"{active}: write with the hidden dice"
        return f"{active}: write with your dice, or type reveal"


def _box(grid: str, row: int, col: int) -> str:
    return f"{grid_short(grid)} {row + 1},{col + 1}"


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise Refused("bad_roll", f"{key} is missing")
    return value
