"""The popper's pin map (shared/spec/hardware.md): builds its buses, pins and LEDs.

Deployed to the board as ``board.py``. Drivers never see pin numbers: only this module does.
"""

from machine import I2C, PWM, Pin
from neopixel import NeoPixel

NAME = "popper"

I2C_ID = 0
SDA = 4
SCL = 5
I2C_FREQ = 400_000
ACCEL_INT1 = 6
LED_DATA = 2
LED_COUNT = 45
MODE_BUTTON = 14
BUZZER = 15


def safe_mode():
    """True while the mode button is held at boot: no main loop, the REPL stays free."""
    return Pin(MODE_BUTTON, Pin.IN, Pin.PULL_UP).value() == 0


def make_app():
    from popdice_fw.popper import Popper

    return Popper(
        i2c=I2C(I2C_ID, sda=Pin(SDA), scl=Pin(SCL), freq=I2C_FREQ),
        accel_int=Pin(ACCEL_INT1, Pin.IN),
        leds=NeoPixel(Pin(LED_DATA, Pin.OUT), LED_COUNT),
        mode_button=Pin(MODE_BUTTON, Pin.IN, Pin.PULL_UP),
        buzzer=PWM(Pin(BUZZER)),
    )
