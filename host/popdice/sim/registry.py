"""Which simulated Picos are running on this machine: one JSON file each in the runtime dir.

The runtime dir is ``$XDG_RUNTIME_DIR/popdice`` or ``/tmp/popdice-<uid>``; it also holds
each simulator's sockets and its serial port link. Files left by dead processes are removed
when ``running()`` comes across them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import SimulatorError


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
    """The per-user directory for simulator state, created private (0700) if needed."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_dir():
        path = Path(xdg) / "popdice"
    else:
        path = Path(tempfile.gettempdir()) / f"popdice-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.stat()
    except OSError as error:
        raise SimulatorError(f"cannot create the runtime dir {path}: {error}") from None
    if info.st_uid != os.getuid():
        raise SimulatorError(f"the runtime dir {path} belongs to another user")
    return path


def _entry_path(kind: str, device_id: str) -> Path:
    return runtime_dir() / f"sim-{kind}-{device_id}.json"


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
