"""The link codec inside MicroPython, on the same vectors as tests/test_codec.py."""

import sys
from binascii import crc32

import cobs_reference
from vectors import load, unhex

from popdice_fw import codec

V = load("frames.json")
# Random frames for the block-wise COBS: fewer on the emulated chip, where the byte-at-a-time
# reference takes 10 ms a frame (the frames at every block boundary are all kept).
RANDOM_FRAMES = 40 if sys.platform == "rp2" else 200


def test_crc32_check_value():
    assert crc32(unhex(V["crc32_check"]["data"])) == V["crc32_check"]["crc"]


def test_cobs_vectors():
    for case in V["cobs"]:
        raw = unhex(case["raw"])
        encoded = unhex(case["encoded"])
        assert codec.cobs_encode(raw) == encoded, case["raw"][:16]
        assert codec.cobs_decode(encoded) == raw, case["raw"][:16]


def test_single_key_messages_have_the_same_wire_bytes():
    for case in V["wire"]:
        assert codec.encode(case["message"]) == unhex(case["wire"])


def test_messages_round_trip():
    for message in V["messages"]:
        wire = codec.encode(message)
        assert wire[-1] == 0 and 0 not in wire[:-1]
        assert codec.decode(wire[:-1]) == message


def test_bad_frames_have_their_codes():
    for case in V["bad_frames"]:
        try:
            codec.decode(unhex(case["frame"]))
        except codec.FrameError as error:
            assert error.code == case["code"], (case["name"], error.code)
        else:
            raise AssertionError("accepted " + case["name"])


def test_deframer_resyncs_after_garbage_and_overflow():
    d = codec.Deframer()
    ping = codec.encode({"t": "ping"})
    out = d.feed(b"\x13\x37garbage\x00" + ping[:5])
    assert len(out) == 1 and isinstance(out[0], codec.FrameError)
    out = d.feed(ping[5:] + b"\x00\x00")
    assert out == [{"t": "ping"}]
    out = d.feed(b"\x01" * 2000 + b"\x00" + ping)
    assert isinstance(out[0], codec.FrameError) and out[0].code == "too_long"
    assert out[1] == {"t": "ping"}
    assert d.pending() == 0


def test_payload_over_the_limit_is_refused():
    try:
        codec.encode({"x": "y" * codec.MAX_PAYLOAD})
    except codec.FrameError as error:
        assert error.code == "too_long"
    else:
        raise AssertionError("oversized payload accepted")


def test_largest_payload_fits_in_a_frame():
    payload = b"{" + b'"x":"' + b"y" * (codec.MAX_PAYLOAD - 8) + b'"}'
    assert len(payload) <= codec.MAX_PAYLOAD
    assert len(codec.wrap(payload)) <= codec.MAX_FRAME


def test_cobs_agrees_with_the_byte_at_a_time_reference():
    """Lengths around every block boundary, zeros at the edges and in runs, and random
    bytes: the block-wise codec gives exactly the reference's bytes, and reads them back."""
    from os import urandom

    cases = [b"", b"\x00", b"\x00\x00", b"\x01"]
    for length in (1, 2, 253, 254, 255, 256, 507, 508, 509, 600):
        run = bytes(range(1, 255)) * 3
        cases.append(run[:length])
        cases.append(b"\x00" + run[:length])
        cases.append(run[:length] + b"\x00")
        cases.append(run[: length // 2] + b"\x00" + run[: length - length // 2])
    for _ in range(RANDOM_FRAMES):
        raw = bytearray(urandom(urandom(1)[0] * 2 + 1))
        for k in range(0, len(raw), 7):
            if raw[k] < 128:
                raw[k] = 0  # zeros often, as in CRCs and numbers
        cases.append(bytes(raw))
    for raw in cases:
        encoded = codec.cobs_encode(raw)
        assert encoded == cobs_reference.encode(raw), (len(raw), raw[:8])
        assert codec.cobs_decode(encoded) == raw, (len(raw), raw[:8])


def test_deframer_takes_the_stream_in_any_pieces():
    messages = [{"t": "ping", "n": n, "pad": "x" * (n * 37 % 300)} for n in range(12)]
    stream = b"\x00\x00junk\x00" + b"".join(codec.encode(m) for m in messages)
    for piece in (1, 2, 3, 63, 64, 65, 511, 4096):
        d = codec.Deframer()
        got = []
        for start in range(0, len(stream), piece):
            got.extend(d.feed(memoryview(stream)[start : start + piece]))
        assert isinstance(got[0], codec.FrameError) and got[1:] == messages, piece
        assert d.pending() == 0
