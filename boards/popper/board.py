"""The popper's pin map: what is wired to which pin of the Pico, and the app built on it.

Deployed to the board as ``board.py``. Drivers never see pin numbers: only this module does.
Each pin number is written once, in the names below: ``make_app`` builds the parts on them,
and ``WIRES``, built from the same names, is what ``popdice wiring --board popper`` draws and
docs/build.md lists.
"""

NAME = "popper"

I2C_ID = 0
SDA = 4
SCL = 5
I2C_FREQ = 400_000
ACCEL_ADDRESSES = (0x18, 0x19)  # the LIS3DH: SDO/SA0 low or high; the first that answers
ACCEL_INT1 = 6
LED_DATA = 2
LED_COUNT = 45
MODE_BUTTON = 14
BUZZER = 15

# One wire a row: (Pico pin, part, the part's pin, what it carries). A Pico pin is a GPIO
# number from above or a power pin by name: "3V3" (3V3 OUT), "VBUS" (the USB 5 V), "GND".
# The parts, all their pins and the wires between parts are in parts.json beside this file,
# which only the laptop reads (popdice wiring, popdice bom).
WIRES = (
    (SDA, "LIS3DH", "SDA", "I2C0 SDA"),
    (SCL, "LIS3DH", "SCL", "I2C0 SCL"),
    (ACCEL_INT1, "LIS3DH", "INT1", "data ready"),
    ("3V3", "LIS3DH", "VIN", "3.3 V"),
    ("3V3", "LIS3DH", "CS", "3.3 V: I2C, not SPI"),
    ("GND", "LIS3DH", "GND", "ground"),
    ("GND", "LIS3DH", "SDO", "ground: address 0x18"),
    (LED_DATA, "74AHCT125", "1A", "LED data, 3.3 V"),
    ("VBUS", "74AHCT125", "VCC", "5 V"),
    ("GND", "74AHCT125", "GND", "ground"),
    ("VBUS", "LED dice", "5V", "5 V"),
    ("GND", "LED dice", "GND", "ground"),
    (MODE_BUTTON, "MODE", "1", "button, pull-up"),
    ("GND", "MODE", "2", "ground"),
    (BUZZER, "buzzer", "+", "PWM"),
    ("GND", "buzzer", "-", "ground"),
)


def safe_mode():
    """True while the mode button is held at boot: no main loop, the REPL stays free."""
    from machine import Pin

    return Pin(MODE_BUTTON, Pin.IN, Pin.PULL_UP).value() == 0


def make_app():
    from machine import I2C, PWM, Pin
    from neopixel import NeoPixel

    from popdice_fw.popper import Popper

    return Popper(
        i2c=I2C(I2C_ID, sda=Pin(SDA), scl=Pin(SCL), freq=I2C_FREQ),
        accel_int=Pin(ACCEL_INT1, Pin.IN),
        leds=NeoPixel(Pin(LED_DATA, Pin.OUT), LED_COUNT),
        mode_button=Pin(MODE_BUTTON, Pin.IN, Pin.PULL_UP),
        buzzer=PWM(Pin(BUZZER)),
        accel_addresses=ACCEL_ADDRESSES,
    )
