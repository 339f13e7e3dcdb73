"""The handheld's app: Lowdown's secret dice, shown only to the player holding it."""

from popdice_fw.buttons import Button
from popdice_fw.device import Device


class Handheld(Device):
    NAME = "handheld"

    def __init__(self, i2c, roll_button, peek_button, reveal_button, vsys, port=None):
        super().__init__(
            port,
            [
                Button("roll", roll_button),
                Button("peek", peek_button),
                Button("reveal", reveal_button),
            ],
        )
        self.i2c = i2c
        self.vsys = vsys
