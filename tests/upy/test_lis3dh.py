"""The LIS3DH driver inside MicroPython, against the simulator's register model."""

import micropython
from _simlis3dh import Lis3dh as Lis3dhModel
from simbus import NoAllocBus, SimBus

from popdice_fw.lis3dh import Lis3dh, Lis3dhError


class Clock:
    def __init__(self):
        self.us = 0

    def __call__(self):
        return self.us


def model_and_driver():
    clock = Clock()
    model = Lis3dhModel(clock=clock)
    return clock, model, Lis3dh(SimBus(model))


def test_configures_400hz_8g_high_resolution_with_data_ready_on_int1():
    _, model, _ = model_and_driver()
    assert model.odr_hz() == 400
    assert model.full_scale_g() == 8 and model.resolution_bits() == 12
    assert model.regs[0x22] & 0x10


def test_reads_milli_g_in_every_direction():
    clock, model, driver = model_and_driver()
    model.feed([0.0, 0.0, 1.0, -2.5, 0.5, 7.9])
    clock.us += 2500  # the first sample is ready one period after power-on
    driver.read()
    assert (driver.x, driver.y, driver.z) == (0, 0, 1000)
    clock.us += 2500
    driver.read()
    assert (driver.x, driver.y, driver.z) == (-2500, 500, 7900)


def test_overrun_is_the_parts_own_flag():
    clock, model, driver = model_and_driver()
    model.feed([0.0, 0.0, 1.0])
    clock.us += 2500
    driver.read()
    assert not driver.overrun
    model.regs[0x27] |= 0x80  # STATUS.ZYXOR, as the part sets it when it overwrites a sample
    driver.read()
    assert driver.overrun


def test_clips_at_eight_g():
    clock, model, driver = model_and_driver()
    model.feed([12.0, -12.0, 0.0])
    clock.us += 2500
    driver.read()
    assert driver.x > 7990 and driver.y < -7990


def test_a_missing_chip_is_a_clear_error():
    try:
        Lis3dh(SimBus())
    except OSError as error:
        assert not isinstance(error, Lis3dhError)  # nothing answers: the bus error
    else:
        raise AssertionError("no error without a chip")

    class Wrong(NoAllocBus):
        def readfrom_mem_into(self, address, register, buf):
            buf[0] = 0x44

    try:
        Lis3dh(Wrong(b""))
    except Lis3dhError as error:
        assert "WHO_AM_I is 0x44" in str(error)
    else:
        raise AssertionError("accepted another chip")


def test_read_allocates_nothing():
    bus = NoAllocBus(bytes([0x8F, 0x10, 0xF0, 0x00, 0x00, 0xA0, 0x0F]))
    driver = Lis3dh(bus)
    micropython.heap_lock()
    try:
        for _ in range(1000):
            driver.read()
    finally:
        micropython.heap_unlock()
    assert bus.reads == 1001
    assert (driver.x, driver.y, driver.z) == (-1020, 0, 1000) and driver.overrun
