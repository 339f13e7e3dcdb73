"""What both devices answer, on a ``Link``: ``DeviceClient`` (status, echo, events, the
REPL) and its ``Status``. ``Popper`` and ``Handheld`` build on it; ``connect`` opens one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from .link import DeviceInfo, Link, Notice

# The firmware's link counters; a status reply carries only those that are not 0.
LINK_COUNTERS = (
    "rx_frames",
    "rx_errors",
    "tx_frames",
    "tx_dropped",
    "duplicates",
    "retransmits",
    "events_dropped",
    "handler_errors",
)


@dataclass(frozen=True)
class Status:
    """A device's health: what it is, how long it has run, its heap and link counters."""

    board: str
    firmware: str
    protocol: int
    uptime_ms: int
    heap_free: int
    heap_used: int
    unacked_events: int
    link: dict[str, int]
    extra: dict[str, Any]

    @classmethod
    def from_reply(cls, reply: dict[str, Any]) -> Status:
        known = {
            "board",
            "fw",
            "proto",
            "uptime_ms",
            "heap_free",
            "heap_used",
            "unacked_events",
            "link",
        }
        return cls(
            board=str(reply.get("board")),
            firmware=str(reply.get("fw")),
            protocol=int(reply.get("proto", 0)),
            uptime_ms=int(reply.get("uptime_ms", 0)),
            heap_free=int(reply.get("heap_free", 0)),
            heap_used=int(reply.get("heap_used", 0)),
            unacked_events=int(reply.get("unacked_events", 0)),
            link={**dict.fromkeys(LINK_COUNTERS, 0), **dict(reply.get("link", {}))},
            extra={k: v for k, v in reply.items() if k not in known},
        )


class DeviceClient:
    """Commands both devices understand; ``Popper`` and ``Handheld`` add their own."""

    board: ClassVar[str] = "device"

    def __init__(self, link: Link) -> None:
        self.link = link

    @property
    def info(self) -> DeviceInfo:
        assert self.link.info is not None
        return self.link.info

    def status(self) -> Status:
        """The device's health, typed (``status_reply`` gives the reply as it came)."""
        return Status.from_reply(self.status_reply())

    def status_reply(self) -> dict[str, Any]:
        """The ``status`` command's reply as the device sent it: the fields of docs/link.md,
        whose ``link`` holds only the counters that are not 0, and the board's own
        (docs/popper.md, docs/handheld.md)."""
        return self.link.call("status")

    def echo(self, **values: Any) -> dict[str, Any]:
        """Sends ``values`` and gets them back: a round trip through the firmware."""
        return self.link.call("echo", values)

    def counter(self) -> int:
        """Adds one to the device's counter: each call runs exactly once on the device."""
        return int(self.link.call("counter")["value"])

    def burst(self, n: int, pad: int = 0) -> int:
        """Asks for ``n`` numbered ``burst`` events, each padded with ``pad`` bytes."""
        return int(self.link.call("burst", {"n": n, "pad": pad})["n"])

    def enter_repl(self) -> dict[str, Any]:
        """Stops the firmware's link and frees the REPL (for mpremote); closes this client.
        Returns the device's reply: the handheld's names the unrevealed roll it wiped."""
        reply = self.link.call("repl")
        self.close()
        return reply

    def next_event(self, timeout: float | None = None) -> Notice | None:
        """The next event or notice, in order and once each, waiting at most ``timeout``
        seconds for it (``None``: as long as it takes).

        Returns an ``Event`` (``.kind``, ``.data``: a pop, a button...), an ``EventGap``
        (events the device's outbox lost) or a ``DeviceReboot`` notice. Returns ``None``
        when ``timeout`` seconds pass and nothing came: that is no error, the device is
        still there and nothing is lost; call again to go on waiting. Raises
        ``DeviceDisconnected`` when the device has gone away. A loop that handles every
        event until the program stops::

            while True:
                item = client.next_event(timeout=1.0)
                if item is None:
                    continue  # a quiet second: nothing came; do other work here
                handle(item)

        ``events(timeout)`` is the loop that stops at the first quiet ``timeout``.
        """
        return self.link.next_event(timeout)

    def events(self, timeout: float | None = None) -> Iterator[Notice]:
        """Events and notices as they come, until ``timeout`` seconds pass without one
        (where ``next_event`` returns ``None``)."""
        while (item := self.link.next_event(timeout)) is not None:
            yield item

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> DeviceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
