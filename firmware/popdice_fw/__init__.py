"""PopDice firmware for the popper and the handheld (MicroPython, RP2040)."""

VERSION = "0.1.0"
PROTOCOL = 1
