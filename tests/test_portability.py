"""popdice on Windows and macOS with real boards, the platform faked (tests/as_platform.py):
devices, status, flash and the table find and use a board by the port name the system
gives (COM3, /dev/cu.usbmodem1101; here it opens a simulated board), nothing imports a
POSIX-only module or calls os.getuid on Windows, the runtime folder comes from platformdirs,
and where the simulator cannot run, popdice says so in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from popdice.sim import SimulatedPico
from popdice_fw import VERSION

HERE = Path(__file__).resolve().parent
PICO = (0x2E8A, 0x0005)  # MicroPython on an RP2040
OTHER = (0x0403, 0x6001)  # a USB serial adapter
CLI = "import sys\nfrom popdice.cli.main import main\nsys.exit(main(sys.argv[4:]))"
# The same, as from a terminal (the table refuses to start without one).
CLI_IN_A_TERMINAL = (
    "import sys\nimport popdice.table.cli as table\nfrom popdice.cli.main import main\n"
    "table.has_terminal = lambda: True\nsys.exit(main(sys.argv[4:]))"
)


@pytest.fixture(scope="module")
def board():
    """A popper the faked ports open: its firmware cannot tell it is simulated."""
    with SimulatedPico("popper") as sim:
        yield sim


def as_platform(
    platform: str,
    ports: dict[str, tuple[int, int, str]],
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    listing = json.dumps({name: list(port) for name, port in ports.items()})
    return subprocess.run(
        [sys.executable, str(HERE / "as_platform.py"), platform, listing, code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def popdice(platform: str, ports: dict[str, tuple[int, int, str]], *args: str, **kwargs):
    return as_platform(platform, ports, CLI, *args, **kwargs)


@pytest.mark.parametrize(
    ("platform", "name"), [("win32", "COM3"), ("darwin", "/dev/cu.usbmodem1101")]
)
def test_a_board_is_found_and_flashed_by_the_systems_port_name(board, platform, name):
    ports = {
        name: (*PICO, board.port),
        "COM9" if platform == "win32" else "/dev/cu.x": (*OTHER, ""),
    }
    listed = popdice(platform, ports, "devices", "--json", "--real-only")
    assert listed.returncode == 0, listed.stderr
    (found,) = json.loads(listed.stdout)  # the other adapter is not a Pico
    assert (found["port"], found["kind"], found["simulated"]) == (name, "popper", False)
    status = popdice(platform, ports, "status", "--kind", "popper", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["port"] == name
    flashed = popdice(platform, ports, "flash", "--port", name, "--board", "popper")
    assert flashed.returncode == 0, flashed.stderr
    assert flashed.stdout.strip().endswith(f"firmware {VERSION} on {name}")


def test_windows_lists_no_simulators_and_never_signals_a_process(board):
    # This run's simulator is registered: on Linux `devices` lists it (checking its process
    # with os.kill(pid, 0)); on Windows none can run, so none is looked for.
    listed = popdice("win32", {}, "devices", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    on_linux = subprocess.run(
        [sys.executable, "-c", CLI, "-", "-", "-", "devices", "--json", "--sim-only"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert board.port in on_linux.stdout


def test_the_table_opens_the_board_on_windows(board, tmp_path):
    opened = as_platform(
        "win32",
        {"COM3": (*PICO, board.port)},
        "from contextlib import ExitStack\n"
        "from popdice.cli.table import open_board\n"
        "with ExitStack() as stack:\n"
        "    print(open_board(stack, 'popper', False)[0].info.board)\n",
    )
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == "popper" and opened.stderr == ""


def test_without_a_board_windows_says_in_one_line_why_no_simulated_one(tmp_path):
    env = {"POPDICE_DATA_DIR": str(tmp_path)}
    for args, start in [
        (("sim", "popper"), "error: the simulated Pico needs a pty"),
        (("table", "ringer", "--players", "Ann,Bob"), "error: no popper plugged in, and the"),
    ]:
        result = as_platform("win32", {}, CLI_IN_A_TERMINAL, *args, env=env)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(start) and result.stderr.count("\n") == 1, result.stderr
        assert "Windows has neither: run it in WSL, or on Linux or macOS" in result.stderr


def test_an_empty_port_is_answered_with_the_systems_kind_of_name():
    for platform, name in [("win32", "COM3"), ("darwin", "/dev/cu.usbmodem1101")]:
        result = popdice(platform, {}, "status", "--port", "")
        assert result.returncode == 2 and f"give one such as {name}" in result.stderr


def test_the_runtime_folder_is_the_platforms(tmp_path):
    code = "from popdice.devices.sim_registry import default_dir\nprint(default_dir())"
    local = "C:\\Users\\ann\\AppData\\Local"
    windows = as_platform(
        "win32", {}, code, env={"WIN_PD_OVERRIDE_LOCAL_APPDATA": local}, cwd=tmp_path
    )
    assert windows.returncode == 0, windows.stderr
    assert windows.stdout.strip().startswith(local) and "Temp" in windows.stdout
    macos = as_platform("darwin", {}, code, env={"HOME": "/Users/ann"})
    assert macos.stdout.strip() == "/Users/ann/Library/Caches/TemporaryItems/popdice"
    # macOS's is under the home folder: from a 16-letter user name on, a simulator's socket
    # path would pass the 104 bytes a Unix socket's name may have
    long_name = as_platform("darwin", {}, code, env={"HOME": "/Users/annabellemarguerite"})
    assert long_name.stdout.strip() == f"/tmp/popdice-{os.getuid()}"
