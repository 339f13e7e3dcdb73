"""PopDice on the laptop: talks to the popper and the handheld over USB serial.

The names below are imported on first use (``popdice.connect`` loads the client then), so
``import popdice`` costs next to nothing and a command such as ``popdice --help`` loads
only what it needs.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # as typing's, without importing typing, which this package does not need

__version__ = "0.1.0"

# Each public name and the module that defines it.
_HOMES = {
    "DeviceClient": "devices.client",
    "Status": "devices.client",
    "connect": "devices.connect",
    "BadArguments": "errors",
    "CommandsOutOfStep": "errors",
    "DeviceBusy": "errors",
    "DeviceDisconnected": "errors",
    "DeviceError": "errors",
    "DeviceRestarted": "errors",
    "DeviceTimeout": "errors",
    "HandshakeFailed": "errors",
    "LinkError": "errors",
    "PopdiceError": "errors",
    "PortBusy": "errors",
    "ProtocolMismatch": "errors",
    "RequestNotJson": "errors",
    "RequestTooLong": "errors",
    "UnknownCommand": "errors",
    "CommitmentMismatch": "devices.handheld",
    "Handheld": "devices.handheld",
    "Reveal": "devices.handheld",
    "SecretRoll": "devices.handheld",
    "DeviceInfo": "devices.link",
    "DeviceReboot": "devices.link",
    "Event": "devices.link",
    "EventGap": "devices.link",
    "Link": "devices.link",
    "Popper": "devices.popper",
}

__all__ = [
    "BadArguments",
    "CommandsOutOfStep",
    "CommitmentMismatch",
    "DeviceBusy",
    "DeviceClient",
    "DeviceDisconnected",
    "DeviceError",
    "DeviceInfo",
    "DeviceReboot",
    "DeviceRestarted",
    "DeviceTimeout",
    "Event",
    "EventGap",
    "Handheld",
    "HandshakeFailed",
    "Link",
    "LinkError",
    "PopdiceError",
    "Popper",
    "PortBusy",
    "ProtocolMismatch",
    "RequestNotJson",
    "RequestTooLong",
    "Reveal",
    "SecretRoll",
    "Status",
    "UnknownCommand",
    "__version__",
    "connect",
]

if TYPE_CHECKING:
    from .devices.client import DeviceClient, Status
    from .devices.connect import connect
    from .devices.handheld import CommitmentMismatch, Handheld, Reveal, SecretRoll
    from .devices.link import DeviceInfo, DeviceReboot, Event, EventGap, Link
    from .devices.popper import Popper
    from .errors import (
        BadArguments,
        CommandsOutOfStep,
        DeviceBusy,
        DeviceDisconnected,
        DeviceError,
        DeviceRestarted,
        DeviceTimeout,
        HandshakeFailed,
        LinkError,
        PopdiceError,
        PortBusy,
        ProtocolMismatch,
        RequestNotJson,
        RequestTooLong,
        UnknownCommand,
    )


def __getattr__(name: str) -> object:
    """A public name, imported from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value  # the next look-up does not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
