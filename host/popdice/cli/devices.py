"""The device subcommands of `popdice`: devices, status, flash, fairness and demo.

Each ``add_*_arguments(parser)`` gives its subcommand's parser a description and arguments
and sets ``run`` to the function that does the work and returns the exit code. `popdice`
imports this module only when one of these subcommands is chosen; what only `flash`,
`fairness` or `demo` needs is imported inside them.
"""

from __future__ import annotations

import argparse
import json

from ..console.arguments import serial_port, whole_number
from ..console.columns import aligned
from ..console.help_text import paragraphs
from ..devices.connect import connect
from ..devices.discovery import FoundDevice, find_devices, pick_port
from ..errors import PopdiceError
from ..kinds import KINDS
from .status_text import STATUS_HELP, status_lines

DEVICE_COLUMNS = ("KIND", "DEVICE ID", "FIRMWARE", "PORT", "STATE")


# --- devices ----------------------------------------------------------------------------


DEVICES_DESCRIPTION = """\
Lists RP2040 boards running MicroPython (USB 2E8A:0005) and running simulators, each after
a handshake, one line each under a header: KIND, DEVICE ID, FIRMWARE (its version), PORT
(marked (simulated) for a simulator) and STATE (ready, busy: another program has the port
open, or why no handshake came)."""

DEVICES_EXAMPLES = """\
examples:
  popdice devices                      every board and simulator found, one line each
  popdice devices --real-only          only the boards plugged in over USB
  popdice devices --sim-only --json    only the simulators, as JSON"""


def add_devices_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DEVICES_DESCRIPTION
    parser.epilog = DEVICES_EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list instead: kind, device_id, firmware, port, simulated, problem, busy",
    )
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--real-only", action="store_true", help="leave out simulators")
    only.add_argument("--sim-only", action="store_true", help="leave out real boards")
    parser.set_defaults(run=cmd_devices)


def cmd_devices(args: argparse.Namespace) -> int:
    """Every device found: a table with a header line, or with --json a JSON list."""
    devices = find_devices(real=not args.sim_only, simulated=not args.real_only)
    if args.json:
        print(json.dumps([d.as_dict() for d in devices], indent=2))
        return 0
    if not devices:
        print("no devices: plug in a board, or start one with `popdice sim popper`")
        return 0
    for line in aligned(DEVICE_COLUMNS, [device_row(d) for d in devices]):
        print(line)
    return 0


def device_row(device: FoundDevice) -> list[str]:
    """A device's cells under ``DEVICE_COLUMNS``: its state is ``ready``, why it is busy, or
    why it gave no handshake."""
    port = f"{device.port} (simulated)" if device.simulated else device.port
    state = device.problem or "ready"
    return [device.kind, device.device_id, device.firmware, port, state]


# --- status -----------------------------------------------------------------------------


STATUS_EXAMPLES = """\
examples:
  popdice status                       the first device found, real boards first
  popdice status --kind handheld       the first handheld found
  popdice status --port /dev/ttyACM0 --json   that board's reply, as it came"""


def add_status_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = paragraphs(
        "Asks one device for its status. Without --port, the first device (of --kind, if "
        "given) is used: real boards first, then simulators. " + STATUS_HELP,
    )
    parser.epilog = STATUS_EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--port", type=serial_port, help="serial port or pyserial URL")
    parser.add_argument("--kind", choices=KINDS, help="which kind of device to look for")
    parser.add_argument(
        "--json", action="store_true", help="print the device's reply as JSON, as it came"
    )
    parser.set_defaults(run=cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    """One device's status: readable lines, or with --json its reply as it came."""
    port = pick_port(args.port, args.kind)
    with connect(port) as client:
        if args.kind and client.info.board != args.kind:
            raise PopdiceError(f"{port} is a {client.info.board}, not a {args.kind}")
        reply = client.status_reply()
        info = client.info
    if args.json:
        print(json.dumps({"port": port, "device_id": info.device_id, **reply}, indent=2))
        return 0
    for line in status_lines(reply, info):
        print(line)
    return 0


# --- flash ------------------------------------------------------------------------------


FLASH_DESCRIPTION = """\
Deploys the PopDice firmware and the board's pin map. If PopDice firmware already runs on
the port it is asked to free the REPL first; if it is the other kind's (a handheld's, when
--board says popper), the board is refused unless --replace is given. A board whose
MicroPython is older than {oldest} is refused. Modules go as .mpy (compiled when the wheel
was built, or in a checkout by mpy-cross) unless --source is given; the board hashes every
file written (SHA-256) to prove it arrived whole. Each step has a deadline: a board that
stops answering, or keeps printing, ends the flash with one line of error."""

FLASH_EXAMPLES = """\
examples:
  popdice flash --port /dev/ttyACM0 --board popper   on Linux
  popdice flash --port COM3 --board popper           on Windows
  popdice flash --port /dev/cu.usbmodem1101 --board popper   on macOS
  popdice flash --port /dev/ttyACM0 --board handheld --replace   a popper made a handheld"""


def add_flash_arguments(parser: argparse.ArgumentParser) -> None:
    from ..deploy.files import oldest_micropython

    parser.description = FLASH_DESCRIPTION.format(oldest=oldest_micropython())
    parser.epilog = FLASH_EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--port", type=serial_port, required=True, help="serial port of the board")
    parser.add_argument("--board", required=True, choices=KINDS, help="which device this board is")
    parser.add_argument("--source", action="store_true", help="deploy .py sources, not .mpy")
    parser.add_argument(
        "--replace",
        action="store_true",
        help="flash even if the board runs the other kind's firmware (its pin map changes)",
    )
    parser.set_defaults(run=cmd_flash)


def cmd_flash(args: argparse.Namespace) -> int:
    from ..console.progress import ProgressBar
    from ..deploy.flash import flash

    info = flash(
        args.port,
        args.board,
        compile_mpy=not args.source,
        progress=ProgressBar(f"flashing {args.board}"),
        replace=args.replace,
    )
    print(f"flashed: {info.board} {info.device_id}, firmware {info.firmware} on {args.port}")
    return 0


# --- fairness ---------------------------------------------------------------------------


FAIRNESS_DESCRIPTION = """\
Asks the popper for --rolls rolls of a game mode, in batches (the dice are counted on the
board, nothing is shown), and prints per die the count of each face, the chi-squared
statistic and its p-value. A fair die gives p spread evenly between 0 and 1; p below {p:g}
is marked SUSPECT."""

FAIRNESS_EXAMPLES = """\
examples:
  popdice fairness                     10,000 rolls of the mode the popper is in
  popdice fairness --rolls 100000 --mode lowdown   Lowdown's four dice, 100,000 rolls
  popdice fairness --port /dev/ttyACM0 --json      that popper's counts and p-values, JSON"""


def add_fairness_arguments(parser: argparse.ArgumentParser) -> None:
    from ..devices.fairness import MAX_ROLLS, SUSPECT_P
    from ..devices.popper import ROLL_COUNTS_MAX

    parser.description = FAIRNESS_DESCRIPTION.format(p=SUSPECT_P)
    parser.epilog = FAIRNESS_EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--rolls",
        type=whole_number(1, MAX_ROLLS),
        default=10000,
        help=f"how many rolls (default 10,000; 1 to {MAX_ROLLS:,})",
    )
    parser.add_argument(
        "--mode",
        choices=("popalotsy", "lowdown", "ringer"),
        help="the game mode whose dice are rolled: popalotsy's five, lowdown's four or "
        "ringer's one; the popper stays in its own mode (default: the mode it is in)",
    )
    parser.add_argument(
        "--batch",
        type=whole_number(1, ROLL_COUNTS_MAX),
        default=2000,
        help=f"rolls per request (default 2,000, about 4 s on a Pico; 1 to {ROLL_COUNTS_MAX:,})",
    )
    parser.add_argument(
        "--port", type=serial_port, help="the popper's port (default: the first popper found)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=cmd_fairness)


def cmd_fairness(args: argparse.Namespace) -> int:
    from ..console.progress import ProgressBar
    from ..devices.fairness import format_report, run_fairness
    from ..devices.popper import Popper

    port = pick_port(args.port, "popper")
    with connect(port) as client:
        if not isinstance(client, Popper):
            raise PopdiceError(f"{port} is a {client.info.board}, not a popper")
        where = f"popper {client.info.device_id} ({port})"
        mode, tests = run_fairness(
            client, args.rolls, args.mode, args.batch, ProgressBar("rolling")
        )
    if args.json:
        print(json.dumps({"mode": mode, "rolls": args.rolls, "dice": [t.__dict__ for t in tests]}))
    else:
        print(format_report(mode, args.rolls, tests, where))
    return 0


# --- demo -------------------------------------------------------------------------------


DEMO_PLAYERS = "Ann,Bob,Cy"

DEMO_DESCRIPTION = f"""\
First the device link, end to end: each device's handshake, a round trip, an event, a
press of the popper's dome and bad input, on the real boards that are plugged in or on
simulated ones. Then, in a terminal, a game at the table on simulated devices: by default
Lowdown, with the players "{DEMO_PLAYERS}" (Ctrl+Q quits it; F1 shows its keys and
commands). Without a terminal it prints the command that starts that table instead."""

DEMO_EXAMPLES = """\
examples:
  popdice demo                         the link on the boards found, then Lowdown
  popdice demo --sim --table ringer --players "Ann,Bob"   simulators even if boards are in
  popdice demo --table none            the device link only, no game"""


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DEMO_DESCRIPTION
    parser.epilog = DEMO_EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--sim", action="store_true", help="use simulators even if boards are found"
    )
    parser.add_argument(
        "--table",
        choices=("lowdown", "ringer", "popalotsy", "none"),
        default="lowdown",
        help="the game the table demo plays (default: lowdown, with the popper and the "
        "handheld), or none: the device link only",
    )
    parser.add_argument(
        "--players",
        help="the table demo's players, comma-separated in seat order "
        f'(default: "{DEMO_PLAYERS}")',
    )
    parser.set_defaults(run=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from ..table.cli import has_terminal
    from .demo import check_table_players, run_demo, run_table_demo

    if args.table == "none":
        if args.players is not None:
            raise PopdiceError("--players is for the table demo: --table none plays no game")
        return run_demo(real=not args.sim)
    players = DEMO_PLAYERS if args.players is None else args.players
    check_table_players(args.table, players)
    status = run_demo(real=not args.sim)
    if status != 0:
        return status
    return run_table_demo(args.table, players, interactive=has_terminal())
