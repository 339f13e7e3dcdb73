"""The SSD1306 driver inside MicroPython, against the simulator's register-level SSD1306 model
(the same model the simulated handheld has on its I2C bus)."""

import micropython
from _simssd1306 import Ssd1306 as PanelModel

from popdice_fw.ssd1306 import Ssd1306

CHARGE_PUMP = 0x8D
MULTIPLEX = 0xA8
COM_PINS = 0xDA


class Bus:
    """An I2C bus with the panel model at 0x3C; counts write transactions."""

    def __init__(self, panel=None):
        self.panel = panel
        self.writes = 0

    def _part(self, addr):
        if self.panel is None or addr != self.panel.address:
            raise OSError(5)
        return self.panel

    def writeto(self, addr, buf, stop=True):
        self._part(addr).i2c_write(bytes(buf))
        self.writes += 1
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        self._part(addr).i2c_write(b"".join(bytes(b) for b in vector))
        self.writes += 1


class NullBus:
    """A bus that takes every write and keeps nothing: for checking the driver allocates."""

    def writeto(self, addr, buf, stop=True):
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        return 0


def make():
    changes = []
    panel = PanelModel(on_change=changes.append)
    bus = Bus(panel)
    return Ssd1306(bus), panel, bus, changes


def test_init_sets_the_panel_up_upright_with_the_charge_pump_and_turns_it_on():
    display, panel, _, _ = make()
    assert panel.on and display.on
    assert panel.segment_remap and panel.com_reverse
    assert panel.mode == 0  # horizontal addressing
    assert panel.contrast == 0xCF
    assert not panel.invert and not panel.entire_on
    assert panel.settings[CHARGE_PUMP] == b"\x14"
    assert panel.settings[MULTIPLEX] == b"\x3f"
    assert panel.settings[COM_PINS] == b"\x12"
    assert panel.buffer == bytearray(1024)


def test_show_sends_the_frame_buffer_as_drawn_in_one_data_transaction():
    display, panel, bus, changes = make()
    display.pixel(0, 0, 1)
    display.pixel(127, 63, 1)
    display.text("Hi", 10, 20, 1)
    assert panel.buffer == bytearray(1024)  # nothing reaches the panel before show()
    before_writes, before_changes = bus.writes, len(changes)
    display.show()
    assert bus.writes - before_writes == 2  # the address window, then the data
    assert len(changes) - before_changes == 1
    assert bytes(panel.buffer) == bytes(display.buffer)
    assert panel.buffer[0] & 1 and panel.buffer[1023] & 0x80  # MONO_VLSB, page-major


def test_show_rewrites_the_whole_frame_whatever_the_panel_pointer_was():
    display, panel, _, _ = make()
    panel.i2c_write(bytes([0x00, 0x21, 50, 60, 0x22, 3, 4]))  # a stray window
    display.fill(1)
    display.show()
    assert panel.buffer == bytearray(b"\xff" * 1024)


def test_power_off_sleeps_with_the_pump_off_and_power_on_wakes():
    display, panel, _, _ = make()
    display.power_off()
    assert not panel.on and not display.on
    assert panel.settings[CHARGE_PUMP] == b"\x10"
    display.power_on()
    assert panel.on and display.on
    assert panel.settings[CHARGE_PUMP] == b"\x14"


def test_contrast_and_invert():
    display, panel, _, _ = make()
    display.contrast(0x20)
    display.invert(True)
    assert panel.contrast == 0x20 and panel.invert
    display.invert(False)
    assert not panel.invert


def test_no_panel_at_either_address_raises_oserror_naming_both():
    try:
        Ssd1306(Bus(None))
    except OSError as error:
        assert str(error) == "no SSD1306 at 0x3c or 0x3d", str(error)
    else:
        raise AssertionError("a missing panel went unnoticed")


def test_a_panel_jumpered_to_0x3d_is_found_and_used():
    panel = PanelModel(address=0x3D)
    display = Ssd1306(Bus(panel))
    assert display.address == 0x3D and panel.on
    display.fill(1)
    display.show()
    assert panel.buffer == bytearray(b"\xff" * 1024)
    try:
        Ssd1306(Bus(panel), (0x3C,))
    except OSError as error:
        assert str(error) == "no SSD1306 at 0x3c", str(error)
    else:
        raise AssertionError("found a panel at an address it does not answer")


def test_show_and_power_switching_allocate_nothing():
    display = Ssd1306(NullBus())
    micropython.heap_lock()
    try:
        display.show()
        display.power_off()
        display.power_on()
        display.contrast(0x40)
    finally:
        micropython.heap_unlock()
