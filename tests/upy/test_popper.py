"""The popper's app inside MicroPython: the sample path allocates nothing, pops and modes."""

import asyncio
import gc
import time

import micropython
from _simlis3dh import Lis3dh as Lis3dhModel
from fakeport import FakePort
from fakestrip import Strip
from simbus import NoAllocBus, SimBus

from popdice_fw import modes
from popdice_fw.impulse import ImpulseDetector
from popdice_fw.lis3dh import Lis3dh
from popdice_fw.popper import Popper

RESTING = bytes([0x0F, 0, 0, 0, 0, 0xA0, 0x0F])  # STATUS: new data; x 0, y 0, z +1000 mg
OVERRUN = bytes([0x8F]) + RESTING[1:]  # STATUS.ZYXOR: the part overwrote a sample


class Level:
    def __init__(self, level):
        self.level = level

    def value(self):
        return self.level


class Presses:
    """A detector that recognises a press at given sample numbers."""

    def __init__(self, at=()):
        self.at = at
        self.n = 0

    def update(self, x, y, z):
        self.n += 1
        return self.n in self.at


def popper(detector=None, sample=RESTING, bus=None, addresses=(0x18, 0x19)):
    """A popper on a bus of its own (``bus``: the sensor found there) or on a fixed sample."""
    return Popper(
        i2c=bus,
        accel_int=Level(1),
        leds=Strip(),
        mode_button=Level(1),
        buzzer=None,
        port=FakePort(),
        accel=None if bus else Lis3dh(NoAllocBus(sample)),
        detector=detector,
        accel_addresses=addresses,
    )


def test_a_sample_allocates_nothing():
    app = popper()
    app.on_sample()
    micropython.heap_lock()
    try:
        for _ in range(4000):
            app.on_sample()
    finally:
        micropython.heap_unlock()
    assert app.samples == 4001 and app.accel.z == 1000


def test_a_sample_allocates_nothing_with_fitted_settings_and_the_stream_on():
    settings = {"band_samples": 4, "polarity": 0, "window_samples": 3, "threshold_mg": 20}
    app = popper(detector=ImpulseDetector(settings))
    app.cmd_stream({"on": True, "seconds": 60})
    app.on_sample()
    micropython.heap_lock()
    try:
        for _ in range(4000):
            app.on_sample()
    finally:
        micropython.heap_unlock()
    assert app.samples == 4001 and app.stream.dropped > 0, "the stream ran (and, unsent, dropped)"


def test_the_accelerometer_is_found_at_the_boards_addresses_and_reported():
    bus = SimBus(Lis3dhModel(address=0x19))
    found = popper(bus=bus).status()
    assert found["accel"] == "ok" and found["accel_address"] == 0x19
    missing = popper(bus=bus, addresses=(0x18,))
    assert missing.accel is None and "sensor" not in [name for name, _ in missing.tasks()]
    status = missing.status()
    assert status["accel"] == "no LIS3DH: 0x18: no answer" and status["accel_address"] is None


def test_overruns_are_the_samples_the_sensor_says_it_overwrote():
    app = popper()
    for _ in range(5):
        app.on_sample()
    assert app.overruns == 0
    late = popper(sample=OVERRUN)
    for _ in range(5):
        late.on_sample()
    assert late.overruns == 5 and late.status()["overruns"] == 5


def test_a_late_read_counts_every_sample_the_sensor_overwrote_meanwhile():
    app = popper(sample=OVERRUN)
    app.on_sample()
    first_read = app._last_sample_us
    time.sleep_ms(11)  # at least four more samples latched (2.5 ms apart)
    app.on_sample()
    # A loaded machine may sleep longer: what counts is the time between the two reads.
    latched = time.ticks_diff(app._last_sample_us, first_read) // 2500
    assert latched >= 4
    assert app.overruns == 1 + (latched - 1)  # all but the one read were overwritten


def test_timing_reports_each_samples_cost_and_resets():
    app = popper()
    for _ in range(20):
        app.on_sample()
    figures = app.cmd_timing({"reset": True})
    assert figures["samples"] == 20 and figures["overruns"] == 0
    assert figures["detect_us"]["n"] == 20 and figures["sample_us"]["n"] == 20
    assert figures["gap_us"]["n"] == 19
    assert 0 <= figures["detect_us"]["mean"] <= figures["detect_us"]["max"]
    assert figures["sample_us"]["max"] >= figures["detect_us"]["max"]
    assert app.status()["detect_us"]["n"] == 0
    after = app.cmd_timing({})
    assert after["samples"] == 0 and after["detect_us"] == {"n": 0, "mean": 0, "max": 0}


async def test_the_sensor_task_allocates_nothing_in_steady_state():
    app = popper()
    sensing = asyncio.create_task(app._sense())
    await asyncio.sleep_ms(20)
    gc.collect()
    before = app.samples
    micropython.heap_lock()
    try:
        await asyncio.sleep_ms(100)
    finally:
        micropython.heap_unlock()
    sensing.cancel()
    assert app.samples - before > 50


async def test_a_recognised_press_pops_once_and_shows_the_result():
    app = popper(Presses(at=(3,)))
    app.animation = False
    app.start_tasks()
    for _ in range(10):
        app.on_sample()
    await asyncio.sleep_ms(30)
    assert app.pops == 1 and app.result is not None and len(app.result) == 5
    frame = app.leds.shown
    for die, value in enumerate(app.result):
        lit = sum(1 for i in range(9) if frame[27 * die + 3 * i] or frame[27 * die + 3 * i + 1])
        assert lit == value["number"]
    app.link.supervisor.cancel_all()


def test_modes_roll_their_dice():
    app = popper()
    for mode, count in (("popalotsy", 5), ("lowdown", 4), ("ringer", 1)):
        app.set_mode(mode, "test")
        assert len(app.pop("test")["dice"]) == count
    assert app.mode == "ringer" and app.roll_id == 3


def test_face_index_counts_numbers_and_colours():
    assert modes.face_index({"number": 6}) == 5
    assert modes.face_index({"color": "purple"}) == 2
    assert modes.face_index({"color": "red", "number": 1}) == 0
