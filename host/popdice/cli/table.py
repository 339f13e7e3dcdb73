"""``popdice table`` as the command runs it: the table (``popdice.table``) with its boards,
found over USB, or simulated ones (asked for with ``--sim``, or when none is plugged in),
whose hands the table's keys act through. ``popdice history`` needs no board and is
``popdice.table.cli``'s alone."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from typing import Any

from ..errors import PopdiceError
from ..table import cli as table_cli
from ..table.devices import Hands


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    table_cli.add_table_arguments(parser, open_board, serve_phones)


def serve_phones(
    stack: ExitStack, session: Any, args: argparse.Namespace, hands: dict[str, Hands]
) -> Any:
    """``--serve``: the table with each player's board on their phone (``popdice.phones``),
    which needs the phones extra."""
    try:
        from ..phones.cli import served_app
    except ImportError as error:
        raise PopdiceError(
            f"--serve needs the phones extra ({error.name} is missing): "
            "pip install 'popdice[phones]'"
        ) from None
    return served_app(stack, session, args, hands)


HANDS_SEED_ENV = "POPDICE_SIM_SEED"


def hands_seed() -> int | None:
    """``$POPDICE_SIM_SEED``: the simulated presses and knocks the same at every run."""
    text = os.environ.get(HANDS_SEED_ENV, "")
    return int(text) if text.isdigit() else None


def open_board(stack: ExitStack, board: str, simulated: bool) -> tuple[Any, Hands | None]:
    """The ``board`` (popper or handheld) over USB, or a simulated one (asked for, or when
    none is plugged in, which it says) with the hands on it. A board plugged in but held by
    another program is refused, naming the port and the program."""
    from ..devices.connect import connect_when_ready
    from ..devices.discovery import find_devices, first_of, refuse_busy

    hands = None
    port = None
    if not simulated:
        plugged = find_devices(real=True, simulated=False)
        port = first_of(plugged, board)
        if port is None:
            refuse_busy(plugged, board)  # one is plugged in, but another program has it
    if port is None:
        from ..errors import SimulatorError
        from ..sim import SimulatedPico
        from ..sim.hands import SimulatedHands

        try:
            sim = SimulatedPico(board)
        except SimulatorError as error:
            if simulated:
                raise
            raise PopdiceError(f"no {board} plugged in, and {error}") from None
        if not simulated:
            print(f"no {board} plugged in: using a simulated one", file=sys.stderr)
        stack.enter_context(sim)
        hands = SimulatedHands(stack.enter_context(sim.control()), seed=hands_seed())
        port = sim.port
    client = stack.enter_context(connect_when_ready(port))
    if client.info.board != board:
        raise PopdiceError(f"{port} is a {client.info.board}, not a {board}")
    return client, hands
