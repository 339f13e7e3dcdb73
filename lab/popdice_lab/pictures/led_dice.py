"""The popper's five LED dice in each of its modes, drawn from the frames its firmware writes.

A simulated popper (the unchanged firmware on the MicroPython unix port) pops once in every
mode it has; then each die is rolled again (the ``reroll`` command, Ringer's Reroll power,
takes any die of any mode) until the roll is the one ``ROLLS`` names, so the picture is the
same every time while every pixel in it is a byte the firmware wrote to its strip, read back
over the simulator's control channel.

A frame is taken only once it shows the finished roll: the brightness is stepped by one
and back (each change redraws the dice at once), and the frame kept is the first at the
usual brightness after one at the stepped brightness, so neither can be a frame drawn before
the last reroll. The LEDs are drawn at full brightness: each byte times 255 over the
brightness the firmware drew at (its default, 96).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from popdice.devices.connect import connect_when_ready
from popdice.devices.popper import Popper
from popdice.errors import PopdiceError
from popdice.sim import SimControl, SimulatedPico
from popdice.sim.protocol import SimEvent

from .svg import DRAWN_BY, Canvas, colour

FILE = "popper-leds.svg"
DICE = 5
PIXELS_PER_DIE = 9
MAX_REROLLS = 400  # per die: a face a sixth of the time comes up within this almost surely
WAIT_S = 5.0

# The roll each mode's picture shows: one value a die, as the popper reports it.
ROLLS: dict[str, list[dict[str, Any]]] = {
    "popalotsy": [
        {"color": "red", "number": 3},
        {"color": "orange", "number": 6},
        {"color": "yellow", "number": 2},
        {"color": "green", "number": 5},
        {"color": "blue", "number": 4},
    ],
    "lowdown": [{"number": 4}, {"number": 1}, {"color": "purple"}, {"color": "green"}],
    "ringer": [{"number": 5}],
}

ABOUT = {
    "popalotsy": "five dice, each in its colour",
    "lowdown": "two number dice, two colour dice",
    "ringer": "one die",
}

Frame = list[tuple[int, ...]]

DIE_SIZE = 84
LED_PITCH = 24
LED_RADIUS = 8
GLOW_RADIUS = 11
DIE_GAP = 18
LEFT = 250
TOP = 64
ROW_HEIGHT = 120
MARGIN = 20
BACKGROUND = "#1e1e1e"
BODY = "#0d0d0d"
UNLIT = "#2c2c2c"
INK = "#e8e8e8"
MUTED = "#a0a0a0"


def frames() -> tuple[int, dict[str, Frame]]:
    """The brightness the firmware drew at, and the LED frame of each mode's roll."""
    with SimulatedPico("popper") as sim:
        client = connect_when_ready(sim.port)
        if not isinstance(client, Popper):
            raise PopdiceError(f"the simulated popper answered as a {client.info.board}")
        with client, SimControl(sim.control_path) as control:
            brightness = client.settings(animation=False).brightness
            shown = {}
            for mode in client.modes():
                if mode not in ROLLS:
                    raise PopdiceError(f"the firmware has a mode the picture lacks: {mode}")
                client.set_mode(mode)
                roll_to(client, ROLLS[mode])
                shown[mode] = finished_frame(client, control, brightness)
    return brightness, shown


def roll_to(popper: Popper, wanted: list[dict[str, Any]]) -> None:
    """Pops, then rolls each die again until it shows what ``wanted`` says."""
    dice = list(popper.pop().dice)
    if len(dice) != len(wanted):
        raise PopdiceError(f"the popper pops {len(dice)} dice in this mode, not {len(wanted)}")
    for die, value in enumerate(wanted):
        for _ in range(MAX_REROLLS):
            if dice[die] == value:
                break
            dice[die] = popper.reroll(die).dice[die]
        else:
            raise PopdiceError(f"die {die} did not come up {value} in {MAX_REROLLS} rolls")


def finished_frame(popper: Popper, control: SimControl, brightness: int) -> Frame:
    """The frame of the roll the popper holds now, drawn after it was rolled."""
    step = brightness + 1 if brightness < 255 else brightness - 1
    mark = control.mark()
    popper.settings(brightness=step)
    stepped = control.wait_for("leds", drawn_at(step), WAIT_S, after=mark)
    popper.settings(brightness=brightness)
    return control.wait_for("leds", drawn_at(brightness), WAIT_S, after=stepped.seq)["pixels"]


def drawn_at(brightness: int) -> Callable[[SimEvent], bool]:
    """Whether a frame was drawn at ``brightness``: each die colour has a full channel, so
    its brightest byte is the brightness (frames this light are never capped)."""

    def check(event: SimEvent) -> bool:
        pixels = event["pixels"]
        return len(pixels) == DICE * PIXELS_PER_DIE and max(max(p) for p in pixels) == brightness

    return check


def draw(brightness: int, shown: dict[str, Frame]) -> bytes:
    width = LEFT + DICE * DIE_SIZE + (DICE - 1) * DIE_GAP + MARGIN
    height = TOP + ROW_HEIGHT * len(shown) + 30
    canvas = Canvas(width, height, BACKGROUND)
    canvas.text(MARGIN, 30, "The popper's LED dice in each mode", 18, fill=INK, weight="bold")
    canvas.text(
        MARGIN,
        50,
        "frames the unchanged firmware wrote to its strip on a simulated popper, "
        f"shown at full brightness (bytes x 255/{brightness})",
        11,
        fill=MUTED,
    )
    for row, (mode, frame) in enumerate(shown.items()):
        top = TOP + row * ROW_HEIGHT + 10
        canvas.text(MARGIN, top + 36, mode, 16, fill=INK, weight="bold")
        canvas.text(MARGIN, top + 56, ABOUT.get(mode, ""), 11, fill=MUTED)
        roll = ROLLS[mode]
        for die in range(DICE):
            left = LEFT + die * (DIE_SIZE + DIE_GAP)
            pixels = frame[die * PIXELS_PER_DIE : (die + 1) * PIXELS_PER_DIE]
            draw_die(canvas, left, top, pixels, brightness)
            label = die_text(roll[die]) if die < len(roll) else "dark"
            canvas.text(left + DIE_SIZE / 2, top + DIE_SIZE + 15, label, 11, "middle", MUTED)
    canvas.text(MARGIN, height - 12, DRAWN_BY, 10, fill=MUTED)
    return canvas.document()


def draw_die(
    canvas: Canvas, left: float, top: float, pixels: Sequence[Sequence[int]], brightness: int
) -> None:
    canvas.rect(left, top, DIE_SIZE, DIE_SIZE, BODY, rx="12")
    inset = (DIE_SIZE - 2 * LED_PITCH) / 2
    for index, pixel in enumerate(pixels):
        x = left + inset + (index % 3) * LED_PITCH
        y = top + inset + (index // 3) * LED_PITCH
        if not any(pixel):
            canvas.circle(x, y, LED_RADIUS, UNLIT)
            continue
        fill = colour(full_brightness(pixel, brightness))
        canvas.circle(x, y, GLOW_RADIUS, fill, opacity="0.35")
        canvas.circle(x, y, LED_RADIUS, fill)


def full_brightness(pixel: Sequence[int], brightness: int) -> tuple[int, int, int]:
    r, g, b = (min(255, channel * 255 // brightness) for channel in pixel[:3])
    return r, g, b


def die_text(value: dict[str, Any]) -> str:
    return " ".join(str(value[key]) for key in ("color", "number") if key in value)


def pictures() -> dict[str, bytes]:
    brightness, shown = frames()
    return {FILE: draw(brightness, shown)}
