"""Frames of the PopDice link, shared verbatim by the firmware and the host.

A frame on the wire is ``COBS(payload + CRC32(payload)) + b"\\x00"``: the payload is a
compact JSON object, the CRC32 (``binascii.crc32``) is appended little-endian, COBS removes
every zero byte so that 0x00 delimits frames. A frame is at most ``MAX_FRAME`` bytes on the
wire, delimiter included. Runs unchanged on CPython and MicroPython.
"""

import json
from binascii import crc32

MAX_FRAME = 512
MAX_PAYLOAD = 500
_CRC_LEN = 4
_ZERO = b"\x00"

# Error codes, shared by frame errors here and the link's error frames.
BAD_FRAME = "bad_frame"
BAD_CRC = "bad_crc"
TOO_LONG = "too_long"
BAD_JSON = "bad_json"


class FrameError(ValueError):
    """A frame that cannot be used: ``code`` says why, ``raw`` holds its wire bytes."""

    def __init__(self, code, message, raw=b""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.raw = raw


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte.

    Works a block at a time (a run between zeros, cut at 254 bytes), never a byte at a time:
    on a Cortex-M0+ a Python loop over the bytes of a 255-byte event took 5.2 ms, longer
    than two sample periods. tests/upy/cobs_reference.py is the byte-at-a-time definition
    both ends are tested against.
    """
    return _stuff(data, 0)


def _stuff(data, delimiters):
    """``cobs_encode(data)`` followed by ``delimiters`` (0 or 1) zero bytes, in one buffer."""
    if isinstance(data, memoryview):
        data = bytes(data)
    n = len(data)
    view = memoryview(data)
    out = bytearray(n + n // 254 + 1 + delimiters)
    o = 0
    start = 0
    while True:
        zero = data.find(_ZERO, start)
        end = n if zero < 0 else zero
        # A full block of 254 ends without a zero; the last run's final full block needs no
        # empty block after it.
        while end - start > 254 or (end - start == 254 and zero >= 0):
            out[o] = 0xFF
            out[o + 1 : o + 255] = view[start : start + 254]
            o += 255
            start += 254
        length = end - start
        out[o] = length + 1
        out[o + 1 : o + 1 + length] = view[start:end]
        o += length + 1
        if zero < 0:
            break
        start = zero + 1
    return bytes(memoryview(out)[: o + delimiters])


def cobs_decode(data):
    """The inverse of ``cobs_encode``, a block at a time; raises ``FrameError`` on malformed
    input."""
    n = len(data)
    view = memoryview(data)
    out = bytearray(n)  # a block of c bytes decodes to at most c
    i = 0
    o = 0
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError(BAD_FRAME, "zero byte inside a frame", bytes(data))
        end = i + code
        if end > n:
            raise FrameError(BAD_FRAME, "COBS block runs past the end of the frame", bytes(data))
        out[o : o + code - 1] = view[i + 1 : end]
        o += code - 1
        i = end
        if code != 0xFF and i < n:
            o += 1  # the zero the block stood for (out is zeros already)
    return bytes(memoryview(out)[:o])


def wrap(payload):
    """Wire bytes of one frame carrying ``payload`` (bytes), delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(TOO_LONG, "payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    body = bytearray(payload)
    body.extend((crc32(payload) & 0xFFFFFFFF).to_bytes(_CRC_LEN, "little"))
    return _stuff(body, 1)


def unwrap(frame):
    """The payload bytes of one frame (wire bytes without the delimiter)."""
    if len(frame) + 1 > MAX_FRAME:
        raise FrameError(TOO_LONG, "frame longer than %d bytes" % MAX_FRAME, bytes(frame))
    body = cobs_decode(frame)
    if len(body) < _CRC_LEN:
        raise FrameError(BAD_FRAME, "frame too short for its CRC", bytes(frame))
    payload = body[:-_CRC_LEN]
    expected = int.from_bytes(body[-_CRC_LEN:], "little")
    if crc32(payload) & 0xFFFFFFFF != expected:
        raise FrameError(BAD_CRC, "CRC32 mismatch", bytes(frame))
    return payload


def dumps(message):
    """Compact JSON bytes of a message (a dict)."""
    return json.dumps(message, separators=(",", ":")).encode()


def encode(message):
    """Wire bytes of a message (a dict)."""
    return wrap(dumps(message))


def decode(frame):
    """The message (a dict) carried by one frame (wire bytes without the delimiter)."""
    payload = unwrap(frame)
    try:
        message = json.loads(payload)
    except ValueError:
        raise FrameError(BAD_JSON, "payload is not JSON", bytes(frame)) from None
    if not isinstance(message, dict):
        raise FrameError(BAD_JSON, "payload is not a JSON object", bytes(frame))
    return message


class Deframer:
    """Cuts a byte stream into decoded messages at 0x00, in a bounded buffer.

    ``feed`` returns, in order, a dict per good frame and a ``FrameError`` per bad one.
    Bytes beyond ``MAX_FRAME`` without a delimiter are dropped up to the next 0x00 and
    reported once as ``too_long``; empty frames (two delimiters in a row) are ignored.
    """

    def __init__(self, max_frame=MAX_FRAME):
        self._buf = bytearray(max_frame)
        self._len = 0
        self._overflow = False

    def feed(self, data, n=None):
        """Takes the next bytes of the stream (the first ``n`` of ``data``, or all); returns
        what the frames they end carry."""
        if isinstance(data, memoryview):
            data = bytes(data)
        if n is None:
            n = len(data)
        results = []
        start = 0
        while start < n:
            zero = data.find(_ZERO, start, n)
            end = n if zero < 0 else zero
            self._keep(data, start, end)
            if zero < 0:
                break
            self._end_frame(results)
            start = zero + 1
        return results

    def _keep(self, data, start, end):
        """Appends ``data[start:end]`` to the frame being collected, as much as fits."""
        room = len(self._buf) - self._len
        take = end - start
        if take > room:
            take = room
            self._overflow = True
        if take:
            self._buf[self._len : self._len + take] = memoryview(data)[start : start + take]
            self._len += take

    def _end_frame(self, results):
        """A delimiter: the collected frame, if any, becomes a message or a FrameError."""
        if self._overflow:
            size = len(self._buf)
            results.append(
                FrameError(TOO_LONG, "frame longer than %d bytes" % size, bytes(self._buf[:32]))
            )
        elif self._len:
            try:
                results.append(decode(memoryview(self._buf)[: self._len]))
            except FrameError as error:
                results.append(error)
        self._len = 0
        self._overflow = False

    def pending(self):
        """How many bytes of an unfinished frame are held."""
        return self._len
