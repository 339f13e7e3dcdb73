"""`popdice demo`: each device's handshake, a command round trip, an event, a press of the
popper's dome (its cue, then its pop on the release), and bad input; then a game at the
table on simulated devices.

Real boards are used when plugged in; otherwise simulated ones are started (and it says so).
With a simulator the demo presses the buttons itself through the control channel; with a
real board it asks you to. The table needs a terminal: without one the demo says how to
start it and stops there.
"""

from __future__ import annotations

import argparse
import json
import queue
import time
from contextlib import ExitStack
from zlib import crc32

from popdice_fw import codec

from ..deploy.files import KINDS
from ..devices.client import DeviceClient
from ..devices.connect import connect
from ..devices.discovery import find_port
from ..devices.link import Event
from ..errors import PopdiceError, UnknownCommand

DEMO_BUTTON = {"popper": "mode", "handheld": "roll"}
REAL_PRESS_TIMEOUT_S = 30.0
SIM_EVENT_TIMEOUT_S = 5.0


def say(kind: str, text: str) -> None:
    print(f"{kind:9} {text}", flush=True)


def show_handshake(kind: str, client: DeviceClient) -> None:
    info = client.info
    say(
        kind,
        f"handshake: board {info.board}, device {info.device_id}, firmware {info.firmware}, "
        f"protocol {info.protocol}, session {info.session}",
    )


def show_round_trip(kind: str, client: DeviceClient) -> None:
    sent = {"hello": kind, "n": 42}
    start = time.perf_counter()
    back = client.echo(**sent)
    elapsed = (time.perf_counter() - start) * 1000
    verdict = "same" if back == sent else f"DIFFERENT: {back}"
    say(kind, f"round trip: echo {json.dumps(sent)} came back {verdict} in {elapsed:.2f} ms")


def show_event(kind: str, client: DeviceClient, control: object | None) -> None:
    button = DEMO_BUTTON[kind]
    if control is not None:
        say(kind, f"event: pressing the {button} button through the simulator's control channel")
        control.click(button)  # type: ignore[attr-defined]
        timeout = SIM_EVENT_TIMEOUT_S
    else:
        say(kind, f"event: press the {button.upper()} button on the {kind} now")
        timeout = REAL_PRESS_TIMEOUT_S
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        item = client.next_event(left)
        if isinstance(item, Event) and item.kind == "button":
            say(kind, f"event #{item.seq} received: {item.kind} {json.dumps(item.data)}")
            return
    raise PopdiceError(f"no button event from the {kind} within {timeout:.0f} s")


PRESS_SEEDS = range(1, 4)  # presses of the simulated dome, until one pops


def show_press(client: DeviceClient, control: object | None) -> None:
    """A press of the dome: the cue on its blow (the dice dim), the pop on its release."""
    if control is None:
        say("popper", "press: press the dome now, hold it a moment, and let go")
        presses = [None]
    else:
        say("popper", "press: a press and release of the dome, from the physical model")
        presses = list(PRESS_SEEDS)
    for seed in presses:
        started = time.monotonic()
        if control is not None:
            from ..sim.physics import press_trace

            control.feed_accel(press_trace(seed=seed).samples_g, wait=False)  # type: ignore[attr-defined]
        deadline = started + (SIM_EVENT_TIMEOUT_S if control is not None else REAL_PRESS_TIMEOUT_S)
        while (left := deadline - time.monotonic()) > 0:
            item = client.next_event(left)
            if not isinstance(item, Event):
                continue
            at = f"{(item.received - started) * 1000:.0f} ms"
            if item.kind == "cue" and item.data.get("on"):
                say("popper", f"cue at {at}: the press blow; the dice dim until it is let go")
            elif item.kind == "cue":
                say("popper", f"at {at}: let go without a release it could tell: no pop")
                break
            elif item.kind == "pop":
                say("popper", f"pop at {at}, on the release: {json.dumps(item.data['dice'])}")
                return
    raise PopdiceError("the popper did not pop: press the dome again, or run popdice calibrate")


def expect_complaint(client: DeviceClient, what: str) -> str:
    try:
        code, message = client.link.complaints.get(timeout=2.0)
    except queue.Empty:
        raise PopdiceError(f"the device did not answer the {what} with an error frame") from None
    return f"{code} ({message})"


def show_bad_input(kind: str, client: DeviceClient) -> None:
    client.link.send_raw(b"\x05not a frame\x00")
    say(kind, f"bad frame: answered with error frame {expect_complaint(client, 'bad frame')}")

    payload = codec.dumps({"t": "cmd", "d": client.info.session, "s": 10**6, "c": "echo", "a": {}})
    wrong_crc = ((crc32(payload) ^ 0xFFFF) & 0xFFFFFFFF).to_bytes(4, "little")
    client.link.send_raw(codec.cobs_encode(payload + wrong_crc) + b"\x00")
    say(kind, f"wrong CRC: answered with error frame {expect_complaint(client, 'wrong CRC')}")

    try:
        client.link.call("launch_rockets")
    except UnknownCommand as error:
        say(
            kind,
            f"unknown command: answered with error frame {error.code} ({error.device_message})",
        )
    status = client.status()
    say(
        kind,
        f"still running: status says up {status.uptime_ms} ms, {status.link['rx_errors']} bad "
        f"frames seen, heap free {status.heap_free} B",
    )


def run_demo(real: bool = True) -> int:
    print("PopDice demo: the device link, end to end", flush=True)
    with ExitStack() as stack:
        for kind in KINDS:
            port = find_port(kind, simulated=False) if real else None
            control = None
            if port is None:
                from ..sim.control import SimControl
                from ..sim.supervisor import SimulatedPico

                sim = stack.enter_context(SimulatedPico(kind))
                control = stack.enter_context(SimControl(sim.control_path))
                port = sim.port
                say(kind, f"no real {kind} plugged in: started a simulated one on {port}")
            else:
                say(kind, f"found a real {kind} on {port}")
            client = stack.enter_context(connect(port))
            show_handshake(kind, client)
            show_round_trip(kind, client)
            show_event(kind, client, control)
            if kind == "popper":
                show_press(client, control)
            show_bad_input(kind, client)
    print("demo finished: both devices answered everything and kept running", flush=True)
    return 0


def check_table_players(game: str, players: str) -> None:
    """Refuses the table demo's players as the table would, before the link demo runs."""
    from ..table.cli import parse_players
    from ..table.referee import Refused
    from ..table.replay import new_referee

    try:
        new_referee(game, parse_players(players))
    except Refused as refusal:
        raise PopdiceError(refusal.detail) from None


def run_table_demo(game: str, players: str, interactive: bool) -> int:
    """``popdice table GAME --sim`` for the demo's players, when there is a terminal."""
    command = ["table", game, "--sim", "--players", players]
    if not interactive:
        print(
            "the table needs a terminal: play one with  popdice "
            + " ".join(command[:3])
            + f' --players "{players}"',
            flush=True,
        )
        return 0
    print(f"starting the table: {game} for {players} on simulated devices", flush=True)
    from .table import add_table_arguments

    parser = argparse.ArgumentParser(prog="popdice table")
    add_table_arguments(parser)
    args = parser.parse_args(command[1:])
    return args.run(args)
