"""Press detection: one accelerometer sample in (x, y, z, integer milli-g, 400 Hz), an event
out: ``CUE`` on the press blow, ``POP`` when the dice should pop, ``CANCEL`` when a candidate
turns out to be no press.

A press of the dome is three things in a row: the press blow (the dome buckles and drives
the unit into its feet: a blow mostly along the unit's up axis, out of rest), the hold, and
the release blow (the dome snaps back, or the force falls away: a weaker blow, mostly the
other way). With ``pop_on`` at ``release`` (the default) the detector cues on the press
blow, pops on the release blow, and cancels a candidate that does not release like a press
within ``hold_max_ms`` (a knock, a bang) or that moves meanwhile (a lift). With ``pop_on``
at ``press`` it pops on the press blow, for domes whose snap-back is too faint to see, and
then only waits out the release so that it is not taken for a press.

Every sample goes through two stages. ``measure`` turns it into motion along up and
sideways:

- gravity is a slow average of the samples (160 ms; one sample moves it by at most 2 mg,
  enough to follow a unit tilted by hand, while a blow's few samples move it by a few mg
  and leave no offset for the stillness to take for a hand); the sample minus gravity is
  the motion, split into ``along`` (up, by the measured gravity, however the sensor is
  mounted) and its sideways energy;
- the impulse is how far ``along`` moved over the last ``band_samples`` samples; the lead is
  the largest motion along up over the five samples before that band (a press starts from
  rest); the background is the recent size of the impulse (80 ms), taken from four samples
  back so that a blow does not raise its own;
- the stillness is the motion averaged over 40 ms (twice), each sample's part capped at
  64 mg: a hand that lifts, tilts or carries the unit keeps it high.

``decide`` is the state machine; the settings are its thresholds (``SETTINGS`` says each
one's meaning). A candidate starts on an impulse of at least ``threshold_mg`` in the press's
direction, ``contrast`` times the background, out of a lead of at most ``lead_ratio`` of
it, once the unit has been still for ``settle_ms`` and no press came in ``refractory_ms``.
Over ``window_samples`` it collects its peak and its energies; it is a press blow if its
sideways energy is at most ``max_sideways`` of its energy along up and the unit did not
move. Then the hold: from ``hold_min_ms`` after the blow (before, the unit rings and sags
with the blow itself, and neither counts) to ``hold_max_ms``, the unit moving cancels it and
a release blow is an impulse of at least ``release_ratio`` of the press's
and ``release_contrast`` times the background, with at most ``release_sideways`` of its
energy sideways, in the direction ``release_polarity`` says.

Both stages are ``@micropython.viper`` integer code over one preallocated ``array('i')``
holding the settings, the state and what ``measure`` found, so nothing is allocated per
sample. Every slot holds its value plus ``_BIAS``: a 64-bit port loads a 32-bit word
without its sign, and biased values are never negative. Values stay under 2**28, so they
stay small ints on a Pico; sample numbers are rebased before they get there. ``decide``
counts time in sample numbers, not countdowns, so it can be handed only the samples where
something can happen (``popdice tune`` does that); ``PressDetector`` feeds it every sample.
Outside MicroPython (the host's tuner) the same source runs with stand-ins for
``micropython.viper`` and ``ptr32``.
"""

from array import array

import micropython
from micropython import const

from popdice_fw.builtin_settings import BUILT_IN

# events
NOTHING = const(0)
CUE = const(1)
POP = const(2)
CANCEL = const(3)

# stages of ``step``
MEASURE = const(1)
DECIDE = const(2)

# states
SETTLING = const(0)
ARMED = const(1)
CANDIDATE = const(2)
HOLD = const(3)
REFRACTORY = const(4)
STATES = ("settling", "armed", "candidate", "hold", "refractory")

_BIAS = const(1 << 29)
_GRAVITY_SHIFT = const(6)  # gravity follows over 64 samples (160 ms)
_GRAVITY_PULL_MG = const(128)  # one sample moves it by at most 128 >> 6 = 2 mg
_UP_EVERY = const(16)  # the up axis is measured again from gravity every 16 samples
_UP_ONE = const(1024)  # the up axis in 1/1024
_MIN_GRAVITY_MG = const(250)  # below this there is no up (falling): the last one is kept
_BACKGROUND_SHIFT = const(5)  # the background follows over 32 samples (80 ms)
_BACKGROUND_FLOOR_MG = const(4)  # one step of the sensor
_STILL_SHIFT = const(4)  # stillness: two poles of 16 samples (40 ms)...
_STILL_CAP_MG = const(64)  # ...over motion capped to this a sample, so it never exceeds
_STILL_MOST_MG = const(192)  # three axes at the cap: ``moving_mg`` this high never moves
_CLIP_MG = const(8000)  # motion terms are clamped to this before they are squared
_ENERGY_SHIFT = const(8)  # energies in 256 mg^2 units (16 mg rms): sums stay small
_RING = const(16)  # the last 16 values along up: a band of up to 4 samples and the lead
_RELEASE_FLOOR_MG = const(8)  # a release blow is at least two steps of the sensor
_REBASE_AT = const(1 << 27)  # sample numbers are moved back by half of this when they reach it
_PERIOD_US = const(2500)

# settings: (name, smallest, largest), each with its meaning; fractions are kept scaled
# (``_SCALES``)
SETTINGS = (
    ("band_samples", 1, 4),  # samples over which a blow is measured
    ("polarity", -1, 1),  # a press moves the reading along up: -1 down, 1 up, 0 either
    ("threshold_mg", 20, 4000),  # the smallest press blow
    ("contrast", 1.0, 30.0),  # a press blow over the background, at least
    ("lead_ratio", 0.05, 4.0),  # motion before the blow, at most, of the blow
    ("window_samples", 1, 3),  # samples a press blow is judged over
    ("max_sideways", 0.02, 8.0),  # a press blow's sideways energy, at most, of its energy along up
    ("moving_mg", 4, _STILL_MOST_MG),  # stillness above this is a unit in a hand
    ("settle_ms", 0, 2000),  # still this long before a press counts
    ("refractory_ms", 0, 1000),  # after a pop, no new press for this long
    ("hold_min_ms", 0, 500),  # a release comes at least this long after the press blow
    ("hold_max_ms", 50, 5000),  # and at most this long
    ("release_ratio", 0.0, 2.0),  # a release blow, at least, of the press blow
    ("release_contrast", 1.0, 30.0),  # a release blow over the background, at least
    ("release_sideways", 0.02, 8.0),  # a release blow's sideways energy, at most, of along up
    ("release_polarity", -1, 1),  # a release goes against the press (-1), with it (1), either (0)
)
POP_ON = ("release", "press")
_SCALES = {
    "contrast": 4,
    "lead_ratio": 64,
    "max_sideways": 64,
    "release_ratio": 256,
    "release_contrast": 4,
    "release_sideways": 64,
}
_MS = ("settle_ms", "refractory_ms", "hold_min_ms", "hold_max_ms")

# slots of the one array: settings first (in ``SETTINGS`` order), then pop_on
_S_BAND = const(0)
_S_POLARITY = const(1)
_S_THRESHOLD = const(2)
_S_CONTRAST_X4 = const(3)
_S_LEAD_X64 = const(4)
_S_WINDOW = const(5)
_S_SIDEWAYS_X64 = const(6)
_S_MOVING = const(7)
_S_SETTLE = const(8)  # in samples
_S_REFRACTORY = const(9)
_S_HOLD_MIN = const(10)
_S_HOLD_MAX = const(11)
_S_RELEASE_X256 = const(12)
_S_RELEASE_CONTRAST_X4 = const(13)
_S_RELEASE_SIDEWAYS_X64 = const(14)
_S_RELEASE_POLARITY = const(15)
_S_ON_PRESS = const(16)  # 1: pop on the press blow
_STAGES = const(17)  # what ``step`` does: ``MEASURE``, ``DECIDE`` or both
# sample numbers, together so that they are rebased together
_TIME_AT = const(18)
_N = const(18)  # the sample number
_SETTLED_AT = const(19)
_QUIET_UNTIL = const(20)
_STARTED = const(21)
_HOLD_FROM = const(22)
_HOLD_UNTIL = const(23)
_TIME_SLOTS = const(24 - _TIME_AT)
# what measure keeps
_FRESH = const(24)
_GX = const(25)
_GY = const(26)
_GZ = const(27)
_UX = const(28)
_UY = const(29)
_UZ = const(30)
_UP_IN = const(31)
_AT = const(32)
_BACKGROUND_SUM = const(33)  # x 32
_B1 = const(34)
_B2 = const(35)
_B3 = const(36)
_B4 = const(37)
_SX1 = const(38)
_SY1 = const(39)
_SZ1 = const(40)
_SX2 = const(41)
_SY2 = const(42)
_SZ2 = const(43)
# what measure found on the last sample, for decide
IMPULSE = const(44)
LEAD = const(45)
BACKGROUND = const(46)
ALONG_ENERGY = const(47)
SIDEWAYS_ENERGY = const(48)
STILL = const(49)
# decide's state
STATE = const(50)
_PEAK = const(51)
_SIGN = const(52)  # the press blow's direction along up: 1 or -1
_E_ALONG = const(53)
_E_SIDE = const(54)
_MOVED = const(55)
_PRESS_PEAK = const(56)
# counts
CUES = const(57)
POPS = const(58)
CANCELS = const(59)
REJECTED = const(60)
RELEASES = const(61)
_RING_AT = const(62)  # the ring of values along up: _RING slots from here
_SLOTS = const(_RING_AT + _RING)


def defaults():
    """The built-in settings, as a dict a ``detector.json`` would hold."""
    return dict(BUILT_IN)


def check_settings(values):
    """``values`` (a dict from JSON) completed with the built-in settings and checked;
    ValueError naming the first bad or unknown setting."""
    if not isinstance(values, dict):
        raise ValueError("settings: not an object")
    for name in values:
        if name != "pop_on" and name not in BUILT_IN:
            raise ValueError("settings: unknown " + str(name)[:40])
    checked = {}
    for name, low, high in SETTINGS:
        value = values.get(name, BUILT_IN[name])
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("settings: " + name + " is not a number")
        if not low <= value <= high:  # NaN too, and infinities before int() sees them
            raise ValueError(
                "settings: " + name + " is out of range (" + str(low) + " to " + str(high) + ")"
            )
        if isinstance(low, int) and not isinstance(value, int):
            if value != int(value):
                raise ValueError("settings: " + name + " is not a whole number")
            value = int(value)
        checked[name] = value
    if checked["hold_min_ms"] > checked["hold_max_ms"]:  # no release could ever be taken
        raise ValueError("settings: hold_min_ms is above hold_max_ms")
    pop_on = values.get("pop_on", BUILT_IN["pop_on"])
    if pop_on not in POP_ON:
        raise ValueError("settings: pop_on is not release or press")
    checked["pop_on"] = pop_on
    return checked


@micropython.viper
def step(s, x: int, y: int, z: int) -> int:
    """One sample (mg) through the stages ``_STAGES`` names: measure it into the slots from
    ``IMPULSE`` to ``STILL``, then decide on what is there; the event it brings (``NOTHING``,
    ``CUE``, ``POP`` or ``CANCEL``). One call a sample: a call costs as much as a stage."""
    m = ptr32(s)  # pyright: ignore[reportUndefinedVariable]
    stages = int(m[_STAGES]) - _BIAS
    if stages & MEASURE:
        m[_N] = m[_N] + 1
        if m[_FRESH] != _BIAS:
            m[_FRESH] = _BIAS
            m[_GX] = (x << _GRAVITY_SHIFT) + _BIAS
            m[_GY] = (y << _GRAVITY_SHIFT) + _BIAS
            m[_GZ] = (z << _GRAVITY_SHIFT) + _BIAS
            m[_UP_IN] = _BIAS
        gx = (int(m[_GX]) - _BIAS) >> _GRAVITY_SHIFT
        gy = (int(m[_GY]) - _BIAS) >> _GRAVITY_SHIFT
        gz = (int(m[_GZ]) - _BIAS) >> _GRAVITY_SHIFT
        mx = x - gx
        my = y - gy
        mz = z - gz
        if mx > _CLIP_MG:
            mx = _CLIP_MG
        elif mx < -_CLIP_MG:
            mx = -_CLIP_MG
        if my > _CLIP_MG:
            my = _CLIP_MG
        elif my < -_CLIP_MG:
            my = -_CLIP_MG
        if mz > _CLIP_MG:
            mz = _CLIP_MG
        elif mz < -_CLIP_MG:
            mz = -_CLIP_MG
        pull = mx
        if pull > _GRAVITY_PULL_MG:
            pull = _GRAVITY_PULL_MG
        elif pull < -_GRAVITY_PULL_MG:
            pull = -_GRAVITY_PULL_MG
        m[_GX] = m[_GX] + pull
        pull = my
        if pull > _GRAVITY_PULL_MG:
            pull = _GRAVITY_PULL_MG
        elif pull < -_GRAVITY_PULL_MG:
            pull = -_GRAVITY_PULL_MG
        m[_GY] = m[_GY] + pull
        pull = mz
        if pull > _GRAVITY_PULL_MG:
            pull = _GRAVITY_PULL_MG
        elif pull < -_GRAVITY_PULL_MG:
            pull = -_GRAVITY_PULL_MG
        m[_GZ] = m[_GZ] + pull

        up_in = int(m[_UP_IN]) - _BIAS - 1
        if up_in <= 0:
            up_in = _UP_EVERY
            square = gx * gx + gy * gy + gz * gz
            norm = square
            guess = (norm + 1) >> 1
            while guess < norm:
                norm = guess
                guess = (norm + square // norm) >> 1
            if norm >= _MIN_GRAVITY_MG:
                m[_UX] = gx * _UP_ONE // norm + _BIAS
                m[_UY] = gy * _UP_ONE // norm + _BIAS
                m[_UZ] = gz * _UP_ONE // norm + _BIAS
        m[_UP_IN] = up_in + _BIAS
        ux = int(m[_UX]) - _BIAS
        uy = int(m[_UY]) - _BIAS
        uz = int(m[_UZ]) - _BIAS
        along = (mx * ux + my * uy + mz * uz) // _UP_ONE
        total = (mx * mx + my * my + mz * mz) >> _ENERGY_SHIFT
        along_energy = (along * along) >> _ENERGY_SHIFT
        sideways = total - along_energy
        if sideways < 0:
            sideways = 0
        m[ALONG_ENERGY] = along_energy + _BIAS
        m[SIDEWAYS_ENERGY] = sideways + _BIAS

        at = (int(m[_AT]) - _BIAS + 1) & (_RING - 1)
        m[_AT] = at + _BIAS
        m[_RING_AT + at] = along + _BIAS
        band = int(m[_S_BAND]) - _BIAS
        before = int(m[_RING_AT + ((at - band) & (_RING - 1))]) - _BIAS
        impulse = along - before
        m[IMPULSE] = impulse + _BIAS
        lead = before
        if lead < 0:
            lead = -lead
        k = 1
        while k < 5:
            value = int(m[_RING_AT + ((at - band - k) & (_RING - 1))]) - _BIAS
            if value < 0:
                value = -value
            if value > lead:
                lead = value
            k += 1
        m[LEAD] = lead + _BIAS

        size = impulse
        if size < 0:
            size = -size
        total_background = int(m[_BACKGROUND_SUM]) - _BIAS
        total_background += size - (total_background >> _BACKGROUND_SHIFT)
        background = (int(m[_B4]) - _BIAS) >> _BACKGROUND_SHIFT
        if background < _BACKGROUND_FLOOR_MG:
            background = _BACKGROUND_FLOOR_MG
        m[BACKGROUND] = background + _BIAS
        m[_B4] = m[_B3]
        m[_B3] = m[_B2]
        m[_B2] = m[_B1]
        m[_B1] = total_background + _BIAS
        m[_BACKGROUND_SUM] = total_background + _BIAS

        cap = mx
        if cap > _STILL_CAP_MG:
            cap = _STILL_CAP_MG
        elif cap < -_STILL_CAP_MG:
            cap = -_STILL_CAP_MG
        first = int(m[_SX1]) - _BIAS
        first += ((cap << 4) - first) >> _STILL_SHIFT
        m[_SX1] = first + _BIAS
        second = int(m[_SX2]) - _BIAS
        second += (first - second) >> _STILL_SHIFT
        m[_SX2] = second + _BIAS
        still = second
        if still < 0:
            still = -still
        cap = my
        if cap > _STILL_CAP_MG:
            cap = _STILL_CAP_MG
        elif cap < -_STILL_CAP_MG:
            cap = -_STILL_CAP_MG
        first = int(m[_SY1]) - _BIAS
        first += ((cap << 4) - first) >> _STILL_SHIFT
        m[_SY1] = first + _BIAS
        second = int(m[_SY2]) - _BIAS
        second += (first - second) >> _STILL_SHIFT
        m[_SY2] = second + _BIAS
        if second < 0:
            second = -second
        still += second
        cap = mz
        if cap > _STILL_CAP_MG:
            cap = _STILL_CAP_MG
        elif cap < -_STILL_CAP_MG:
            cap = -_STILL_CAP_MG
        first = int(m[_SZ1]) - _BIAS
        first += ((cap << 4) - first) >> _STILL_SHIFT
        m[_SZ1] = first + _BIAS
        second = int(m[_SZ2]) - _BIAS
        second += (first - second) >> _STILL_SHIFT
        m[_SZ2] = second + _BIAS
        if second < 0:
            second = -second
        still += second
        m[STILL] = (still >> 4) + _BIAS
        n = int(m[_N]) - _BIAS
        if n >= _REBASE_AT:  # sample numbers stay small for ever
            k = 0
            while k < _TIME_SLOTS:
                value = int(m[_TIME_AT + k]) - (_REBASE_AT >> 1)
                if value < _BIAS - _REBASE_AT:
                    value = _BIAS - _REBASE_AT
                m[_TIME_AT + k] = value
                k += 1
    if not stages & DECIDE:
        return NOTHING

    n = int(m[_N]) - _BIAS
    raw = int(m[IMPULSE]) - _BIAS
    background = int(m[BACKGROUND]) - _BIAS
    along_energy = int(m[ALONG_ENERGY]) - _BIAS
    sideways_energy = int(m[SIDEWAYS_ENERGY]) - _BIAS
    moving = int(m[STILL]) > int(m[_S_MOVING])
    on_press = m[_S_ON_PRESS] != _BIAS
    if moving:
        m[_SETTLED_AT] = n + int(m[_S_SETTLE])  # the setting is biased already
    polarity = int(m[_S_POLARITY]) - _BIAS
    impulse = raw
    if polarity < 0:
        impulse = -raw
    elif polarity == 0 and raw < 0:
        impulse = -raw
    state = int(m[STATE]) - _BIAS

    if state == CANDIDATE:
        if moving:
            m[_MOVED] = _BIAS + 1
        m[_E_ALONG] = m[_E_ALONG] + along_energy
        m[_E_SIDE] = m[_E_SIDE] + sideways_energy
        if impulse > int(m[_PEAK]) - _BIAS:
            m[_PEAK] = impulse + _BIAS
        if n - (int(m[_STARTED]) - _BIAS) + 1 < int(m[_S_WINDOW]) - _BIAS:
            return NOTHING
    else:
        if state == HOLD:
            if moving and not on_press and n >= int(m[_HOLD_FROM]) - _BIAS:
                m[STATE] = SETTLING + _BIAS
                m[CANCELS] = m[CANCELS] + 1
                return CANCEL
            if n > int(m[_HOLD_UNTIL]) - _BIAS:
                m[STATE] = ARMED + _BIAS
                if on_press:
                    return NOTHING
                m[CANCELS] = m[CANCELS] + 1
                return CANCEL
            if n >= int(m[_HOLD_FROM]) - _BIAS:
                toward = raw * (int(m[_SIGN]) - _BIAS)  # along the press blow: positive
                release_polarity = int(m[_S_RELEASE_POLARITY]) - _BIAS
                size = raw
                if size < 0:
                    size = -size
                if release_polarity < 0:
                    size = -toward
                elif release_polarity > 0:
                    size = toward
                press_peak = int(m[_PRESS_PEAK]) - _BIAS
                if (
                    size >= _RELEASE_FLOOR_MG
                    and size * 256 >= (int(m[_S_RELEASE_X256]) - _BIAS) * press_peak
                    and size * 4 >= (int(m[_S_RELEASE_CONTRAST_X4]) - _BIAS) * background
                    and sideways_energy * 64
                    <= (int(m[_S_RELEASE_SIDEWAYS_X64]) - _BIAS) * along_energy
                ):
                    m[RELEASES] = m[RELEASES] + 1
                    m[_QUIET_UNTIL] = n + 1 + int(m[_S_REFRACTORY])
                    m[STATE] = REFRACTORY + _BIAS
                    if on_press:
                        return NOTHING
                    m[POPS] = m[POPS] + 1
                    return POP
            if not on_press:
                return NOTHING
            # popping on the press blow: the next press may come before a release is seen
        if n < int(m[_SETTLED_AT]) - _BIAS:
            m[STATE] = SETTLING + _BIAS
            return NOTHING
        if n < int(m[_QUIET_UNTIL]) - _BIAS:
            if state != HOLD:
                m[STATE] = REFRACTORY + _BIAS
            return NOTHING
        if state != HOLD:
            m[STATE] = ARMED + _BIAS
        if impulse < int(m[_S_THRESHOLD]) - _BIAS:
            return NOTHING
        if impulse * 4 < (int(m[_S_CONTRAST_X4]) - _BIAS) * background:
            return NOTHING
        if (int(m[LEAD]) - _BIAS) * 64 > (int(m[_S_LEAD_X64]) - _BIAS) * impulse:
            return NOTHING
        m[STATE] = CANDIDATE + _BIAS
        m[_STARTED] = n + _BIAS
        m[_PEAK] = impulse + _BIAS
        if raw >= 0:
            m[_SIGN] = _BIAS + 1
        else:
            m[_SIGN] = _BIAS - 1
        m[_E_ALONG] = along_energy + _BIAS
        m[_E_SIDE] = sideways_energy + _BIAS
        if moving:
            m[_MOVED] = _BIAS + 1
        else:
            m[_MOVED] = _BIAS
        if int(m[_S_WINDOW]) - _BIAS > 1:
            return NOTHING

    # the press blow is judged
    m[STATE] = ARMED + _BIAS
    e_along = int(m[_E_ALONG]) - _BIAS
    e_side = int(m[_E_SIDE]) - _BIAS
    if m[_MOVED] != _BIAS or e_side * 64 > (int(m[_S_SIDEWAYS_X64]) - _BIAS) * e_along:
        m[REJECTED] = m[REJECTED] + 1
        return NOTHING
    m[_PRESS_PEAK] = m[_PEAK]
    m[_QUIET_UNTIL] = n + 1 + int(m[_S_REFRACTORY])
    m[_HOLD_FROM] = n + int(m[_S_HOLD_MIN])
    m[_HOLD_UNTIL] = n + int(m[_S_HOLD_MAX])
    m[STATE] = HOLD + _BIAS
    if on_press:
        m[POPS] = m[POPS] + 1
        return POP
    m[CUES] = m[CUES] + 1
    return CUE


class PressDetector:
    """The detector over one preallocated array; ``update`` is the sample path."""

    def __init__(self, settings=None, stages=MEASURE | DECIDE):
        self.slots = array("i", bytes(4 * _SLOTS))
        self.configure(settings or defaults())
        self.reset()
        self.slots[_STAGES] = _BIAS + stages

    def configure(self, settings):
        """Takes settings (a dict, checked by ``check_settings``; ValueError if bad). The
        detector keeps its state; ``reset`` starts over."""
        values = check_settings(settings)
        self.settings = values
        slots = self.slots
        for index, (name, _low, _high) in enumerate(SETTINGS):
            value = values[name]
            if name in _SCALES:
                value = int(value * _SCALES[name] + 0.5)
            elif name in _MS:
                value = value * 1000 // _PERIOD_US
            slots[index] = value + _BIAS
        slots[_S_ON_PRESS] = _BIAS + (1 if values["pop_on"] == "press" else 0)
        self.pop_on = values["pop_on"]

    def reset(self):
        """Forgets everything: the next sample is taken as gravity, and it settles again."""
        slots = self.slots
        for index in range(_TIME_AT, _SLOTS):
            slots[index] = _BIAS
        slots[_FRESH] = _BIAS + 1
        slots[_UZ] = _BIAS + _UP_ONE
        slots[BACKGROUND] = _BIAS + _BACKGROUND_FLOOR_MG
        slots[_SETTLED_AT] = slots[_S_SETTLE]
        slots[_SIGN] = _BIAS + 1
        slots[STATE] = _BIAS + SETTLING

    def update(self, x, y, z):
        """Takes one sample (mg); the event it brings (``NOTHING``, ``CUE``, ``POP``,
        ``CANCEL``). The sample path calls ``step(detector.slots, x, y, z)`` itself."""
        return step(self.slots, x, y, z)

    def rebase(self, by):
        """Moves every sample number back by ``by`` (``step`` does it by itself when they
        grow large; a test moves them forward)."""
        slots = self.slots
        for index in range(_TIME_AT, _TIME_AT + _TIME_SLOTS):
            slots[index] = max(slots[index] - by, _BIAS - _REBASE_AT)

    def value(self, slot):
        """What a slot holds (``STATE``, ``IMPULSE``, ``CUES``...)."""
        return self.slots[slot] - _BIAS

    @property
    def state(self):
        return self.slots[STATE] - _BIAS

    @property
    def samples(self):
        return self.slots[_N] - _BIAS

    def counts(self):
        """What the detector has seen since its reset: cues, pops, cancels, press blows
        rejected, releases."""
        slots = self.slots
        return {
            "cues": slots[CUES] - _BIAS,
            "pops": slots[POPS] - _BIAS,
            "cancels": slots[CANCELS] - _BIAS,
            "rejected": slots[REJECTED] - _BIAS,
            "releases": slots[RELEASES] - _BIAS,
        }
