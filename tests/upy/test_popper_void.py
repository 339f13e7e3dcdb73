"""The popper's ``void`` command inside MicroPython: a roll the host did not count is shown
as a bar on each die (a pattern no face has), only if it is the roll on show, and stays
through redraws until the next pop."""

import asyncio

from fakeport import FakePort
from fakestrip import Strip

from popdice_fw.link import BAD_ARGS, CommandError
from popdice_fw.popper import Popper


class Level:
    def __init__(self, level):
        self.level = level

    def value(self):
        return self.level


def popper():
    """A popper with no accelerometer: it pops by command only."""
    return Popper(
        i2c=None,
        accel_int=Level(0),
        leds=Strip(),
        mode_button=Level(1),
        buzzer=None,
        port=FakePort(),
        accel=None,
        accel_addresses=(),
    )


def lit_pixels(app, die):
    frame = app.leds.shown
    return [i for i in range(9) if any(frame[27 * die + 3 * i : 27 * die + 3 * i + 3])]


async def test_void_puts_a_bar_on_the_roll_shown_and_only_on_that_roll():
    app = popper()
    app.set_mode("lowdown", "test")
    app.start_tasks()
    first = app.pop("host")["roll"]
    await asyncio.sleep_ms(500)  # the tumble is over
    assert app.cmd_void({"roll": first}) == {"roll": first, "voided": True}
    assert app.result is None and app.voided
    for die in range(4):
        assert lit_pixels(app, die) == [3, 4, 5], die  # the middle row: no face has it
    assert lit_pixels(app, 4) == []
    app.cmd_settings({"brightness": 40})  # a redraw keeps the bar
    assert lit_pixels(app, 0) == [3, 4, 5]
    second = app.pop("host")["roll"]
    assert app.cmd_void({"roll": first}) == {"roll": first, "voided": False}
    await asyncio.sleep_ms(500)
    assert not app.voided and app.result is not None and lit_pixels(app, 0) != [3, 4, 5]
    assert app.cmd_void({"roll": second})["voided"]
    app.link.supervisor.cancel_all()


async def test_a_void_during_the_tumble_stops_it_on_the_bar():
    app = popper()
    app.set_mode("ringer", "test")
    app.start_tasks()
    roll = app.pop("host")["roll"]
    await asyncio.sleep_ms(60)  # a frame or two into the tumble
    assert app.cmd_void({"roll": roll})["voided"]
    await asyncio.sleep_ms(500)
    assert lit_pixels(app, 0) == [3, 4, 5] and app.result is None
    app.link.supervisor.cancel_all()


def test_void_refuses_what_it_does_not_take():
    app = popper()
    for args in ({}, {"roll": None}, {"roll": 0}, {"roll": 1 << 40}, {"roll": 1, "x": 1}):
        try:
            app.cmd_void(args)
        except CommandError as error:
            assert error.code == BAD_ARGS, args
        else:
            raise AssertionError(args)
    assert app.cmd_void({"roll": 7}) == {"roll": 7, "voided": False}  # nothing popped yet
