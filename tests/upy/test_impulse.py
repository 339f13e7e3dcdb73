"""The settings-driven press detector inside MicroPython: a press within the window, each
setting doing what it says (threshold, polarity, lead, sideways, moving, refractory, the
release's hold), settings checked on the way in, sample numbers that stay small, and nothing
allocated per sample whatever the settings."""

import micropython

from popdice_fw.impulse import (
    ARMED,
    SETTINGS,
    SETTLING,
    ImpulseDetector,
    check_settings,
    defaults,
)

REST = (0, 0, 1000)
# a press through the sensor's filter: a dip along up over a few samples (per mille of its
# depth), then a small rebound; a release or the far side of a swing: up first
PRESS_SHAPE = (0, -300, -1000, -650, -150, 120, 60, 0)
UP_FIRST_SHAPE = (0, 600, 1000, 0, -1000, -600, 0, 0)


def detector_with(**changes):
    settings = defaults()
    settings.update(changes)
    detector = ImpulseDetector(settings)
    feed(detector, rest(400))
    assert detector.state == ARMED
    return detector


def rest(samples, gravity=REST):
    return [gravity] * samples


def blow(depth_mg, shape=PRESS_SHAPE, up=(0, 0, 1), sideways=(0, 0, 0), gravity=REST):
    out = []
    for part in shape:
        along = depth_mg * part // 1000
        out.append(
            (
                gravity[0] + along * up[0] + sideways[0] * part // 1000,
                gravity[1] + along * up[1] + sideways[1] * part // 1000,
                gravity[2] + along * up[2] + sideways[2] * part // 1000,
            )
        )
    return out


def feed(detector, samples):
    return [i for i, sample in enumerate(samples) if detector.update(*sample)]


def test_a_press_is_recognised_once_within_four_samples():
    for depth in (200, 800, 4000):
        detector = detector_with()
        hits = feed(detector, blow(depth) + rest(200))
        assert len(hits) == 1 and 1 <= hits[0] <= 4, (depth, hits)
        assert detector.presses == 1 and detector.last_depth_mg >= depth // 2


def test_the_threshold_and_the_polarity():
    assert feed(detector_with(threshold_mg=400), blow(300) + rest(100)) == []
    assert len(feed(detector_with(threshold_mg=200), blow(300) + rest(100))) == 1
    upward = [(x, y, 2000 - z) for x, y, z in blow(800)]
    assert feed(detector_with(polarity=-1), upward + rest(100)) == []
    assert len(feed(detector_with(polarity=1), upward + rest(100))) == 1
    assert len(feed(detector_with(polarity=0), upward + rest(100))) == 1


def test_gravity_on_another_axis_is_the_up_axis():
    gravity = (0, -1000, 0)
    detector = ImpulseDetector()
    feed(detector, rest(400, gravity))
    assert len(feed(detector, blow(800, up=(0, -1, 0), gravity=gravity) + rest(100, gravity))) == 1
    detector = ImpulseDetector()
    feed(detector, rest(400, gravity))
    assert feed(detector, blow(800, up=(1, 0, 0), gravity=gravity) + rest(100, gravity)) == []


def test_a_lead_before_the_fall_and_a_sideways_blow_are_no_press():
    assert feed(detector_with(lead_ratio=0.3), blow(800, UP_FIRST_SHAPE) + rest(100)) == []
    assert len(feed(detector_with(lead_ratio=4.0), blow(800, UP_FIRST_SHAPE) + rest(100))) == 1
    sideways = blow(800, sideways=(1200, 0, 0))
    detector = detector_with(max_sideways=0.5)
    assert feed(detector, sideways + rest(100)) == [] and detector.rejected == 1
    assert len(feed(detector_with(max_sideways=8.0), sideways + rest(100))) == 1


def test_a_unit_that_moves_settles_before_a_press_counts():
    detector = detector_with(settle_ms=250)
    lifted = [(300, 0, 1200)] * 100  # carried: tilted and pushed about for 250 ms
    assert feed(detector, lifted) == []
    assert detector.state == SETTLING
    assert feed(detector, rest(40) + blow(800) + rest(40)) == [], "too soon after moving"
    feed(detector, rest(300))
    assert len(feed(detector, blow(800) + rest(40))) == 1


def test_moving_at_its_largest_never_moves():
    carried = [(900, -900, 100)] * 200  # shoved about hard: every axis at the stillness's cap
    detector = detector_with(moving_mg=60)
    feed(detector, carried)
    assert detector.state == SETTLING
    detector = detector_with(moving_mg=192)
    states, most = set(), 0
    for sample in carried:
        detector.update(*sample)
        states.add(detector.state)
        most = max(most, detector.still_mg)
    assert SETTLING not in states and 170 <= most <= 192, (states, most)


def test_refractory_and_the_releases_hold():
    detector = detector_with(refractory_ms=100, hold_ms=1500, release_ratio=0.5)
    assert len(feed(detector, blow(1000) + rest(10) + blow(1000) + rest(60))) == 1
    assert feed(detector, blow(300) + rest(200)) == [], "a weaker blow in the hold: the release"
    assert detector.releases == 1
    assert len(feed(detector, blow(300) + rest(200))) == 1, "the first release ends the hold"
    detector = detector_with(hold_ms=500, release_ratio=0.5)
    feed(detector, blow(1000) + rest(400))
    assert len(feed(detector, blow(300) + rest(100))) == 1, "after the hold a weak press counts"


def test_settings_are_checked_and_completed():
    assert check_settings({}) == defaults()
    for name, low, high, _default in SETTINGS:
        for bad in (low - 1, high + 1, "1", None, True):
            try:
                ImpulseDetector({name: bad})
            except ValueError as error:
                assert name in str(error)
            else:
                raise AssertionError((name, bad))
    for bad in ([], {"nope": 1}):
        try:
            check_settings(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(bad)


def test_sample_numbers_stay_small():
    detector = detector_with()
    detector.samples = (1 << 29) - 5
    detector._settled_at = detector.samples
    detector._quiet_until = detector.samples
    hits = feed(detector, rest(10) + blow(800) + rest(50))
    assert len(hits) == 1 and detector.samples < 1 << 29


def test_nothing_is_allocated_per_sample_with_any_settings():
    upward = [(x, y, 2000 - z) for x, y, z in blow(800)]
    samples = blow(800) + rest(300) + upward + rest(300)
    samples += blow(8000, sideways=(8000, -8000, 0)) + rest(30)
    samples += [(-8000, 8000, -8000), (8000, -8000, 8000)] * 10 + rest(300)
    for changes in (
        {},
        {"band_samples": 1, "polarity": 0, "window_samples": 1, "lead_ratio": 4.0},
        {"band_samples": 4, "polarity": 1, "window_samples": 3, "max_sideways": 8.0},
        {"threshold_mg": 20, "contrast": 1.0, "refractory_ms": 0, "settle_ms": 0},
    ):
        detector = detector_with(**changes)
        update = detector.update
        detector.samples = (1 << 29) - 100  # a rebase happens under the lock too
        micropython.heap_lock()
        try:
            for _ in range(3):
                for x, y, z in samples:
                    update(x, y, z)
        finally:
            micropython.heap_unlock()
        assert detector.presses + detector.rejected + detector.releases >= 1, changes
