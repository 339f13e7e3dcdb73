"""Press detection from a few settings: one accelerometer sample in (x, y, z, integer milli-g,
400 Hz), True out on the sample where a press of the dome is recognised.

Every sample goes through two stages. The first, ``measure``, turns it into motion along the
unit's up axis and sideways, and depends on one setting (``band_samples``):

- gravity is a slow average of the samples (160 ms; one sample moves it by at most 4 mg, so
  a blow barely does); the sample minus gravity is the motion, split into ``along`` (up, by
  the measured gravity, however the sensor is mounted) and its sideways energy;
- the impulse is how far ``along`` moved over the last ``band_samples`` samples: a short band
  sees a click that rings, a longer one a palm press that sinks the unit into its feet; the
  lead is the largest motion along up over the five samples before that band (a press
  starts from rest, the far side of a swing or a release's rebound does not);
- the background is the recent size of the impulse (80 ms), taken from four samples back so
  a press does not raise its own;
- the stillness is the motion averaged over 40 ms (twice), each sample's part capped at
  64 mg: a hand that lifts, tilts or carries the unit keeps it high, a blow's swing averages
  out. It cannot exceed 192 mg, so ``moving_mg`` at 192 never takes the unit as moving: for a
  unit whose own presses move it that much (a dome that clicks only once the hand has pushed
  it deep into soft feet).

The second, ``decide``, is the state machine, and every other setting is a threshold there:
a candidate starts on an impulse of at least ``threshold_mg`` in the press's direction
(``polarity``) that is ``contrast`` times the background, when the unit has been still for
``settle_ms`` and no press came in the last ``refractory_ms``, and the lead before it is at
most ``lead_ratio`` of the impulse. Over ``window_samples``
samples from there it collects its largest impulse and its energy along up and sideways, then
it is a press if the sideways energy is at most ``max_sideways`` times the energy along up
and, within ``hold_ms`` of the last press, its impulse reaches ``release_ratio`` of that
press's (the dome's release is a weaker blow; the first such blow ends the hold).

``decide`` counts time in samples by their number, not by countdowns, so it can be handed
only the samples where something can happen (the tuner does that: ``popdice tune``); the
detector feeds it every sample.

Integer arithmetic only, and nothing allocated per sample: every value stays a small int on
a Pico (under 2**30), and sample numbers are rebased before they reach 2**29.
"""

from array import array

from micropython import const

_GRAVITY_SHIFT = const(6)  # gravity follows over 64 samples (160 ms)
_GRAVITY_PULL_MG = const(256)  # one sample moves it by at most 256 >> 6 = 4 mg
_UP_EVERY = const(16)  # the up axis is measured again from gravity every 16 samples
_UP_ONE = const(1024)  # the up axis in 1/1024
_MIN_GRAVITY_MG = const(250)  # below this there is no up (falling): the last one is kept
_BACKGROUND_SHIFT = const(5)  # the background follows over 32 samples (80 ms)
_BACKGROUND_FLOOR_MG = const(4)  # one step of the sensor
_STILL_SHIFT = const(4)  # stillness: two poles of 16 samples (40 ms)...
_STILL_CAP_MG = const(64)  # ...over motion capped to this a sample, so it never exceeds
_STILL_MOST_MG = const(192)  # three axes at the cap: ``moving_mg`` this high never moves
_CLIP_MG = const(8000)  # motion terms are clamped to this before they are squared
_ENERGY_SHIFT = const(8)  # energies in 256 mg^2 units (16 mg rms): sums stay small ints
_RING_MASK = const(15)  # the last 16 values along up: a band of up to 4 samples and the lead
_SAMPLES_REBASE = const(1 << 29)
_FOREVER = const(-(1 << 29))
_PERIOD_US = const(2500)

# settings: (name, smallest, largest, default); values scaled in the firmware where noted
SETTINGS = (
    ("band_samples", 1, 4, 2),
    ("polarity", -1, 1, -1),  # -1: a press pushes the reading along up down; 1 up; 0 either
    ("threshold_mg", 20, 4000, 120),
    ("contrast", 1.0, 30.0, 2.0),  # x 4
    ("lead_ratio", 0.05, 4.0, 0.5),  # x 64
    ("window_samples", 1, 3, 2),
    ("max_sideways", 0.02, 8.0, 0.5),  # x 64
    ("refractory_ms", 0, 1000, 75),
    ("moving_mg", 4, _STILL_MOST_MG, 16),
    ("settle_ms", 0, 2000, 250),
    ("release_ratio", 0.0, 1.0, 0.4),  # x 64
    ("hold_ms", 0, 3000, 1500),
)
_SCALED = {"contrast": 4, "lead_ratio": 64, "max_sideways": 64, "release_ratio": 64}

# states
SETTLING = const(0)
ARMED = const(1)
CANDIDATE = const(2)
REFRACTORY = const(3)


def defaults():
    """The default settings, as a dict a ``detector.json`` would hold."""
    return {name: default for name, _low, _high, default in SETTINGS}


def check_settings(values):
    """``values`` (a dict from JSON) completed with the defaults and checked; ValueError
    naming the first bad or unknown setting."""
    if not isinstance(values, dict):
        raise ValueError("settings: not an object")
    known = defaults()
    for name in values:
        if name not in known:
            raise ValueError("settings: unknown " + str(name)[:40])
    checked = {}
    for name, low, high, default in SETTINGS:
        value = values.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("settings: " + name + " is not a number")
        if isinstance(low, int) and not isinstance(value, int):
            if value != int(value):
                raise ValueError("settings: " + name + " is not a whole number")
            value = int(value)
        if not low <= value <= high:
            raise ValueError("settings: " + name + " is out of range")
        checked[name] = value
    return checked


def _isqrt(n):
    """The integer square root of a small non-negative int, without allocating."""
    if n <= 0:
        return 0
    root = n
    guess = (root + 1) >> 1
    while guess < root:
        root = guess
        guess = (root + n // root) >> 1
    return root


class ImpulseDetector:
    def __init__(self, settings=None):
        self._ring = array("i", bytes(4 * (_RING_MASK + 1)))
        self.configure(settings or defaults())
        self.reset()

    def configure(self, settings):
        """Takes settings (a dict, checked by ``check_settings``); ValueError if they are bad.
        The detector keeps its state; call ``reset`` to start over."""
        values = check_settings(settings)
        self.settings = values
        self._band = values["band_samples"]
        self._polarity = values["polarity"]
        self._threshold = values["threshold_mg"]
        self._contrast_x4 = int(values["contrast"] * _SCALED["contrast"] + 0.5)
        self._lead_x64 = int(values["lead_ratio"] * _SCALED["lead_ratio"] + 0.5)
        self._window = values["window_samples"]
        self._sideways_x64 = int(values["max_sideways"] * _SCALED["max_sideways"] + 0.5)
        self._refractory = values["refractory_ms"] * 1000 // _PERIOD_US
        self._moving_mg = values["moving_mg"]
        self._settle = values["settle_ms"] * 1000 // _PERIOD_US
        self._release_x64 = int(values["release_ratio"] * _SCALED["release_ratio"] + 0.5)
        self._hold = values["hold_ms"] * 1000 // _PERIOD_US

    def reset(self):
        """Forgets everything: the next sample is taken as gravity, and it settles again."""
        self.state = SETTLING
        self.samples = 0
        self.presses = 0
        self.rejected = 0
        self.releases = 0
        self.last_depth_mg = 0
        self._fresh = True
        self._gx = 0
        self._gy = 0
        self._gz = 0
        self._ux = 0
        self._uy = 0
        self._uz = _UP_ONE
        self._up_in = 0
        for i in range(_RING_MASK + 1):
            self._ring[i] = 0
        self._at = 0
        self._background = 0  # x 32
        self._b1 = 0
        self._b2 = 0
        self._b3 = 0
        self._b4 = 0
        self._sx1 = 0
        self._sy1 = 0
        self._sz1 = 0
        self._sx2 = 0
        self._sy2 = 0
        self._sz2 = 0
        # what measure() found on the last sample
        self.impulse = 0
        self.lead = 0
        self.background = _BACKGROUND_FLOOR_MG
        self.along_energy = 0
        self.sideways_energy = 0
        self.still_mg = 0
        # the state machine, in sample numbers
        self._settled_at = self._settle
        self._quiet_until = 0
        self._hold_until = _FOREVER
        self._last_peak = 0
        self._started = 0
        self._peak = 0
        self._energy_along = 0
        self._energy_sideways = 0
        self._moved = False

    def update(self, x, y, z):
        """Takes one sample (mg); True on the sample where a press is recognised."""
        self.measure(x, y, z)
        n = self.samples
        if n >= _SAMPLES_REBASE:
            self.rebase(_SAMPLES_REBASE >> 1)
            n = self.samples
        return self.decide(
            n,
            self.impulse,
            self.lead,
            self.background,
            self.along_energy,
            self.sideways_energy,
            self.still_mg > self._moving_mg,
        )

    def rebase(self, by):
        """Moves the sample numbers back by ``by`` (they stay small ints for ever)."""
        self.samples -= by
        self._settled_at -= by
        self._quiet_until -= by
        self._started -= by
        if self._hold_until != _FOREVER:
            self._hold_until = max(self._hold_until - by, _FOREVER)

    def measure(self, x, y, z):
        """The first stage: sets ``impulse``, ``background``, ``along_energy``,
        ``sideways_energy`` and ``still_mg`` from one sample, and counts it."""
        self.samples += 1
        if self._fresh:
            self._fresh = False
            self._gx = x << _GRAVITY_SHIFT
            self._gy = y << _GRAVITY_SHIFT
            self._gz = z << _GRAVITY_SHIFT
            self._up_in = 0
        gx = self._gx >> _GRAVITY_SHIFT
        gy = self._gy >> _GRAVITY_SHIFT
        gz = self._gz >> _GRAVITY_SHIFT
        mx = min(max(x - gx, -_CLIP_MG), _CLIP_MG)
        my = min(max(y - gy, -_CLIP_MG), _CLIP_MG)
        mz = min(max(z - gz, -_CLIP_MG), _CLIP_MG)
        self._gx += min(max(mx, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
        self._gy += min(max(my, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
        self._gz += min(max(mz, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
        self._up_in -= 1
        if self._up_in <= 0:
            self._up_in = _UP_EVERY
            norm = _isqrt(gx * gx + gy * gy + gz * gz)
            if norm >= _MIN_GRAVITY_MG:
                self._ux = gx * _UP_ONE // norm
                self._uy = gy * _UP_ONE // norm
                self._uz = gz * _UP_ONE // norm
        along = (mx * self._ux + my * self._uy + mz * self._uz) // _UP_ONE
        total = (mx * mx + my * my + mz * mz) >> _ENERGY_SHIFT
        along_energy = (along * along) >> _ENERGY_SHIFT
        self.along_energy = along_energy
        self.sideways_energy = max(total - along_energy, 0)

        ring = self._ring
        at = (self._at + 1) & _RING_MASK
        self._at = at
        ring[at] = along
        band = self._band
        before = ring[(at - band) & _RING_MASK]
        impulse = along - before
        self.impulse = impulse
        self.lead = max(
            abs(before),
            abs(ring[(at - band - 1) & _RING_MASK]),
            abs(ring[(at - band - 2) & _RING_MASK]),
            abs(ring[(at - band - 3) & _RING_MASK]),
            abs(ring[(at - band - 4) & _RING_MASK]),
        )

        self._background += abs(impulse) - (self._background >> _BACKGROUND_SHIFT)
        self.background = max(self._b4 >> _BACKGROUND_SHIFT, _BACKGROUND_FLOOR_MG)
        self._b4 = self._b3
        self._b3 = self._b2
        self._b2 = self._b1
        self._b1 = self._background

        cx = min(max(mx, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
        cy = min(max(my, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
        cz = min(max(mz, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
        self._sx1 += (cx - self._sx1) >> _STILL_SHIFT
        self._sy1 += (cy - self._sy1) >> _STILL_SHIFT
        self._sz1 += (cz - self._sz1) >> _STILL_SHIFT
        self._sx2 += (self._sx1 - self._sx2) >> _STILL_SHIFT
        self._sy2 += (self._sy1 - self._sy2) >> _STILL_SHIFT
        self._sz2 += (self._sz1 - self._sz2) >> _STILL_SHIFT
        self.still_mg = (abs(self._sx2) + abs(self._sy2) + abs(self._sz2)) >> 4

    def decide(self, n, impulse, lead, background, along_energy, sideways_energy, moving):
        """The second stage, for sample number ``n``: True if a press is recognised on it."""
        if moving:
            self._settled_at = n + self._settle
        polarity = self._polarity
        if polarity < 0:
            impulse = -impulse
        elif polarity == 0:
            impulse = abs(impulse)
        if self.state == CANDIDATE:
            self._moved = self._moved or moving
            self._energy_along += along_energy
            self._energy_sideways += sideways_energy
            if impulse > self._peak:
                self._peak = impulse
            if n - self._started + 1 >= self._window:
                return self._judge(n)
            return False
        if n < self._settled_at:
            self.state = SETTLING
            return False
        if n < self._quiet_until:
            self.state = REFRACTORY
            return False
        self.state = ARMED
        if impulse < self._threshold or impulse * 4 < self._contrast_x4 * background:
            return False
        if lead * 64 > self._lead_x64 * impulse:
            return False
        self.state = CANDIDATE
        self._started = n
        self._peak = impulse
        self._energy_along = along_energy
        self._energy_sideways = sideways_energy
        self._moved = moving
        if self._window <= 1:
            return self._judge(n)
        return False

    def _judge(self, n):
        self.state = ARMED
        peak = self._peak
        clean = self._energy_sideways * 64 <= self._sideways_x64 * self._energy_along
        if self._moved or not clean:
            self.rejected += 1
            return False
        if n < self._hold_until and peak * 64 < self._release_x64 * self._last_peak:
            self.releases += 1
            self._hold_until = _FOREVER
            return False
        self.presses += 1
        self.last_depth_mg = peak
        self._last_peak = min(peak, 1 << 20)
        self._quiet_until = n + 1 + self._refractory
        self._hold_until = n + self._hold
        self.state = REFRACTORY if self._refractory else ARMED
        return True
