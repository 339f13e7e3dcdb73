"""The handheld's pin map: what is wired to which pin of the Pico, and the app built on it.

Deployed to the board as ``board.py``. Drivers never see pin numbers: only this module does.
Each pin number is written once, in the names below: ``make_app`` builds the parts on them,
and ``WIRES``, built from the same names, is what ``popdice wiring --board handheld`` draws and
docs/build.md lists.
"""

NAME = "handheld"

I2C_ID = 0
SDA = 4
SCL = 5
I2C_FREQ = 400_000
DISPLAY_ADDRESSES = (0x3C, 0x3D)  # the SSD1306: its address jumper low or high; the first found
ROLL_BUTTON = 14
PEEK_BUTTON = 15
REVEAL_BUTTON = 13
VSYS_SENSE = 29  # ADC3: VSYS through the Pico's own 1/3 divider, no wire

# One wire a row: (Pico pin, part, the part's pin, what it carries). A Pico pin is a GPIO
# number from above or a power pin by name: "3V3" (3V3 OUT), "VBUS" (the USB 5 V), "GND".
# The parts, all their pins and the wires between parts are in parts.json beside this file,
# which only the laptop reads (popdice wiring, popdice bom).
WIRES = (
    (SDA, "SSD1306", "SDA", "I2C0 SDA"),
    (SCL, "SSD1306", "SCL", "I2C0 SCL"),
    ("3V3", "SSD1306", "VCC", "3.3 V"),
    ("GND", "SSD1306", "GND", "ground"),
    (REVEAL_BUTTON, "REVEAL", "1", "button, pull-up"),
    ("GND", "REVEAL", "2", "ground"),
    (ROLL_BUTTON, "ROLL", "1", "button, pull-up"),
    ("GND", "ROLL", "2", "ground"),
    (PEEK_BUTTON, "PEEK", "1", "button, pull-up"),
    ("GND", "PEEK", "2", "ground"),
    (VSYS_SENSE, "Pico", "VSYS/3", "battery sense"),
)


def safe_mode():
    """True while REVEAL is held at boot: no main loop, the REPL stays free."""
    from machine import Pin

    return Pin(REVEAL_BUTTON, Pin.IN, Pin.PULL_UP).value() == 0


def make_app():
    from machine import ADC, I2C, Pin

    from popdice_fw.handheld import Handheld

    return Handheld(
        i2c=I2C(I2C_ID, sda=Pin(SDA), scl=Pin(SCL), freq=I2C_FREQ),
        roll_button=Pin(ROLL_BUTTON, Pin.IN, Pin.PULL_UP),
        peek_button=Pin(PEEK_BUTTON, Pin.IN, Pin.PULL_UP),
        reveal_button=Pin(REVEAL_BUTTON, Pin.IN, Pin.PULL_UP),
        vsys=ADC(Pin(VSYS_SENSE)),
        display_addresses=DISPLAY_ADDRESSES,
    )
