"""Finds PopDice devices: real boards by USB id then handshake, and running simulators (those
of this checkout's folder, see sim_registry.py). A port another program holds is listed
once, as busy."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from serial.tools import list_ports

from ..errors import LinkError, PopdiceError, PortBusy
from ..kinds import KINDS
from .connect import connect
from .holders import held_by, holders

RP2040_MICROPYTHON = (0x2E8A, 0x0005)
PROBE_TIMEOUT_S = 0.3
BUSY = "busy: held by another program"


@dataclass(frozen=True)
class FoundDevice:
    """A device on a port: what its handshake said, or why it gave none."""

    kind: str
    device_id: str
    firmware: str
    port: str
    simulated: bool
    problem: str = ""
    busy: bool = False

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def real_ports() -> list[str]:
    """Serial ports of RP2040 boards running MicroPython (USB 2E8A:0005)."""
    return sorted(p.device for p in list_ports.comports() if (p.vid, p.pid) == RP2040_MICROPYTHON)


def simulated_ports() -> list[str]:
    return [port for port, _ in _simulators()]


def _simulators() -> list[tuple[str, tuple[str, str]]]:
    """Each running simulator's port, with its kind and device id from the registry."""
    from .sim_registry import running

    return [(sim.port, (sim.kind, sim.device_id)) for sim in running()]


def probe(port: str, simulated: bool, known: tuple[str, str] = ("?", "?")) -> FoundDevice:
    """Handshakes with ``port`` and says what answered; ``known`` is the kind and device id
    to show if the port is busy (a simulator's, from the registry). A port that gives no
    handshake while another program has it open (one that takes no lock on it, and reads
    what the device says) is busy too."""
    try:
        with connect(port, timeout=PROBE_TIMEOUT_S) as client:
            info = client.info
    except PortBusy:
        return FoundDevice(*known, "?", port, simulated, f"busy: {held_by(port)}", busy=True)
    except LinkError as error:
        found = holders(port)
        if found:
            held = f"busy: held by {', '.join(found)}"
            return FoundDevice(*known, "?", port, simulated, held, busy=True)
        return FoundDevice("?", "?", "?", port, simulated, str(error))
    return FoundDevice(info.board, info.device_id, info.firmware, port, simulated)


def find_devices(*, real: bool = True, simulated: bool = True) -> list[FoundDevice]:
    """Every device, real boards first; a port reached by two names is probed once."""
    candidates = [(port, False, ("?", "?")) for port in real_ports()] if real else []
    if simulated:
        candidates += [(port, True, known) for port, known in _simulators()]
    found = []
    seen: set[str] = set()
    for port, is_simulated, known in candidates:
        where = os.path.realpath(port)
        if where not in seen:
            seen.add(where)
            found.append(probe(port, is_simulated, known))
    return found


def find_port(kind: str, *, real: bool = True, simulated: bool = True) -> str | None:
    """The port of the first working device of ``kind``, real boards first."""
    return first_of(find_devices(real=real, simulated=simulated), kind)


def first_of(devices: list[FoundDevice], kind: str) -> str | None:
    """The port of the first working device of ``kind`` among ``devices``."""
    for device in devices:
        if device.kind == kind and not device.problem:
            return device.port
    return None


def pick_port(port: str | None, kind: str | None) -> str:
    """``port`` if given, else the first device of ``kind`` (real boards first)."""
    if port is not None:
        return port
    devices = find_devices()
    for wanted in [kind] if kind else list(KINDS):
        found = first_of(devices, wanted)
        if found:
            return found
    refuse_busy(devices, kind)
    what = kind or "PopDice device"
    start = f"popdice sim {kind or 'popper'}"
    raise PopdiceError(f"no {what} found: plug one in, or start a simulated one with `{start}`")


def refuse_busy(devices: list[FoundDevice], kind: str | None) -> None:
    """Raises ``PopdiceError`` naming the first busy port among ``devices`` that may be a
    ``kind`` (any kind if None) and who holds it, if there is one."""
    busy = [d for d in devices if d.busy and (kind is None or d.kind in (kind, "?"))]
    if busy:
        what = kind or "PopDice device"
        held = busy[0].problem.removeprefix("busy: ")
        raise PopdiceError(f"no free {what}: {busy[0].port} is busy, {held}")
