"""Which other programs have a serial port open, for the message that says a port is busy.

Only Linux tells (each process's open files are under ``/proc``, readable for one's own
processes, and the file locks in ``/proc/locks``); elsewhere, or for a port that is a URL,
``holders`` finds none and a busy port is "held by another program". The process holding the
port's lock (pyserial's ``exclusive``, which every PopDice host takes) is named first. This
process is never counted, nor, among the programs that merely have the port open, the
simulator that serves it (it keeps the port's far end open: sim/port.py); a simulator that
also holds the port's lock (``popdice table --sim`` runs its boards and uses them) is.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def holders(port: str) -> list[str]:
    """The programs other than this one (and the port's simulator) that have ``port`` open,
    each as ``name (pid N)``; [] where the system does not tell."""
    if "://" in port or not PROC.is_dir():
        return []
    target = os.path.realpath(port)
    ignored = {os.getpid(), *_simulator_pids(target)}
    locking = [pid for pid in _lock_holders(target) if pid != os.getpid()]
    processes = sorted(int(path.name) for path in PROC.iterdir() if path.name.isdigit())
    having = [
        pid
        for pid in processes
        if pid not in ignored and pid not in locking and _has_open(PROC / str(pid), target)
    ]
    return [f"{_program(PROC / str(pid))} (pid {pid})" for pid in [*locking, *having]]


def held_by(port: str) -> str:
    """Who holds ``port``, in words for a message: ``held by NAME (pid N)``, or ``held by
    another program`` where the system does not tell."""
    found = holders(port)
    return f"held by {', '.join(found)}" if found else "held by another program"


def _lock_holders(target: str) -> list[int]:
    """The processes that hold a lock on ``target`` (``flock``, as pyserial's ``exclusive``
    takes it), from ``/proc/locks``: its lines name the file by its file system's device
    (major and minor in hex) and its inode, ``1: FLOCK ADVISORY WRITE 4242 00:1a:3 0 EOF``;
    a lock waited for (``->``) is not held."""
    try:
        info = os.stat(target)
        lines = (PROC / "locks").read_text().splitlines()
    except OSError:
        return []
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    found: list[int] = []
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or "->" in fields or fields[5] != where or not fields[4].isdigit():
            continue
        if int(fields[4]) not in found:
            found.append(int(fields[4]))
    return found


def _simulator_pids(target: str) -> list[int]:
    """The supervising processes of the running simulators whose port is ``target``."""
    from .sim_registry import running

    return [sim.pid for sim in running() if os.path.realpath(sim.port) == target]


def _has_open(process: Path, target: str) -> bool:
    """Whether ``process`` has ``target`` open (False where it may not be looked at)."""
    try:
        descriptors = list((process / "fd").iterdir())
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor) == target:
                return True
        except OSError:
            continue
    return False


def _program(process: Path) -> str:
    """The name of ``process``'s program, or ``a program`` if it has ended since."""
    try:
        return (process / "comm").read_text().strip() or "a program"
    except OSError:
        return "a program"
