"""The popper end to end: presses, bumps, modes, rerolls, LEDs, status (simulated Pico).

The tests that feed the accelerometer or press buttons need the simulator's control
channel and are skipped on a real board; the command tests run there too.
"""

from __future__ import annotations

import pytest

import popdice
from popdice.devices.link import DeviceReboot, Event
from popdice.devices.popper import Pop
from popdice.sim.physics import scenes

LED_DICE = 5
PIPS = {1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8]}
COLOUR_CHANNELS = {  # which channels are lit, from firmware/popdice_fw/leds.py
    "red": (1, 0, 0),
    "orange": (1, 1, 0),
    "yellow": (1, 1, 0),
    "green": (0, 1, 0),
    "blue": (0, 1, 1),
    "purple": (1, 0, 1),
    "white": (1, 1, 1),
}

pytestmark = pytest.mark.rp2040_tier


def resting(seconds: float) -> list[tuple[float, float, float]]:
    """The unit at rest, upright, for ``seconds`` at 400 Hz."""
    return [(0.0, 0.0, 1.0)] * int(400 * seconds)


def next_of_kind(client, kind: str, timeout: float = 10.0) -> Event:
    while True:
        item = client.next_event(timeout)
        assert item is not None, f"no {kind} event"
        if isinstance(item, Event) and item.kind == kind:
            return item


def lit_pixels(frame, die):
    return [i for i in range(9) if any(frame[9 * die + i])]


def shows(frame, pop: Pop) -> bool:
    """Whether an LED frame shows the dice of ``pop`` the way the popper draws them."""
    if len(frame) != 45:
        return False
    for die in range(LED_DICE):
        if die >= len(pop.dice):
            if lit_pixels(frame, die):
                return False
            continue
        value = pop.dice[die]
        if "number" in value:
            if lit_pixels(frame, die) != PIPS[value["number"]]:
                return False
            colour = value.get("color", "white") if pop.mode == "popalotsy" else "white"
        else:
            if lit_pixels(frame, die) != list(range(9)):
                return False
            colour = value["color"]
        pixel = frame[9 * die + lit_pixels(frame, die)[0]]
        if tuple(int(c > 0) for c in pixel) != COLOUR_CHANNELS[colour]:
            return False
    return True


@pytest.mark.fast_feed
def test_a_press_gives_exactly_one_pop_and_the_leds_show_it(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    mark = control.mark()
    control.feed_accel(scenes.press_trace(seed=1).samples_g, wait=True)
    pop = Pop.from_event(next_of_kind(client, "pop"))
    assert pop is not None and pop.source == "press" and pop.mode == "popalotsy"
    assert len(pop.dice) == 5 and all(1 <= n <= 6 for n in pop.numbers())
    control.wait_for("leds", lambda e: shows(control.leds(), pop), timeout=5, after=mark)
    control.feed_accel(resting(0.5), wait=True)
    assert client.status().extra["pops"] == 1


@pytest.mark.fast_feed
def test_a_knock_on_the_table_pops_nothing(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    control.feed_accel(scenes.knock_trace(seed=2, peak_g=3.0).samples_g, wait=True)
    control.feed_accel(resting(0.3), wait=True)
    status = client.status().extra
    assert status["pops"] == 0 and status["samples"] > 100


def test_the_mode_button_and_the_mode_command(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    assert client.mode() == "popalotsy"
    control.click("mode")
    changed = next_of_kind(client, "mode")
    assert changed.data == {"mode": "lowdown", "source": "button"}
    assert client.set_mode("ringer") == "ringer"
    assert next_of_kind(client, "mode").data == {"mode": "ringer", "source": "host"}
    control.click("mode")
    assert next_of_kind(client, "mode").data["mode"] == "popalotsy"


@pytest.mark.parametrize("mode", ["popalotsy", "lowdown", "ringer"])
def test_each_mode_pops_its_dice(popper, mode):
    popper.set_mode(mode)
    pop = popper.pop()
    assert pop.mode == mode and pop.source == "host"
    if mode == "popalotsy":
        assert [d["color"] for d in pop.dice] == ["red", "orange", "yellow", "green", "blue"]
    elif mode == "lowdown":
        assert len(pop.numbers()) == 2 and len(pop.colors()) == 2
        assert set(pop.colors()) <= {"red", "orange", "purple", "blue", "green", "yellow"}
    else:
        assert len(pop.dice) == 1 and 1 <= pop.numbers()[0] <= 6


def test_the_leds_show_each_mode(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    client.settings(animation=False)
    for mode in ("lowdown", "ringer", "popalotsy"):
        client.set_mode(mode)
        mark = control.mark()
        pop = client.pop()
        control.wait_for("leds", lambda e, p=pop: shows(control.leds(), p), timeout=5, after=mark)


@pytest.mark.fast_feed
def test_a_voided_pop_shows_a_bar_on_each_die_of_the_mode(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    client.settings(animation=False)
    client.set_mode("lowdown")
    first = client.pop()
    later = client.pop()
    assert not client.void(first.roll)  # a later pop is on show: left as it is
    mark = control.mark()
    assert client.void(later.roll)
    bars = [[3, 4, 5]] * 4 + [[]]
    control.wait_for(
        "leds",
        lambda e: [lit_pixels(control.leds(), die) for die in range(LED_DICE)] == bars,
        timeout=5,
        after=mark,
    )
    with pytest.raises(popdice.BadArguments):
        client.link.call("void", {"roll": later.roll, "die": 0})


def test_reroll_changes_one_die_only(popper):
    popper.set_mode("lowdown")
    first = popper.pop()
    seen_change = False
    for _ in range(20):
        again = popper.reroll(2)
        assert again.reroll == 2 and again.roll > first.roll
        assert again.dice[:2] == first.dice[:2] and again.dice[3] == first.dice[3]
        seen_change |= again.dice[2] != first.dice[2]
        first = again
    assert seen_change
    with pytest.raises(popdice.BadArguments):
        popper.reroll(4)


def test_reroll_before_any_pop_is_refused(popper):
    popper.set_mode("ringer")
    with pytest.raises(popdice.DeviceError, match="no_roll"):
        popper.reroll(0)


def test_every_pop_is_an_event_with_a_new_roll_id(popper):
    pops = [popper.pop() for _ in range(5)]
    events = [Pop.from_event(next_of_kind(popper, "pop")) for _ in range(5)]
    assert (
        [p.roll for p in pops]
        == [e.roll for e in events if e]
        == list(range(pops[0].roll, pops[0].roll + 5))
    )


def test_settings_brightness_and_the_current_cap(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    settings = client.settings(brightness=255, animation=False, cap_ma=100)
    assert (settings.brightness, settings.cap_ma, settings.animation) == (255, 100, False)
    mark = control.mark()
    client.pop()
    control.wait_for("leds", timeout=5, after=mark)
    frame = control.leds()
    assert sum(sum(p) for p in frame) * 20 / 255 <= 100
    with pytest.raises(popdice.BadArguments):
        client.settings(brightness=300)


def test_status_reports_the_sensor_and_the_heap(popper_dut):
    status = popper_dut.client.status()
    assert status.heap_free >= popper_dut.heap_floor
    assert status.extra["accel"] == "ok" and status.extra["mode"] == "popalotsy"
    assert status.extra["accel_address"] == 0x18
    for key in ("samples", "pops", "overruns", "uptime_ms"):
        assert key in status.extra or hasattr(status, key)


# Settings under which the table model's presses pop (press_trace) and a 3 g knock does not.
WORKING_SETTINGS = {"band_samples": 2, "polarity": -1, "threshold_mg": 120, "contrast": 2.0}


@pytest.mark.fast_feed
def test_detector_settings_are_kept_in_flash_and_used_at_once(popper_dut):
    control, client = popper_dut.control, popper_dut.client
    built_in = client.detector()
    assert built_in.source == "built-in" and built_in.settings is not None
    assert built_in.settings["pop_on"] == "release"
    deaf = client.set_detector({"threshold_mg": 4000})
    assert deaf.source == "detector.json" and deaf.settings["threshold_mg"] == 4000
    assert deaf.settings["band_samples"] == built_in.settings["band_samples"], "the rest built in"
    control.feed_accel(scenes.press_trace(seed=1).samples_g, wait=True)
    control.feed_accel(resting(0.3), wait=True)
    assert client.status().extra["pops"] == 0, "a press under the threshold popped"

    with pytest.raises(popdice.BadArguments, match="threshold_mg is out of range"):
        client.set_detector({"threshold_mg": 1})
    assert client.set_detector(WORKING_SETTINGS).settings["threshold_mg"] == 120
    control.feed_accel(scenes.press_trace(seed=1).samples_g, wait=True)
    assert Pop.from_event(next_of_kind(client, "pop")).source == "press"  # type: ignore[union-attr]

    control.reset()
    assert isinstance(client.next_event(20), DeviceReboot)
    kept = client.detector()
    assert kept.source == "detector.json" and kept.settings["threshold_mg"] == 120
    assert client.status().extra["detector"] == "detector.json"
    assert client.reset_detector() == built_in


@pytest.mark.fast_feed
def test_a_bad_detector_file_falls_back_to_the_built_in_detector(popper_dut):
    sim = popper_dut.sim
    if sim is None or sim.backend != "unix" or sim.flash_dir is None:
        pytest.skip("writes the flash folder of the unix port's simulated board")
    client = popper_dut.client
    (sim.flash_dir / "detector.json").write_text('{"settings": {"band_samples": 9}}')
    popper_dut.control.reset()
    assert isinstance(client.next_event(20), DeviceReboot)
    status = client.status().extra["detector"]
    assert status.startswith("built-in (detector.json:") and "band_samples" in status
    control = popper_dut.control
    control.feed_accel(scenes.press_trace(seed=1).samples_g, wait=True)
    assert Pop.from_event(next_of_kind(client, "pop")) is not None, "the built-in one pops"
