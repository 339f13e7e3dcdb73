"""The `check`, `score` and `simulate` subcommands of `popdice` (docs/formats.md).

``add_check_arguments(parser)``, ``add_score_arguments`` and ``add_simulate_arguments`` give
each its arguments and set ``run`` to a function that takes the parsed arguments and returns
the exit code. A document that cannot be understood raises ``InputError``, which the
top-level command prints as one ``error:`` line (exit 2). The engines, checks and schemas are
imported by the command that uses them, so `popdice check ringer` loads Ringer's rules only.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from ..console.arguments import file_name, input_file, whole_number
from ..files import MB, read_limited
from .errors import InputError

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import Any

    from .fields import Field

FILE_HELP = "the JSON document to judge, or - to read it from standard input (at most 8 MB)"
DATA_HELP = "a replacement for the packaged {name} (card lists, colours, layouts)"

CHECK_EPILOG = """\
Each check reads one JSON document and prints one JSON verdict.
Exit code 0: the verdict is on standard output (an illegal play is a verdict).
Exit code 2: the document is not valid; one line on standard error names the field.
Documents in and out: docs/formats.md; their JSON Schemas: host/popdice/games/schemas/

examples:
  popdice check popalotsy race.json        who takes back which pile, who won
  popdice check ringer plays.json          each play: legal? a Ringer? which power?
  popdice check lowdown-move move.json     may this number go in that box?
  echo '{"die": 4, "top": null, "events": [{"roll": 6}]}' | popdice check ringer -
"""

POPALOTSY_HELP = """\
Verifies the piles after a Popalotsy race (docs/rules.md §1.4-1.6). Input:
  {"dice":  [{"color": "red", "number": 3}, ...],        die i as popped
   "piles": [[{"color": "red", "number": 4, "by": "ann"}, ...], ...],
   "hands": {"ann": 0, "bob": 2},     optional: cards held when the race stopped
   "emptied": ["ann"]}                optional: who emptied their hand, in order
Pile i is on die i, its bottom card first. Output: per pile ok, or first_bad (index),
reason and takes_back (the owner of the first wrong card takes the whole pile); with
hands, the hands after penalties and the winner. Reasons: no_match, locked,
number_on_number, color_after_number, not_higher.

examples:
  popdice check popalotsy race.json        each pile ok, or who takes it back
  popdice check popalotsy - < race.json    the same, the race read from standard input
  popdice check popalotsy race.json --data cards.json   with your own cards and colours
"""

RINGER_HELP = """\
Judges plays onto a Ringer Play Stack, event by event (docs/rules.md §2.4-2.6). Input:
  {"die": 4, "top": {"suit": "pink", "number": 2},
   "events": [{"play": {"suit": "pink", "number": 3, "power": "draw1"}},
              {"play": {...}, "out_of_turn": true},     a Take Over on someone else's turn
              {"roll": 6},                               the die now shows 6
              {"start": {"suit": "yellow", "number": 6}}]}   a new stack after a Ringer
"top" is required: null means no stack yet (only a start or a roll may come first). A
Reroll card has no number ("power": "reroll"). Powers: ask, draw1, draw2, take_over,
reroll, steal1. Output: per event legal (or reason), ringer, won, and the power that
acts. Reasons, the first that applies: no_stack, out_of_turn (a card other than a Take
Over played out of turn), take_over_on_wild_reroll, identical, suit_mismatch,
not_consecutive, not_matching (a wild card on either side not one apart too).

examples:
  popdice check ringer plays.json          each play: legal? a Ringer? which power?
  echo '{"die": 4, "top": null, "events": [{"roll": 6}]}' | popdice check ringer -
"""

MOVE_HELP = """\
Judges a placement on a Lowdown board (default box layout; docs/rules.md §3.1-3.3). Input:
  {"board": {"grids": {"red/orange": [[null, null, null], ...]}, "wilds": 0},
   "move":  {"grid": "red/orange", "row": 0, "col": 2, "number": 5, "color": "orange",
             "wild": false}}
Grids left out are empty; rows and columns count from 0, top left. Every move names a
Lowdown colour; with "wild": true it is not judged. Output: {"legal": true} or
{"legal": false, "reason": R}, R one of box_filled, wrong_color, no_wilds_left.

examples:
  popdice check lowdown-move move.json     may this number go in that box?
  popdice check lowdown-move - < move.json   the same, the move read from standard input
"""

SCORE_HELP = """\
Validates and scores Lowdown boards (docs/rules.md §3.3-3.6). Input:
  {"boards": {"ann": {"grids": {"red/orange": [[1, 3, 6], [2, 2, 2], [5, 4, 1]], ...},
                      "crossed": {"red/orange": ["r0", "r1", "r2"]},
                      "wilds": 4}}}
A box is a number 1-6, "X" (blacked out, +6) or null (empty). Lines: r0-r2 rows (top
first), c0-c2 columns (left first), d0 top-left to bottom-right, d1 top-right to
bottom-left. Output: scores (lowest wins), finished grids, game_over, winners, and errors:
the rules the boards break (incomplete_line, blackout_in_line, not_qualifying,
lines_cross, too_many_wilds), scored as written all the same.

examples:
  popdice score lowdown boards.json               each player's score, and who wins
  popdice score lowdown boards.json --suggest     also: the crossings that save the most
  popdice score lowdown - < boards.json           the boards read from standard input
"""

SCORE_EPILOG = """\
Exit code 0: the result is on standard output. Exit code 2: the document is not valid;
one line on standard error names the field. Every document, in and out: docs/formats.md

examples:
  popdice score lowdown boards.json               each player's score, and who wins
  popdice score lowdown boards.json --suggest     also: the crossings that save the most
"""

SIMULATE_HELP = """\
Plays whole games with simple bots (random legal moves, with a few preferences) and prints
win rate per seat, mean scores and game length. Seeds make runs repeatable. Rule settings
(docs/rules.md lists each with its default) can be changed with --rule NAME=VALUE.

examples:
  popdice simulate ringer --players 4 --games 1000 --seed 7
  popdice simulate popalotsy --players 6 --games 500 --rule mode=strict
  popdice simulate popalotsy --rule turn_taking=true --rule mode=strict
  popdice simulate lowdown --players 3 --games 200 --json
settings:
  popalotsy  mode=faithful|strict turn_taking penalised_card=first|last popper_rotates
             cleared_piles=discard|deck reshuffle_discard win_after_verification ...
  ringer     wrap_numbers wild_reroll_is_wild refill_after_pass limit_after_ask_and_steal
             turn_goes_on_after_ringer streak_on_take_over hand_size hand_limit ...
  lowdown    hidden_roller=right|left hidden_with_wild must_write forced_wild
             crossed_lines_may_share_box cross_any_turn end_grids ...
"""


RAW = argparse.RawDescriptionHelpFormatter


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """`check popalotsy`, `check ringer` and `check lowdown-move`."""
    parser.description = (
        "Rule checks for the three games: one JSON document in, one JSON verdict out."
    )
    parser.epilog = CHECK_EPILOG
    parser.formatter_class = RAW
    games = parser.add_subparsers(dest="check_game", metavar="GAME", required=True)
    for name, helptext, description, run, data_file in (
        (
            "popalotsy",
            "verify the piles after a race",
            POPALOTSY_HELP,
            run_check_popalotsy,
            "popalotsy.json",
        ),
        ("ringer", "judge plays onto a Play Stack", RINGER_HELP, run_check_ringer, "ringer.json"),
        (
            "lowdown-move",
            "judge one Lowdown placement",
            MOVE_HELP,
            run_check_lowdown_move,
            "lowdown.json",
        ),
    ):
        p = games.add_parser(name, help=helptext, description=description, formatter_class=RAW)
        p.add_argument("file", metavar="FILE", type=input_file, help=FILE_HELP)
        p.add_argument(
            "--data", metavar="JSON", type=file_name, help=DATA_HELP.format(name=data_file)
        )
        p.set_defaults(run=run)


def add_score_arguments(parser: argparse.ArgumentParser) -> None:
    """`score lowdown`."""
    parser.description = "Scores game boards: one JSON document in, one JSON result out."
    parser.epilog = SCORE_EPILOG
    parser.formatter_class = RAW
    scored = parser.add_subparsers(dest="score_game", metavar="GAME", required=True)
    p = scored.add_parser(
        "lowdown",
        help="validate and score Lowdown boards",
        description=SCORE_HELP,
        formatter_class=RAW,
    )
    p.add_argument("file", metavar="FILE", type=input_file, help=FILE_HELP)
    p.add_argument(
        "--suggest",
        action="store_true",
        help="also give, per player, the crossings to add that lower the score the most "
        "(on a tie: fewer lines, then rows before columns before diagonals)",
    )
    p.add_argument(
        "--data", metavar="JSON", type=file_name, help=DATA_HELP.format(name="lowdown.json")
    )
    p.set_defaults(run=run_score_lowdown)


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """`simulate GAME`: its bounds come from the simulator, which it runs anyway."""
    from .catalog import GAMES
    from .simulate import MAX_GAMES, MAX_PLAYERS, MAX_SEED

    parser.description = SIMULATE_HELP
    parser.formatter_class = RAW
    parser.add_argument(
        "game", metavar="GAME", choices=sorted(GAMES), help=", ".join(sorted(GAMES))
    )
    parser.add_argument(
        "--players",
        type=whole_number(1, MAX_PLAYERS),
        default=4,
        metavar="N",
        help="players (default 4; how many each game takes: see its rules)",
    )
    parser.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES),
        default=100,
        metavar="K",
        help=f"games (default 100, at most {MAX_GAMES:,})",
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0, MAX_SEED),
        default=1,
        metavar="S",
        help=f"run seed (default 1; 0 to {MAX_SEED:,})",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a rule setting (repeatable)",
    )
    parser.add_argument(
        "--mistakes",
        type=float,
        default=0.0,
        metavar="P",
        help="Popalotsy (faithful mode): chance a bot drops a random card (default 0)",
    )
    parser.add_argument(
        "--data", metavar="JSON", type=file_name, help="a replacement for the game's data file"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(run=run_simulate)


# --- running ------------------------------------------------------------------------------

DOCUMENT_MOST = 8 * MB
"""The largest rule-check document read (a file or standard input): 8 MB, hundreds of
thousands of Ringer events. A longer one is refused in one line."""


def read_document(file: str) -> Field:
    """The JSON document in ``file`` (``-``: standard input), ready to read field by field."""
    from .fields import decode_text, parse_document

    label = "standard input" if file == "-" else file
    try:
        data = read_limited(file, DOCUMENT_MOST, "JSON document", InputError, dash_is_stdin=True)
        text = decode_text(data)
    except FileNotFoundError:
        raise InputError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{label}: is a directory, not a JSON file") from None
    except UnicodeDecodeError:
        raise InputError(
            f"{label}: not UTF-8 text (nor UTF-16 or UTF-32 with a byte-order mark)"
        ) from None
    except OSError as bad:
        raise InputError(f"{label}: cannot read it: {bad.strerror or bad}") from None
    return parse_document(text, label, InputError)


def emit(result: dict[str, Any]) -> int:
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def answer(file: str, schema_name: str, judge: Callable[[Field], dict[str, Any]]) -> int:
    """Reads the document in ``file``, judges it and prints the verdict. The judge's own
    reading comes first (it knows the game's data file: "pink is not a Popalotsy colour"),
    then the document is held to its schema, which also refuses what the judge would skip,
    such as a misspelt field."""
    from . import schema

    doc = read_document(file)
    verdict = judge(doc)
    schema.check(doc.value, schema_name)
    return emit(verdict)


def run_check_popalotsy(args: argparse.Namespace) -> int:
    from .popalotsy.check import check_popalotsy
    from .popalotsy.rules import PopalotsyData

    data = args.data
    return answer(
        args.file, "check-popalotsy", lambda doc: check_popalotsy(doc, PopalotsyData.load(data))
    )


def run_check_ringer(args: argparse.Namespace) -> int:
    from .ringer.check import check_ringer
    from .ringer.rules import RingerData

    data = args.data
    return answer(args.file, "check-ringer", lambda doc: check_ringer(doc, RingerData.load(data)))


def run_check_lowdown_move(args: argparse.Namespace) -> int:
    from .lowdown.check import check_lowdown_move
    from .lowdown.rules import LowdownData

    data = args.data
    return answer(
        args.file, "check-lowdown-move", lambda doc: check_lowdown_move(doc, LowdownData.load(data))
    )


def run_score_lowdown(args: argparse.Namespace) -> int:
    from .lowdown.check import score_lowdown
    from .lowdown.rules import LowdownData

    data, suggest = args.data, args.suggest
    return answer(
        args.file, "score-lowdown", lambda doc: score_lowdown(doc, suggest, LowdownData.load(data))
    )


def run_simulate(args: argparse.Namespace) -> int:
    from ..console.progress import ProgressBar
    from .bots import BotSettings
    from .simulate import simulate

    if not 0.0 <= args.mistakes <= 1.0:
        raise InputError(f"--mistakes: {args.mistakes} is not a chance (0 to 1)")
    summary = simulate(
        args.game,
        args.players,
        args.games,
        args.seed,
        args.rule,
        BotSettings(mistakes=args.mistakes),
        args.data,
        progress=ProgressBar(f"simulating {args.game}"),
    )
    if args.json:
        return emit(summary.as_dict())
    print(summary.text())
    return 0
