"""Each board against what an attacker or a broken host sends, and against a long session.

Fuzz: seeded random input over the serial port, between ordinary commands: random bytes with
and without frame delimiters, frames cut short or with a bit flipped, frames of every JSON
type, and well-formed frames whose every field (type, session, number, command, arguments)
takes extreme values: huge and negative numbers, long and empty strings, the wrong types,
deep nesting, and each command of the board with its arguments out of range. The device's
own session is used, so commands really run. After it the device must answer, report no task
that died, and have its heap back at the baseline it had before (a leak per frame would show).

Soak: 20,000 mixed calls to both boards with their heaps measured along the way: no drift,
and every counter call ran exactly once.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any
from zlib import crc32

import pytest

import popdice
from popdice.devices.client import DeviceClient
from popdice.devices.handheld import Handheld
from popdice.hil import DeviceUnderTest
from popdice_fw import codec

INTS = (0, -1, 1, 2, 2**30 - 1, 2**30, 2**31, 2**53, 2**63, 10**40, -(10**40))
STRINGS = ("", "x", "x" * 64, "x" * 65, "x" * 480, "⚀", "\x00", "%s%d%r")
OTHERS = (None, True, False, 1.5, -0.0, 1e308, [], {}, [[[[[]]]]], {"a": {"b": {"c": 1}}})
VALUES = INTS + STRINGS + OTHERS
KINDS = ("cmd", "hello", "ack", "evt", "res", "err", "smp", "", "CMD", 7, None)
# Each board's commands and the arguments they take ("repl" is left out: it ends the link).
COMMANDS: dict[str, dict[str, tuple[Any, ...]]] = {
    "status": {},
    "echo": {"x": VALUES},
    "counter": {},
    "burst": {"n": (1, 3, 0, -1, 100_001, 10**40, "3", None), "pad": (0, 400, 401, -1, 10**9)},
    "mode": {"mode": ("popalotsy", "lowdown", "ringer", "yahtzee", "", None, 3)},
    "pop": {},
    "reroll": {"die": (*INTS, None, "0", 1.0)},
    "settings": {
        "brightness": (0, 255, 256, -1, 10**40, True),
        "cap_ma": (50, 450, 49, 451, None),
        "animation": (True, False, 0, "yes"),
        "peek_ms": (100, 60_000, 99, 60_001, 10**40),
        "idle_ms": (100, 3_600_000, 3_600_001, -5),
        "low_mv": (2500, 5500, 2499, 5501, "3500"),
    },
    "roll_counts": {"n": (1, 50, 0, 20_001, 10**40, None), "mode": ("lowdown", "x", None)},
    "timing": {"reset": (True, False, 5)},
    "detector": {
        "settings": ({}, {"threshold_mg": 1}, {"threshold_mg": 300}, {"nope": 1}, [], "x"),
        "reset": (True, False, None),
    },
    "stream": {"on": (True, False, None, 1), "seconds": (1, 60, 0, 61, 10**40)},
    "roll": {},
    "reveal": {"roll_id": ("", "x", "00000000-1", None, 5)},
}
FUZZ_FRAMES = {"unix": 1500, "rp2040": 75}  # the emulated chip takes 0.2 s of wall time each
# The emulated RP2040 works through a backlog of bad input at about 20 KB/s of its time.
CALL_TIMEOUT_S = {"unix": 0.3, "rp2040": 3.0}
SOAK_CALLS = 20_000
# Bytes the heap free may differ by with the device in the same state: its queues and caches
# (the transmit queue, list capacities, the deframer's buffer) hold a little more or less.
# Measured on the unix port: within 1.7 KB; a leak of one object every 20 frames exceeds it.
HEAP_SLACK = 2560
NUMBERS_ABOVE_CLIENT = 1_000  # a fuzzed command number above the client's own is rare


def arguments(rng: random.Random, command: str) -> Any:
    known = COMMANDS.get(command, {})
    if rng.random() < 0.1:
        return rng.choice(VALUES)  # not an object at all
    args: dict[str, Any] = {}
    for name, choices in known.items():
        if rng.random() < 0.6:
            args[name] = rng.choice(choices)
    if rng.random() < 0.2:
        args[rng.choice(STRINGS) or "k"] = rng.choice(VALUES)
    return args


def message(rng: random.Random, session: str, next_seq: int) -> Any:
    """A well-formed frame's payload with fields at their extremes."""
    kind = rng.choice(KINDS) if rng.random() < 0.3 else "cmd"
    fields: dict[str, Any] = {"t": kind}
    fields["d"] = session if rng.random() < 0.8 else rng.choice(VALUES)
    if kind == "cmd":
        # Mostly numbers the client has not used yet, so the commands run.
        fields["s"] = next_seq + rng.randrange(NUMBERS_ABOVE_CLIENT)
        if rng.random() < 0.2:
            fields["s"] = rng.choice(INTS + OTHERS)
        command = rng.choice(list(COMMANDS))
        fields["c"] = command if rng.random() < 0.9 else rng.choice(VALUES)
        fields["a"] = arguments(rng, command)
    elif kind == "hello":
        fields["nonce"] = rng.choice(VALUES)
        fields["proto"] = rng.choice(VALUES)
        if rng.random() < 0.1:
            fields["renumber"] = True
    else:
        fields["e"] = rng.choice(VALUES)
        fields["s"] = rng.choice(VALUES)
    for _ in range(rng.randrange(3)):
        fields[rng.choice(STRINGS) or "z"] = rng.choice(VALUES)
    return fields


def framed(payload: bytes) -> bytes:
    """A frame around any payload, even one too long for ``codec.wrap``."""
    return codec.cobs_encode(payload + crc32(payload).to_bytes(4, "little")) + b"\x00"


def garbage(rng: random.Random, session: str, next_seq: int) -> bytes:
    """One piece of bad input."""
    choice = rng.random()
    if choice < 0.15:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 600)))
    if choice < 0.25:  # a frame of some other JSON value
        value = rng.choice((*VALUES, [1] * 3, "plain"))
        return framed(json.dumps(value).encode())
    if choice < 0.3:  # deep nesting
        depth = rng.choice((30, 200, 1000))
        return framed(("[" * depth + "]" * depth).encode()[:600])
    try:
        frame = codec.encode(message(rng, session, next_seq))
    except codec.FrameError:  # too long to be a frame: send it anyway
        frame = framed(json.dumps(message(rng, session, next_seq)).encode())
    if choice < 0.4:
        return frame[: rng.randrange(1, len(frame))]
    if choice < 0.5:
        damaged = bytearray(frame)
        damaged[rng.randrange(len(damaged) - 1)] ^= 1 << rng.randrange(8)
        return bytes(damaged)
    return frame


def answering(call: Callable[[], Any]) -> Any:
    """The result of ``call``; once again if fuzzed numbers overtook the client's."""
    try:
        return call()
    except popdice.CommandsOutOfStep:
        return call()


def settle(client: DeviceClient) -> int:
    """The heap free once the device is back to the same state: no stream, the built-in
    detector, no unacknowledged events; the popper's LED faces built for every colour (it
    builds them as colours are first used at a brightness)."""
    if client.info.board == "popper":
        call = client.link.call
        answering(lambda: call("stream", {"on": False}))
        answering(lambda: call("detector", {"reset": True}))
        answering(lambda: call("settings", {"brightness": 95, "animation": False}))
        answering(lambda: call("settings", {"brightness": 96, "cap_ma": 400}))
        for mode in ("lowdown", "ringer", "popalotsy"):
            answering(lambda mode=mode: call("mode", {"mode": mode}))
            answering(lambda: call("pop"))
        answering(lambda: call("settings", {"animation": True}))
    for _ in range(50):
        status = answering(client.status)
        if status.unacked_events == 0:
            # What is in flight only ever takes heap: the most free of three looks is the rest.
            return max([status.heap_free] + [answering(client.status).heap_free for _ in "ab"])
        drain(client)
    raise AssertionError("the device kept unacknowledged events")


def drain(client: DeviceClient, wait: float = 0.05) -> None:
    """Takes the events that came (acknowledging them), waiting ``wait`` s for each."""
    while client.next_event(wait) is not None:
        pass


def warm_up(client: DeviceClient) -> None:
    """Everything the fuzz can make the device keep for later (LED faces of every colour,
    a roll, the stream's buffers) is made once before the baseline."""
    if client.info.board == "popper":
        for mode in ("popalotsy", "lowdown", "ringer"):
            client.link.call("mode", {"mode": mode})
            client.link.call("pop")
        client.link.call("stream", {"on": True, "seconds": 1})
    else:
        rolled = client.link.call("roll")
        client.link.call("reveal", {"roll_id": rolled["roll_id"], "key": client.link.session_key})
    client.link.call("burst", {"n": 3, "pad": 400})
    drain(client)


def pieces(rng: random.Random, client: DeviceClient, count: int) -> Iterator[bytes]:
    for _ in range(count):
        assert client.info is not None
        yield garbage(rng, client.info.session, client.link._next_seq)
        # The client numbers its next command past every fuzzed one, as another program's
        # commands would otherwise make it wait for a timeout to notice (tested elsewhere).
        client.link._next_seq += NUMBERS_ABOVE_CLIENT


# On the emulated RP2040 (make test's tier) the popper's share; the handheld's runs there on
# request: pytest --device rp2040 tests/test_device_fuzz.py
ON_THE_TIER = pytest.mark.rp2040_tier


@pytest.mark.parametrize("kind", [pytest.param("popper", marks=ON_THE_TIER), "handheld"])
def test_fuzzed_frames_leave_the_device_answering_with_its_heap_as_before(request, kind):
    dut: DeviceUnderTest = request.getfixturevalue(f"{kind}_dut")
    client = dut.client
    backend = dut.sim.backend if dut.sim is not None else "rp2040"
    client.link.timeout = CALL_TIMEOUT_S[backend]
    warm_up(client)
    baseline = settle(client)
    rng = random.Random(f"fuzz:{kind}")
    for i, piece in enumerate(pieces(rng, client, FUZZ_FRAMES[backend])):
        client.link.send_raw(piece)
        if i % 25 == 24:
            assert answering(lambda i=i: client.echo(i=i)) == {"i": i}, f"after {i + 1} pieces"
            drain(client)
    client.link.send_raw(b"\x00")  # ends a frame the last piece left open
    after = settle(client)
    status = answering(client.status)
    assert "task_failures" not in status.extra, status.extra
    assert status.link["handler_errors"] == 0, status.link
    assert abs(after - baseline) <= HEAP_SLACK, (baseline, after)


def reroll_after_a_pop(client: DeviceClient) -> Any:
    """A reroll; refused (and so answered) when the mode changed since the last pop."""
    try:
        return client.link.call("reroll", {"die": 0})
    except popdice.DeviceError as error:
        assert error.code == "no_roll", error
        return None


def soak_calls(client: DeviceClient, rng: random.Random) -> Callable[[], Any]:
    """One call of the mix a session makes: echoes of every size, counters, status, and each
    board's own commands."""
    assert client.info is not None
    popper = client.info.board == "popper"
    choice = rng.random()
    if choice < 0.35:
        size = rng.randrange(300)
        return lambda: client.echo(blob="y" * size)
    if choice < 0.6:
        return lambda: client.link.call("counter")
    if choice < 0.65:
        return client.status
    if popper and choice < 0.75:
        mode = rng.choice(("popalotsy", "lowdown", "ringer"))
        return lambda: client.link.call("mode", {"mode": mode})
    if popper and choice < 0.9:
        return lambda: client.link.call("pop")
    if popper:
        return lambda: reroll_after_a_pop(client)
    if choice < 0.85:
        return lambda: client.link.call("roll")
    assert isinstance(client, Handheld)
    return client.reveal  # it names the current roll, as the command needs


@pytest.mark.runs_long
def test_a_long_session_with_both_boards_keeps_the_heap_and_runs_every_command_once(
    popper_dut: DeviceUnderTest, handheld_dut: DeviceUnderTest
):
    if popper_dut.sim is not None and popper_dut.sim.backend != "unix":
        pytest.skip("20,000 calls take an hour on the emulated RP2040")
    boards = [popper_dut.client, handheld_dut.client]
    counted = {id(board): 0 for board in boards}
    heaps: dict[int, list[int]] = {id(board): [] for board in boards}
    rng = random.Random("soak")
    for board in boards:
        warm_up(board)
    for i in range(SOAK_CALLS):
        board = rng.choice(boards)
        result = soak_calls(board, rng)()
        if isinstance(result, dict) and "value" in result:
            counted[id(board)] += 1
            assert result["value"] == counted[id(board)], f"call {i}: a counter ran twice or not"
        if i % 50 == 0:
            drain(board, 0)
        if i % 5000 == 4999:
            for each in boards:
                heaps[id(each)].append(settle(each))
    assert min(counted.values()) > SOAK_CALLS // 10
    for board in boards:
        drift = max(heaps[id(board)]) - min(heaps[id(board)])
        assert drift <= HEAP_SLACK, (board.info, heaps[id(board)])
