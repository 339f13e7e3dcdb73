"""The popper's client: the table-centre dice (docs/popper.md)."""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from dataclasses import dataclass
from typing import Any

from .client import DeviceClient
from .link import Event

MODES = ("popalotsy", "lowdown", "ringer")
ROLL_COUNTS_MAX = 20000
# The slowest a popper rolls (rolls/s, five dice): an RP2040 at 125 MHz does about 540 with
# its sensor running (measured on the emulated chip: bench/rp2040.py); half of that, so a
# busy board's answer still comes in time.
SLOWEST_ROLLS_PER_S = 250


@dataclass(frozen=True)
class Pop:
    """One pop (or reroll) of the dice: ``dice`` are ``{"number"}``, ``{"color"}`` or both."""

    roll: int
    mode: str
    dice: tuple[dict[str, Any], ...]
    source: str
    reroll: int | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Pop:
        return cls(
            roll=int(data["roll"]),
            mode=str(data["mode"]),
            dice=tuple(dict(d) for d in data["dice"]),
            source=str(data.get("source", "")),
            reroll=data.get("reroll"),
        )

    @classmethod
    def from_event(cls, event: object) -> Pop | None:
        """The pop an event reports, or None if it is some other event."""
        if isinstance(event, Event) and event.kind == "pop":
            return cls.from_data(event.data)
        return None

    def numbers(self) -> list[int]:
        return [d["number"] for d in self.dice if "number" in d]

    def colors(self) -> list[str]:
        return [d["color"] for d in self.dice if "color" in d and "number" not in d]


@dataclass(frozen=True)
class Cost:
    """A cost measured on the device, in microseconds of its own clock."""

    n: int
    mean: int
    max: int

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Cost:
        return cls(int(data["n"]), int(data["mean"]), int(data["max"]))


@dataclass(frozen=True)
class SensorTiming:
    """What the popper's sample path cost since the figures were last reset: the detector
    alone, the whole sample (taken from the ring and through the detector), the time between
    samples, and the samples lost (``overruns``: overwritten by the LIS3DH before they were
    read, or read but let go, the ring being full: ``let_go``); since boot, the interrupt
    that reads each sample: its longest run, INT1 edges missed and caught, reads that
    failed."""

    samples: int
    overruns: int
    detect_us: Cost
    sample_us: Cost
    gap_us: Cost
    let_go: int = 0
    missed_edges: int = 0
    failed_reads: int = 0
    isr_max_us: int = 0

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SensorTiming:
        return cls(
            samples=int(data["samples"]),
            overruns=int(data["overruns"]),
            detect_us=Cost.from_data(data["detect_us"]),
            sample_us=Cost.from_data(data["sample_us"]),
            gap_us=Cost.from_data(data["gap_us"]),
            let_go=int(data.get("let_go", 0)),
            missed_edges=int(data.get("missed_edges", 0)),
            failed_reads=int(data.get("failed", 0)),
            isr_max_us=int(data.get("isr_max_us", 0)),
        )


@dataclass(frozen=True)
class Settings:
    brightness: int
    cap_ma: int
    animation: bool


@dataclass(frozen=True)
class SampleBatch:
    """Consecutive raw samples from the popper's stream: ``first`` is the number of the
    first on the sensor's clock (400 a second; a jump from the last batch is a gap), ``xyz``
    the readings (mg), x, y, z one sample after another."""

    first: int
    xyz: array

    def __len__(self) -> int:
        return len(self.xyz) // 3

    @classmethod
    def from_frame(cls, frame: dict[str, Any]) -> SampleBatch | None:
        """The batch in an ``smp`` frame, or None if the frame is malformed."""
        first, encoded = frame.get("n"), frame.get("b")
        if not isinstance(first, int) or isinstance(first, bool) or not isinstance(encoded, str):
            return None
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None
        if len(raw) % 6:
            return None
        values = array("h", raw)
        if sys.byteorder != "little":
            values.byteswap()
        return cls(first, values)


@dataclass(frozen=True)
class DetectorSettings:
    """The press detector's settings in use: ``source`` is ``detector.json`` (settings from
    ``popdice calibrate``), ``built-in``, or ``built-in (detector.json: why it was not
    used)``; ``settings`` are the settings themselves (``None`` from a firmware that does
    not say)."""

    source: str
    settings: dict[str, Any] | None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> DetectorSettings:
        settings = data.get("settings")
        return cls(str(data["source"]), dict(settings) if isinstance(settings, dict) else None)


class Popper(DeviceClient):
    """The popper: the table-centre dice."""

    board = "popper"

    def mode(self) -> str:
        return str(self.link.call("mode")["mode"])

    def modes(self) -> list[str]:
        """Every game mode the firmware has, in the order its mode button steps through."""
        return [str(mode) for mode in self.link.call("mode")["modes"]]

    def set_mode(self, mode: str) -> str:
        """Switches the game mode (popalotsy, lowdown, ringer); a ``mode`` event follows."""
        return str(self.link.call("mode", {"mode": mode})["mode"])

    def pop(self) -> Pop:
        """Pops the dice as if the dome were pressed; the ``pop`` event follows too."""
        return Pop.from_data(self.link.call("pop"))

    def reroll(self, die: int) -> Pop:
        """Rolls one die of the last pop again (Ringer's Reroll power)."""
        return Pop.from_data(self.link.call("reroll", {"die": die}))

    def void(self, roll: int) -> bool:
        """Shows a bar on each die in place of pop ``roll``, a roll the game did not count;
        False if the popper shows a later pop (left as it is)."""
        return bool(self.link.call("void", {"roll": roll})["voided"])

    def settings(
        self,
        *,
        brightness: int | None = None,
        animation: bool | None = None,
        cap_ma: int | None = None,
    ) -> Settings:
        """Changes the settings given, and returns them all."""
        changes = {"brightness": brightness, "animation": animation, "cap_ma": cap_ma}
        reply = self.link.call("settings", {k: v for k, v in changes.items() if v is not None})
        return Settings(int(reply["brightness"]), int(reply["cap_ma"]), bool(reply["animation"]))

    def timing(self, reset: bool = False) -> SensorTiming:
        """The sample path's figures since the last reset; ``reset`` starts them again."""
        return SensorTiming.from_data(self.link.call("timing", {"reset": reset}))

    def stream(self, on: bool, seconds: int = 5) -> dict[str, Any]:
        """Starts the raw samples stream for ``seconds`` (1-60; call again to renew it) or
        stops it; returns ``on``, ``batch`` (samples a frame), ``sent`` and ``dropped``."""
        args: dict[str, Any] = {"on": on}
        if on:
            args["seconds"] = seconds
        return self.link.call("stream", args)

    def next_samples(self, timeout: float) -> SampleBatch | None:
        """The next batch of the stream, waiting up to ``timeout`` seconds; None if none
        came (malformed frames are skipped)."""
        while True:
            frame = self.link.next_data(timeout)
            if frame is None:
                return None
            batch = SampleBatch.from_frame(frame)
            if batch is not None:
                return batch

    def detector(self) -> DetectorSettings:
        """The press detector's settings and where they came from."""
        return DetectorSettings.from_data(self.link.call("detector"))

    def set_detector(self, settings: dict[str, Any]) -> DetectorSettings:
        """Keeps ``settings`` (from ``popdice tune``) in the popper's flash and detects with
        them at once; a bad setting is refused (``DeviceError`` naming it)."""
        return DetectorSettings.from_data(self.link.call("detector", {"settings": settings}))

    def reset_detector(self) -> DetectorSettings:
        """Deletes the stored settings: the built-in settings from now on."""
        return DetectorSettings.from_data(self.link.call("detector", {"reset": True}))

    def roll_counts(self, n: int, mode: str | None = None) -> list[list[int]]:
        """How often each face came up on each die in ``n`` rolls (at most 20,000 a call)."""
        args: dict[str, Any] = {"n": n}
        if mode:
            args["mode"] = mode
        reply = self.link.call("roll_counts", args, timeout=2.0 + n / SLOWEST_ROLLS_PER_S)
        return [list(map(int, die)) for die in reply["counts"]]
