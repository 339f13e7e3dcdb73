"""The popper's app: press the dome and let go, the five LED dice pop a fair roll, the host
hears it.

Tasks, one per concern: the sensor (every LIS3DH sample, read in INT1's interrupt by the
``Sampler``, through the press detector; it polls the ring with ``sleep_ms``, which
allocates nothing, where waiting on a ThreadSafeFlag would allocate a coroutine per
sample), the pops (roll, then the event once the lights have started), the lights (the cue,
the tumble animation, the result; a pop on the release shows the tumble's first frame,
made at the cue, before the roll is made), the buzzer (a click a pop), the buttons (the mode
button's short press: next game mode) and the link.

The press detector (``press.py``) cues on the press blow: the faces dim at once and the host
hears a ``cue`` event; it pops on the release (or on the press blow, with ``pop_on`` at
``press``), and a candidate that never releases like a press is cancelled: the faces come
back and the host hears so. Its settings are the built-in ones, or those of a valid
``detector.json`` in flash (``popdice calibrate`` writes it; ``status`` says why a bad one
was refused).

Commands: ``mode``, ``pop``, ``reroll``, ``settings``, ``roll_counts``, ``timing`` (what a
sample costs: the detector alone and the whole sample path, in microseconds of this chip,
how many samples were lost, and the interrupt's figures), ``detector`` (the press
detector's settings: read, write to flash, or back to the built-in ones), ``stream`` (every
raw sample, for ``popdice record``), and ``status`` with the sensor's figures.
"""

import asyncio
import random
import time
from array import array
from binascii import b2a_base64

from machine import disable_irq, enable_irq
from micropython import const

from popdice_fw import buttons, detector_file, modes, press
from popdice_fw.buttons import Button
from popdice_fw.device import Device, int_arg
from popdice_fw.dice import Dice
from popdice_fw.leds import LedDice
from popdice_fw.link import BAD_ARGS, CommandError
from popdice_fw.lis3dh import ADDRESSES, SAMPLE_PERIOD_US, STATUS_ZYXOR, Lis3dh
from popdice_fw.meter import CostMeter
from popdice_fw.press import PressDetector, step
from popdice_fw.sampler import ISR_SPENT_US, Sampler, since_us
from popdice_fw.stream import BATCH, SampleStream

_TUMBLE_FRAMES = const(8)
_TUMBLE_FRAME_MS = const(45)
_CLICK_MS = const(6)
_CLICK_HZ = const(2200)
_ROLL_COUNTS_MAX = const(20000)
_COUNT_MASK = const(0x3FFFFFFF)  # samples are counted in 30 bits: small ints on a Pico
_SAMPLE_WAIT_MS = const(4)  # the lights wait at most this long for a sample to be read
_ROLL_SLICE_US = const(1000)  # rolling yields to the sensor and the link at least this often
_STREAM_LEASE_MAX_S = const(60)
_STREAM_RETRY_MS = const(10)
_ROLL_MAX = const(0x3FFFFFFF)  # a pop's number as void takes it
_CUE_SHIFT = const(2)  # the cue: the faces at a quarter of their brightness

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
        self.sampler = None if self.accel is None else Sampler(self.accel, accel_int)
        self._sample = array("i", bytes(20))  # status, x, y, z (mg), let go before it
        self.detector_source = "given"
        self.detector = detector or self._stored_detector()
        self._press_slots = getattr(self.detector, "slots", None)  # the sample path's detector
        self.leds = LedDice(leds)
        self.buzzer = buzzer
        self.dice = Dice()
        self.mode = modes.POPALOTSY
        self.animation = True
        self.roll_id = 0
        self.result = None
        self.voided = False  # the host did not count the roll shown: a bar on each die
        self.samples = 0
        self.overruns = 0
        self.pops = 0
        self.detect_cost = CostMeter()
        self.sample_cost = CostMeter()
        self.sample_gap = CostMeter()
        self._last_sample_us = 0
        self._cue_wanted = asyncio.Event()
        self._cue_on = False
        self._cue_news = 0  # 1: a cue for the host, -1: its cancel
        self._pop_wanted = asyncio.Event()
        self._pop_source = None
        self._lights_first = False  # the lights start this pop before it is rolled
        self._show = asyncio.Event()
        self._sampled = asyncio.Event()
        self._click_wanted = asyncio.Event()
        self.stream = SampleStream()
        self._stream_ready = asyncio.Event()
        self.commands["mode"] = self.cmd_mode
        self.commands["pop"] = self.cmd_pop
        self.commands["reroll"] = self.cmd_reroll
        self.commands["void"] = self.cmd_void
        self.commands["settings"] = self.cmd_settings
        self.commands["roll_counts"] = self.cmd_roll_counts
        self.commands["timing"] = self.cmd_timing
        self.commands["detector"] = self.cmd_detector
        self.commands["stream"] = self.cmd_stream

    def tasks(self):
        tasks = super().tasks() + [
            ("pops", self._pops),
            ("cues", self._cues),
            ("lights", self._lights),
        ]
        if self.sampler is not None:
            tasks.append(("sensor", self._sense))
            tasks.append(("stream", self._streamer))
        if self.buzzer is not None:
            tasks.append(("clicks", self._clicks))
        return tasks

    # -- the sensor ----------------------------------------------------------------

    async def _sense(self):
        sampler = self.sampler
        assert sampler is not None  # the task runs only with a sensor (``tasks``)
        sampled = self._sampled
        check_in = self.link.supervisor.check_in
        sampler.start()
        try:
            while True:
                check_in("sensor")
                if sampler.pending():
                    while sampler.pending():
                        self.on_sample()
                    sampled.set()
                    await asyncio.sleep_ms(0)
                else:
                    sampler.catch_missed()
                    await asyncio.sleep_ms(1)
        finally:
            sampler.stop()

    def on_sample(self):
        """The oldest sample the interrupt read, through the detector, timed; allocates
        nothing."""
        started = time.ticks_us()
        sample = self._sample
        read_at = self.sampler.take(sample)  # pyright: ignore[reportOptionalMemberAccess]
        gap = since_us(read_at, self._last_sample_us)
        missed = sample[4]  # let go, the ring being full
        if sample[0] & STATUS_ZYXOR:
            # The part overwrote samples before this one: it flags that once, however many
            # it overwrote, and the time since the last read says how many that was.
            overwritten = (gap + SAMPLE_PERIOD_US // 2) // SAMPLE_PERIOD_US - 1 - missed
            missed += overwritten if overwritten > 1 and self.samples else 1
        self.overruns += missed
        if self.samples:
            self.sample_gap.add(gap)
        self._last_sample_us = read_at
        self.samples = (self.samples + 1) & _COUNT_MASK  # a small int, however long it runs
        x = sample[1]
        y = sample[2]
        z = sample[3]
        stream = self.stream
        if stream.on and stream.add((self.samples + self.overruns) & _COUNT_MASK, x, y, z):
            self._stream_ready.set()
        counts = self.sampler.counts  # pyright: ignore[reportOptionalMemberAccess]
        interrupted = counts[ISR_SPENT_US]
        slots = self._press_slots
        if slots is None:  # a detector given as an object (tests)
            detecting = time.ticks_us()
            event = self.detector.update(x, y, z)
            done = time.ticks_us()
        else:
            # The detector's time is its own: interrupts wait for it (tens of microseconds),
            # and no jump between the two clock readings lets the VM run work scheduled
            # meanwhile (USB's) inside them.
            irq_state = disable_irq()
            detecting = time.ticks_us()
            event = step(slots, x, y, z)
            done = time.ticks_us()
            enable_irq(irq_state)
        self.detect_cost.add(time.ticks_diff(done, detecting))
        # the sampler's interrupt, between the sample's take and the detector, is not this
        # path's time
        interrupted = since_us(counts[ISR_SPENT_US], interrupted)
        self.sample_cost.add(time.ticks_diff(done, started) - interrupted)
        if event:
            self.on_press_event(event)

    def on_press_event(self, event):
        """What the detector said: the cue, a pop, or the cue taken back."""
        if event == press.POP:
            self._cue_on = False
            self._pop_source = "press"
            if self.animation:
                # The tumble shows no roll: its first frame (made at the cue) goes out
                # before the roll is made.
                self._lights_first = True
                self.voided = False
                self._show.set()
            self._pop_wanted.set()
        elif event == press.CUE:
            self._cue_on = True
            self._cue_news = 1
            self._cue_wanted.set()
        elif event == press.CANCEL:
            self._cue_on = False
            self._cue_news = -1
            self._cue_wanted.set()

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
            if self._lights_first:
                self._lights_first = False
                await asyncio.sleep_ms(0)  # the tumble's first frame starts
                self._roll(show=False)
            else:
                self._roll()
            dice = list(self.result or ())  # this press's, whatever a command does meanwhile
            await asyncio.sleep_ms(0)  # the lights start before the event is encoded
            self._announce(self._pop_source or "press", None, dice)

    async def _cues(self):
        """Shows the cue on the dice at once (the faces dim), or takes it back, then tells
        the host."""
        while True:
            await self._cue_wanted.wait()
            self._cue_wanted.clear()
            if self._cue_on:
                self.leds.cue(_CUE_SHIFT)
                if self.animation:  # the tumble's first frame, ready for the release
                    modes.tumble(self.mode, self.leds, _tumble_face)
                    self.leds.prepare()
            elif not self._show.is_set():
                self._redraw()
            news = self._cue_news
            self._cue_news = 0
            if news:
                await asyncio.sleep_ms(0)
                value = {"on": news > 0, "mode": self.mode}
                if news < 0:
                    value["why"] = "no release"
                self.link.emit("cue", value)

    def pop(self, source):
        """Rolls every die of the mode, starts the show, and tells the host."""
        self._roll()
        return self._announce(source, None, self.result)

    def _roll(self, show=True):
        self.result = modes.roll(self.mode, self.dice)
        self.voided = False
        if show:
            self._show.set()

    def _announce(self, source, rerolled, dice):
        self.roll_id += 1
        self.pops += 1
        # a copy: a reroll must not change a pop already told (it may be sent again)
        value = {"roll": self.roll_id, "mode": self.mode, "dice": list(dice), "source": source}
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
                    # the first frame may have been made at the cue
                    if frame or not self.leds.show_prepared():
                        modes.tumble(self.mode, self.leds, _tumble_face)
                        if frame:
                            await self._after_a_sample()
                        self.leds.show()
                    await asyncio.sleep_ms(_TUMBLE_FRAME_MS)
                    if self._show.is_set() or self.voided:
                        break
                await self._after_a_sample()
            if self.result is not None or self.voided:
                self._redraw()

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
        if self.voided:
            modes.draw_void(self.mode, self.leds)
            self.leds.show()
        elif self.result is None:
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
        self.voided = False
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
        return self._announce("host", die, self.result)

    def cmd_void(self, args):
        """``{"roll": n}``: if pop ``n`` is the one shown, a bar on each die instead (the
        host did not count it); a later pop shown is left as it is. ``voided`` says which."""
        for key in args:
            if key != "roll":
                raise CommandError(BAD_ARGS, "void takes only roll, not " + str(key)[:24])
        roll = int_arg(args, "roll", 1, _ROLL_MAX)
        if roll != self.roll_id or self.result is None:
            return {"roll": roll, "voided": False}
        self.result = None
        self.voided = True
        self._show.clear()
        self._redraw()
        return {"roll": roll, "voided": True}

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
        figures = {
            "samples": self.samples,
            "overruns": self.overruns,
            "detect_us": self.detect_cost.report(),
            "sample_us": self.sample_cost.report(),
            "gap_us": self.sample_gap.report(),
        }
        if self.sampler is not None:
            figures.update(self.sampler.figures())
        return figures

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
        else:
            self.detector_source = ("built-in" + source[len("defaults") :])[:72]
        return PressDetector(settings)

    def cmd_detector(self, args):
        """``{}``: the settings in use; ``{"settings": {...}}``: checks them, keeps them in
        flash and detects with them from the next sample; ``{"reset": true}``: deletes them
        and goes back to the built-in settings."""
        if "settings" in args:
            try:
                settings = detector_file.save(args["settings"])
            except ValueError as error:
                raise CommandError(BAD_ARGS, str(error)) from None
            except OSError as error:
                raise CommandError(BAD_ARGS, "cannot write detector.json: %s" % error) from None
            self._use_detector(settings, "detector.json")
        elif args.get("reset"):
            detector_file.remove()
            self._use_detector(press.defaults(), "built-in")
        elif args:
            raise CommandError(BAD_ARGS, 'expected {}, {"settings": {...}} or {"reset": true}')
        settings = getattr(self.detector, "settings", None)
        return {"source": self.detector_source, "settings": settings}

    def _use_detector(self, settings, source):
        """Detects with ``settings`` from the next sample, from rest: a candidate in hand
        is dropped, its cue taken back."""
        self.detector.configure(settings)
        self.detector.reset()
        self.detector_source = source
        if self._cue_on:
            self.on_press_event(press.CANCEL)

    STATUS_DETAIL = (
        "detect_us",
        "frames_capped",
        "leds_ma",
        "stream_dropped",
        "accel_address",
    ) + Device.STATUS_DETAIL

    LIMITS_MS = dict(Device.LIMITS_MS, sensor=3000)

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
                "pop_on": getattr(self.detector, "pop_on", None),
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
