"""The `popdice` command: one subcommand per job, each with --help that teaches it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from . import __version__
from .arguments import serial_port, whole_number
from .client import connect
from .columns import aligned
from .discovery import FoundDevice, find_devices, first_of
from .errors import PopdiceError
from .fairness import MAX_ROLLS
from .firmware import KINDS, oldest_micropython
from .messages import LINE_LIMIT, one_line
from .popper import ROLL_COUNTS_MAX
from .status_text import STATUS_HELP, status_lines

EPILOG = """\
examples:
  popdice devices                      list boards and simulators, one line each
  popdice sim popper                   run a simulated popper (prints its serial port)
  popdice sim popper --rp2040          the same on MicroPython's Pico image, emulated
  popdice uf2 --board popper --out popper.uf2   one file to drag onto a Pico
  popdice wiring --board popper        what to solder to which pin (--out FILE.svg: drawn)
  popdice status --kind popper         health of the first popper found
  popdice flash --port /dev/ttyACM0 --board popper
  popdice demo                         the link end to end, then Lowdown at the table
  popdice fairness --rolls 100000      chi-squared test of every die of the popper
  popdice detect trace.csv --labels trace.labels.json
  popdice record --seconds 120 --out rec/presses.csv --prompt   presses, labelled
  popdice tune rec/ --out detector.json   fit the press detector to recordings
  popdice calibrate                    fit it to this popper at its table, guided
  popdice table lowdown --players "Ann,Bob,Cy" --sim   F1 at the table shows every key
  popdice table --resume               go on with the last unfinished game
  popdice history                      past games, players, winners and scores
  popdice check ringer play.json       was that card legal? (JSON in, JSON out)
  popdice score lowdown boards.json --suggest
  popdice simulate lowdown --players 3 --games 500 --seed 1
"""


def pick_port(port: str | None, kind: str | None) -> str:
    """``port`` if given, else the first device of ``kind`` (real boards first)."""
    if port is not None:
        return port
    devices = find_devices()
    for wanted in [kind] if kind else list(KINDS):
        found = first_of(devices, wanted)
        if found:
            return found
    what = kind or "PopDice device"
    busy = [d.port for d in devices if d.busy and (kind is None or d.kind in (kind, "?"))]
    if busy:
        raise PopdiceError(f"no free {what}: {busy[0]} is busy (another program has it open)")
    start = f"popdice sim {kind or 'popper'}"
    raise PopdiceError(f"no {what} found: plug one in, or start a simulated one with `{start}`")


DEVICE_COLUMNS = ("KIND", "DEVICE ID", "FIRMWARE", "PORT", "STATE")


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


def cmd_status(args: argparse.Namespace) -> int:
    """One device's status: readable lines, or with --json its reply as it came."""
    port = pick_port(args.port, args.kind)
    with connect(port) as client:
        reply = client.status_reply()
        info = client.info
    if args.json:
        print(json.dumps({"port": port, "device_id": info.device_id, **reply}, indent=2))
        return 0
    for line in status_lines(reply, info):
        print(line)
    return 0


def cmd_flash(args: argparse.Namespace) -> int:
    from .flash import flash
    from .progress import ProgressBar

    info = flash(
        args.port,
        args.board,
        compile_mpy=not args.source,
        progress=ProgressBar(f"flashing {args.board}"),
    )
    print(f"flashed: {info.board} {info.device_id}, firmware {info.firmware} on {args.port}")
    return 0


def cmd_fairness(args: argparse.Namespace) -> int:
    from .fairness import format_report, run_fairness
    from .popper import Popper
    from .progress import ProgressBar

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


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import check_table_players, run_demo, run_table_demo
    from .table.cli import has_terminal

    if args.table != "none":
        check_table_players(args.table, args.players)
    status = run_demo(real=not args.sim)
    if status != 0 or args.table == "none":
        return status
    return run_table_demo(args.table, args.players, interactive=has_terminal())


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on standard error (naming the command and
    pointing at its --help) and exit code 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        first = message.strip().splitlines()[0] if message.strip() else "bad arguments"
        tail = f" (see {self.prog} --help)"
        self.exit(2, one_line(f"error: {self.prog}: {first}", LINE_LIMIT - len(tail)) + tail + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="popdice",
        description="PopDice on the laptop: play at the table with the popper and the "
        "handheld, check and score the rules, find and flash the devices, run simulated ones.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"popdice {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "devices",
        help="list PopDice boards and running simulators",
        description="Lists RP2040 boards running MicroPython (USB 2E8A:0005) and running "
        "simulators, each after a handshake, one line each under a header: KIND, DEVICE ID, "
        "FIRMWARE (its version), PORT (marked (simulated) for a simulator) and STATE (ready, "
        "busy: another program has the port open, or why no handshake came).",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list instead: kind, device_id, firmware, port, simulated, problem, busy",
    )
    only = p.add_mutually_exclusive_group()
    only.add_argument("--real-only", action="store_true", help="leave out simulators")
    only.add_argument("--sim-only", action="store_true", help="leave out real boards")
    p.set_defaults(run=cmd_devices)

    p = sub.add_parser(
        "status",
        help="a device's health: uptime, heap, link counters, the board's sensors",
        description="Asks one device for its status. Without --port, the first device of "
        "--kind is used (real boards first, then simulators). " + STATUS_HELP,
    )
    p.add_argument("--port", type=serial_port, help="serial port or pyserial URL")
    p.add_argument("--kind", choices=KINDS, help="which kind of device to look for")
    p.add_argument(
        "--json", action="store_true", help="print the device's reply as JSON, as it came"
    )
    p.set_defaults(run=cmd_status)

    p = sub.add_parser(
        "flash",
        help="put the firmware on a board with mpremote",
        description="Deploys the PopDice firmware and the board's pin map. If PopDice "
        "firmware already runs on the port it is asked to free the REPL first. A board whose "
        f"MicroPython is older than {oldest_micropython()} is refused. Modules go as .mpy "
        "(compiled when the wheel was built, or in a checkout by mpy-cross) unless --source "
        "is given; the board hashes every file written (SHA-256) to prove it arrived whole.",
    )
    p.add_argument("--port", type=serial_port, required=True, help="serial port of the board")
    p.add_argument("--board", required=True, choices=KINDS, help="which device this board is")
    p.add_argument("--source", action="store_true", help="deploy .py sources, not .mpy")
    p.set_defaults(run=cmd_flash)

    p = sub.add_parser(
        "fairness",
        help="roll the popper many times and test every die with chi-squared",
        description="Asks the popper for --rolls rolls of a game mode, in batches (the "
        "dice are counted on the board, nothing is shown), and prints per die the count of "
        "each face, the chi-squared statistic and its p-value. A fair die gives p spread "
        "evenly between 0 and 1; p below 0.001 is marked SUSPECT.",
    )
    p.add_argument(
        "--rolls",
        type=whole_number(1, MAX_ROLLS),
        default=10000,
        help=f"how many rolls (10,000; at most {MAX_ROLLS:,})",
    )
    p.add_argument("--mode", choices=("popalotsy", "lowdown", "ringer"), help="(current mode)")
    p.add_argument(
        "--batch",
        type=whole_number(1, ROLL_COUNTS_MAX),
        default=2000,
        help=f"rolls per request (2,000: about 4 s on a Pico; at most {ROLL_COUNTS_MAX:,})",
    )
    p.add_argument(
        "--port", type=serial_port, help="the popper's port (default: the first popper found)"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=cmd_fairness)

    p = sub.add_parser(
        "demo",
        help="show the devices working, then play a game at the table",
        description="First the device link, end to end: each device's handshake, a round "
        "trip, an event and bad input, on the real boards that are plugged in or on "
        "simulated ones. Then, in a terminal, the table on simulated devices (Ctrl+Q quits "
        "it; F1 shows its keys and commands).",
    )
    p.add_argument("--sim", action="store_true", help="use simulators even if boards are found")
    p.add_argument(
        "--table",
        choices=("lowdown", "ringer", "popalotsy", "none"),
        default="lowdown",
        help="the game the table demo plays (lowdown: popper and handheld), or none",
    )
    p.add_argument(
        "--players", default="Ann,Bob,Cy", help='the table demo\'s players ("Ann,Bob,Cy")'
    )
    p.set_defaults(run=cmd_demo)

    from .games import cli as games_cli
    from .rp2040 import cli as uf2_cli
    from .sim import cli as sim_cli
    from .table import cli as table_cli
    from .traces import calibrate_cli, record_cli, tune_cli
    from .traces import cli as traces_cli
    from .wiring import cli as wiring_cli

    sim_cli.add_parser(sub).set_defaults(run=sim_cli.run)
    uf2_cli.add_parser(sub)
    wiring_cli.add_parser(sub)
    games_cli.add_parsers(sub)
    table_cli.add_parser(sub)
    traces_cli.add_parser(sub)
    record_cli.add_parser(sub)
    tune_cli.add_parser(sub)
    calibrate_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 0
    try:
        return run(args)
    except PopdiceError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``popdice history | head``): no traceback, and no second
        # error when Python flushes standard output at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
