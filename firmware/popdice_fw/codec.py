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
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte."""
    n = len(data)
    out = bytearray(n + n // 254 + 2)
    code_at = 0
    code = 1
    o = 1
    for i in range(n):
        byte = data[i]
        if byte == 0:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
        else:
            out[o] = byte
            o += 1
            code += 1
            if code == 0xFF and i + 1 < n:
                out[code_at] = code
                code_at = o
                o += 1
                code = 1
    out[code_at] = code
    return bytes(out[:o])


def cobs_decode(data):
    """The inverse of ``cobs_encode``; raises ``FrameError`` on malformed input."""
    n = len(data)
    out = bytearray(n)
    i = 0
    o = 0
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError(BAD_FRAME, "zero byte inside a frame", bytes(data))
        i += 1
        end = i + code - 1
        if end > n:
            raise FrameError(BAD_FRAME, "COBS block runs past the end of the frame", bytes(data))
        while i < end:
            out[o] = data[i]
            o += 1
            i += 1
        if code != 0xFF and i < n:
            out[o] = 0
            o += 1
    return bytes(out[:o])


def wrap(payload):
    """Wire bytes of one frame carrying ``payload`` (bytes), delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(TOO_LONG, "payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    body = bytearray(payload)
    body.extend((crc32(payload) & 0xFFFFFFFF).to_bytes(_CRC_LEN, "little"))
    return cobs_encode(body) + b"\x00"


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

    def feed(self, data):
        results = []
        buf = self._buf
        size = len(buf)
        for byte in data:
            if byte != 0:
                if self._len < size:
                    buf[self._len] = byte
                    self._len += 1
                else:
                    self._overflow = True
                continue
            if self._overflow:
                results.append(
                    FrameError(TOO_LONG, "frame longer than %d bytes" % size, bytes(buf[:32]))
                )
            elif self._len:
                try:
                    results.append(decode(memoryview(buf)[: self._len]))
                except FrameError as error:
                    results.append(error)
            self._len = 0
            self._overflow = False
        return results

    def pending(self):
        """How many bytes of an unfinished frame are held."""
        return self._len
