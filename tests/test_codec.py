"""The link codec on CPython: the shared vectors, then properties over random input."""

import json
import zlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from upy import cobs_reference

from popdice_fw import codec

V = json.loads((Path(__file__).parent / "vectors" / "frames.json").read_text())


def test_crc32_check_value():
    assert zlib.crc32(bytes.fromhex(V["crc32_check"]["data"])) == V["crc32_check"]["crc"]


def test_cobs_vectors():
    for case in V["cobs"]:
        raw, encoded = bytes.fromhex(case["raw"]), bytes.fromhex(case["encoded"])
        assert codec.cobs_encode(raw) == encoded
        assert codec.cobs_decode(encoded) == raw


def test_single_key_messages_have_the_same_wire_bytes():
    for case in V["wire"]:
        assert codec.encode(case["message"]).hex() == case["wire"]


def test_messages_round_trip():
    for message in V["messages"]:
        assert codec.decode(codec.encode(message)[:-1]) == message


def test_bad_frames_have_their_codes():
    for case in V["bad_frames"]:
        try:
            codec.decode(bytes.fromhex(case["frame"]))
        except codec.FrameError as error:
            assert error.code == case["code"], case["name"]
        else:
            raise AssertionError(f"accepted {case['name']}")


@given(
    st.binary(max_size=600)
    | st.lists(st.sampled_from([b"\x00", b"\x01" * 254, b"\x07"])).map(b"".join)
)
def test_cobs_round_trips_removes_zeros_and_is_the_reference(data):
    encoded = codec.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert encoded == cobs_reference.encode(data)
    assert codec.cobs_decode(encoded) == data


@given(st.binary(min_size=1, max_size=300).filter(lambda b: 0 not in b))
def test_cobs_decode_refuses_what_the_reference_refuses(wire):
    expected = cobs_reference.decode(wire)
    try:
        got = codec.cobs_decode(wire)
    except codec.FrameError:
        got = None
    assert got == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=10), json_values, max_size=5))
def test_any_message_survives_the_deframer(message):
    deframer = codec.Deframer()
    try:
        wire = codec.encode(message)
    except codec.FrameError as error:
        assert error.code == "too_long"
        return
    assert len(wire) <= codec.MAX_FRAME
    assert deframer.feed(b"noise\x00" + wire[:3])[1:] == []
    assert deframer.feed(wire[3:]) == [message]


@given(st.binary(max_size=700))
def test_deframer_never_raises_and_stays_bounded(data):
    deframer = codec.Deframer()
    for item in deframer.feed(data):
        assert isinstance(item, (dict, codec.FrameError))
    assert deframer.pending() < codec.MAX_FRAME


@given(st.binary(min_size=1, max_size=200), st.integers(0, 10_000))
def test_a_flipped_bit_is_never_taken_for_a_good_frame(payload, where):
    wire = bytearray(codec.wrap(payload)[:-1])
    bit = where % (len(wire) * 8)
    wire[bit // 8] ^= 1 << (bit % 8)
    try:
        assert codec.unwrap(bytes(wire)) != payload
    except codec.FrameError:
        pass
