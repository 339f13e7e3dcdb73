"""``rp2`` for the simulated Pico: just enough of the RP2040-specific module to import.

Runs inside MicroPython. The BOOTSEL button is never pressed on the simulated board.
"""


def bootsel_button():
    return 0
