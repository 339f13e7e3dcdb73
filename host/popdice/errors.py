"""The exceptions of the popdice package: every one a PopdiceError with a one-line message."""


class PopdiceError(Exception):
    """Base of every error this package raises on purpose; its message is one line."""


class SimulatorError(PopdiceError):
    """The simulated Pico cannot start or be reached."""


class LinkError(PopdiceError):
    """The serial link to a device failed."""


class PortBusy(LinkError):
    """Another program (another user's, another checkout's) has the serial port open."""


class DeviceDisconnected(LinkError):
    """The serial port went away (unplugged, or the simulator stopped)."""


class HandshakeFailed(LinkError):
    """The device did not answer the hello handshake: not a PopDice device, or busy."""


class ProtocolMismatch(LinkError):
    """The device speaks another version of the link protocol."""


class DeviceTimeout(LinkError):
    """A command got no answer after every retry."""


class DeviceRestarted(LinkError):
    """The device rebooted while a command was in flight: it may or may not have run."""


class CommandsOutOfStep(LinkError):
    """The device had taken a command number past the one in flight (another program sent
    it commands), so it did not run that command. The numbering is started again, so the
    next command goes through."""


class RequestTooLong(PopdiceError):
    """A command with its arguments does not fit in one frame of the link: nothing was sent."""


class RequestNotJson(PopdiceError):
    """A command's arguments hold a number JSON cannot carry (an infinity, NaN): nothing was
    sent."""


class DeviceError(PopdiceError):
    """The device refused a command with an error frame; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"device error {code}: {message}")
        self.code = code
        self.device_message = message


class UnknownCommand(DeviceError):
    """The firmware has no such command (it may be older than this host)."""


class BadArguments(DeviceError):
    """The firmware understood the command but not its arguments."""


class DeviceBusy(DeviceError):
    """The device has as much of that work running as it takes; try again when some ends."""


class JournalError(PopdiceError):
    """The table's journal cannot be opened, read or written, has no such game, or holds
    what the table never writes (a damaged file): the message names the game and entry."""


class GameLocked(JournalError):
    """Another table has that game open: one game is played at one table at a time."""
