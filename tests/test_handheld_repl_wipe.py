"""The REPL gives an unrevealed roll away to nobody: an attacker's scan of the RAM.

The attacker holds the handheld after a roll nobody has revealed, frees the REPL with the
``repl`` command (as ``popdice flash`` does) and reads the memory out through the raw REPL:
the whole heap on the unix port, every byte of SRAM on the emulated RP2040. Then, knowing
only what the host knows (the device id, the roll id and the commitment), the attacker tries
every run of 32 hex digits and every 16 bytes at each word boundary as the nonce, with each
of the 36 pairs of dice, against the commitment; and looks for the dice as the PEEK screen
drew them (the picture's bytes, which the test took from the simulated panel).

The same scan of a roll that was revealed must find it: the attack is shown to work.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator

import pytest
import serial

from popdice.devices.handheld import Handheld
from popdice.hil import DeviceUnderTest
from popdice_fw.commit import COLOURS, NUMBERS, committed_text

_LAYOUT = re.compile(rb"GC memory layout; from ([0-9a-fA-F]+):")
_TOTAL = re.compile(rb"GC: total: (\d+)")
_HEX_RUN = re.compile(rb"[0-9a-f]{32,}")
_SRAM = (0x2000_0000, 264 * 1024)
_PICTURE_PIECE = 16  # bytes of the PEEK picture that must not be found together...
_PICTURE_DETAIL = 4  # ...where they hold this many different values (not a plain fill)
_DUMP = """
import binascii, uctypes
m = memoryview(uctypes.bytearray_at(%d, %d))
for i in range(0, len(m), 256):
    print(binascii.hexlify(m[i:i + 256]).decode())
"""
REPL_TIMEOUT_S = 60
_DUMP_PIECE = 4096  # bytes a run of the dump script reads (longer outputs stall the sim's pty)


def wait_for_the_repl(port: str) -> None:
    """Waits for the REPL's prompt: the handheld wipes its secrets before it gives the REPL
    back, which on the emulated chip takes a while."""
    seen = b""
    with serial.Serial(port, timeout=2.0) as line:
        deadline = time.monotonic() + REPL_TIMEOUT_S
        while b">>> " not in seen:
            assert time.monotonic() < deadline, f"no REPL prompt; the port said {seen[-200:]!r}"
            line.write(b"\r")  # the REPL answers with a new prompt once it runs
            seen += line.read(256)


def read_ram(port: str) -> bytes:
    """Every byte the attacker can reach from the REPL on ``port``."""
    from mpremote.transport_serial import SerialTransport

    wait_for_the_repl(port)
    transport = SerialTransport(port, baudrate=115200)
    try:
        transport.enter_raw_repl(soft_reset=False)
        if transport.eval("__import__('sys').platform") == "rp2":
            start, size = _SRAM
        else:
            info = transport.exec("import micropython; micropython.mem_info(1)")
            layout, total = _LAYOUT.search(info), _TOTAL.search(info)
            assert layout and total, info[:300]
            start, size = int(layout.group(1), 16), int(total.group(1))
        dump = b"".join(
            transport.exec(_DUMP % (at, min(_DUMP_PIECE, start + size - at)))
            for at in range(start, start + size, _DUMP_PIECE)
        )
        transport.exit_raw_repl()
    finally:
        transport.close()
    return bytes.fromhex(dump.decode().replace("\r", "").replace("\n", ""))


def nonce_candidates(ram: bytes) -> Iterator[str]:
    for run in _HEX_RUN.finditer(ram):
        text = run.group().decode()
        for start in range(len(text) - 31):
            yield text[start : start + 32]
    for start in range(0, len(ram) - 15, 4):
        yield ram[start : start + 16].hex()


def cracked(ram: bytes, device_id: str, roll_id: str, digest: str) -> list[tuple[str, int]]:
    """The dice of every candidate nonce in ``ram`` that matches the commitment."""
    target = bytes.fromhex(digest)
    prefix = hashlib.sha256(committed_text(device_id, roll_id, "", "", 0)[:-3])
    found = []
    for nonce in set(nonce_candidates(ram)):
        with_nonce = prefix.copy()
        with_nonce.update(nonce.encode())
        for colour in COLOURS:
            for number in NUMBERS:
                attempt = with_nonce.copy()
                attempt.update(b"|%s|%d" % (colour.encode(), number))
                if attempt.digest() == target:
                    found.append((colour, number))
    return found


def picture_pieces(picture: bytes, blank: bytes) -> set[bytes]:
    """Detailed pieces of the PEEK screen where it differs from the screen without a roll
    shown: the drawn dice."""
    pieces = set()
    for start in range(0, len(picture) - _PICTURE_PIECE + 1, _PICTURE_PIECE // 2):
        piece = picture[start : start + _PICTURE_PIECE]
        if piece != blank[start : start + _PICTURE_PIECE] and len(set(piece)) >= _PICTURE_DETAIL:
            pieces.add(piece)
    return pieces


def roll_and_peek(
    handheld_dut: DeviceUnderTest, keep_peeking: bool = False
) -> tuple[Handheld, str, str, set[bytes]]:
    """A roll, looked at with PEEK (still held if ``keep_peeking``): the client, the roll's
    id and commitment, and the pieces of the picture of its dice."""
    client = handheld_dut.client
    assert isinstance(client, Handheld)
    control = handheld_dut.control
    client.settings(peek_ms=60_000)
    roll = client.roll()
    blank = control.display()["buffer"]
    control.press("peek")
    peek = control.wait_for("display", lambda e: e["buffer"] != blank)["buffer"]
    if not keep_peeking:
        control.release("peek")
        control.wait_for("display", lambda e: e["buffer"] != peek)
    pieces = picture_pieces(peek, blank)
    assert len(pieces) >= 8, "the PEEK screen drew no dice"
    return client, roll.roll_id, roll.commitment, pieces


@pytest.mark.rp2040_tier
def test_after_repl_no_trace_of_an_unrevealed_roll_is_left_in_ram(handheld_dut):
    client, roll_id, digest, pieces = roll_and_peek(handheld_dut, keep_peeking=True)
    device_id = client.info.device_id
    assert client.enter_repl() == {"wiped": roll_id}
    handheld_dut.control.release("peek")
    ram = read_ram(handheld_dut.port)
    assert cracked(ram, device_id, roll_id, digest) == []
    assert [piece for piece in pieces if piece in ram] == []


def test_the_scan_finds_a_roll_that_was_revealed(handheld_dut):
    client, roll_id, digest, _pieces = roll_and_peek(handheld_dut)
    device_id = client.info.device_id
    shown = client.reveal(roll_id)
    assert client.enter_repl() == {"wiped": None}
    ram = read_ram(handheld_dut.port)
    assert cracked(ram, device_id, roll_id, digest) == [(shown.colour, shown.number)]
