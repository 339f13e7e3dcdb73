"""The popper's app: the table-centre device with the accelerometer and the LED dice."""

from popdice_fw.buttons import Button
from popdice_fw.device import Device


class Popper(Device):
    NAME = "popper"

    def __init__(self, i2c, accel_int, leds, mode_button, buzzer, port=None):
        super().__init__(port, [Button("mode", mode_button)])
        self.i2c = i2c
        self.accel_int = accel_int
        self.leds = leds
        self.buzzer = buzzer
