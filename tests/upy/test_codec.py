"""The link codec inside MicroPython, on the same vectors as tests/test_codec.py."""

from binascii import crc32

from vectors import load, unhex

from popdice_fw import codec

V = load("frames.json")


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
