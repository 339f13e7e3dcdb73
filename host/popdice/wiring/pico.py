"""The Raspberry Pi Pico's 40-pin header: the name of each pin and where it sits.

Seen from above with the USB connector at the top, pins 1-20 run down the left edge and pins
21-40 up the right edge (pin 40, VBUS, is top right). GP23, GP24, GP25 and GP29 are not on
the header: the Pico uses them itself (GP29 reads VSYS through its own 1/3 divider).
"""

from __future__ import annotations

LEFT = (
    "GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",
    "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",
)  # fmt: skip
"""The names of pins 1 to 20, top to bottom."""
RIGHT = (
    "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
    "GP26", "GP27", "GND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS",
)  # fmt: skip
"""The names of pins 21 to 40, bottom to top."""

PINS = 40
POWER = {"3V3": 36, "VSYS": 39, "VBUS": 40}
"""The power pins a board module may name, and where they are."""
GROUND = (3, 8, 13, 18, 23, 28, 33, 38)
ON_BOARD = {29: "VSYS through a 1/3 divider (ADC3)"}
"""GPIOs wired on the Pico itself, and to what."""
GPIO_COUNT = 30


def name(pin: int) -> str:
    """The name printed beside header pin ``pin`` (1-40)."""
    return LEFT[pin - 1] if pin <= len(LEFT) else RIGHT[pin - len(LEFT) - 1]


def on_left(pin: int) -> bool:
    return pin <= len(LEFT)


def pin_of_gpio(gpio: int) -> int | None:
    """The header pin of ``gpio``, or None when it is not on the header."""
    wanted = f"GP{gpio}"
    for pin in range(1, PINS + 1):
        if name(pin) == wanted:
            return pin
    return None


def row(pin: int) -> int:
    """How far down from the top ``pin`` sits, 0-19: pins 1 and 40 are both in row 0."""
    return pin - 1 if on_left(pin) else PINS - pin


def nearest_ground(pin: int) -> int:
    """The GND pin on the same edge as ``pin`` closest to it (the upper one on a tie)."""
    same_edge = [g for g in GROUND if on_left(g) == on_left(pin)]
    return min(same_edge, key=lambda g: (abs(row(g) - row(pin)), row(g)))
