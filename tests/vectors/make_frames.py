"""Writes tests/vectors/frames.json, the link vectors both interpreters are tested on.

The COBS cases are the published examples of the algorithm, and 0xCBF43926 is the
standard CRC-32 check value; the frame cases were produced once by the codec after it
passed those, and are frozen here so that any later change to the wire format shows.
Run it only to add cases: `python tests/vectors/make_frames.py`.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "firmware"))

from popdice_fw import codec  # noqa: E402

COBS = [
    ("00", "0101"),
    ("0000", "010101"),
    ("001100", "01021101"),
    ("11220033", "0311220233"),
    ("11223344", "0511223344"),
    ("11000000", "0211010101"),
    (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
    (bytes(range(0, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
    (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    (bytes(range(2, 256)).hex() + "00", "ff" + bytes(range(2, 256)).hex() + "0101"),
]

MESSAGES = [
    {"t": "hello", "nonce": "8f3a61c2", "proto": 1},
    {"t": "cmd", "d": "a1b2c3d4", "s": 7, "c": "echo", "a": {"text": "naïve ⚀"}},
    {"t": "evt", "d": "a1b2c3d4", "e": 3, "lo": 1, "k": "pop", "v": {"dice": [1, 6, 3, 2, 5]}},
    {"t": "err", "code": "bad_crc", "msg": "CRC32 mismatch"},
    {"empty": {}, "list": [], "null": None, "bool": True, "neg": -12345, "big": 4294967295},
]

BAD = [
    ("crc flipped", None, "bad_crc"),
    ("not json", "0a6e6f74206a736f6e", "bad_json"),
    ("json array", "025b5d", "bad_json"),
    ("block past end", "0561", "bad_frame"),
    ("too short for crc", "0261", "bad_frame"),
]


def single_key_wires():
    """Messages whose JSON has one key, so their wire bytes are the same everywhere."""
    cases = [{"t": "ping"}, {"k": [1, 2, 3]}, {"msg": "x" * 300}]
    return [{"message": m, "wire": codec.encode(m).hex()} for m in cases]


def main():
    good = codec.encode({"t": "ping"})
    flipped = bytearray(codec.cobs_decode(good[:-1]))
    flipped[-1] ^= 0x01
    bad = []
    for name, wire_hex, code in BAD:
        if wire_hex is None:
            wire_hex = codec.cobs_encode(bytes(flipped)).hex()
        elif code == "bad_json":
            payload = bytes.fromhex(wire_hex)[1:]
            wire_hex = codec.wrap(payload)[:-1].hex()
        bad.append({"name": name, "frame": wire_hex, "code": code})
    vectors = {
        "crc32_check": {"data": b"123456789".hex(), "crc": 0xCBF43926},
        "cobs": [{"raw": r, "encoded": e} for r, e in COBS],
        "wire": single_key_wires(),
        "messages": MESSAGES,
        "bad_frames": bad,
    }
    out = Path(__file__).with_name("frames.json")
    out.write_text(json.dumps(vectors, indent=1, ensure_ascii=False) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
