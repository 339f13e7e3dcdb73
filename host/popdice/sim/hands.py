"""A player's hands on the simulated devices: press the dome, knock the table, push buttons.

The table's keys use these with simulated devices, so a game on the laptop goes through the
same firmware path as at a real table: a dome press is an accelerometer trace from the
physical model (popdice.sim.physics) fed to the simulated LIS3DH, which the firmware's own
detector has to recognise; a handheld button is pressed and released on its pin.
Nothing here waits for the firmware to answer: the answer comes as the device's event.
"""

from __future__ import annotations

import random

from .control import SimControl
from .physics.scenes import knock_trace, press_trace

HANDHELD_BUTTONS = ("roll", "peek", "reveal")
CLICK_MS = 80.0
LONG_PRESS_MS = 900.0


class SimulatedHands:
    """Acts on one simulated device through its control channel."""

    def __init__(self, control: SimControl, seed: int | None = None) -> None:
        self.control = control
        self._rng = random.Random(seed)

    def press_dome(self) -> None:
        """A press on the popper's dome, of a strength drawn like any player's press."""
        trace = press_trace(seed=self._rng.randrange(1 << 30))
        self.control.feed_accel(trace.samples_g, wait=False)

    def knock_table(self) -> None:
        """A knock on the table beside the popper: the detector should let it pass."""
        trace = knock_trace(seed=self._rng.randrange(1 << 30), peak_g=None)
        self.control.feed_accel(trace.samples_g, wait=False)

    def click(self, button: str, long: bool = False) -> None:
        """A short (or long) press of a handheld button."""
        if button not in HANDHELD_BUTTONS:
            raise ValueError(f"the handheld has no {button!r} button")
        self.control.click(button, LONG_PRESS_MS if long else CLICK_MS)

    def close(self) -> None:
        self.control.close()
