"""A device's ``status`` reply as readable lines, for ``popdice status``.

Three parts: the device itself (board, ids, firmware, uptime, heap), ``link:`` (every link
counter, the ones the reply leaves out as 0) and the board's own fields under its name
(``popper:``, ``handheld:``). Each known field has a label, its unit and, where a bare
number would not say enough, what it counts in words; the fields are those of
docs/link.md, docs/popper.md and docs/handheld.md. A field this module does not know
(newer firmware) is still shown, by its name. A nested object is shown as indented lines.
A value of an unexpected type is shown as it is: the reply comes from a device, and a
strange one must not stop the command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..devices.client import LINK_COUNTERS
from ..devices.link import DeviceInfo

INDENT = "  "


@dataclass(frozen=True)
class Field:
    """How one field of the reply is shown: its label, its value as text, what it means."""

    label: str
    text: Callable[[Any], str] | None = None
    """The value as text; None: ``plain``, and an object shown by its fields."""
    meaning: str = ""


def plain(value: Any) -> str:
    """Any value as a person reads it: numbers with thousands separators, yes/no, none."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(plain(item) for item in value) or "none"
    return str(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def with_unit(unit: str) -> Callable[[Any], str]:
    """Shows a whole number followed by ``unit`` (``165,648 B``)."""
    return lambda value: f"{value:,} {unit}" if _whole(value) else plain(value)


def duration(value: Any) -> str:
    """Milliseconds as a person says them: ``42.5 s``, ``5 min 03 s``, ``1 h 02 min``,
    ``3 d 04 h 05 min``."""
    if not _whole(value) or value < 0:
        return plain(value)
    seconds = value // 1000
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if minutes == 0:
        return f"{value // 100 / 10:.1f} s"  # 59,999 ms is 59.9 s, not 60.0
    if hours == 0:
        return f"{minutes} min {seconds % 60:02d} s"
    if days == 0:
        return f"{hours} h {minutes % 60:02d} min"
    return f"{days} d {hours % 24:02d} h {minutes % 60:02d} min"


def volts(value: Any) -> str:
    """Millivolts as volts: ``4.80 V``."""
    return f"{value / 1000:.2f} V" if _whole(value) else plain(value)


def i2c_address(value: Any) -> str:
    """An I2C address in hex as datasheets give it (``0x18``); ``none`` where nothing
    answered."""
    if value is None:
        return "none (nothing answered)"
    return f"0x{value:02X}" if _whole(value) else plain(value)


def timings(value: Any) -> str:
    """A firmware cost meter ``{"n", "mean", "max"}`` (µs) in one line. Its ``n`` is left
    out: the meter halves it now and then to keep its mean recent (firmware meter.py)."""
    if not isinstance(value, dict) or not all(_whole(value.get(key)) for key in ("mean", "max")):
        return plain(value)
    return f"mean {value['mean']:,} µs, longest {value['max']:,} µs"


DEVICE_FIELDS = {
    "fw": Field("firmware"),
    "proto": Field("protocol"),
    "uptime_ms": Field("uptime", duration),
    "reset": Field("started by", meaning="power on, or the watchdog: a task had hung"),
    "heap_free": Field("heap free", with_unit("B")),
    "heap_used": Field("heap used", with_unit("B")),
    "unacked_events": Field("unacked events", meaning="events sent that no host has acknowledged"),
    "task_failures": Field(
        "task failures", meaning="tasks that raised and were started again by the supervisor"
    ),
    "task_failed": Field("last task failed", meaning="the task and its error's type"),
}
"""The fields every device sends (docs/link.md) but ``board`` and ``link``, in the order
shown."""

LINK_FIELDS = {
    "rx_frames": Field("frames received", meaning="whole frames read from the host"),
    "rx_errors": Field(
        "frames damaged", meaning="received frames dropped: bad COBS or CRC, or too long"
    ),
    "tx_frames": Field("frames sent"),
    "tx_dropped": Field(
        "frames not sent", meaning="the transmit queue was full or the port refused them"
    ),
    "duplicates": Field(
        "duplicate commands", meaning="commands sent again, answered with the kept reply"
    ),
    "retransmits": Field("events resent", meaning="sent again while unacknowledged"),
    "events_dropped": Field(
        "events dropped", meaning="unacknowledged events pushed out of a full outbox"
    ),
    "handler_errors": Field(
        "handler errors", meaning="frames whose handling raised, answered with an internal error"
    ),
}
"""The link's counters (docs/link.md), in ``LINK_COUNTERS``' order."""

BOARD_FIELDS = {
    # the popper (docs/popper.md)
    "mode": Field("mode", meaning="the game mode a press rolls for"),
    "samples": Field("samples", meaning="accelerometer samples read since boot"),
    "overruns": Field("overruns", meaning="samples lost before the detector saw them"),
    "pops": Field("pops", meaning="rolls since boot, by a press or by the host"),
    "detect_us": Field("press detector time", timings, "per sample; the mean of recent ones"),
    "detector": Field("detector", meaning="where the press detector's settings came from"),
    "pop_on": Field("pops on", meaning="the dome's release, or the press itself"),
    "stream_dropped": Field(
        "stream batches dropped", meaning="streamed samples let go when the link fell behind"
    ),
    "accel": Field("accelerometer"),
    "accel_address": Field("accelerometer address", i2c_address),
    "leds_ma": Field("LED current", with_unit("mA"), "the last frame's, estimated"),
    "frames_capped": Field(
        "frames capped", meaning="LED frames dimmed to stay under the current cap"
    ),
    # the handheld (docs/handheld.md)
    "vsys_mv": Field("battery", volts, "VSYS"),
    "battery_low": Field("battery low"),
    "display": Field("display"),
    "display.present": Field("present", meaning="a panel answered at boot"),
    "display.on": Field("on"),
    "display.address": Field("address", i2c_address),
    "display.errors": Field("errors", meaning="writes to the panel that failed"),
    "roll": Field("roll"),
    "roll.roll_id": Field("roll id"),
    "roll.commitment": Field("commitment", meaning="SHA-256 of the secret dice and a nonce"),
    "roll.revealed": Field("revealed"),
}
"""The boards' own fields, and those of their nested objects as ``parent.field``, in the
order shown."""

STATUS_HELP = (
    "Prints the device's status as readable lines: the board, its ids, firmware, uptime "
    "and heap; the link's counters; and the board's own fields (the popper's sensor, "
    "detector and LEDs, the handheld's battery, display and current roll), each number "
    "with what it counts, e.g. overruns: samples the sensor overwrote before the "
    "firmware read them. --json prints the device's reply as it came (its fields: "
    "docs/link.md, docs/popper.md, docs/handheld.md; link holds only the counters that "
    "are not 0) with the port and device_id added."
)


def status_lines(reply: Mapping[str, Any], info: DeviceInfo) -> list[str]:
    """The reply of ``info``'s device to ``status`` as readable lines, in three parts:
    the device, its link counters, and its board's own fields."""
    board = plain(reply.get("board", info.board))
    device = {key: value for key, value in reply.items() if key in DEVICE_FIELDS}
    own = {
        key: value
        for key, value in reply.items()
        if key not in DEVICE_FIELDS and key not in ("board", "link")
    }
    lines = [
        f"board: {board}",
        f"device id: {info.device_id}",
        f"port: {info.port}",
        f"session: {info.session} (new at every boot)",
        *fields_lines(device, DEVICE_FIELDS),
        "link:",
        *fields_lines(link_counters(reply.get("link")), LINK_FIELDS, depth=1),
    ]
    if own:
        lines += [f"{board}:", *fields_lines(own, BOARD_FIELDS, depth=1)]
    return lines


def link_counters(sent: Any) -> dict[str, Any]:
    """Every link counter: the reply carries only those that are not 0."""
    return {**dict.fromkeys(LINK_COUNTERS, 0), **(sent if isinstance(sent, dict) else {})}


def fields_lines(
    values: Mapping[str, Any], known: Mapping[str, Field], *, depth: int = 0, parent: str = ""
) -> list[str]:
    """Lines for ``values``, which sit at ``parent`` in the reply: the fields ``known``
    names first, in its order, then any others by name."""
    paths = {key: f"{parent}.{key}" if parent else key for key in values}
    rank = {path: place for place, path in enumerate(known)}
    ordered = sorted(values, key=lambda key: (rank.get(paths[key], len(rank)), key))
    return [
        line
        for key in ordered
        for line in field_lines(key, values[key], known, depth=depth, path=paths[key])
    ]


def field_lines(
    key: str, value: Any, known: Mapping[str, Field], *, depth: int = 0, path: str = ""
) -> list[str]:
    """One field as a line ``label: value (meaning)``, or an object as a line ``label:``
    and its fields one level further in."""
    path = path or key
    field = known.get(path) or Field(key.replace("_", " "))
    indent = INDENT * depth
    if field.text is None and isinstance(value, dict):
        return [
            f"{indent}{field.label}:",
            *fields_lines(value, known, depth=depth + 1, parent=path),
        ]
    text = plain(value) if field.text is None else field.text(value)
    meaning = f" ({field.meaning})" if field.meaning else ""
    return [f"{indent}{field.label}: {text}{meaning}"]
