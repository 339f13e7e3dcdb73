"""What is wired where on the simulated boards, seen from outside.

The supervisor presses buttons by pin and reads LEDs by pin; the shims inside MicroPython
know the same board (``upy/_simhw.py``) from the RP2040's side. The board modules
(``boards/*/board.py``, docs/build.md) are the source of every pin: ``tests/test_wiring.py`` keeps
these numbers and the shims' equal to theirs.
"""

from __future__ import annotations

from ..errors import SimulatorError
from ..kinds import KINDS

# Buttons close to ground: pressed reads 0 on a pin with its pull-up on.
BUTTONS: dict[str, dict[str, int]] = {
    "popper": {"mode": 14},
    "handheld": {"roll": 14, "peek": 15, "reveal": 13},
}

ACCEL_INT1_PIN = 6  # popper: the LIS3DH's data-ready interrupt
LED_DATA_PIN = 2  # popper: one WS2812B chain, 5 dice x 3x3, die 0 first, row by row
LED_COUNT = 45
DICE = 5
BUZZER_PIN = 15  # popper: piezo on PWM

DISPLAY_WIDTH = 128  # handheld: SSD1306 on I2C0
DISPLAY_HEIGHT = 64

VSYS_ADC_CHANNEL = 3  # handheld: GP29, VSYS through a 1/3 divider

DEFAULT_VSYS_VOLTS = 4.8  # USB power through the Pico's Schottky diode
DEFAULT_REST_G = (0.0, 0.0, 1.0)  # the popper lying flat


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise SimulatorError(f"unknown board kind {kind!r} (choose from {', '.join(KINDS)})")
    return kind


def button_pin(kind: str, button: str) -> int:
    """The GPIO a named button of this kind of board is wired to."""
    buttons = BUTTONS[check_kind(kind)]
    if button not in buttons:
        names = ", ".join(sorted(buttons))
        raise SimulatorError(f"the {kind} has no button {button!r} (it has {names})")
    return buttons[button]
