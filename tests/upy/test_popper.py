"""The popper's app inside MicroPython: every sample is read in INT1's interrupt into a ring
and taken from it by the sensor task, lost ones are counted, a missed edge is caught,
nothing on the path allocates; the cue, the pop and the cancel reach the dice and the host;
pops and modes."""

import asyncio
import gc
import json
import time

import micropython
from _simlis3dh import Lis3dh as Lis3dhModel
from fakeport import FakePort
from fakestrip import Strip
from simbus import NoAllocBus, SimBus

import popdice_fw.popper  # noqa: F401 - the largest module, compiled while the heap is whole
from popdice_fw import modes, press
from popdice_fw.codec import MAX_PAYLOAD
from popdice_fw.dice import Dice
from popdice_fw.leds import LedDice
from popdice_fw.lis3dh import Lis3dh
from popdice_fw.popper import Popper
from popdice_fw.press import PressDetector
from popdice_fw.sampler import SLOTS, since_us

RESTING = bytes([0x0F, 0, 0, 0, 0, 0xA0, 0x0F])  # STATUS: new data; x 0, y 0, z +1000 mg
OVERRUN = bytes([0x8F]) + RESTING[1:]  # STATUS.ZYXOR: the part overwrote a sample


class Level:
    def __init__(self, level):
        self.level = level

    def value(self):
        return self.level


class ReadyPin(Level):
    """INT1 as the sampler sees it: its level, and the handler its rising edge runs."""

    IRQ_RISING = 1

    def __init__(self, level=0):
        super().__init__(level)
        self.handler = None
        self.hard = None

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.hard = hard

    def rise(self):
        self.handler(self)


class Events:
    """A detector that gives an event at given sample numbers: {number: event}."""

    def __init__(self, at=None):
        self.at = at or {}
        self.n = 0

    def update(self, x, y, z):
        self.n += 1
        return self.at.get(self.n, 0)


def popper(detector=None, sample=RESTING, bus=None, addresses=(0x18, 0x19)):
    """A popper on a bus of its own (``bus``: the sensor found there) or on a fixed sample."""
    return Popper(
        i2c=bus,
        accel_int=ReadyPin(),
        leds=Strip(),
        mode_button=Level(1),
        buzzer=None,
        port=FakePort(),
        accel=None if bus else Lis3dh(NoAllocBus(sample)),
        detector=detector,
        accel_addresses=addresses,
    )


def sample(app, count=1):
    """``count`` samples through the interrupt and the sensor path, one after the other."""
    on_ready = app.sampler._on_ready  # bound at its making: nothing allocated here
    for _ in range(count):
        on_ready(None)
        app.on_sample()


def test_a_sample_allocates_nothing_in_the_interrupt_or_the_sensor_path():
    app = popper()
    app.sampler.start()
    assert app.accel_int.hard is True
    rise = app.accel_int.rise
    sample(app)
    micropython.heap_lock()
    try:
        for _ in range(4000):
            rise()
            app.on_sample()
    finally:
        micropython.heap_unlock()
    assert app.samples == 4001 and app.overruns == 0


def test_a_sample_allocates_nothing_with_fitted_settings_and_the_stream_on():
    settings = {"band_samples": 4, "polarity": 0, "window_samples": 3, "threshold_mg": 20}
    app = popper(detector=PressDetector(settings))
    app.cmd_stream({"on": True, "seconds": 60})
    sample(app)
    micropython.heap_lock()
    try:
        sample(app, 4000)
    finally:
        micropython.heap_unlock()
    assert app.samples == 4001 and app.stream.dropped > 0, "the stream ran (and, unsent, dropped)"


def test_samples_wait_in_the_ring_and_a_full_ring_lets_go_and_counts():
    app = popper()
    on_ready = app.sampler.on_ready
    for _ in range(SLOTS + 5):
        on_ready(None)
    assert app.sampler.pending() == SLOTS and app.sampler.figures()["let_go"] == 5
    on_ready(None)  # still full: let go
    while app.sampler.pending():
        app.on_sample()
    assert app.samples == SLOTS and app.overruns == 0
    sample(app)
    assert app.overruns == 6, "the next sample kept counts the six let go before it"
    assert app.sampler.figures()["let_go"] == 6


def test_the_sample_counts_go_round_in_30_bits_as_the_chips_ticks_do():
    # 2**30 samples are 31 days at 400 Hz: past that a Pico's count would be a long int,
    # which the interrupt cannot make and the sensor path must not.
    app = popper()
    sampler = app.sampler
    sampler.counts[0] = sampler.taken = app.samples = (1 << 30) - 3  # _WRITTEN
    for _ in range(SLOTS + 5):
        sampler.on_ready(None)
    assert sampler.pending() == SLOTS and sampler.figures()["let_go"] == 5
    while sampler.pending():
        app.on_sample()
    assert sampler.taken == sampler.counts[0] == SLOTS - 3
    assert app.samples == SLOTS - 3 and app.overruns == 0
    sample(app)
    assert app.overruns == 5 and sampler.pending() == 0


def test_a_missed_edge_is_caught():
    app = popper()
    pin = app.accel_int
    app.sampler.start()
    pin.level = 1  # INT1 high, but its rising edge never ran the handler
    assert not app.sampler.catch_missed() or app.sampler.pending() == 1
    time.sleep_ms(5)
    assert app.sampler.catch_missed() and app.sampler.pending() >= 1
    assert app.sampler.figures()["missed_edges"] >= 1
    pin.level = 0
    time.sleep_ms(5)
    assert not app.sampler.catch_missed()


def test_a_bus_that_fails_in_the_interrupt_is_counted_not_raised():
    class Failing(NoAllocBus):
        fail = False

        def readfrom_mem_into(self, address, register, buf):
            if self.fail:
                raise OSError(5)
            super().readfrom_mem_into(address, register, buf)

    bus = Failing(RESTING)
    app = popper()
    app.accel = app.sampler.accel = Lis3dh(bus)
    bus.fail = True
    app.sampler.on_ready(None)
    assert app.sampler.pending() == 0 and app.sampler.figures()["failed"] == 1


def test_overruns_are_the_samples_the_sensor_says_it_overwrote():
    app = popper()
    sample(app, 5)
    assert app.overruns == 0
    late = popper(sample=OVERRUN)
    sample(late, 5)
    assert late.overruns == 5 and late.status()["overruns"] == 5


def test_a_late_read_counts_every_sample_the_sensor_overwrote_meanwhile():
    app = popper(sample=OVERRUN)
    sample(app)
    first_read = app._last_sample_us
    time.sleep_ms(12)  # about four more samples latched (2.5 ms apart)
    sample(app)
    # A machine may sleep a little more or less: what counts is the time between the reads.
    gap = since_us(app._last_sample_us, first_read)
    assert gap >= 8750, gap
    assert app.overruns == 1 + (gap + 1250) // 2500 - 1  # every one but the one read


def test_the_accelerometer_is_found_at_the_boards_addresses_and_reported():
    bus = SimBus(Lis3dhModel(address=0x19))
    found = popper(bus=bus).status()
    assert found["accel"] == "ok" and found["accel_address"] == 0x19
    missing = popper(bus=bus, addresses=(0x18,))
    assert missing.accel is None and "sensor" not in [name for name, _ in missing.tasks()]
    status = missing.status()
    assert status["accel"] == "no LIS3DH: 0x18: no answer" and status["accel_address"] is None


def test_status_fits_one_frame_however_noisy_the_link_was():
    app = popper()
    for name in app.link.stats:
        app.link.stats[name] = 1234567890
    app.detector_source = "built-in" + "x" * 64
    quiet = app.status()
    assert len(json.dumps(quiet)) > MAX_PAYLOAD  # what it would be, all of it
    status = app.cmd_status({})
    assert len(json.dumps(status)) <= MAX_PAYLOAD - 64
    assert status["pop_on"] == "release" and status["detector"] == app.detector_source
    assert status["samples"] == 0 and status["accel"] == "ok"
    assert "detect_us" not in status  # detail first: it is in ``timing`` too


def test_timing_reports_each_samples_cost_and_resets():
    app = popper()
    sample(app, 20)
    figures = app.cmd_timing({"reset": True})
    assert figures["let_go"] == 0 and figures["missed_edges"] == 0
    assert 0 < figures["isr_max_us"] < 100000
    assert figures["samples"] == 20 and figures["overruns"] == 0
    assert figures["detect_us"]["n"] == 20 and figures["sample_us"]["n"] == 20
    assert figures["gap_us"]["n"] == 19
    assert 0 <= figures["detect_us"]["mean"] <= figures["detect_us"]["max"]
    assert figures["sample_us"]["max"] >= figures["detect_us"]["max"]
    assert app.status()["detect_us"]["n"] == 0
    after = app.cmd_timing({})
    assert after["samples"] == 0 and after["detect_us"] == {"n": 0, "mean": 0, "max": 0}


async def rising_edges(pin):
    """INT1's rising edge every 2 ms, as a sensor at 400 Hz (and more) gives it."""
    while True:
        await asyncio.sleep_ms(2)
        pin.rise()


async def test_the_sensor_task_allocates_nothing_in_steady_state():
    app = popper()
    sensing = asyncio.create_task(app._sense())
    edges = asyncio.create_task(rising_edges(app.accel_int))
    await asyncio.sleep_ms(20)
    gc.collect()
    before = app.samples
    micropython.heap_lock()
    try:
        await asyncio.sleep_ms(100)
    finally:
        micropython.heap_unlock()
    sensing.cancel()
    edges.cancel()
    assert app.samples - before > 30


async def test_a_recognised_press_pops_once_and_shows_the_result():
    app = popper(Events(at={3: press.POP}))
    app.animation = False
    app.start_tasks()
    sample(app, 10)
    await asyncio.sleep_ms(30)
    assert app.pops == 1 and app.result is not None and len(app.result) == 5
    frame = app.leds.shown
    for die, value in enumerate(app.result):
        lit = sum(1 for i in range(9) if frame[27 * die + 3 * i] or frame[27 * die + 3 * i + 1])
        assert lit == value["number"]
    app.link.supervisor.cancel_all()


async def test_the_cue_dims_the_faces_at_once_and_a_cancel_brings_them_back():
    app = popper(Events(at={3: press.CUE, 40: press.CANCEL, 60: press.CUE, 90: press.POP}))
    app.animation = False
    told = []
    app.link.emit = lambda name, value: told.append((name, value))
    app.start_tasks()
    await asyncio.sleep_ms(10)
    normal = bytes(app.leds.pixels.buf)
    assert any(normal)
    sample(app, 3)
    await asyncio.sleep_ms(10)
    dimmed = bytes(app.leds.pixels.buf)
    assert [b >> 2 for b in normal] == list(dimmed)
    sample(app, 37)
    await asyncio.sleep_ms(10)
    assert bytes(app.leds.pixels.buf) == normal and app.pops == 0
    sample(app, 50)
    await asyncio.sleep_ms(30)
    assert app.pops == 1
    names = [(name, value.get("on")) for name, value in told]
    assert names == [("cue", True), ("cue", False), ("cue", True), ("pop", None)], names
    assert told[1][1]["why"] == "no release"
    app.link.supervisor.cancel_all()


async def until(condition, turns=500):
    """Lets the tasks run, a turn at a time, until ``condition()``."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep_ms(0)
    raise AssertionError("the tasks never got there")


async def test_a_pop_on_the_release_shows_the_frame_made_at_the_cue_then_rolls():
    app = popper(Events(at={3: press.CUE, 60: press.POP}))
    drawn = []  # entropy drawn for rolls, in bytes
    app.dice = Dice(lambda n: drawn.append(n) or bytes(range(n)))
    strip = Strip(keep=lambda: sum(drawn))
    app.leds = LedDice(strip)
    app.start_tasks()
    await until(lambda: strip.writes)  # the idle faces
    sample(app, 3)
    await until(lambda: app._cue_on and strip.writes == 2)
    await until(lambda: bytes(strip.buf) != strip.sent[-1])  # the next frame, made
    prepared = bytes(strip.buf)
    assert strip.sent[-1] == bytes(b >> 2 for b in strip.sent[0])  # the cue: dimmed
    sample(app, 57)
    await until(lambda: app.pops == 1)
    first = strip.sent.index(prepared)
    assert first == 2  # the frame after the cue
    assert strip.noted[first] == 0 < sum(drawn)  # written before the roll was made
    app.link.supervisor.cancel_all()


def test_the_detector_command_uses_new_settings_from_the_next_sample():
    app = popper(detector=PressDetector())
    answer = app.cmd_detector({})
    assert answer["settings"] == press.defaults()
    assert app.status()["pop_on"] == "release"


def test_a_reroll_leaves_the_pop_already_told_as_it_was():
    app = popper()
    told = app.pop("host")  # the event's value, kept in the outbox until acknowledged
    first = [dict(die) for die in told["dice"]]
    for _ in range(20):
        rerolled = app.cmd_reroll({"die": 0})
        assert told["dice"] == first and rerolled["dice"] == app.result
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
