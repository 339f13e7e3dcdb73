"""Board images: the UF2 format, an image's binary info, the checks on a MicroPython base,
the littlefs filesystem with the firmware, and `popdice uf2` as a user runs it."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest

from popdice.deploy import bininfo, board_image, files
from popdice.deploy.base_image import ENV_BASE, load_base
from popdice.deploy.files import FIRMWARE_DIR, FlashFile, flash_files
from popdice.deploy.uf2 import (
    FAMILY_RP2040,
    MAGIC_END,
    MAGIC_START0,
    MAGIC_START1,
    Segment,
    Uf2Error,
    read_uf2,
    write_uf2,
)
from popdice.errors import PopdiceError

POPDICE = str(Path(sys.executable).with_name("popdice"))
FLASH = 0x10000000


@pytest.fixture(scope="module")
def base():
    try:
        return load_base()
    except Uf2Error as error:
        if os.environ.get("POPDICE_REQUIRE_RP2040"):
            pytest.fail(f"the MicroPython base image is required: {error}")
        pytest.skip(f"no MicroPython base image here: {error}")


# --- the UF2 format


def test_write_then_read_gives_the_same_flash():
    data = bytes(range(256)) * 3 + b"tail"
    blob = write_uf2([Segment(FLASH, data), Segment(FLASH + 0x10000, b"x" * 10)])
    assert len(blob) % 512 == 0 and len(blob) // 512 == 4 + 1
    segments = read_uf2(blob)
    assert [s.address for s in segments] == [FLASH, FLASH + 0x10000]
    assert segments[0].data[: len(data)] == data
    assert set(segments[0].data[len(data) :]) == {0xFF}  # the last page filled as erased flash
    first = struct.unpack_from("<8I", blob)
    assert first[:2] == (MAGIC_START0, MAGIC_START1) and first[7] == FAMILY_RP2040
    assert first[5:7] == (0, 5)  # block number and block count
    assert struct.unpack_from("<I", blob, 508)[0] == MAGIC_END


def test_segments_must_be_page_aligned():
    with pytest.raises(Uf2Error, match="not page aligned"):
        write_uf2([Segment(FLASH + 3, b"x")])


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"# not an image\n" * 100, "not a UF2 image"),
        (write_uf2([Segment(FLASH, b"x" * 300)])[:700], "whole number of blocks"),
        (write_uf2([Segment(FLASH, b"x")], family=0xE48BFF59), "RP2350"),
        (write_uf2([Segment(FLASH, b"x")], family=0x1C5F21B0), "ESP32"),
    ],
)
def test_what_is_not_an_rp2040_image_is_refused(blob, message):
    with pytest.raises(Uf2Error, match=message):
        read_uf2(blob, "it.uf2")


def test_a_damaged_block_and_a_clash_are_refused():
    blob = bytearray(write_uf2([Segment(FLASH, b"a" * 600)]))
    damaged = bytearray(blob)
    damaged[512 + 508] ^= 0xFF
    with pytest.raises(Uf2Error, match="block 1: damaged"):
        read_uf2(bytes(damaged))
    clash = blob + write_uf2([Segment(FLASH, b"b" * 256)])
    with pytest.raises(Uf2Error, match="twice with different data"):
        read_uf2(bytes(clash))


# --- binary info and the base image


def fake_image(strings: dict[int, str], block_device: tuple[str, int, int] | None) -> bytes:
    """A minimal RP2040 image with a binary info header, like the pico-sdk lays one out."""
    image = bytearray(0x2000)
    heap = 0x800
    entries = []

    def put(data: bytes) -> int:
        nonlocal heap
        address = FLASH + heap
        image[heap : heap + len(data)] = data
        heap += (len(data) + 3) & ~3
        return address

    for id_, text in strings.items():
        pointer = put(text.encode() + b"\0")
        entries.append(put(struct.pack("<HHII", bininfo.TYPE_ID_AND_STRING, 0x5052, id_, pointer)))
    if block_device is not None:
        name, address, size = block_device
        pointer = put(name.encode() + b"\0")
        entries.append(
            put(
                struct.pack(
                    "<HHIIIIH", bininfo.TYPE_BLOCK_DEVICE, 0x504D, pointer, address, size, 0, 3
                )
            )
        )
    table = put(b"".join(struct.pack("<I", e) for e in entries))
    mapping = put(b"\0" * 12)
    struct.pack_into(
        "<5I",
        image,
        0x110,
        bininfo.MARKER_START,
        table,
        table + 4 * len(entries),
        mapping,
        bininfo.MARKER_END,
    )
    return bytes(image)


def write_fake(
    tmp_path: Path, strings: dict[int, str], block_device=("MicroPython", FLASH + 0xA0000, 0x160000)
) -> Path:
    path = tmp_path / "base.uf2"
    path.write_bytes(write_uf2([Segment(FLASH, fake_image(strings, block_device))]))
    return path


MICROPYTHON = {
    bininfo.ID_PROGRAM_NAME: "MicroPython",
    bininfo.ID_PROGRAM_VERSION: "v1.28.0",
    bininfo.ID_PICO_BOARD: "pico",
}


def test_binary_info_says_what_the_image_is(tmp_path):
    base = load_base(write_fake(tmp_path, MICROPYTHON))
    assert base.version == "v1.28.0" and base.board == "pico"
    assert (base.fs_address, base.fs_size, base.fs_offset) == (FLASH + 0xA0000, 0x160000, 0xA0000)
    assert base.describe() == "MicroPython v1.28.0 for pico"


def test_the_real_base_is_micropython_for_the_pico(base):
    assert base.version.startswith("v1.") and base.board == "pico"
    assert base.fs_offset == 0xA0000 and base.fs_size == 352 * 4096
    assert base.segments[0].address == FLASH and base.segments[-1].end <= base.fs_address


@pytest.mark.parametrize(
    ("strings", "block_device", "message"),
    [
        ({**MICROPYTHON, bininfo.ID_PROGRAM_NAME: "blink"}, ..., "image of blink, not MicroPython"),
        (
            {**MICROPYTHON, bininfo.ID_PROGRAM_VERSION: "v1.19.1"},
            ...,
            "v1.19.1: the firmware needs 1.23",
        ),
        (MICROPYTHON, None, "does not say where MicroPython's filesystem lies"),
        (MICROPYTHON, ("MicroPython", FLASH + 0x1000, 0x1000), "runs into its own filesystem"),
        (MICROPYTHON, ("MicroPython", FLASH + 0xA0000, 0), "0 bytes at 0x100a0000.* whole"),
        (MICROPYTHON, ("MicroPython", FLASH + 0xA0001, 0x1000), "is not in whole 4096-byte"),
        (MICROPYTHON, ("MicroPython", 0xFFFFF000, 0x1000), "outside the RP2040's flash"),
        (MICROPYTHON, ("MicroPython", 0x20000000, 0x1000), "outside the RP2040's flash"),
    ],
)
def test_a_base_that_will_not_do_is_refused(tmp_path, strings, block_device, message):
    if block_device is ...:
        path = write_fake(tmp_path, strings)
    else:
        path = write_fake(tmp_path, strings, block_device)
    with pytest.raises(Uf2Error, match=message):
        load_base(path)


def test_an_image_without_binary_info_is_not_micropython(tmp_path):
    path = tmp_path / "raw.uf2"
    path.write_bytes(write_uf2([Segment(FLASH, bytes(4096))]))
    with pytest.raises(Uf2Error, match="without binary info: not MicroPython"):
        load_base(path)


def test_the_base_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_BASE, str(write_fake(tmp_path, MICROPYTHON)))
    assert load_base().path == tmp_path / "base.uf2"
    monkeypatch.setenv(ENV_BASE, str(tmp_path / "missing.uf2"))
    with pytest.raises(Uf2Error, match="cannot read the MicroPython image"):
        load_base()


# --- the board image


def test_the_filesystem_holds_the_compiled_firmware(tmp_path):
    files = flash_files("handheld")
    image = board_image.filesystem_image(
        [f for f in files if f.target in ("main.py", "board.py")], 64 * 4096
    )
    assert len(image) == 64 * 4096
    back = board_image.read_filesystem(image)
    assert back["main.py"] == (FIRMWARE_DIR / "main.py").read_bytes()
    assert set(back) == {"main.py", "board.py"}
    with pytest.raises(Uf2Error, match="no littlefs"):
        board_image.read_filesystem(bytes(64 * 4096))
    with pytest.raises(Uf2Error, match=r"files \([\d,]+ bytes\) do not fit in a filesystem of"):
        board_image.filesystem_image(files, 2 * 4096)  # a base whose filesystem is too small


def test_nested_folders_are_slash_separated_on_windows_too(tmp_path, monkeypatch):
    source = tmp_path / "deep.py"
    source.write_bytes(b"x = 1\n")
    for module in (files, board_image):
        monkeypatch.setattr(module, "Path", PureWindowsPath)  # what Path is on Windows
    image = board_image.filesystem_image([FlashFile(source, "popdice_fw/sub/deep.py")], 64 * 4096)
    assert board_image.read_filesystem(image) == {"popdice_fw/sub/deep.py": b"x = 1\n"}


def test_popdice_uf2_writes_base_and_firmware_in_one_file(base, tmp_path):
    out = tmp_path / "popper.uf2"
    result = subprocess.run(
        [POPDICE, "uf2", "--board", "popper", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}: MicroPython {base.version}" in result.stdout
    segments = read_uf2(out.read_bytes())
    code, filesystem = segments[0], segments[-1]
    assert code.data[: len(base.segments[0].data)] == base.segments[0].data
    assert (filesystem.address, len(filesystem.data)) == (base.fs_address, base.fs_size)
    files = board_image.read_filesystem(filesystem.data)
    modules = {f.target[: -len(".py")] + ".mpy" for f in flash_files("popper")} - {"main.mpy"}
    assert set(files) == modules | {"main.py"}
    assert files["main.py"] == (FIRMWARE_DIR / "main.py").read_bytes()
    assert all(files[m].startswith(b"M\x06") for m in modules)  # .mpy version 6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--micropython", "README.md"], "README.md is not a UF2 image"),
        (["--out", "popper.bin"], "does not end in .uf2"),
        (["--board", "dome"], "invalid choice"),
    ],
)
def test_popdice_uf2_refuses_in_one_line(args, message):
    command = [POPDICE, "uf2", *(["--board", "popper"] if "--board" not in args else []), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_board_flash_is_built_once_and_kept(base, tmp_path, monkeypatch):
    first = board_image.board_flash("handheld", base, tmp_path)
    assert len(first) == 2 * 1024 * 1024 and len(list(tmp_path.glob("flash-handheld-*.bin"))) == 1

    def no_compiling(*_args):
        raise PopdiceError("compiled again")

    monkeypatch.setattr(board_image, "compiled_files", no_compiling)
    assert board_image.board_flash("handheld", base, tmp_path) == first
    with pytest.raises(PopdiceError, match="compiled again"):
        board_image.board_flash("handheld", base, None)
