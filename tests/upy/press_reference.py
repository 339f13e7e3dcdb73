"""The press detector as plain Python: what ``popdice_fw.press`` (viper, one biased array)
must do, sample by sample, written out with named attributes, lists and the builtins. The
tests compare the two on every sample, inside MicroPython (on the unix port and on the
emulated chip) and in CPython. Plain Python that runs in both; it allocates as it likes."""

GRAVITY_SHIFT = 6
GRAVITY_PULL = 128
UP_EVERY = 16
UP_ONE = 1024
MIN_GRAVITY = 250
BACKGROUND_SHIFT = 5
BACKGROUND_FLOOR = 4
STILL_SHIFT = 4
STILL_CAP = 64
CLIP = 8000
ENERGY_SHIFT = 8
RELEASE_FLOOR = 8
PERIOD_US = 2500

NOTHING, CUE, POP, CANCEL = 0, 1, 2, 3
SETTLING, ARMED, CANDIDATE, HOLD, REFRACTORY = 0, 1, 2, 3, 4


def clamp(value, limit):
    return max(-limit, min(limit, value))


def isqrt(n):
    """The largest r with r * r <= n, by bisection (a different road from the firmware's)."""
    low, high = 0, 1
    while high * high <= n:
        high *= 2
    while high - low > 1:
        middle = (low + high) // 2
        if middle * middle <= n:
            low = middle
        else:
            high = middle
    return low


def scaled(value, scale):
    return int(value * scale + 0.5)


def in_samples(ms):
    return ms * 1000 // PERIOD_US


class ReferenceDetector:
    def __init__(self, settings):
        self.band = settings["band_samples"]
        self.polarity = settings["polarity"]
        self.threshold = settings["threshold_mg"]
        self.contrast_x4 = scaled(settings["contrast"], 4)
        self.lead_x64 = scaled(settings["lead_ratio"], 64)
        self.window = settings["window_samples"]
        self.sideways_x64 = scaled(settings["max_sideways"], 64)
        self.moving_mg = settings["moving_mg"]
        self.settle = in_samples(settings["settle_ms"])
        self.refractory = in_samples(settings["refractory_ms"])
        self.hold_min = in_samples(settings["hold_min_ms"])
        self.hold_max = in_samples(settings["hold_max_ms"])
        self.release_x256 = scaled(settings["release_ratio"], 256)
        self.release_contrast_x4 = scaled(settings["release_contrast"], 4)
        self.release_sideways_x64 = scaled(settings["release_sideways"], 64)
        self.release_polarity = settings["release_polarity"]
        self.on_press = settings["pop_on"] == "press"
        # measure
        self.n = 0
        self.gravity = None  # x 64, per axis
        self.up = [0, 0, UP_ONE]
        self.up_in = 0
        self.along_history = [0] * 16  # oldest first
        self.background_sum = 0
        self.background_delay = [0, 0, 0, 0]  # the sums of the last four samples, newest first
        self.still_first = [0, 0, 0]
        self.still_second = [0, 0, 0]
        self.impulse = 0
        self.lead = 0
        self.background = BACKGROUND_FLOOR
        self.along_energy = 0
        self.sideways_energy = 0
        self.still = 0
        # decide
        self.state = SETTLING
        self.settled_at = self.settle
        self.quiet_until = 0
        self.started = 0
        self.peak = 0
        self.sign = 1
        self.energy_along = 0
        self.energy_sideways = 0
        self.moved = False
        self.hold_from = 0
        self.hold_until = 0
        self.press_peak = 0
        self.counts = {"cues": 0, "pops": 0, "cancels": 0, "rejected": 0, "releases": 0}

    def update(self, x, y, z):
        self.measure(x, y, z)
        return self.decide()

    def measure(self, x, y, z):
        self.n += 1
        sample = (x, y, z)
        if self.gravity is None:
            self.gravity = [value * 64 for value in sample]
            self.up_in = 0
        gravity = [total >> GRAVITY_SHIFT for total in self.gravity]
        motion = [clamp(sample[i] - gravity[i], CLIP) for i in range(3)]
        for i in range(3):
            self.gravity[i] += clamp(motion[i], GRAVITY_PULL)
        self.up_in -= 1
        if self.up_in <= 0:
            self.up_in = UP_EVERY
            norm = isqrt(sum(g * g for g in gravity))
            if norm >= MIN_GRAVITY:
                self.up = [g * UP_ONE // norm for g in gravity]
        along = sum(motion[i] * self.up[i] for i in range(3)) // UP_ONE
        total = sum(m * m for m in motion) >> ENERGY_SHIFT
        self.along_energy = (along * along) >> ENERGY_SHIFT
        self.sideways_energy = max(total - self.along_energy, 0)

        self.along_history = self.along_history[1:] + [along]
        history = self.along_history
        before = history[-1 - self.band]
        self.impulse = along - before
        self.lead = max(abs(history[-1 - self.band - k]) for k in range(5))

        self.background_sum += abs(self.impulse) - (self.background_sum >> BACKGROUND_SHIFT)
        self.background = max(self.background_delay[3] >> BACKGROUND_SHIFT, BACKGROUND_FLOOR)
        self.background_delay = [self.background_sum] + self.background_delay[:3]

        still = 0
        for i in range(3):
            capped = clamp(motion[i], STILL_CAP) * 16
            self.still_first[i] += (capped - self.still_first[i]) >> STILL_SHIFT
            self.still_second[i] += (self.still_first[i] - self.still_second[i]) >> STILL_SHIFT
            still += abs(self.still_second[i])
        self.still = still >> 4

    def decide(self):
        n = self.n
        moving = self.still > self.moving_mg
        if moving:
            self.settled_at = n + self.settle
        raw = self.impulse
        impulse = {-1: -raw, 0: abs(raw), 1: raw}[self.polarity]
        if self.state == CANDIDATE:
            self.moved = self.moved or moving
            self.energy_along += self.along_energy
            self.energy_sideways += self.sideways_energy
            self.peak = max(self.peak, impulse)
            if n - self.started + 1 < self.window:
                return NOTHING
            return self.judge(n)
        if self.state == HOLD:
            event = self.hold(n, raw, moving)
            if event is not None:
                return event
        return self.armed(n, raw, impulse, moving)

    def hold(self, n, raw, moving):
        """The hold's answer, or None when a press blow may still start (popping on the
        press blow, where a press may come before its release is seen)."""
        if moving and not self.on_press and n >= self.hold_from:
            self.state = SETTLING
            self.counts["cancels"] += 1
            return CANCEL
        if n > self.hold_until:
            self.state = ARMED
            if self.on_press:
                return NOTHING
            self.counts["cancels"] += 1
            return CANCEL
        if n >= self.hold_from and self.is_release(raw):
            self.counts["releases"] += 1
            self.quiet_until = n + 1 + self.refractory
            self.state = REFRACTORY
            if self.on_press:
                return NOTHING
            self.counts["pops"] += 1
            return POP
        return None if self.on_press else NOTHING

    def is_release(self, raw):
        toward = raw * self.sign
        size = {-1: -toward, 0: abs(raw), 1: toward}[self.release_polarity]
        return (
            size >= RELEASE_FLOOR
            and size * 256 >= self.release_x256 * self.press_peak
            and size * 4 >= self.release_contrast_x4 * self.background
            and self.sideways_energy * 64 <= self.release_sideways_x64 * self.along_energy
        )

    def armed(self, n, raw, impulse, moving):
        holding = self.state == HOLD
        if n < self.settled_at:
            self.state = SETTLING
            return NOTHING
        if n < self.quiet_until:
            if not holding:
                self.state = REFRACTORY
            return NOTHING
        if not holding:
            self.state = ARMED
        if impulse < self.threshold or impulse * 4 < self.contrast_x4 * self.background:
            return NOTHING
        if self.lead * 64 > self.lead_x64 * impulse:
            return NOTHING
        self.state = CANDIDATE
        self.started = n
        self.peak = impulse
        self.sign = 1 if raw >= 0 else -1
        self.energy_along = self.along_energy
        self.energy_sideways = self.sideways_energy
        self.moved = moving
        if self.window > 1:
            return NOTHING
        return self.judge(n)

    def judge(self, n):
        self.state = ARMED
        clean = self.energy_sideways * 64 <= self.sideways_x64 * self.energy_along
        if self.moved or not clean:
            self.counts["rejected"] += 1
            return NOTHING
        self.press_peak = self.peak
        self.quiet_until = n + 1 + self.refractory
        self.hold_from = n + self.hold_min
        self.hold_until = n + self.hold_max
        self.state = HOLD
        if self.on_press:
            self.counts["pops"] += 1
            return POP
        self.counts["cues"] += 1
        return CUE
