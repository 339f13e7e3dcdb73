"""PopDice on the laptop: talks to the popper and the handheld over USB serial."""

from .client import DeviceClient, Status, connect
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
    RequestTooLong,
    UnknownCommand,
)
from .handheld import CommitmentMismatch, Handheld, Reveal, SecretRoll
from .link import DeviceInfo, DeviceReboot, Event, EventGap, Link
from .popper import Popper

__version__ = "0.1.0"

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
    "RequestTooLong",
    "Reveal",
    "SecretRoll",
    "Status",
    "UnknownCommand",
    "__version__",
    "connect",
]
