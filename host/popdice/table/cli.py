"""The ``popdice table`` and ``popdice history`` commands: parsers and what they run.

``add_table_arguments(parser, open_device, serve)`` and ``add_history_arguments(parser)``
give each its arguments and set ``run`` to a function taking the parsed arguments and
returning the exit code. The table's devices come from ``open_device`` (``popdice.cli.table``
gives the command's: boards over USB, or simulated ones), and ``--serve``'s app with the
phones from ``serve`` (``popdice.phones``, given by the same). Bad input raises a
``PopdiceError`` (one line).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import re
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..console.columns import aligned
from ..console.help_text import paragraphs
from ..console.messages import quoted
from ..errors import JournalError, PopdiceError
from ..games.fields import shown
from .devices import Hands, OpenDevice
from .journal import JOURNAL_FILE, MAX_GAME_ID, GameRecord, Journal, data_dir
from .journal_rows import TABLE_GAMES, DamagedGame
from .names import literal, name_problem

if TYPE_CHECKING:
    from collections.abc import Callable

    from .app import TableApp
    from .session import TableSession

    Serve = Callable[[ExitStack, TableSession, argparse.Namespace, dict[str, Hands]], TableApp]
    """Makes the table's app with the phones served (``--serve``), entering the server into
    the stack."""

TABLE_EPILOG = """\
examples:
  popdice table lowdown --players "Ann,Bob,Cy"    the popper and the handheld over USB
  popdice table ringer --players "Ann,Bob" --sim  a simulated popper, keys press its dome
  popdice table lowdown --players "Ann,Bob" --rule end_grids=1   a short game
  popdice table --resume                          go on with the last unfinished game
  popdice table lowdown --players "Ann,Bob,Cy" --serve   each player's board on a phone

Players move by pointing (click a board, pick dice, click a lit box; or Tab, the arrows,
Enter and Esc) or by typing commands. With --serve (Lowdown, the phones extra: pip install
'popdice[phones]') the laptop also serves each player's own board as a web page on the
local network, at the address the laptop reaches its router by unless --address names
another, and shows one QR code per player (F6): its address holds a random token of that
player's, the only key to their page (R there gives the player shown a new one, closing
the pages opened with the old). Without --serve nothing listens.

keys at the table: F1 help (every command, with examples) · F2 press the dome ·
F3 ROLL and F4 REVEAL on the handheld · F5 knock the table · F6 the phones' QR codes ·
Ctrl+Q quit
"""

HISTORY_DESCRIPTION = """\
Lists the games in the table's journal, oldest first, one line each under a header:
ID (the GAME_ID for --export), STARTED (UTC), GAME, STATE (finished, unfinished, or
damaged and the entry), PLAYERS (in seat order), WINNERS and SCORES (in seat order; -
until the game ends). Every entry is read and checked as --export reads it, and an
unfinished game is replayed as --resume would. A game with a damaged entry is listed as
damaged; one whose own record is damaged is left out; each is named in one line on
standard error (exit code 2). Only reads the journal, so a folder it cannot write will do.
"""

HISTORY_EPILOG = """\
--json prints one JSON array, oldest game first, each game an object with the keys:
  id        the game's number (GAME_ID for --export)
  game      ringer, popalotsy or lowdown
  state     "finished", "unfinished" or "damaged"
  damage    what is damaged, e.g. "entry 7: data: not valid JSON ..."; null if nothing
  players   the players' names in seat order
  settings  the rule settings changed from the defaults (--rule): an object, often {}
  started   when the game started: ISO 8601 in UTC, e.g. "2025-11-26T09:17:57.123+00:00"
  finished  when it ended, the same way; null while unfinished
  winners   the winners' names (more than one: a tie); null while unfinished
  scores    the final scores in seat order; null while unfinished
--export GAME_ID prints the same object of one game, without state and damage, with its
entries.

examples:
  popdice history                      the games, one line each
  popdice history --json               the same as JSON
  popdice history --export 3           game 3's whole journal
"""

HISTORY_COLUMNS = ("ID", "STARTED (UTC)", "GAME", "STATE", "PLAYERS", "WINNERS", "SCORES")

HANDHELD_GAMES = ("lowdown",)
"""The games with secret dice: the table opens the handheld too."""


def port_number(text: str) -> int:
    if text.isascii() and text.isdigit() and 1 <= int(text) <= 65535:
        return int(text)
    raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, not {shown(text)}")


def add_table_arguments(
    parser: argparse.ArgumentParser, open_device: OpenDevice, serve: Serve | None = None
) -> None:
    parser.description = paragraphs(
        "Finds the popper (and for Lowdown the handheld) over USB, or starts "
        "simulated ones with --sim, or when none is plugged in, and says so; then runs the "
        "game full-screen. Every move is journaled as it happens; --resume picks up the "
        "last unfinished game."
    )
    parser.epilog = TABLE_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", nargs="?", choices=TABLE_GAMES)
    parser.add_argument("--players", help='comma-separated names in seat order: "Ann,Bob,Cy"')
    parser.add_argument("--sim", action="store_true", help="use simulated devices")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="Lowdown: change a rule setting, e.g. end_grids=1 for a short game (repeatable)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="resume the last unfinished game, its game, players and rules as journaled",
    )
    if serve is not None:
        parser.add_argument(
            "--serve",
            action="store_true",
            help="Lowdown: serve each player's board to their phone (QR codes: F6)",
        )
        parser.add_argument(
            "--address",
            metavar="ADDRESS",
            help="where --serve listens (default: the address the laptop reaches its "
            "router by, which phones on the same network reach)",
        )
        parser.add_argument("--port", type=port_number, help="--serve's port (default: 8765)")
    parser.set_defaults(run=functools.partial(run_table, open_device=open_device, serve=serve))


def add_history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HISTORY_DESCRIPTION
    parser.epilog = HISTORY_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    shown_as = parser.add_mutually_exclusive_group()
    shown_as.add_argument(
        "--json", action="store_true", help="print the list as one JSON array (keys below)"
    )
    shown_as.add_argument(
        "--export", type=game_number, metavar="GAME_ID", help="print that game's journal"
    )
    parser.set_defaults(run=run_history)


def has_terminal() -> bool:
    """Whether standard input and output are both a terminal, as the full-screen table needs."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def game_number(text: str) -> int:
    """A game id as typed: digits, 1 to SQLite's largest integer (a usage error otherwise)."""
    digits = len(str(MAX_GAME_ID))
    if text.isascii() and text.isdigit() and len(text) <= digits and 1 <= int(text) <= MAX_GAME_ID:
        return int(text)
    raise argparse.ArgumentTypeError(
        f"GAME_ID is a game's number as `popdice history` lists it, not {shown(text)}"
    )


def parse_players(text: str | None) -> list[str]:
    """The names of ``--players`` in seat order, each held to the rules of ``names.py``."""
    names = [name.strip() for name in (text or "").split(",")]
    if len(names) < 2:
        raise PopdiceError('give at least two players: --players "Ann,Bob"')
    for name in names:
        problem = name_problem(name)
        if problem is not None:
            raise PopdiceError(f"{problem} in --players {quoted(text or '')}")
    if len({name.lower() for name in names}) != len(names):
        raise PopdiceError("every player needs a different name")
    return names


def rule_settings(game: str, rules: list[str]) -> dict[str, Any]:
    """The ``--rule NAME=VALUE`` changes for ``game``, as the game record keeps them."""
    if not rules:
        return {}
    if game != "lowdown":
        raise PopdiceError(f"{game} has no rule settings at the table")
    import dataclasses

    from ..games.config import with_settings
    from ..games.errors import ConfigError
    from ..games.lowdown.rules import LowdownConfig

    default = LowdownConfig()
    try:
        chosen = with_settings(default, rules)
    except ConfigError as error:
        raise PopdiceError(str(error)) from None
    return {
        field.name: getattr(chosen, field.name)
        for field in dataclasses.fields(chosen)
        if getattr(chosen, field.name) != getattr(default, field.name)
    }


def run_history(args: argparse.Namespace) -> int:
    """The games as aligned lines or as JSON (a damaged one: one line on standard error,
    and exit 2), or one game's journal as JSON. Reads the journal only, so a read-only
    folder will do."""
    path = data_dir() / JOURNAL_FILE
    if path.parent.exists() and not path.parent.is_dir():
        raise PopdiceError(f"{path.parent} is a file: the journal's folder must be a folder")
    if not path.exists():
        if args.export is not None:
            raise PopdiceError(f"no game {args.export}: there is no journal {path} yet")
        show_games([], damaged=0, as_json=args.json)
        return 0
    with Journal(path, read_only=True) as journal:
        if args.export is not None:
            print(json.dumps(journal.export(args.export), indent=2), flush=True)
            return 0
        games, damaged = listed_games(journal)
    show_games(games, damaged=damaged, as_json=args.json)
    return 2 if damaged else 0


@dataclass(frozen=True)
class Listed:
    """A game as ``history`` lists it: its record, and what is damaged in it (None:
    nothing)."""

    record: GameRecord
    damage: str | None = None


def listed_games(journal: Journal) -> tuple[list[Listed], int]:
    """Every game whose record reads back whole, each with the damage its entries have, and
    how many games are damaged: each of those is named in one line on standard error (a
    game whose record is damaged is not listed)."""
    games: list[Listed] = []
    damaged = 0
    for game_id in journal.game_ids():
        try:
            record = journal.game(game_id)
        except JournalError as error:
            print(f"error: {error}", file=sys.stderr)
            damaged += 1
            continue
        games.append(Listed(record, entries_damage(journal, record)))
        damaged += games[-1].damage is not None
    return games, damaged


def entries_damage(journal: Journal, record: GameRecord) -> str | None:
    """What is damaged in ``record``'s entries, read as ``--export`` reads them, and for an
    unfinished game replayed as ``--resume`` would (writing nothing); named in one line on
    standard error. None: nothing."""
    try:
        entries = journal.entries(record.id)
        if record.finished is None:
            from .replay import replay

            replay(record, entries)
    except JournalError as error:
        print(f"error: {error}", file=sys.stderr)
        return damage_of(error, record.id)
    return None


def damage_of(error: JournalError, game_id: int) -> str:
    """What ``error`` says is damaged in game ``game_id``, without naming the game."""
    if isinstance(error, DamagedGame):
        return error.damage
    return str(error).removeprefix(f"game {game_id}: ")


def show_games(games: list[Listed], *, damaged: int, as_json: bool) -> None:
    """Prints ``games`` as one JSON array, or as a table with a header line (or says there
    are none, unless some were ``damaged``)."""
    if as_json:
        print(json.dumps([history_item(game) for game in games], indent=2))
    elif games:
        rows = [history_row(game) for game in games]
        for line in aligned(HISTORY_COLUMNS, rows, right={0}):
            print(line)
    elif not damaged:
        print("no games yet")


def history_item(game: Listed) -> dict[str, Any]:
    """A game as ``history --json`` gives it: the keys ``HISTORY_EPILOG`` lists."""
    return {**game.record.as_dict(), "state": game_state(game), "damage": game.damage}


def game_state(game: Listed) -> str:
    """``damaged`` if anything in the game is, else ``finished`` once the game has an end
    time, else ``unfinished``."""
    if game.damage is not None:
        return "damaged"
    return "unfinished" if game.record.finished is None else "finished"


def state_cell(game: Listed) -> str:
    """The STATE column: the state, and for a damaged game the entry (``damaged: entry
    7``) when one entry is."""
    entry = re.match(r"entry \d+", game.damage or "")
    return f"{game_state(game)}: {entry.group(0)}" if entry else game_state(game)


def history_row(game: Listed) -> list[str]:
    """A game's cells under ``HISTORY_COLUMNS``; an unfinished game has no winners and
    scores yet (``-``). Names are shown as typed, control characters as escapes."""
    record = game.record
    started = record.started[:16].replace("T", " ")
    winners = "-" if record.winners is None else ", ".join(map(literal, record.winners))
    scores = "-" if record.scores is None else ", ".join(str(score) for score in record.scores)
    players = ", ".join(map(literal, record.players))
    return [str(record.id), started, record.game, state_cell(game), players, winners, scores]


def run_table(args: argparse.Namespace, open_device: OpenDevice, serve: Serve | None = None) -> int:
    from .app import TableApp
    from .lock import GameLock
    from .referee import Refused
    from .replay import new_referee, rebuild
    from .session import TableSession

    check_table_options(args)
    players = [] if args.resume else parse_players(args.players)
    settings: dict[str, Any] = {}
    if not args.resume:
        try:
            settings = rule_settings(args.game, args.rule)
            new_referee(args.game, players, settings)  # refused before any device opens
        except Refused as refusal:
            raise PopdiceError(refusal.detail) from None
    if not has_terminal():
        raise PopdiceError(
            "the table is full-screen and needs a terminal: run it in one, not with its "
            "input or output redirected"
        )
    with Journal() as journal, ExitStack() as stack:
        game = args.game
        resumed = taken_over = None
        if args.resume:  # refused before any device opens: no game, another table's, damaged
            last = journal.last_unfinished()
            if last is None:
                raise PopdiceError("no unfinished game to resume")
            taken_over = stack.enter_context(GameLock(journal, last.id)).taken_over
            resumed = rebuild(journal, last.id)
            game = last.game
            check_served(args, game)
        hands: dict[str, Hands] = {}
        popper = _open(open_device, stack, "popper", args.sim, hands)
        handheld = None
        if game in HANDHELD_GAMES:
            handheld = _open(open_device, stack, "handheld", args.sim, hands)
        if resumed is not None:
            session = TableSession.resumed(journal, *resumed, popper, handheld)
            if taken_over is not None:
                session.note(f"taken over from {taken_over}, which has ended")
        else:
            try:
                session = TableSession.start(
                    journal, args.game, players, popper, handheld, settings
                )
            except Refused as refusal:
                raise PopdiceError(refusal.detail) from None
            stack.enter_context(GameLock(journal, session.game_id))
        if serve is not None and getattr(args, "serve", False):
            try:
                app = serve(stack, session, args, hands)
            except BaseException:
                if resumed is None:  # a game that never began play is not kept
                    with contextlib.suppress(JournalError):
                        journal.drop_unplayed(session.game_id)
                raise
        else:
            app = TableApp(session, simulated=bool(hands), hands=hands)
        app.run()
        for client in (session.popper, session.handheld):  # clients of devices found again
            if client is not None and client not in (popper, handheld):
                client.close()
    return app.return_code or 0


def check_table_options(args: argparse.Namespace) -> None:
    """Refuses options that do not go together, before anything opens: ``--resume`` with a
    game, players or rules of its own, ``--serve`` for a game other than Lowdown, and
    ``--address`` or ``--port`` without ``--serve``."""
    if args.resume:
        if args.game is not None or args.players is not None or args.rule:
            raise PopdiceError(
                "--resume goes on with the last unfinished game as it was journaled: "
                "give it no game, --players or --rule"
            )
    elif args.game is None:
        raise PopdiceError("name the game (or --resume)")
    else:
        check_served(args, args.game)
    if not getattr(args, "serve", False):
        for option in ("address", "port"):
            if getattr(args, option, None) is not None:
                raise PopdiceError(f"--{option} is for --serve: give --serve too, or no --{option}")


def check_served(args: argparse.Namespace, game: str) -> None:
    """Refuses ``--serve`` for ``game`` unless it is Lowdown."""
    if getattr(args, "serve", False) and game != "lowdown":
        raise PopdiceError(f"--serve is for Lowdown; {game} is played at the laptop")


def _open(
    open_device: OpenDevice, stack: ExitStack, board: str, simulated: bool, hands: dict[str, Hands]
) -> Any:
    """The ``board``'s client from ``open_device``; a simulated one's hands go into ``hands``."""
    client, board_hands = open_device(stack, board, simulated)
    if board_hands is not None:
        hands[board] = board_hands
    return client
