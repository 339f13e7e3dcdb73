"""The board core: the one interface through which the supervisor and the control channel
meet a simulated board, whichever backend runs its firmware (``core.SimCore``, the unix
port; ``rp2040.core.Rp2040Core``, the emulated RP2040).

``BoardCore`` keeps what both backends share: the physical world around a board (its cable,
held buttons, VSYS, the popper's resting tilt) and what the board last showed (LED frames,
the display, PWM outputs), with the events that report it. A backend starts and stops its
board, carries out the operations that differ (``click``, ``feed_accel``, ``unplug``,
``plug``, ``reset``, ``accel_stats``), and says how a change of the world reaches its
firmware (``_drive_button``, ``_send_vsys``, ``_send_rest``) and which process and flash are
its own (``_pid``, ``_flash_path``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SimulatorError
from . import protocol, wiring
from .accelfeed import check_samples
from .events import EventLog, OutputRing


@dataclass(frozen=True)
class SimPaths:
    """Where one simulator keeps its things."""

    flash: Path
    port_link: Path
    control: Path
    hardware: Path


class BoardCore:
    """One simulated board: its world, what it shows, and the operations on it."""

    def __init__(
        self,
        kind: str,
        device_id: str,
        paths: SimPaths,
        hold: Sequence[str],
        output: OutputRing,
    ) -> None:
        self.kind = kind
        self.device_id = device_id
        self.paths = paths
        self.events = EventLog()
        self.output = output
        self.plugged = False
        self.boots = 0
        self.pressed = set(hold)
        self.vsys_volts = wiring.DEFAULT_VSYS_VOLTS
        self.rest_g = list(wiring.DEFAULT_REST_G)
        self.leds: dict[int, tuple[int, bytes]] = {}  # pin -> (bpp, RGB bytes)
        self.display: dict[str, Any] | None = None
        self.pwm: dict[int, dict[str, Any]] = {}
        self.stopped = asyncio.Event()

    # --- what a backend provides

    async def start(self) -> None:
        """Powers the board on; returns once its firmware runs."""
        raise NotImplementedError

    async def stop(self) -> None:
        """Ends the board's firmware and closes its channels; sets ``stopped``."""
        raise NotImplementedError

    async def click(self, button: str, hold_ms: float) -> None:
        raise NotImplementedError

    async def feed_accel(self, samples: Sequence[Sequence[float]], wait: bool) -> int:
        """Queues accelerometer samples (g) for the board; returns the batch's id, once the
        board has read them all if ``wait``."""
        raise NotImplementedError

    async def unplug(self) -> None:
        raise NotImplementedError

    async def plug(self) -> None:
        raise NotImplementedError

    async def reset(self) -> None:
        raise NotImplementedError

    async def accel_stats(self) -> dict[str, Any]:
        raise NotImplementedError

    async def emulator_stats(self) -> dict[str, Any]:
        """The emulator's own figures; only a backend that emulates a chip has them."""
        raise SimulatorError("the unix-port simulator has no emulated RP2040 to ask")

    def _drive_button(self, pin: int, pressed: bool) -> None:
        raise NotImplementedError

    def _send_vsys(self, volts: float) -> None:
        raise NotImplementedError

    def _send_rest(self, vector: list[float]) -> None:
        raise NotImplementedError

    def _pid(self) -> int | None:
        raise NotImplementedError

    def _flash_path(self) -> str:
        raise NotImplementedError

    # --- what the board shows, as a backend reports it

    def _shows_leds(self, pin: int, bpp: int, rgb: bytes, **details: Any) -> None:
        self.leds[pin] = (bpp, rgb)
        self.events.emit(protocol.LEDS, pin=pin, bpp=bpp, rgb=rgb.hex(), **details)

    def _shows_display(self, state: dict[str, Any]) -> None:
        """``state``: on, contrast, invert, ... and ``buffer``, the frame buffer in base64."""
        self.display = state
        self.events.emit(protocol.DISPLAY, **state)

    def _shows_pwm(self, state: dict[str, Any]) -> None:
        self.pwm[state["pin"]] = state
        self.events.emit(protocol.PWM, **state)

    # --- the control channel's operations that are the same on both

    def state(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "device_id": self.device_id,
            "port": str(self.paths.port_link),
            "plugged": self.plugged,
            "boots": self.boots,
            "pid": self._pid(),
            "flash": self._flash_path(),
            "pressed": sorted(self.pressed),
            "vsys": self.vsys_volts,
        }

    def press(self, button: str) -> None:
        self._set_button(button, True)

    def release(self, button: str) -> None:
        self._set_button(button, False)

    def _set_button(self, button: str, pressed: bool) -> None:
        pin = wiring.button_pin(self.kind, button)
        if pressed:
            self.pressed.add(button)
        else:
            self.pressed.discard(button)
        self._drive_button(pin, pressed)
        self.events.emit(protocol.BUTTON, button=button, pressed=pressed)

    def set_rest(self, vector: Sequence[float]) -> None:
        self._need_accelerometer()
        self.rest_g = check_samples([vector])
        self._send_rest(self.rest_g)

    def set_vsys(self, volts: float) -> None:
        volts = float(volts)
        if not 0 <= volts <= 6:
            raise SimulatorError(f"VSYS of {volts} V is outside 0..6 V")
        self.vsys_volts = volts
        self._send_vsys(volts)

    def _need_accelerometer(self) -> None:
        if self.kind != "popper":
            raise SimulatorError(f"the {self.kind} has no accelerometer")

    def leds_frame(self) -> dict[str, Any]:
        bpp, rgb = self.leds.get(wiring.LED_DATA_PIN, (3, b""))
        return {"pin": wiring.LED_DATA_PIN, "bpp": bpp, "rgb": rgb.hex()}

    def display_state(self) -> dict[str, Any] | None:
        return self.display
