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


class OtherChip(NoAllocBus):
    """Another part at 0x18 that answers every register with 0x44."""

    def readfrom_mem_into(self, address, register, buf):
        if address != 0x18:
            raise OSError(5)
        buf[0] = 0x44


def refusal(bus, addresses=(0x18, 0x19)):
    try:
        Lis3dh(bus, addresses)
    except Lis3dhError as error:
        return str(error)
    raise AssertionError("no error without a LIS3DH")


def test_a_missing_chip_is_a_clear_error_naming_each_address_tried():
    assert refusal(SimBus()) == "no LIS3DH: 0x18: no answer; 0x19: no answer"
    assert refusal(OtherChip(b"")) == "no LIS3DH: 0x18: WHO_AM_I 0x44; 0x19: no answer"


def test_finds_the_part_at_either_address_by_its_who_am_i():
    high = Lis3dhModel(clock=Clock(), address=0x19)
    driver = Lis3dh(SimBus(high))
    assert driver.address == 0x19
    assert high.odr_hz() == 400 and high.full_scale_g() == 8  # configured where it was found
    low, other = Lis3dhModel(clock=Clock()), Lis3dhModel(clock=Clock(), address=0x19)
    assert Lis3dh(SimBus(low, other)).address == 0x18  # both answer: the first candidate
    assert Lis3dh(SimBus(low, other), (0x19, 0x18)).address == 0x19
    assert refusal(SimBus(high), (0x18,)) == "no LIS3DH: 0x18: no answer"


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
