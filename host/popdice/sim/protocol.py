"""The control channel's wire format, shared by the supervisor and ``SimControl``.

One compact JSON object per line, both ways, on a Unix socket:

- request  ``{"id": 7, "op": "press", "button": "mode"}``
- response ``{"id": 7, "ok": true, "seq": 41, "result": ...}`` or
  ``{"id": 7, "ok": false, "error": "one line"}``; ``seq`` is the number of the last event
  when the request was carried out, so every event it caused has a larger one;
- event    ``{"event": {"seq": 42, "kind": "leds", "time": 12.5, ...}}``, sent after a
  ``subscribe`` request (which first replays the supervisor's recent history).

Binary payloads travel as text: LED frames as hex RGB (``rgb``), the display's frame buffer
as base64 (``buffer``); ``SimEvent.from_wire`` turns them into tuples and bytes.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

# What the supervisor reports (SimEvent.kind).
BOOT = "boot"  # a firmware process started: boots, pid
EXIT = "exit"  # it ended: pid, code, reason, uptime
LEDS = "leds"  # a NeoPixel write: pin, bpp, pixels
DISPLAY = "display"  # the SSD1306 changed: on, contrast, invert, ..., buffer
PWM = "pwm"  # a PWM output changed: pin, freq, duty_u16, on
PIN = "pin"  # an output pin changed: pin, value
BUTTON = "button"  # a button was pressed or released: button, pressed
PLUG = "plug"  # the USB cable: plugged
ACCEL_DONE = "accel_done"  # the firmware has read every sample of a feed: batch, samples
STDERR = "stderr"  # a line the firmware wrote to stderr: text


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


@dataclass(frozen=True)
class SimEvent:
    """One thing that happened on the simulated board, numbered in order by the supervisor."""

    seq: int
    kind: str
    time: float
    data: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> SimEvent:
        data = {k: v for k, v in wire.items() if k not in ("seq", "kind", "time")}
        kind = wire["kind"]
        if kind == LEDS:
            data["pixels"] = pixels_from_hex(data.pop("rgb"), data.get("bpp", 3))
        elif kind == DISPLAY:
            data["buffer"] = base64.b64decode(data["buffer"])
        return cls(wire["seq"], kind, wire["time"], data)


def pixels_from_hex(rgb: str, bpp: int = 3) -> list[tuple[int, ...]]:
    raw = bytes.fromhex(rgb)
    return [tuple(raw[i : i + bpp]) for i in range(0, len(raw), bpp)]
