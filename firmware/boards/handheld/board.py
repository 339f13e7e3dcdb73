"""The handheld's pin map (shared/spec/hardware.md): builds its bus, buttons and ADC.

Deployed to the board as ``board.py``. Drivers never see pin numbers: only this module does.
"""

from machine import ADC, I2C, Pin

NAME = "handheld"

I2C_ID = 0
SDA = 4
SCL = 5
I2C_FREQ = 400_000
ROLL_BUTTON = 14
PEEK_BUTTON = 15
REVEAL_BUTTON = 13
VSYS_SENSE = 29  # ADC3, VSYS through a 1/3 divider


def safe_mode():
    """True while REVEAL is held at boot: no main loop, the REPL stays free."""
    return Pin(REVEAL_BUTTON, Pin.IN, Pin.PULL_UP).value() == 0


def make_app():
    from popdice_fw.handheld import Handheld

    return Handheld(
        i2c=I2C(I2C_ID, sda=Pin(SDA), scl=Pin(SCL), freq=I2C_FREQ),
        roll_button=Pin(ROLL_BUTTON, Pin.IN, Pin.PULL_UP),
        peek_button=Pin(PEEK_BUTTON, Pin.IN, Pin.PULL_UP),
        reveal_button=Pin(REVEAL_BUTTON, Pin.IN, Pin.PULL_UP),
        vsys=ADC(Pin(VSYS_SENSE)),
    )
