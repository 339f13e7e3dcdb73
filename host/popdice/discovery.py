"""Finds PopDice devices: real boards by USB id then handshake, and running simulators."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from serial.tools import list_ports

from .client import connect
from .errors import LinkError

RP2040_MICROPYTHON = (0x2E8A, 0x0005)
PROBE_TIMEOUT_S = 0.3


@dataclass(frozen=True)
class FoundDevice:
    """A device on a port: what its handshake said, or why it gave none."""

    kind: str
    device_id: str
    firmware: str
    port: str
    simulated: bool
    problem: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def real_ports() -> list[str]:
    """Serial ports of RP2040 boards running MicroPython (USB 2E8A:0005)."""
    return sorted(p.device for p in list_ports.comports() if (p.vid, p.pid) == RP2040_MICROPYTHON)


def simulated_ports() -> list[str]:
    from .sim.registry import running

    return [sim.port for sim in running()]


def probe(port: str, simulated: bool) -> FoundDevice:
    """Handshakes with ``port`` and says what answered."""
    try:
        with connect(port, timeout=PROBE_TIMEOUT_S) as client:
            info = client.info
    except LinkError as error:
        return FoundDevice("?", "?", "?", port, simulated, str(error))
    return FoundDevice(info.board, info.device_id, info.firmware, port, simulated)


def find_devices(*, real: bool = True, simulated: bool = True) -> list[FoundDevice]:
    found = []
    if real:
        found += [probe(port, False) for port in real_ports()]
    if simulated:
        found += [probe(port, True) for port in simulated_ports()]
    return found


def find_port(kind: str, *, real: bool = True, simulated: bool = True) -> str | None:
    """The port of the first working device of ``kind``, real boards first."""
    for device in find_devices(real=real, simulated=simulated):
        if device.kind == kind and not device.problem:
            return device.port
    return None
