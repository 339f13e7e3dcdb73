"""``popdice sim {popper,handheld}``: runs one simulated board until Ctrl-C or SIGTERM.

By default the firmware runs on the MicroPython unix port; ``--rp2040`` boots the board's
UF2 image (MicroPython's own build for the Pico and the firmware) in an emulated RP2040.
The first line of stdout is the serial port to open (then the control socket and the device
id). ``--show`` draws the LEDs or the display in the terminal whenever they change;
``--png FILE`` keeps a picture of the handheld's display up to date. Errors are one line on
stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..console.arguments import OutputFile, file_name, folder_name
from ..console.messages import one_line
from ..errors import PopdiceError, SimulatorError
from ..files import output_target, write_replacing
from ..kinds import KINDS
from . import protocol, render
from .control import SimControl
from .supervisor import SimulatedPico

_CLEAR = "\x1b[H\x1b[2J"

DESCRIPTION = """\
Runs one simulated board until Ctrl-C or SIGTERM: the firmware on MicroPython's unix port,
or with --rp2040 the board's UF2 image (MicroPython's own build for the Pico and the
firmware) in an emulated RP2040. It prints three lines on standard output: first the
serial port to open (what --port takes; `popdice devices` lists it too), then
"control: PATH", the simulator's control socket, and "device id: ID". --show draws the
LEDs or the display in the terminal whenever they change; --png FILE keeps a picture of
the handheld's display up to date."""

EPILOG = """\
examples:
  popdice sim popper                   a popper on the unix port, until Ctrl-C
  popdice sim popper --rp2040          the same on MicroPython's Pico image, emulated
  popdice sim handheld --show          a handheld, its display drawn here as it changes
  popdice sim handheld --png hand.png  its display kept up to date in hand.png
  popdice sim popper --hold mode       booted with MODE held: safe mode, the REPL free
  popdice sim popper --flash sim-flash   its flash kept in sim-flash/ across runs"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("kind", choices=KINDS, help="which board")
    parser.add_argument(
        "--rp2040",
        action="store_true",
        help="MicroPython's Pico image in an emulated RP2040 (rp2040js), not the unix port",
    )
    parser.add_argument(
        "--micropython",
        metavar="BASE.uf2",
        type=file_name,
        help="with --rp2040: the MicroPython image to build the board on (see popdice uf2)",
    )
    parser.add_argument(
        "--id",
        dest="device_id",
        metavar="ID",
        help="its device id, 16 hex digits (default: random)",
    )
    parser.add_argument(
        "--flash",
        metavar="DIR",
        type=folder_name,
        help=(
            "the simulated flash, kept across runs (the firmware is laid out there when it "
            "has no main.py; with --rp2040, no flash.bin)"
        ),
    )
    parser.add_argument(
        "--hold",
        metavar="BUTTON",
        action="append",
        default=[],
        help="a button held at boot: the popper's mode (safe mode), the handheld's roll, peek "
        "or reveal; repeatable",
    )
    parser.add_argument("--show", action="store_true", help="draw the LEDs or display here")
    parser.add_argument(
        "--png",
        metavar="FILE.png",
        type=OutputFile(".png", "the display is saved as PNG"),
        help="save the handheld's display as a PNG",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    stop = threading.Event()
    try:
        with _stop_on_signals(stop):
            if args.png and args.kind != "handheld":
                raise SimulatorError("--png draws the handheld's display: the popper has none")
            if args.micropython and not args.rp2040:
                raise SimulatorError("--micropython is for --rp2040 (the unix port has its own)")
            _check_places(args)
            sim = SimulatedPico(
                args.kind,
                device_id=args.device_id,
                flash_dir=args.flash,
                hold=args.hold,
                backend="rp2040" if args.rp2040 else "unix",
                base_image=args.micropython,
            )
            sim.start()
            try:
                print(sim.port, flush=True)
                print(f"control: {sim.control_path}", flush=True)
                print(f"device id: {sim.device_id}", flush=True)
                if args.show or args.png:
                    _watch(sim, args, stop)
                else:
                    while not stop.wait(0.5):
                        pass
            finally:
                sim.stop()
    except PopdiceError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except OSError as error:
        where = error.filename or ""
        print(one_line(f"error: {error.strerror or error}: {where}"), file=sys.stderr)
        return 2
    return 0


def _check_places(args: argparse.Namespace) -> None:
    """Refuses a --flash that is a file, a --png that cannot be written and a
    --micropython that is no MicroPython image, before the simulator starts."""
    if args.micropython:
        from ..deploy.base_image import load_base

        load_base(args.micropython)
    if args.flash and Path(args.flash).exists() and not Path(args.flash).is_dir():
        raise SimulatorError(f"--flash {args.flash} is a file: give a folder")
    if args.png:
        output_target(args.png, SimulatorError)


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def request_stop(_signum: int, _frame: object) -> None:
        stop.set()

    previous = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _watch(sim: SimulatedPico, args: argparse.Namespace, stop: threading.Event) -> None:
    """Redraws whenever the board shows something new (the latest state only, if behind)."""
    kinds = (protocol.LEDS,) if sim.kind == "popper" else (protocol.DISPLAY,)
    with SimControl(sim.control_path) as control:
        seen = control.mark()
        while True:
            if args.show:
                _draw(sim, control)
            if args.png:
                _save_png(Path(args.png), control.display())
            event = None
            while event is None and not stop.is_set():
                event = control.next_event(kinds, timeout=0.25, after=seen)
            if event is None:
                return
            newer = control.events(kinds, after=event.seq)
            seen = newer[-1].seq if newer else event.seq


def _draw(sim: SimulatedPico, control: SimControl) -> None:
    if sim.kind == "popper":
        picture = render.dice_text(control.leds())
    else:
        picture = render.display_text(control.display())
    title = f"simulated {sim.kind} {sim.device_id} on {sim.port} (Ctrl-C to stop)"
    sys.stdout.write(f"{_CLEAR}{title}\n\n{picture}\n")
    sys.stdout.flush()


def _save_png(path: Path, state: dict[str, Any]) -> None:
    write_replacing(path, render.display_png(state), SimulatorError)
