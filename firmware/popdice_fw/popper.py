"""The popper's app: press the dome, the five LED dice pop a fair roll, the host hears it.

Tasks, one per concern: the sensor (each LIS3DH sample through the press detector; it
polls INT1's level with ``sleep_ms``, which allocates nothing, where waiting on a
ThreadSafeFlag would allocate a coroutine per sample), the pops (roll, then the event once
the lights have started), the lights (tumble animation, result), the buzzer (a click a pop),
the buttons (the mode button's short press: next game mode) and the link.

Commands: ``mode``, ``pop``, ``reroll``, ``settings``, ``roll_counts``, ``timing`` (what a
sample costs: the detector alone and the whole sample path, in microseconds of this chip,
and how many samples the sensor overwrote before they were read), ``detector`` (the press
detector's settings: read, write to flash, or back to the built-in detector), and ``status``
with the sensor's figures and where the detector's settings came from.

The press detector: with a valid ``detector.json`` in flash (``popdice calibrate`` writes
it) the settings-driven one (``impulse.py``) with those settings; without one, or with a bad
one (``status`` says why), the built-in detector (``press.py``).
"""

# The built-in detector's ``update`` is one block of bytecode of about 4 KB, compiled or
# loaded in one piece: it comes first, while the heap is whole. Imported after the rest, on
# the unix port's 192K heap, boots failed now and then for want of 4 KB in one piece.
from popdice_fw.press import PressDetector  # isort: skip

import asyncio
import random
import time
from binascii import b2a_base64

from micropython import const

from popdice_fw import buttons, detector_file, modes
from popdice_fw.buttons import Button
from popdice_fw.device import Device, int_arg
from popdice_fw.dice import Dice
from popdice_fw.impulse import ImpulseDetector
from popdice_fw.leds import LedDice
from popdice_fw.link import BAD_ARGS, CommandError
from popdice_fw.lis3dh import ADDRESSES, SAMPLE_PERIOD_US, Lis3dh
from popdice_fw.meter import CostMeter
from popdice_fw.stream import BATCH, SampleStream

_TUMBLE_FRAMES = const(8)
_TUMBLE_FRAME_MS = const(45)
_CLICK_MS = const(6)
_CLICK_HZ = const(2200)
_ROLL_COUNTS_MAX = const(20000)
_SAMPLE_WAIT_MS = const(4)  # the lights wait at most this long for a sample to be read
_ROLL_SLICE_US = const(1000)  # rolling yields to the sensor and the link at least this often
_STREAM_LEASE_MAX_S = const(60)
_STREAM_RETRY_MS = const(10)

NO_ROLL = "no_roll"


class Popper(Device):
    NAME = "popper"

    def __init__(
        self,
        i2c,
        accel_int,
        leds,
        mode_button,
        buzzer,
        port=None,
        accel=None,
        detector=None,
        accel_addresses=ADDRESSES,
    ):
        super().__init__(port, [Button("mode", mode_button)])
        self.accel_int = accel_int
        self.accel_error = None
        self.accel = accel
        if accel is None:
            try:
                self.accel = Lis3dh(i2c, accel_addresses)
            except OSError as error:
                self.accel_error = str(error) or "no answer on I2C"
        self.detector_source = "given"
        self.detector = detector or self._stored_detector()
        self.leds = LedDice(leds)
        self.buzzer = buzzer
        self.dice = Dice()
        self.mode = modes.POPALOTSY
        self.animation = True
        self.roll_id = 0
        self.result = None
        self.samples = 0
        self.overruns = 0
        self.pops = 0
        self.detect_cost = CostMeter()
        self.sample_cost = CostMeter()
        self.sample_gap = CostMeter()
        self._last_sample_us = 0
        self._pop_wanted = asyncio.Event()
        self._pop_source = None
        self._show = asyncio.Event()
        self._sampled = asyncio.Event()
        self._click_wanted = asyncio.Event()
        self.stream = SampleStream()
        self._stream_ready = asyncio.Event()
        self.commands["mode"] = self.cmd_mode
        self.commands["pop"] = self.cmd_pop
        self.commands["reroll"] = self.cmd_reroll
        self.commands["settings"] = self.cmd_settings
        self.commands["roll_counts"] = self.cmd_roll_counts
        self.commands["timing"] = self.cmd_timing
        self.commands["detector"] = self.cmd_detector
        self.commands["stream"] = self.cmd_stream

    def tasks(self):
        tasks = super().tasks() + [("pops", self._pops), ("lights", self._lights)]
        if self.accel is not None:
            tasks.append(("sensor", self._sense))
            tasks.append(("stream", self._streamer))
        if self.buzzer is not None:
            tasks.append(("clicks", self._clicks))
        return tasks

    # -- the sensor ----------------------------------------------------------------

    async def _sense(self):
        ready = self.accel_int
        sampled = self._sampled
        while True:
            if ready.value():
                self.on_sample()
                sampled.set()
                await asyncio.sleep_ms(0)
            else:
                await asyncio.sleep_ms(1)

    def on_sample(self):
        """One sample through the detector, timed; allocates nothing."""
        accel = self.accel
        if accel is None:
            return
        started = time.ticks_us()
        gap = time.ticks_diff(started, self._last_sample_us)
        if self.samples:
            self.sample_gap.add(gap)
        self._last_sample_us = started
        accel.read()
        if accel.overrun:
            # The part flags an overwrite once, however many samples it overwrote: the gap
            # since the last read says how many that was.
            missed = gap // SAMPLE_PERIOD_US - 1 if self.samples else 1
            self.overruns += missed if missed > 1 else 1
        self.samples += 1
        stream = self.stream
        if stream.on and stream.add(self.samples + self.overruns, accel.x, accel.y, accel.z):
            self._stream_ready.set()
        detecting = time.ticks_us()
        pressed = self.detector.update(accel.x, accel.y, accel.z)
        done = time.ticks_us()
        self.detect_cost.add(time.ticks_diff(done, detecting))
        self.sample_cost.add(time.ticks_diff(done, started))
        if pressed:
            self._pop_source = "press"
            self._pop_wanted.set()

    async def _streamer(self):
        """Sends each full batch of the raw samples stream as an ``smp`` frame: ``n`` the
        number of its first sample on the sensor's clock, ``b`` its x, y, z values (mg,
        little-endian int16) in base64."""
        stream = self.stream
        ready = self._stream_ready
        while True:
            await ready.wait()
            ready.clear()
            while True:
                batch = stream.take()
                if batch is None:
                    break
                first, values = batch
                # MicroPython's binascii takes any buffer; its stub says bytes.
                encoded = b2a_base64(values).decode()[:-1]  # pyright: ignore[reportArgumentType]
                if self.link.send_data("smp", {"n": first, "b": encoded}):
                    stream.release()
                    await asyncio.sleep_ms(0)
                else:
                    await asyncio.sleep_ms(_STREAM_RETRY_MS)

    def cmd_stream(self, args):
        """``{"on": true, "seconds": S}`` streams every sample for S seconds (1-60, default
        5; the host renews it); ``{"on": false}`` stops."""
        on = args.get("on")
        if not isinstance(on, bool):
            raise CommandError(BAD_ARGS, "on must be true or false")
        if on:
            if self.accel is None:
                raise CommandError(BAD_ARGS, "no accelerometer: " + str(self.accel_error))
            self.stream.start(int_arg(args, "seconds", 1, _STREAM_LEASE_MAX_S, 5))
        else:
            self.stream.stop()
        return {
            "on": self.stream.on,
            "batch": BATCH,
            "sent": self.stream.sent,
            "dropped": self.stream.dropped,
        }

    # -- popping -------------------------------------------------------------------

    async def _pops(self):
        while True:
            await self._pop_wanted.wait()
            self._pop_wanted.clear()
            self._roll()
            await asyncio.sleep_ms(0)  # the lights start before the event is encoded
            self._announce(self._pop_source or "press", None)

    def pop(self, source):
        """Rolls every die of the mode, starts the show, and tells the host."""
        self._roll()
        return self._announce(source, None)

    def _roll(self):
        self.result = modes.roll(self.mode, self.dice)
        self._show.set()

    def _announce(self, source, rerolled):
        self.roll_id += 1
        self.pops += 1
        value = {"roll": self.roll_id, "mode": self.mode, "dice": self.result, "source": source}
        if rerolled is not None:
            value["reroll"] = rerolled
        self.link.emit("pop", value)
        return value

    async def _lights(self):
        self._draw_idle()
        while True:
            await self._show.wait()
            self._show.clear()
            self._click_wanted.set()
            if self.animation:
                for frame in range(_TUMBLE_FRAMES):
                    modes.tumble(self.mode, self.leds, _tumble_face)
                    if frame:
                        await self._after_a_sample()
                    self.leds.show()
                    await asyncio.sleep_ms(_TUMBLE_FRAME_MS)
                    if self._show.is_set():
                        break
                await self._after_a_sample()
            if self.result is not None:
                modes.draw(self.mode, self.result, self.leds)
                self.leds.show()

    async def _after_a_sample(self):
        """Returns just after the sensor has read a sample. Writing the strip keeps
        interrupts off for about 1.4 ms; started right after a read, it ends before the
        next sample is due, where started at any moment it can make the sensor miss one.
        (The first frame of a pop needs no wait: a press pops right after a read.)"""
        if self.accel is None:
            return
        self._sampled.clear()
        try:
            await asyncio.wait_for_ms(self._sampled.wait(), _SAMPLE_WAIT_MS)
        except asyncio.TimeoutError:
            pass  # no samples coming (a stalled sensor): show it anyway

    def _redraw(self):
        if self.result is None:
            self._draw_idle()
        else:
            modes.draw(self.mode, self.result, self.leds)
            self.leds.show()

    def _draw_idle(self):
        """The mode's dice all showing one: what the popper looks like before a pop."""
        idle = modes.roll(self.mode, _Ones())
        modes.draw(self.mode, idle, self.leds)
        self.leds.show()

    async def _clicks(self):
        """The buzzer clicks once a pop, beside the first frame of its show."""
        buzzer = self.buzzer
        while True:
            await self._click_wanted.wait()
            self._click_wanted.clear()
            buzzer.freq(_CLICK_HZ)
            buzzer.duty_u16(32768)
            await asyncio.sleep_ms(_CLICK_MS)
            buzzer.duty_u16(0)

    # -- the mode button -----------------------------------------------------------

    def on_button(self, button, edge):
        super().on_button(button, edge)
        if button.name == "mode" and edge == buttons.RELEASE and button.held_ms < button.long_ms:
            index = modes.MODES.index(self.mode)
            self.set_mode(modes.MODES[(index + 1) % len(modes.MODES)], "button")

    def set_mode(self, mode, source):
        if mode == self.mode:
            return
        self.mode = mode
        self.result = None
        self.link.emit("mode", {"mode": mode, "source": source})
        self._draw_idle()

    # -- commands ------------------------------------------------------------------

    def cmd_mode(self, args):
        mode = args.get("mode")
        if mode is not None:
            if mode not in modes.MODES:
                raise CommandError(BAD_ARGS, "mode must be one of " + ", ".join(modes.MODES))
            self.set_mode(mode, "host")
        return {"mode": self.mode, "modes": list(modes.MODES)}

    def cmd_pop(self, args):
        """Pops as if the dome were pressed."""
        return self.pop("host")

    def cmd_reroll(self, args):
        """Rolls one die of the last pop again (Ringer's Reroll power)."""
        if self.result is None:
            raise CommandError(NO_ROLL, "nothing to reroll: no pop since the mode was set")
        die = int_arg(args, "die", 0, len(self.result) - 1)
        self.result[die] = modes.roll_die(self.mode, die, self.dice)
        self._show.set()
        return self._announce("host", die)

    def cmd_settings(self, args):
        if "brightness" in args:
            self.leds.brightness = int_arg(args, "brightness", 0, 255)
        if "cap_ma" in args:
            self.leds.cap_ma = int_arg(args, "cap_ma", 50, 450)
        if "animation" in args:
            if not isinstance(args["animation"], bool):
                raise CommandError(BAD_ARGS, "animation must be true or false")
            self.animation = args["animation"]
        if args:
            self._redraw()
        return {
            "brightness": self.leds.brightness,
            "cap_ma": self.leds.cap_ma,
            "animation": self.animation,
        }

    async def cmd_roll_counts(self, args):
        """Counts the faces of ``n`` rolls of a mode per die, for fairness tests: no LEDs,
        no events, no change to the last pop."""
        count = int_arg(args, "n", 1, _ROLL_COUNTS_MAX)
        mode = args.get("mode", self.mode)
        if mode not in modes.MODES:
            raise CommandError(BAD_ARGS, "mode must be one of " + ", ".join(modes.MODES))
        counts = [[0] * 6 for _ in range(modes.dice_count(mode))]
        slice_started = time.ticks_us()
        for _ in range(count):
            for die, value in enumerate(modes.roll(mode, self.dice)):
                counts[die][modes.face_index(value)] += 1
            if time.ticks_diff(time.ticks_us(), slice_started) >= _ROLL_SLICE_US:
                await asyncio.sleep_ms(0)
                slice_started = time.ticks_us()
        return {"mode": mode, "n": count, "counts": counts}

    def timing(self):
        return {
            "samples": self.samples,
            "overruns": self.overruns,
            "detect_us": self.detect_cost.report(),
            "sample_us": self.sample_cost.report(),
            "gap_us": self.sample_gap.report(),
        }

    def cmd_timing(self, args):
        """The sensor path's figures since the last reset; ``reset`` starts them again."""
        figures = self.timing()
        if args.get("reset"):
            self.samples = 0
            self.overruns = 0
            for meter in (self.detect_cost, self.sample_cost, self.sample_gap):
                meter.reset()
        return figures

    # -- the detector's settings ----------------------------------------------------------

    def _stored_detector(self):
        settings, source = detector_file.load()
        if source == "file":
            self.detector_source = "detector.json"
            return ImpulseDetector(settings)
        self.detector_source = ("built-in" + source[len("defaults") :])[:72]
        return PressDetector()

    def cmd_detector(self, args):
        """``{}``: the settings in use; ``{"settings": {...}}``: checks them, keeps them in
        flash and detects with them from the next sample; ``{"reset": true}``: deletes them
        and goes back to the built-in detector."""
        if "settings" in args:
            try:
                settings = detector_file.save(args["settings"])
            except ValueError as error:
                raise CommandError(BAD_ARGS, str(error)) from None
            except OSError as error:
                raise CommandError(BAD_ARGS, "cannot write detector.json: %s" % error) from None
            self.detector = ImpulseDetector(settings)
            self.detector_source = "detector.json"
        elif args.get("reset"):
            detector_file.remove()
            self.detector = PressDetector()
            self.detector_source = "built-in"
        elif args:
            raise CommandError(BAD_ARGS, 'expected {}, {"settings": {...}} or {"reset": true}')
        settings = getattr(self.detector, "settings", None)
        return {"source": self.detector_source, "settings": settings}

    def status(self):
        status = super().status()
        status.update(
            {
                "mode": self.mode,
                "samples": self.samples,
                "pops": self.pops,
                "overruns": self.overruns,
                "detect_us": self.detect_cost.report(),
                "detector": self.detector_source,
                "stream_dropped": self.stream.dropped,
                "accel": self.accel_error or "ok",
                "accel_address": None if self.accel is None else self.accel.address,
                "leds_ma": self.leds.last_ma,
                "frames_capped": self.leds.frames_capped,
            }
        )
        return status


def _tumble_face(sides):
    """A face of the tumble, which need not be fair: ``random`` costs a fraction of a roll
    from ``os.urandom`` with rejection sampling."""
    return random.randint(1, sides)


class _Ones:
    """A ``Dice`` stand-in that always rolls one: the idle face."""

    def roll(self, sides=6):
        return 1
