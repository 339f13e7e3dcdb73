"""The press detector inside MicroPython: the viper detector and the plain reference
(press_reference.py) agree on every sample, whatever the settings; a press cues on its blow
and pops on its release (or on its blow, popping on the press); a blow that never releases,
a knock and a lift give no pop; settings are checked; sample numbers stay small; and nothing
is allocated per sample."""

import struct
import sys
from array import array
from binascii import crc32

import micropython
from press_reference import ReferenceDetector
from vectors import load

from popdice_fw.press import (
    ARMED,
    BACKGROUND,
    CANCEL,
    CUE,
    HOLD,
    IMPULSE,
    LEAD,
    NOTHING,
    POP,
    SETTINGS,
    STATE,
    STILL,
    PressDetector,
    check_settings,
    defaults,
)

REST = (0, 0, 1000)
# a blow through the sensor's filter (per mille of its size along up): a press drives the
# reading down, a release the other way
PRESS_SHAPE = (0, -300, -1000, -650, -150, 120, 60, 0)
RELEASE_SHAPE = (0, 400, 1000, 500, 0, -200, -60, 0)


# the first 75 ms of a hard press of the simulators' model (press_trace seed 5003, without
# noise), mg: the unit is driven into its feet, rocks and rings
HARD_PRESS = [
    (0, 0, 1000), (52, -44, 568), (244, -208, -764), (324, -280, -600), (252, -220, 832),
    (200, -176, 1304), (176, -152, 804), (84, -72, 768), (-44, 36, 1204), (-96, 84, 1232),
    (-80, 72, 928), (-56, 52, 892), (-40, 32, 1068), (-4, 4, 1076), (28, -24, 952),
    (32, -28, 948), (20, -20, 1032), (12, -8, 1032), (4, -4, 976), (-4, 4, 980),
    (-12, 8, 1016), (-8, 8, 1012), (-4, 4, 988), (0, 0, 992), (0, 0, 1008), (4, -4, 1004),
    (4, -4, 996), (4, 0, 996), (0, 0, 1004), (0, 0, 1000),
]  # fmt: skip


# What these tests take as given, whatever the fitted built-in settings are (each test says
# what it changes).
BASE = {
    "band_samples": 2,
    "polarity": -1,
    "threshold_mg": 120,
    "contrast": 2.0,
    "lead_ratio": 0.5,
    "window_samples": 2,
    "max_sideways": 0.5,
    "moving_mg": 16,
    "settle_ms": 250,
    "refractory_ms": 75,
    "hold_min_ms": 40,
    "hold_max_ms": 1500,
    "release_ratio": 0.1,
    "release_contrast": 2.0,
    "release_sideways": 1.0,
    "release_polarity": -1,
    "pop_on": "release",
}


def settings_with(**changes):
    settings = dict(BASE)
    settings.update(changes)
    return check_settings(settings)


def detector_with(**changes):
    detector = PressDetector(settings_with(**changes))
    feed(detector, rest(400))
    assert detector.state == ARMED
    return detector


def rest(samples, gravity=REST):
    return [gravity] * samples


def blow(size_mg, shape=PRESS_SHAPE, up=(0, 0, 1), sideways=(0, 0, 0), gravity=REST):
    out = []
    for part in shape:
        along = size_mg * part // 1000
        out.append(
            (
                gravity[0] + along * up[0] + sideways[0] * part // 1000,
                gravity[1] + along * up[1] + sideways[1] * part // 1000,
                gravity[2] + along * up[2] + sideways[2] * part // 1000,
            )
        )
    return out


def press(depth_mg=800, hold=80, release_mg=200):
    """A press blow, ``hold`` samples of rest, a release blow (or none for 0)."""
    samples = blow(depth_mg) + rest(hold)
    if release_mg:
        samples += blow(release_mg, RELEASE_SHAPE)
    return samples


def feed(detector, samples):
    """(sample index, event) of every event."""
    events = []
    for i, sample in enumerate(samples):
        event = detector.update(*sample)
        if event:
            events.append((i, event))
    return events


class Noise:
    """A small generator (the ZX81's, modulo 65,537): the same numbers in every MicroPython,
    and all of them small ints on the chip, whose multiplications of 30-bit numbers made a
    long int each."""

    def __init__(self, seed):
        self.state = seed

    def below(self, n):
        self.state = (self.state * 75 + 74) % 65537
        return self.state % n


# Rounds of presses and knocks in ``everything``: fewer on the emulated chip, which is slower.
_ON_CHIP = sys.platform == "rp2"
CHIP_ROUNDS = 2
_ROUNDS = CHIP_ROUNDS if _ON_CHIP else 4
_CHUNK = 64  # samples a digest covers
_DIGESTS = "press_digests.json"  # on the chip: the reference's digests, from the unix port


# ``everything`` at its longest is 3,829 samples: one buffer serves every call, taken in one
# piece at import (a buffer grown sample by sample splits a 192K heap).
_MOST_VALUES = 15000
_VALUES = array("h", bytes(2 * _MOST_VALUES))


def everything(seed, rounds=_ROUNDS):
    """A few seconds of everything the detector meets: rest with noise, presses with and
    without releases (one upside down), knocks that rock the unit, a lift, a tilt to
    another up, blows at the sensor's limits. (x, y, z values in a view of ``_VALUES``,
    which the next call overwrites.)"""
    noise = Noise(seed)
    count = [0]

    def jitter(samples, amount):
        k = count[0]
        state = noise.state
        span = 2 * amount + 1
        for sample in samples:
            for value in sample:
                state = (state * 75 + 74) % 65537  # Noise.below inline: most of the time here
                _VALUES[k] = value + state % span - amount
                k += 1
        noise.state = state
        count[0] = k

    jitter(rest(300), 6)
    for _ in range(rounds):
        jitter(press(200 + noise.below(2000), 20 + noise.below(200), noise.below(400)), 8)
        jitter(rest(50 + noise.below(300)), 6)
        jitter(blow(300 + noise.below(3000), sideways=(noise.below(3000), 900, 0)), 20)
        jitter(rest(noise.below(200)), 40)
    jitter(press(-700, 60, -150) + rest(300), 8)  # the sensor upside down: a press goes up
    tilted = (700, 0, 700)
    jitter([(700 * k // 60, 0, 1000 - 300 * k // 60) for k in range(60)], 30)  # a tilt
    jitter(rest(200, tilted) + press(900) + rest(200, tilted), 6)
    jitter([(-8000, 8000, -8000), (8000, -8000, 8000)] * 10, 0)  # the sensor's limits
    jitter([(0, 0, 1000 + noise.below(600) - 300) for _ in range(150)], 200)  # in a hand
    jitter(rest(300), 4)
    return memoryview(_VALUES)[: count[0]]


SETTINGS_TRIED = (
    {},
    {"pop_on": "press"},
    {"band_samples": 1, "polarity": 0, "window_samples": 1, "lead_ratio": 4.0},
    {"band_samples": 4, "polarity": 1, "window_samples": 3, "max_sideways": 8.0},
    {"threshold_mg": 20, "contrast": 1.0, "refractory_ms": 0, "settle_ms": 0},
    {"release_polarity": 0, "release_ratio": 0.0, "release_contrast": 1.0, "hold_min_ms": 0},
    {"release_polarity": 1, "release_sideways": 8.0, "hold_max_ms": 50, "moving_mg": 4},
    {"pop_on": "press", "release_polarity": 0, "hold_max_ms": 5000, "moving_mg": 192},
)


def test_the_detector_is_its_reference_on_every_sample():
    """Sample by sample against the plain reference; on the emulated chip, where the reference
    runs some 200 times slower than on the unix port, against what the reference computed on
    the unix port before the run (``reference_digests``), a digest to every 64 samples."""
    if _ON_CHIP:
        _against_the_references_digests(load(_DIGESTS))
        return
    for seed, changes in enumerate(SETTINGS_TRIED):
        settings = settings_with(**changes)
        detector = PressDetector(settings)
        reference = ReferenceDetector(settings)
        samples = everything(seed + 1)
        for i in range(0, len(samples), 3):
            x, y, z = samples[i], samples[i + 1], samples[i + 2]
            got = detector.update(x, y, z)
            wanted = reference.update(x, y, z)
            measured = (
                detector.value(IMPULSE),
                detector.value(LEAD),
                detector.value(BACKGROUND),
                detector.value(STILL),
            )
            expected = (reference.impulse, reference.lead, reference.background, reference.still)
            assert measured == expected, (changes, i, measured, expected)
            assert (got, detector.state) == (wanted, reference.state), (changes, i, got, wanted)
        assert detector.counts() == reference.counts, changes
        assert sum(reference.counts.values()) >= 2, changes


def test_digests_of_the_detector_and_of_its_reference_agree():
    """What the chip's comparison rests on: the same samples give the same digests (not on
    the chip, where the reference is slow), and a sample that differs changes its digest."""
    for seed, changes in enumerate(() if _ON_CHIP else SETTINGS_TRIED):
        settings = settings_with(**changes)
        samples = everything(seed + 1)
        wanted = _reference_digests(ReferenceDetector(settings), samples)
        assert _detector_digests(PressDetector(settings), samples) == wanted, changes
        assert len(wanted) == (len(samples) // 3 + _CHUNK - 1) // _CHUNK
    samples = everything(1)
    wanted = _detector_digests(PressDetector(settings_with()), samples)
    samples[3 * 700 + 2] += 500  # one sample, 500 mg more along up
    changed = _detector_digests(PressDetector(settings_with()), samples)
    assert changed[:10] == wanted[:10] and changed[10] != wanted[10]


def reference_digests(rounds=_ROUNDS):
    """For every settings tried, the reference's digests over ``everything`` and its counts
    (JSON-ready: tests/test_rp2040.py has the unix port write them for the chip, with the
    chip's rounds)."""
    cases = []
    for seed, changes in enumerate(SETTINGS_TRIED):
        reference = ReferenceDetector(settings_with(**changes))
        samples = everything(seed + 1, rounds)
        found = _reference_digests(reference, samples)
        cases.append({"digests": found, "counts": reference.counts})
    return {"rounds": rounds, "chunk": _CHUNK, "cases": cases}


def _against_the_references_digests(expected):
    assert (expected["rounds"], expected["chunk"]) == (_ROUNDS, _CHUNK)
    assert len(expected["cases"]) == len(SETTINGS_TRIED)
    for seed, changes in enumerate(SETTINGS_TRIED):
        detector = PressDetector(settings_with(**changes))
        samples = everything(seed + 1)
        found = _detector_digests(detector, samples)
        wanted = expected["cases"][seed]["digests"]
        differs = [k for k in range(len(wanted)) if k >= len(found) or found[k] != wanted[k]]
        assert len(found) == len(wanted) and not differs, (
            changes,
            "first differs at sample %d" % (differs[0] * _CHUNK if differs else len(found)),
        )
        assert detector.counts() == expected["cases"][seed]["counts"], changes


# A digest's record of each sample: its event, then the slots from IMPULSE to BACKGROUND,
# then STILL and STATE (as the detector keeps them, biased), little-endian 32-bit words.
_RECORD = "<6i"


def _slot_bias():
    """What the detector adds to each slot's value (slots hold biased small ints)."""
    detector = PressDetector(settings_with())
    return detector.slots[STATE] - detector.value(STATE)


def _digests(samples, add):
    """A CRC32 of every ``_CHUNK`` samples' records; ``add(x, y, z, crc)`` takes one sample
    and carries ``crc`` on over its record."""
    found = []
    crc = 0
    k = 0
    for i in range(0, len(samples), 3):
        crc = add(samples[i], samples[i + 1], samples[i + 2], crc)
        k += 1
        if k == _CHUNK:
            found.append(crc)
            crc = 0
            k = 0
    if k:
        found.append(crc)
    return found


def _detector_digests(detector, samples):
    """The detector's digests, its records read straight from its slots: the chip's
    comparison is over some 20,000 samples, and a record built value by value took six times
    as long as the detector itself."""
    slots = memoryview(detector.slots)
    measures = slots[IMPULSE : BACKGROUND + 1]
    still_and_state = slots[STILL : STATE + 1]
    event = array("i", [0])
    update = detector.update

    def add(x, y, z, crc):
        event[0] = update(x, y, z)
        return crc32(still_and_state, crc32(measures, crc32(event, crc)))

    return _digests(samples, add)


def _reference_digests(reference, samples):
    """The same digests of the plain reference, its records packed value by value."""
    bias = _slot_bias()
    record = bytearray(struct.calcsize(_RECORD))

    def add(x, y, z, crc):
        event = reference.update(x, y, z)
        values = (reference.impulse, reference.lead, reference.background, reference.still)
        biased = [value + bias for value in values]
        struct.pack_into(_RECORD, record, 0, event, *biased, reference.state + bias)
        return crc32(record, crc)

    return _digests(samples, add)


def test_a_press_cues_on_its_blow_and_pops_on_its_release():
    for depth, release in ((300, 60), (800, 200), (4000, 600)):
        detector = detector_with()
        samples = press(depth, hold=100, release_mg=release) + rest(400)
        release_at = len(blow(depth)) + 100
        events = feed(detector, samples)
        assert [event for _, event in events] == [CUE, POP], (depth, events)
        assert 1 <= events[0][0] <= 4, events
        assert release_at + 1 <= events[1][0] <= release_at + 3, (release_at, events)


def test_popping_on_the_press_pops_on_its_blow_and_lets_the_release_pass():
    detector = detector_with(pop_on="press")
    events = feed(detector, press(800) + rest(200) + press(800) + rest(200))
    assert [event for _, event in events] == [POP, POP]
    assert detector.counts()["releases"] == 2


def test_a_blow_that_never_releases_is_cancelled():
    detector = detector_with(hold_max_ms=500)
    events = feed(detector, press(800, release_mg=0) + rest(300))
    assert [event for _, event in events] == [CUE, CANCEL]
    assert events[1][0] - events[0][0] == 500 * 1000 // 2500 + 1


def test_a_release_before_the_hold_has_begun_does_not_count():
    detector = detector_with(hold_min_ms=100)
    events = feed(detector, press(800, hold=10) + rest(100) + blow(200, RELEASE_SHAPE) + rest(50))
    assert [event for _, event in events] == [CUE, POP]
    assert events[1][0] > len(press(800, hold=10)) + 100


def test_a_knock_that_rocks_the_unit_is_no_press():
    detector = detector_with()
    events = feed(detector, blow(1500, sideways=(3000, -2000, 0)) + rest(800))
    assert events == [] and detector.counts()["rejected"] == 1


def test_a_unit_lifted_during_the_hold_is_cancelled():
    detector = detector_with(moving_mg=16)
    lift = [(0, 0, 1000 + 300 * k // 10) for k in range(10)] + rest(60, (0, 0, 1300))
    events = feed(detector, blow(800) + rest(20) + lift + rest(600))
    assert [event for _, event in events] == [CUE, CANCEL]


def test_a_press_shaking_the_unit_before_its_hold_begins_is_still_a_press():
    """A hard press sags the unit into its feet for a moment, which the stillness keeps for
    a while: before ``hold_min_ms`` that is the press's own, from then on the unit moving."""
    sag = rest(16, (0, 0, 700))
    samples = blow(3000) + sag + rest(150) + blow(400, RELEASE_SHAPE) + rest(100)
    events = feed(detector_with(moving_mg=16, hold_min_ms=250), samples)
    assert [event for _, event in events] == [CUE, POP], events
    events = feed(detector_with(moving_mg=16, hold_min_ms=20), samples)
    assert [event for _, event in events] == [CUE, CANCEL], events


def test_a_hard_press_blow_does_not_leave_gravity_off_as_a_hand_would():
    """A press blow of several g that rocks the unit moves the measured gravity by a few mg
    only: through a long quiet hold the stillness stays under ``moving_mg`` and the press
    pops on its release. (Gravity pulled by 4 mg a sample read 17 mg and cancelled it.)"""
    detector = detector_with(moving_mg=16, hold_min_ms=60, hold_max_ms=2000)
    events = feed(detector, HARD_PRESS)
    assert [event for _, event in events] == [CUE], events
    most = 0
    for sample in rest(200):
        assert detector.update(*sample) == NOTHING
        most = max(most, detector.value(STILL))
    assert detector.state == HOLD
    assert most <= 12, most
    events = feed(detector, blow(500, RELEASE_SHAPE) + rest(100))
    assert [event for _, event in events] == [POP], events


def test_a_release_that_goes_the_wrong_way_is_no_release():
    detector = detector_with(release_polarity=-1, hold_max_ms=400)
    down = [(0, 0, 1000 - 300 * min(k, 2) // 2 + 300 * max(k - 2, 0) // 80) for k in range(83)]
    events = feed(detector, blow(800) + rest(80) + down + rest(200))
    assert [event for _, event in events] == [CUE, CANCEL]
    detector = detector_with(release_polarity=1, hold_max_ms=400)
    events = feed(detector, blow(800) + rest(80) + down + rest(200))
    assert [event for _, event in events] == [CUE, POP]


def test_gravity_on_another_axis_is_the_up_axis():
    gravity = (1000, 0, 0)
    detector = PressDetector(settings_with())
    assert check_settings(BASE) == BASE
    feed(detector, rest(400, gravity))
    samples = blow(800, up=(1, 0, 0), gravity=gravity) + rest(80, gravity)
    samples += blow(200, RELEASE_SHAPE, up=(1, 0, 0), gravity=gravity) + rest(100, gravity)
    assert [event for _, event in feed(detector, samples)] == [CUE, POP]


def test_settings_are_checked_and_completed():
    assert check_settings({}) == defaults()
    assert len(SETTINGS) <= 16
    assert check_settings({"threshold_mg": 200.0})["threshold_mg"] == 200
    for bad, reason in (
        ([], "not an object"),
        ({"hold_ms": 1}, "unknown hold_ms"),
        ({"threshold_mg": 1}, "threshold_mg is out of range (20 to 4000)"),
        ({"threshold_mg": float("inf")}, "threshold_mg is out of range"),
        ({"threshold_mg": float("nan")}, "threshold_mg is out of range"),
        ({"contrast": float("-inf")}, "contrast is out of range (1.0 to 30.0)"),
        ({"band_samples": 1.5}, "band_samples is not a whole number"),
        ({"contrast": "2"}, "contrast is not a number"),
        ({"polarity": True}, "polarity is not a number"),
        ({"pop_on": "later"}, "pop_on is not release or press"),
    ):
        try:
            check_settings(bad)
        except ValueError as error:
            assert reason in str(error), (bad, error)
        else:
            raise AssertionError(bad)


def test_sample_numbers_stay_small():
    detector = detector_with()
    detector.rebase(-((1 << 27) - detector.samples - 5))  # as if it had run for 3.9 days
    events = feed(detector, rest(10) + press(800) + rest(100))
    assert [event for _, event in events] == [CUE, POP]
    assert detector.samples < 1 << 27


def test_nothing_is_allocated_per_sample_with_any_settings():
    samples = everything(7)
    for changes in SETTINGS_TRIED:
        detector = detector_with(**changes)
        update = detector.update
        detector.rebase(-((1 << 27) - detector.samples - 100))  # a rebase under the lock too
        micropython.heap_lock()
        try:
            for i in range(0, len(samples), 3):
                update(samples[i], samples[i + 1], samples[i + 2])
        finally:
            micropython.heap_unlock()
        counts = detector.counts()
        assert counts["cues"] + counts["pops"] + counts["rejected"] >= 1, changes


def test_the_states_follow_a_press():
    detector = detector_with()
    seen = []
    for sample in press(800) + rest(100):
        event = detector.update(*sample)
        if event != NOTHING or not seen or seen[-1] != detector.state:
            seen.append(detector.state)
    assert seen[:3] == [ARMED, 2, HOLD], seen
