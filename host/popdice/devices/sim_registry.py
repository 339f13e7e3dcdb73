"""Which simulated Picos are running: one JSON file each in the simulators' folder.

The folder is ``$POPDICE_SIM_DIR`` if set (a checkout's or a test run's own: simulators in
other folders are neither listed nor probed), else the user's runtime folder
(``platformdirs``: ``$XDG_RUNTIME_DIR/popdice`` on Linux), or ``/tmp/popdice-UID`` where
that is too long for the sockets (macOS's is under the home folder). It also holds each
simulator's sockets and its serial port link. Files left by dead processes are removed when
``running()`` comes across them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import platformdirs

from ..errors import SimulatorError
from ..kinds import KINDS

SIM_DIR_ENV = "POPDICE_SIM_DIR"
# sun_path, less its terminating NUL: 108 bytes on Linux, 104 on macOS and the BSDs
SOCKET_PATH_MAX = 107 if sys.platform.startswith("linux") else 103
# a running simulator's sockets, in its own folder (``sim_name``) in the simulators' folder
CONTROL_SOCKET = "control.sock"
HARDWARE_SOCKET = "hw.sock"


def sim_name(kind: str, device_id: str) -> str:
    """A running simulator's name: its folder's, its registry entry's, its thread's."""
    return f"sim-{kind}-{device_id}"


# the longest path, from the simulators' folder on, that a simulator gives a socket
LONGEST_SOCKET = max(
    len(f"/{sim_name(kind, '0' * 16)}/{socket}")
    for kind in KINDS
    for socket in (CONTROL_SOCKET, HARDWARE_SOCKET)
)


@dataclass(frozen=True)
class SimEntry:
    """A running simulator: its board, serial port, control socket and supervising process."""

    kind: str
    device_id: str
    port: str
    control: str
    pid: int
    backend: str = "unix"


def runtime_dir() -> Path:
    """The simulators' folder (see the module's docstring), created private (0700) if
    needed."""
    chosen = os.environ.get(SIM_DIR_ENV)
    path = Path(chosen).expanduser().absolute() if chosen else default_dir()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except OSError as error:
        raise SimulatorError(f"cannot create the simulators' folder {path}: {error}") from None
    getuid = getattr(os, "getuid", None)  # Windows has none
    if getuid is not None and info.st_uid != getuid():
        raise SimulatorError(f"the simulators' folder {path} belongs to another user")
    return path


def default_dir() -> Path:
    """The user's runtime folder for PopDice, wherever ``$POPDICE_SIM_DIR`` is not set."""
    try:
        with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set": the fallback will do
            warnings.simplefilter("ignore")
            path = platformdirs.user_runtime_path("popdice", appauthor=False)
    except OSError as error:
        raise SimulatorError(f"no runtime folder for the simulators: {error}") from None
    getuid = getattr(os, "getuid", None)
    if len(str(path).encode()) + LONGEST_SOCKET > SOCKET_PATH_MAX and getuid is not None:
        return Path("/tmp", f"popdice-{getuid()}")  # as tmux does; runtime_dir checks its owner
    return path


def _entry_path(kind: str, device_id: str) -> Path:
    return runtime_dir() / f"{sim_name(kind, device_id)}.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def register(entry: SimEntry) -> None:
    """Records a running simulator (written atomically)."""
    path = _entry_path(entry.kind, entry.device_id)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(entry)))
    temporary.replace(path)


def unregister(kind: str, device_id: str) -> None:
    _entry_path(kind, device_id).unlink(missing_ok=True)


def find(kind: str, device_id: str) -> SimEntry | None:
    """The running simulator of this board, if any."""
    for entry in running():
        if entry.kind == kind and entry.device_id == device_id:
            return entry
    return None


def running() -> list[SimEntry]:
    """Every simulator whose supervising process is alive, sorted by kind and device id."""
    if sys.platform == "win32":  # none can run there (no pty), and os.kill(pid, 0) kills
        return []
    entries = []
    for path in sorted(runtime_dir().glob("sim-*.json")):
        try:
            entry = SimEntry(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if _alive(entry.pid) and Path(entry.control).exists():
            entries.append(entry)
        else:
            _remove_leftovers(path, entry)
    return sorted(entries, key=lambda e: (e.kind, e.device_id))


def _remove_leftovers(path: Path, entry: SimEntry) -> None:
    """What a simulator killed before it could clean up left behind in the runtime dir."""
    path.unlink(missing_ok=True)
    port = Path(entry.port)
    if port.is_symlink() and port.parent == path.parent:
        port.unlink(missing_ok=True)
    sockets = Path(entry.control).parent
    if sockets.parent == path.parent:
        shutil.rmtree(sockets, ignore_errors=True)
