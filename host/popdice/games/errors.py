"""What the game engines and rule-check commands answer when something is wrong.

Two kinds of trouble, kept apart:

- ``InvalidMove``: a well-formed move the rules do not allow. It is a verdict, carried by a
  ``Reason`` code (the vocabulary of docs/formats.md, plus codes for turn order and
  ownership). The state is left exactly as it was.
- ``InputError``, ``DataFileError``, ``ConfigError``: a document, data file or rule setting that
  cannot be understood. Each is a ``PopdiceError`` with a one-line message naming the field.
"""

from __future__ import annotations

from enum import Enum

from ..errors import PopdiceError


class Reason(str, Enum):
    """Why a move was refused. The value is the code that appears in JSON output."""

    # Popalotsy drops (docs/rules.md §1.4, `check popalotsy`)
    NO_MATCH = "no_match"
    LOCKED = "locked"
    NUMBER_ON_NUMBER = "number_on_number"
    COLOR_AFTER_NUMBER = "color_after_number"
    NOT_HIGHER = "not_higher"
    ON_WRONG_CARD = "on_wrong_card"
    NO_SUCH_DIE = "no_such_die"

    # Ringer plays (docs/rules.md §2.4-2.6, `check ringer`)
    IDENTICAL = "identical"
    NOT_CONSECUTIVE = "not_consecutive"
    NOT_MATCHING = "not_matching"
    SUIT_MISMATCH = "suit_mismatch"
    TAKE_OVER_ON_WILD_REROLL = "take_over_on_wild_reroll"
    NO_STACK = "no_stack"
    OUT_OF_TURN = "out_of_turn"
    NOTHING_PLAYED = "nothing_played"
    ALREADY_PLAYED = "already_played"
    MUST_BURY = "must_bury"
    NO_BURY_NEEDED = "no_bury_needed"
    BAD_TARGET = "bad_target"
    BAD_ASK = "bad_ask"
    NOT_ASKED_FOR = "not_asked_for"

    # Lowdown placements and crossings (docs/rules.md §3.2-3.5, `check lowdown-move`)
    BOX_FILLED = "box_filled"
    WRONG_COLOR = "wrong_color"
    NO_WILDS_LEFT = "no_wilds_left"
    NO_SUCH_BOX = "no_such_box"
    MUST_USE_HIDDEN = "must_use_hidden"
    HIDDEN_ALREADY_SEEN = "hidden_already_seen"
    HAS_MOVE = "has_move"
    MUST_USE_WILD = "must_use_wild"
    MUST_WRITE = "must_write"
    ALREADY_WROTE = "already_wrote"
    INCOMPLETE_LINE = "incomplete_line"
    BLACKOUT_IN_LINE = "blackout_in_line"
    NOT_QUALIFYING = "not_qualifying"
    LINES_CROSS = "lines_cross"
    ALREADY_CROSSED = "already_crossed"
    NOT_WRITTEN_THIS_TURN = "not_written_this_turn"
    NO_SUCH_LINE = "no_such_line"
    TOO_MANY_WILDS = "too_many_wilds"

    # Any game
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    NO_SUCH_PLAYER = "no_such_player"
    NOT_IN_HAND = "not_in_hand"
    WRONG_KIND_OF_ACTION = "wrong_kind_of_action"


class InvalidMove(Exception):
    """A move the rules refuse; ``reason`` says why, ``detail`` says it to a person."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)
        self.reason = reason
        self.detail = detail


class InputError(PopdiceError):
    """A rule-check document that is not valid: the message names the field."""


class DataFileError(PopdiceError):
    """A game data file (games/data/*.json or a replacement) that is not valid."""


class ConfigError(PopdiceError):
    """A rule setting with an unknown name or a value it cannot take."""
