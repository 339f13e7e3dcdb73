"""Finding a device again by its id when it comes back, on whatever port it comes back on.

A board unplugged and plugged in again may get another serial port (``/dev/ttyACM1`` for
``/dev/ttyACM0``), and it reboots, so its session is new. ``DeviceWatch`` follows one
device's events on a thread of the caller's and, when the link goes, looks for the same
device id on every port (the last one first) until it answers again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from ..errors import DeviceDisconnected, LinkError
from .client import DeviceClient
from .connect import connect
from .discovery import probe, real_ports, simulated_ports
from .link import DeviceInfo, Notice

RETRY_INTERVAL_S = 0.5
EVENT_POLL_S = 0.2


class Watched(Protocol):
    """What a watch needs of a client (``DeviceClient`` and the table's test doubles)."""

    @property
    def info(self) -> DeviceInfo: ...

    def next_event(self, timeout: float | None = None) -> Notice | None: ...

    def close(self) -> None: ...


def port_of(client: object) -> str | None:
    """The port a client's link is open on, if it has one."""
    port = getattr(getattr(client, "link", None), "port", None)
    return port if isinstance(port, str) else None


def candidate_ports(last_port: str | None, exclude: Collection[str] = ()) -> list[str]:
    """Ports the device may be on now: its last one first, then every other PopDice port."""
    ports = [*([last_port] if last_port else []), *real_ports(), *simulated_ports()]
    seen: set[str] = set(exclude)
    ordered = []
    for port in ports:
        if port not in seen:
            seen.add(port)
            ordered.append(port)
    return ordered


def find_by_id(device_id: str, last_port: str | None, exclude: Collection[str] = ()) -> str | None:
    """The port on which the device ``device_id`` answers a handshake now, if any.
    ``exclude`` names ports this process already holds open (probing them would steal bytes
    from their links)."""
    for port in candidate_ports(last_port, exclude):
        found = probe(port, simulated=False)
        if not found.problem and found.device_id == device_id:
            return port
    return None


@dataclass(frozen=True)
class Lost:
    """The device's link went: ``reason`` says how."""

    reason: str


@dataclass(frozen=True)
class Back:
    """The device answered again (perhaps on another port); it has rebooted: set it up again."""

    client: DeviceClient


WatchReport = Notice | Lost | Back


class DeviceWatch:
    """Follows ``client``'s events until ``stop()``; reports each event, then ``Lost`` and
    ``Back`` around an unplug. ``exclude`` is asked afresh on every search."""

    def __init__(
        self,
        client: Watched,
        report: Callable[[WatchReport], None],
        exclude: Callable[[], Collection[str]] = tuple,
        retry_interval_s: float = RETRY_INTERVAL_S,
    ) -> None:
        self.client: Watched = client
        self.report = report
        self.exclude = exclude
        self.retry_interval_s = retry_interval_s
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def run(self) -> None:
        """Blocks, reporting, until ``stop()``."""
        while not self.stopped:
            try:
                notice = self.client.next_event(EVENT_POLL_S)
            except DeviceDisconnected as error:
                self.report(Lost(str(error)))
                client = self._search()
                if client is None:
                    return
                self.client = client
                self.report(Back(client))
                continue
            if notice is not None and not self.stopped:
                self.report(notice)

    def _search(self) -> DeviceClient | None:
        """Looks for the device by id until it answers (its new client) or ``stop()``."""
        info, last_port = self.client.info, port_of(self.client)
        self.client.close()
        if last_port is None:
            return None  # not a client on a port: nothing to look for
        while not self._stopped.wait(self.retry_interval_s):
            port = find_by_id(info.device_id, last_port, self.exclude())
            if port is None:
                continue
            try:
                client = connect(port)
            except LinkError:
                continue
            if client.info.device_id == info.device_id:
                return client
            client.close()
        return None
