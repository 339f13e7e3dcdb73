"""Before the reveal, nothing the handheld sends gives its dice away.

Every byte the device sends is recorded on the wire (a pass-through line between host and
device). "No trace" of a roll, in the bytes sent before its reveal, means:

- no colour name at all, in any letter case: no message before a reveal has a reason to
  name a colour, so the hidden roll cannot be named either;
- no piece of the nonce (any 6 of its bytes): not as hex in either case, raw, or base64;
- no field that could carry the number: no key such as ``number`` / ``colour`` / ``nonce``
  / ``value`` / ``face`` anywhere, every object that speaks of a roll has only the
  documented keys (``roll_id``, ``commitment``, ``replaces``, ``revealed``), and none of
  its integers equals the number;
- the same size for every roll: a commitment event is as long whatever the dice are.

The raw bytes are searched, and so is each decoded payload (COBS can split a string across
its blocks). The checker is shown to fail: on crafted leaks of each kind, and on the whole
recording, where the reveal must be found.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from faultline import FaultyLine
from test_handheld_sim import click

from popdice.devices.handheld import Handheld, Reveal, RevealEvent, SecretRollEvent
from popdice.hil import DeviceUnderTest
from popdice_fw import codec
from popdice_fw.commit import COLOURS

NONCE_PIECE_BYTES = 6
ROLL_KEYS = {"roll_id", "commitment", "replaces", "revealed"}
SUSPECT_KEYS = {"colour", "color", "number", "nonce", "value", "values", "face", "die", "dice"}
EVENT_TIMEOUT_S = 5.0


class RecordingLine(FaultyLine):
    """A line without faults that keeps every byte the device sends."""

    def __init__(self, device_port: str) -> None:
        self._recorded = bytearray()
        self._record_lock = threading.Lock()
        super().__init__(device_port)

    def mangle(self, chunk: bytes, faults: Any) -> bytes:
        if faults is self.to_host:
            with self._record_lock:
                self._recorded += chunk
        return chunk

    def recorded(self) -> bytes:
        with self._record_lock:
            return bytes(self._recorded)


def nonce_encodings(nonce_hex: str) -> Iterator[tuple[str, bytes]]:
    raw = bytes.fromhex(nonce_hex)
    for start in range(len(raw) - NONCE_PIECE_BYTES + 1):
        piece = raw[start : start + NONCE_PIECE_BYTES]
        yield f"nonce bytes {start}.. as hex", piece.hex().encode()
        yield f"nonce bytes {start}.. raw", piece
    for shift in range(3):  # base64 of the nonce at any alignment within a longer text
        text = base64.b64encode(raw[shift:])[4 : 4 + 8]
        yield f"nonce in base64 (offset {shift})", text


def payloads(data: bytes) -> list[dict[str, Any]]:
    return [item for item in codec.Deframer().feed(data) if isinstance(item, dict)]


def objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from objects(value=item)
    elif isinstance(value, list):
        for item in value:
            yield from objects(item)


def traces(data: bytes, reveal: Reveal) -> list[str]:
    """Every trace of the revealed roll's values in ``data`` (bytes from the device)."""
    found = []
    texts = [("the raw bytes", data.lower())]
    frames = payloads(data)
    texts += [(f"payload {frame!r:.80}", json.dumps(frame).encode().lower()) for frame in frames]
    needles = [(f"colour name {c!r}", c.encode()) for c in COLOURS]
    needles += [(name, needle.lower()) for name, needle in nonce_encodings(reveal.nonce)]
    for where, text in texts:
        found += [f"{what} in {where}" for what, needle in needles if needle in text]
    for frame in frames:
        # What events and replies carry; the link's own fields (the hello's nonce is the
        # host's) are searched as bytes only.
        for obj in objects(frame.get("v")):
            for key in SUSPECT_KEYS & set(obj):
                found.append(f"key {key!r} in {frame!r:.80}")
            if "roll_id" in obj or "commitment" in obj:
                extra = set(obj) - ROLL_KEYS
                if extra:
                    found.append(f"undocumented keys {sorted(extra)} in a roll: {obj!r:.80}")
                numbers = [v for v in obj.values() if type(v) is int and v == reveal.number]
                if numbers:
                    found.append(f"the number {reveal.number} in a roll: {obj!r:.80}")
    return found


def roll_event_sizes(data: bytes) -> set[int]:
    """Sizes of the ``secret_roll`` payloads, with the roll ids (and ``replaces``) made one
    length: what is left cannot depend on the dice."""
    sizes = set()
    for frame in payloads(data):
        if frame.get("t") == "evt" and frame.get("k") == "secret_roll":
            value = dict(frame["v"], roll_id="x", replaces="x")
            sizes.add(len(json.dumps({**frame, "e": 0, "lo": 0, "v": value})))
    return sizes


def synced(client: Handheld, line: RecordingLine) -> bytes:
    """Everything the device has sent so far: a round trip makes sure it is on record."""
    client.echo(sync=True)
    return line.recorded()


def next_roll(client: Handheld) -> SecretRollEvent:
    while True:
        item = client.next_event(EVENT_TIMEOUT_S)
        assert item is not None, "no secret_roll event"
        if isinstance(item, SecretRollEvent):
            return item


@pytest.fixture
def recorded(handheld_dut: DeviceUnderTest) -> Iterator[tuple[Handheld, RecordingLine]]:
    handheld_dut.release()
    line = RecordingLine(handheld_dut.port)
    try:
        client = handheld_dut.connect(line.port)
        assert isinstance(client, Handheld)
        yield client, line
        handheld_dut.release()
    finally:
        line.close()


# --- the checker itself


REVEAL = Reveal("cafe0001-1", "00112233445566778899aabbccddeeff", "orange", 5)


def frame(kind: str, value: dict[str, Any]) -> bytes:
    return codec.encode({"t": "evt", "d": "cafe0001", "e": 1, "lo": 1, "k": kind, "v": value})


@pytest.mark.parametrize(
    ("leak", "trace"),
    [
        (frame("log", {"text": "rolled ORANGE"}), "colour name 'orange'"),
        (frame("log", {"text": "dice: purple"}), "colour name 'purple'"),
        (frame("log", {"text": "n=445566778899"}), "as hex"),
        (b"\x00" + bytes.fromhex("5566778899aa") + b"\x00", "raw"),
        (frame("log", {"b": base64.b64encode(bytes.fromhex(REVEAL.nonce)).decode()}), "base64"),
        (frame("secret_roll", {"roll_id": "a", "commitment": "b", "n": 5}), "undocumented keys"),
        (frame("secret_roll", {"roll_id": "a", "commitment": "b", "replaces": 5}), "the number"),
        (frame("debug", {"number": 1}), "key 'number'"),
        (frame("log", {"pad": "x" * 250 + "orange"}), "payload"),  # split by a COBS block
    ],
)
def test_the_checker_finds_each_kind_of_leak(leak: bytes, trace: str):
    found = traces(leak, REVEAL)
    assert any(trace in item for item in found), found


def test_the_checker_passes_a_commitment_alone():
    clean = frame("secret_roll", {"roll_id": REVEAL.roll_id, "commitment": "ab" * 32})
    assert traces(clean, REVEAL) == []


# --- the handheld


def check(before: bytes, everything: bytes, reveal: Reveal) -> None:
    assert traces(before, reveal) == []
    found = " / ".join(traces(everything, reveal))
    for kind in (f"colour name {reveal.colour!r}", "nonce", "key 'number'"):
        assert kind in found, f"the checker missed the reveal itself ({kind})"


@pytest.mark.rp2040_tier
def test_nothing_sent_before_the_reveal_gives_the_dice_away(recorded):
    client, line = recorded
    rolls = [client.roll() for _ in range(6)]  # each one replaces the one before
    for roll in rolls:
        assert next_roll(client).roll == roll
    client.status()
    before = synced(client, line)
    assert len(roll_event_sizes(before)) == 1  # the same size whatever the dice

    reveal = client.reveal()
    assert reveal.roll_id == rolls[-1].roll_id
    check(before, synced(client, line), reveal)


@pytest.mark.rp2040_tier
def test_nothing_sent_before_a_button_reveal_gives_the_dice_away(recorded, handheld_control):
    client, line = recorded
    control = handheld_control
    client.settings(peek_ms=60_000)
    for _ in range(3):
        assert any(isinstance(e, SecretRollEvent) for e in click(client, control, "roll"))
    baseline = control.display()["buffer"]
    control.press("peek")
    control.wait_for("display", lambda e: e["buffer"] != baseline)
    control.release("peek")
    control.wait_for("display", lambda e: e["buffer"] == baseline)
    client.status()
    before = synced(client, line)

    revealed = [e for e in click(client, control, "reveal", 1100) if isinstance(e, RevealEvent)]
    assert len(revealed) == 1
    reveal = revealed[0].reveal
    assert reveal.by == "button"
    check(before, synced(client, line), reveal)
