"""The handheld from the host: the commitment, the client's checks of reveals (against a
scripted handheld that cheats), and the client's calls and events on a handheld.

Tests on the ``handheld`` fixture use only the link: they run on a real board too
(``pytest --device auto``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest
from scripted_device import ScriptedDevice

import popdice
from popdice.devices.handheld import (
    BatteryEvent,
    CommitmentMismatch,
    Commitments,
    Handheld,
    HandheldStatus,
    MalformedRoll,
    NoSecretRoll,
    OtherLink,
    Reveal,
    RevealEvent,
    SecretRoll,
    SecretRollEvent,
    StaleRoll,
    UnknownRoll,
)
from popdice.devices.link import Event, Notice
from popdice.errors import BadArguments, PopdiceError
from popdice_fw.commit import COLOURS, commitment

DEVICE = "0123456789abcdef"  # the scripted device's id
NONCE = "00112233445566778899aabbccddeeff"
EVENT_TIMEOUT_S = 5.0


def committed(roll_id: str, colour: str, number: int, nonce: str = NONCE) -> str:
    return commitment(DEVICE, roll_id, nonce, colour, number)


def opened(roll_id: str, colour: str, number: int, nonce: str = NONCE) -> dict[str, Any]:
    return {"roll_id": roll_id, "nonce": nonce, "colour": colour, "number": number}


def event_of(client: Handheld, kind: str) -> Notice:
    """The next event of this kind (button events and the like are skipped)."""
    while True:
        item = client.next_event(EVENT_TIMEOUT_S)
        if item is None:
            raise AssertionError(f"no {kind} event within {EVENT_TIMEOUT_S} s")
        if isinstance(item, Event) and item.kind == kind:
            return item


def as_handheld(client: popdice.DeviceClient) -> Handheld:
    assert isinstance(client, Handheld), client
    return client


# --- the commitment and its check, without a device


def test_the_commitment_is_sha256_of_the_pipe_separated_text():
    text = f"{DEVICE}|cafe0001-3|{NONCE}|purple|4".encode()
    assert committed("cafe0001-3", "purple", 4) == hashlib.sha256(text).hexdigest()
    vector = commitment("e6614103e7123456", "0badcafe-1", NONCE, "purple", 4)
    # the same vector as tests/upy/test_handheld_parts.py: both interpreters agree
    assert vector == "414441775a56ebefdabab6d19bb4b161e9965065ec2805937b8cdb90b3a326f4"


def test_a_matching_reveal_is_accepted_and_kept():
    book = Commitments(DEVICE)
    book.record(SecretRoll("s-1", committed("s-1", "green", 2)))
    reveal = Reveal.from_data(opened("s-1", "green", 2))
    assert book.verify(reveal) == reveal
    assert book.verified["s-1"].colour == "green"


@pytest.mark.parametrize(
    ("change", "value"),
    [("colour", "blue"), ("number", 3), ("nonce", "f" * 32), ("roll_id", "s-2")],
)
def test_any_changed_field_is_a_mismatch(change: str, value: Any):
    book = Commitments(DEVICE)
    book.record(SecretRoll("s-1", committed("s-1", "green", 2)))
    book.record(SecretRoll("s-2", committed("s-1", "green", 2)))  # s-2 committed to s-1's text
    changed = {**opened("s-1", "green", 2), change: value}
    with pytest.raises(CommitmentMismatch, match="does not match its commitment") as error:
        book.verify(Reveal.from_data(changed))
    assert "\n" not in str(error.value)


def test_the_device_id_is_part_of_the_commitment():
    book = Commitments("another-device")
    book.record(SecretRoll("s-1", committed("s-1", "green", 2)))
    with pytest.raises(CommitmentMismatch):
        book.verify(Reveal.from_data(opened("s-1", "green", 2)))


def test_a_reveal_without_its_commitment_cannot_be_checked():
    with pytest.raises(UnknownRoll, match="never reached this host"):
        Commitments(DEVICE).verify(Reveal.from_data(opened("s-9", "red", 1)))


def test_a_roll_id_cannot_change_its_commitment():
    book = Commitments(DEVICE)
    book.record(SecretRoll("s-1", committed("s-1", "red", 1)))
    book.record(SecretRoll("s-1", committed("s-1", "red", 1)))  # the same again is fine
    with pytest.raises(CommitmentMismatch, match="two different commitments"):
        book.record(SecretRoll("s-1", committed("s-1", "red", 2)))


@pytest.mark.parametrize(
    "change",
    [
        {"colour": "pink"},
        {"number": 7},
        {"number": 0},
        {"number": True},
        {"number": "4"},
        {"number": 4.0},
        {"nonce": "0011"},
        {"nonce": NONCE.upper()},
        {"roll_id": ""},
    ],
)
def test_malformed_reveals_are_refused(change: dict[str, Any]):
    with pytest.raises(MalformedRoll):
        Reveal.from_data({**opened("s-1", "red", 1), **change})


@pytest.mark.parametrize(
    "data",
    [
        {"commitment": "ab" * 32},
        {"roll_id": "s-1", "commitment": "AB" * 32},
        {"roll_id": "s-1", "commitment": "ab" * 31},
        {"roll_id": "s-1", "commitment": "ab" * 32, "replaces": 3},
    ],
)
def test_malformed_rolls_are_refused(data: dict[str, Any]):
    with pytest.raises(MalformedRoll):
        SecretRoll.from_data(data)


def test_handheld_errors_are_popdice_errors():
    for error in (CommitmentMismatch, UnknownRoll, MalformedRoll, NoSecretRoll, StaleRoll):
        assert issubclass(error, PopdiceError)


# --- a scripted handheld that cheats


@pytest.fixture
def cheat():
    device = ScriptedDevice(board="handheld")
    yield device
    device.close()


@pytest.fixture
def cheat_client(cheat: ScriptedDevice):
    client = as_handheld(popdice.connect(cheat.port))
    yield client
    client.close()


def test_a_reveal_event_that_changed_the_dice_raises(cheat, cheat_client):
    roll = {"roll_id": "s-1", "commitment": committed("s-1", "purple", 4), "replaces": None}
    cheat.event(1, 1, "secret_roll", **roll)
    assert isinstance(event_of(cheat_client, "secret_roll"), SecretRollEvent)
    cheat.event(2, 2, "reveal", **opened("s-1", "purple", 5), by="button")
    with pytest.raises(CommitmentMismatch, match=r"roll s-1 \(purple 5\)"):
        event_of(cheat_client, "reveal")


def test_a_reveal_reply_that_changed_the_dice_raises(cheat, cheat_client):
    commit = committed("s-1", "purple", 4)
    answers = {
        "status": {"board": "handheld", "roll": {"roll_id": "s-1", "commitment": commit}},
        "reveal": opened("s-1", "yellow", 4),
    }
    cheat.handler = lambda _device, message: answers[message["c"]]
    with pytest.raises(CommitmentMismatch):
        cheat_client.reveal()


def test_the_devices_refusals_are_typed(cheat, cheat_client):
    commit = committed("s-1", "purple", 4)

    def refuse(device: ScriptedDevice, message: dict[str, Any]) -> dict[str, Any] | None:
        if message["c"] == "status":
            return {"board": "handheld", "roll": {"roll_id": "s-1", "commitment": commit}}
        code = "stale_roll" if message["a"].get("roll_id") == "s-1" else "no_roll"
        error = {"t": "err", "d": device.session, "s": message["s"], "code": code, "msg": "no"}
        device.send(error)
        return None

    cheat.handler = refuse
    with pytest.raises(StaleRoll, match="stale_roll"):
        cheat_client.reveal()
    with pytest.raises(NoSecretRoll, match="no_roll"):
        cheat_client.reveal("s-0")


def test_a_reveal_of_a_roll_never_committed_raises(cheat, cheat_client):
    cheat.event(1, 1, "reveal", **opened("s-7", "red", 1), by="button")
    with pytest.raises(UnknownRoll):
        event_of(cheat_client, "reveal")


# --- a handheld (simulated, or real with --device)


@pytest.mark.rp2040_tier
def test_roll_sends_a_commitment_and_the_reveal_matches_it(handheld):
    client = as_handheld(handheld)
    roll = client.roll()
    rolled = event_of(client, "secret_roll")
    assert isinstance(rolled, SecretRollEvent) and rolled.roll == roll
    assert roll.roll_id.startswith(client.info.session + "-")

    status = client.status()
    assert isinstance(status, HandheldStatus)
    assert status.roll is not None and not status.revealed
    assert (status.roll.roll_id, status.roll.commitment) == (roll.roll_id, roll.commitment)

    reveal = client.reveal()
    assert reveal.roll_id == roll.roll_id and reveal.colour in COLOURS and 1 <= reveal.number <= 6
    assert (
        commitment(client.info.device_id, roll.roll_id, reveal.nonce, reveal.colour, reveal.number)
        == roll.commitment
    )
    revealed = event_of(client, "reveal")
    assert isinstance(revealed, RevealEvent)
    assert revealed.reveal == Reveal(roll.roll_id, reveal.nonce, reveal.colour, reveal.number)
    assert client.status().revealed
    assert client.reveal(roll.roll_id) == reveal  # asking again shows the same dice


@pytest.mark.rp2040_tier
def test_a_second_roll_before_the_reveal_reaches_the_host_as_such(handheld):
    client = as_handheld(handheld)
    first = client.roll()
    second = client.roll()
    assert second.rerolled and second.replaces == first.roll_id
    events = [event_of(client, "secret_roll"), event_of(client, "secret_roll")]
    assert [e.roll for e in events if isinstance(e, SecretRollEvent)] == [first, second]
    with pytest.raises(StaleRoll, match="not the current roll"):
        client.reveal(first.roll_id)
    assert client.reveal().roll_id == second.roll_id
    third = client.roll()
    assert not third.rerolled  # the roll before it was revealed: nothing hidden was replaced


@pytest.mark.rp2040_tier
def test_only_the_link_session_that_made_a_roll_may_reveal_it(handheld_dut):
    """A client's hello starts a new link session: a roll made in an earlier one (another
    program's, or this host's before it connected again) is not revealed by command; the
    fresh client still learns its commitment, so the holder's REVEAL can be checked."""
    first = as_handheld(handheld_dut.client)
    roll = first.roll()
    handheld_dut.release()
    late = as_handheld(handheld_dut.connect())
    with pytest.raises(OtherLink, match=f"roll {roll.roll_id} was made in another link session"):
        late.reveal()
    assert roll.roll_id in late.commitments and not late.status().revealed
    mine = late.roll()
    reveal = late.reveal()
    assert reveal.roll_id == mine.roll_id and late.commitments.verified[mine.roll_id] == reveal


@pytest.mark.rp2040_tier
def test_the_reveal_command_names_the_roll_and_takes_nothing_else(handheld):
    client = as_handheld(handheld)
    roll = client.roll()
    for args in (
        {},
        {"roll_id": None},
        {"roll_id": None, "x": 1},
        {"roll_id": roll.roll_id, "x": 1},
    ):
        with pytest.raises(BadArguments, match="bad_args"):
            client.link.call("reveal", args)
    assert not client.status().revealed
    assert client.reveal(roll.roll_id).roll_id == roll.roll_id


@pytest.mark.rp2040_tier
def test_reveal_without_a_roll_is_refused(handheld):
    client = as_handheld(handheld)
    if client.status().roll is not None:
        pytest.skip("this handheld has rolled since it booted: the test needs a fresh boot")
    with pytest.raises(NoSecretRoll, match="no secret roll"):
        client.reveal()


@pytest.mark.rp2040_tier
def test_status_has_the_battery_and_the_display(handheld):
    status = as_handheld(handheld).status()
    assert 3.0 <= status.vsys <= 5.5
    assert not status.battery_low  # on USB power
    assert status.display_present


def test_status_of_a_handheld_holding_a_roll_prints_it(handheld_dut, capsys):
    from popdice.cli.main import main

    roll = as_handheld(handheld_dut.client).roll()
    handheld_dut.release()
    assert main(["status", "--port", handheld_dut.port, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["roll"] == {
        "roll_id": roll.roll_id,
        "commitment": roll.commitment,
        "revealed": False,
    }
    assert main(["status", "--port", handheld_dut.port]) == 0
    lines = capsys.readouterr().out.splitlines()
    shown = lines[lines.index("  roll:") : lines.index("  roll:") + 4]
    assert shown == [
        "  roll:",
        f"    roll id: {roll.roll_id}",
        f"    commitment: {roll.commitment} (SHA-256 of the secret dice and a nonce)",
        "    revealed: no",
    ]
    assert "  display:" in lines and "    present: yes (a panel answered at boot)" in lines
    assert re.search(r"^  battery: \d\.\d\d V \(VSYS\)$", "\n".join(lines), re.M)


@pytest.mark.rp2040_tier
def test_settings_are_checked_and_kept(handheld):
    client = as_handheld(handheld)
    before = client.settings()
    try:
        assert set(before) == {"peek_ms", "idle_ms", "low_mv"}
        assert client.settings(peek_ms=2500) == {**before, "peek_ms": 2500}
        assert client.settings()["peek_ms"] == 2500
        with pytest.raises(BadArguments, match="idle_ms"):
            client.settings(peek_ms=900, idle_ms=5)
        assert client.settings()["peek_ms"] == 2500  # a refused call changes nothing
    finally:
        client.settings(**before)


def test_battery_events_are_typed(cheat, cheat_client):
    battery = {"vsys_mv": 3412, "low": True}
    cheat.send({"t": "evt", "d": cheat.session, "e": 1, "lo": 1, "k": "battery", "v": battery})
    event = event_of(cheat_client, "battery")
    assert isinstance(event, BatteryEvent) and event.low and event.vsys == pytest.approx(3.412)
