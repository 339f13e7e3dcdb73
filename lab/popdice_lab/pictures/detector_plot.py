"""The detector plot: a press, a knock and a carry as the popper's accelerometer reads them,
with what the firmware's press detector made of each, sample by sample.

The traces come from the physical model (``popdice.sim.physics.scenes``, seeded); the detector is
``popdice_fw/press.py`` itself, with its built-in settings (popping on the release), loaded
into CPython as the tuner loads it (``traces.measured.firmware_module``), fed each sample as
the driver hands it over (``PressDetector.update``). For every sample the plot keeps the
detector's state (shaded: settling, armed, candidate, hold, refractory), the size of its
impulse against its threshold (on a log scale from the sensor's 4 mg step, so that the
threshold shows whatever the settings make it), and the event it brought: a cue (a press blow, the
dice get ready), a pop (the release: the dice pop) or a cancel (what cued was no press: it
did not release like one, or the unit moved). The model's own press and release are marked
too, so the pop can be read against the release it waits for.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from popdice.sim.physics import scenes
from popdice.traces.measured import defaults, firmware_module
from popdice.traces.trace import Trace, driver_mg

from .svg import DRAWN_BY, Canvas

FILE = "detector.svg"
PERIOD_MS = 2.5
STEP_MG = 4  # the sensor's step: the foot of the impulse's scale

KNOCK_SEEDS = tuple(range(1, 41))


def knock() -> Trace:
    """The knock drawn: the first of ``KNOCK_SEEDS`` that the detector cues on and then
    cancels, so that the picture shows a cancel whatever the built-in settings are (they are
    fitted, and refitted, by ``bench/fit_builtin.py``); if it cancels none, the first it
    does nothing on; if none, the first."""
    quiet = None
    for seed in KNOCK_SEEDS:
        trace = scenes.knock_trace(seed=seed)
        events = [sample.event for sample in run_detector(trace) if sample.event]
        if events == ["cue", "cancel"]:
            return trace
        if quiet is None and not events:
            quiet = trace
    return quiet or scenes.knock_trace(seed=KNOCK_SEEDS[0])


# (what, the trace): the press and the carry from fixed seeds, the knock chosen as ``knock``
# says; every one is drawn as it came.
SCENES: list[tuple[str, Callable[[], Trace]]] = [
    ("a press, held a third of a second, and its release", lambda: scenes.press_trace(seed=1)),
    ("a knock on the table beside it", knock),
    ("picked up, carried and put down", lambda: scenes.carry_trace(seed=4, seconds=4.0)),
]

STATE_NAMES = ("settling", "armed", "candidate", "hold", "refractory")  # press.STATES
STATE_FILLS = ("#e6e6e6", "#ffffff", "#ffd54f", "#fde0c5", "#cfe3f7")
EVENT_NAMES = ("", "cue", "pop", "cancel")  # by press.CUE, POP, CANCEL
CUE = "#ff7f0e"
POP = "#d62728"
CANCEL = "#7f7f7f"
EVENT_COLOURS = {"cue": CUE, "pop": POP, "cancel": CANCEL}
LABEL = "#2ca02c"
READING = "#333333"
IMPULSE = "#9467bd"
INK = "#222222"
MUTED = "#666666"
GRID = "#dddddd"

LEFT = 70
PLOT_W = 760
TOP = 112
PANEL_GAP = 44
READING_H = 110
IMPULSE_H = 70
STRIP_GAP = 6
RIGHT = 30


@dataclass(frozen=True)
class Sample:
    """One sample and what the detector made of it."""

    magnitude_g: float
    impulse_mg: int  # in the press's direction
    state: int  # press.SETTLING ... press.REFRACTORY, after this sample
    event: str  # "", "cue", "pop" or "cancel"


def run_detector(trace: Trace) -> list[Sample]:
    """The firmware's detector, built-in settings, over ``trace``: what it was doing on
    every sample."""
    module = firmware_module()
    assert tuple(module.STATES) == STATE_NAMES
    assert (module.CUE, module.POP, module.CANCEL) == (1, 2, 3)
    settings = defaults()
    detector = module.PressDetector(settings)
    polarity = settings["polarity"] or 1
    values = driver_mg(trace.samples_g)
    out = []
    for index, reading in enumerate(trace.samples_g):
        x, y, z = values[3 * index : 3 * index + 3]
        event = detector.update(x, y, z)
        magnitude = math.sqrt(sum(g * g for g in reading))
        impulse = detector.value(module.IMPULSE) * polarity
        out.append(Sample(magnitude, impulse, detector.state, EVENT_NAMES[event]))
    return out


def draw(panels: list[tuple[str, Trace, list[Sample]]]) -> bytes:
    panel_h = READING_H + STRIP_GAP + IMPULSE_H
    height = TOP + len(panels) * (panel_h + PANEL_GAP) + 40
    width = LEFT + PLOT_W + RIGHT
    canvas = Canvas(width, height)
    canvas.text(20, 30, "The press detector on a press, a knock and a carry", 18, weight="bold")
    canvas.text(
        20,
        50,
        "the firmware's press.py, built-in settings (pop on the release), on each 400 Hz sample "
        "of traces from the physical model (popdice.sim.physics, seeded)",
        11,
        fill=MUTED,
    )
    legend(canvas, 20, 70)
    threshold = defaults()["threshold_mg"]
    ceiling = impulse_ceiling(panels, threshold)
    for number, (what, trace, samples) in enumerate(panels):
        top = TOP + number * (panel_h + PANEL_GAP) + 16
        seconds = len(samples) * PERIOD_MS / 1000
        canvas.text(LEFT, top - 8, what, 13, fill=INK, weight="bold")
        canvas.text(
            LEFT + PLOT_W,
            top - 8,
            f"{trace.kind} seed {trace.seed}: " + ", ".join(text for _, text in trace.events),
            10,
            "end",
            MUTED,
        )
        shade_states(canvas, samples, top, panel_h)
        labels(canvas, trace, len(samples), top, panel_h, top + READING_H - 6)
        reading_strip(canvas, samples, top)
        impulse_strip(canvas, samples, top + READING_H + STRIP_GAP, threshold, ceiling)
        events(canvas, samples, top, panel_h)
        time_axis(canvas, seconds, top + panel_h)
    canvas.text(20, height - 14, DRAWN_BY, 10, fill=MUTED)
    return canvas.document()


def x_of(index: float, count: int) -> float:
    return LEFT + index * PLOT_W / count


def legend(canvas: Canvas, left: float, y: float) -> None:
    """The states on one line; below it, the events and the curves."""
    start = left
    canvas.text(left, y, "state:", 10, fill=MUTED)
    left += 38
    for name, fill in zip(STATE_NAMES, STATE_FILLS, strict=True):
        canvas.rect(left, y - 9, 14, 10, fill, stroke="#bbbbbb")
        canvas.text(left + 18, y, name, 10, fill=MUTED)
        left += 28 + 6 * len(name)
    left, y = start, y + 18
    canvas.text(left, y, "event:", 10, fill=MUTED)
    left += 38
    for name, colour in EVENT_COLOURS.items():
        canvas.line(left + 6, y - 10, left + 6, y + 2, colour, stroke_width="2")
        canvas.text(left + 14, y, name, 10, fill=MUTED)
        left += 24 + 6 * len(name)
    left += 10
    canvas.line(left + 6, y - 10, left + 6, y + 2, LABEL, stroke_dasharray="3 2")
    canvas.text(left + 14, y, "the model's press and release", 10, fill=MUTED)
    left += 178
    canvas.line(left, y - 4, left + 16, y - 4, READING, stroke_width="1.2")
    canvas.text(left + 20, y, "|a| (g)", 10, fill=MUTED)
    left += 66
    canvas.line(left, y - 4, left + 16, y - 4, IMPULSE, stroke_width="1.2")
    canvas.text(left + 20, y, "|impulse| (mg, log) and its threshold", 10, fill=MUTED)


def labels(
    canvas: Canvas, trace: Trace, count: int, top: float, height: float, name_y: float
) -> None:
    """The model's press onsets and releases: dashed across the panel, named at ``name_y``."""
    for times, name in ((trace.press_times_ms, "press"), (trace.releases_ms, "release")):
        for at in times:
            index = (at - trace.t_ms[0]) / PERIOD_MS
            if not 0 <= index < count:
                continue
            x = x_of(index, count)
            canvas.line(x, top, x, top + height, LABEL, stroke_dasharray="3 2")
            canvas.text(x - 4, name_y, name, 10, "end", LABEL)


def shade_states(canvas: Canvas, samples: list[Sample], top: float, height: float) -> None:
    """One rectangle for each run of samples in the same state."""
    start = 0
    for index in range(1, len(samples) + 1):
        if index == len(samples) or samples[index].state != samples[start].state:
            left, right = x_of(start, len(samples)), x_of(index, len(samples))
            canvas.rect(left, top, max(right - left, 1), height, STATE_FILLS[samples[start].state])
            start = index
    canvas.rect(LEFT, top, PLOT_W, height, "none", stroke="#bbbbbb")


def reading_strip(canvas: Canvas, samples: list[Sample], top: float) -> None:
    peak = max(s.magnitude_g for s in samples)
    ceiling = max(2.0, math.ceil(peak))
    scale = READING_H / ceiling
    bottom = top + READING_H
    for g in range(0, int(ceiling) + 1, max(1, int(ceiling) // 4)):
        y = bottom - g * scale
        canvas.line(LEFT, y, LEFT + PLOT_W, y, GRID)
        canvas.text(LEFT - 6, y + 4, f"{g} g", 10, "end", MUTED)
    points = [
        (x_of(i + 0.5, len(samples)), bottom - s.magnitude_g * scale) for i, s in enumerate(samples)
    ]
    canvas.polyline(points, READING, stroke_width="1.2")


def impulse_ceiling(panels: list[tuple[str, Trace, list[Sample]]], threshold: int) -> int:
    """The top of every panel's impulse scale: the power of ten above the largest impulse."""
    sizes = [abs(s.impulse_mg) for _, _, samples in panels for s in samples]
    return 10 ** math.ceil(math.log10(max([*sizes, threshold, 10 * STEP_MG])))


def impulse_strip(
    canvas: Canvas, samples: list[Sample], top: float, threshold: int, ceiling: int
) -> None:
    """The impulse's size, on a log scale from ``STEP_MG`` to ``ceiling``, its decades
    named at the right, with the threshold dashed."""
    bottom = top + IMPULSE_H

    def y_of(mg: float) -> float:
        share = math.log(max(mg, STEP_MG) / STEP_MG) / math.log(ceiling / STEP_MG)
        return bottom - share * IMPULSE_H

    decade = 10 * STEP_MG
    while decade < ceiling:
        canvas.line(LEFT, y_of(decade), LEFT + PLOT_W, y_of(decade), GRID)
        canvas.text(LEFT + PLOT_W - 4, y_of(decade) - 2, f"{decade} mg", 9, "end", MUTED)
        decade *= 10
    threshold_y = y_of(threshold)
    canvas.line(LEFT, threshold_y, LEFT + PLOT_W, threshold_y, IMPULSE, stroke_dasharray="5 3")
    canvas.text(LEFT - 6, threshold_y + 4, f"{threshold} mg", 10, "end", MUTED)
    points = []
    for index, sample in enumerate(samples):
        points.append((x_of(index + 0.5, len(samples)), y_of(abs(sample.impulse_mg))))
    canvas.polyline(points, IMPULSE, stroke_width="1.2")


def events(canvas: Canvas, samples: list[Sample], top: float, height: float) -> None:
    """Each event as a line with its name; one close after another is named lower down."""
    last_x = -math.inf
    row = 0
    for index, sample in enumerate(samples):
        if not sample.event:
            continue
        x = x_of(index + 0.5, len(samples))
        row = row + 1 if x - last_x < 60 else 0
        last_x = x
        colour = EVENT_COLOURS[sample.event]
        canvas.line(x, top, x, top + height, colour, stroke_width="2")
        canvas.polygon([(x - 5, top - 1), (x + 5, top - 1), (x, top + 7)], colour)
        canvas.text(x + 7, top + 14 + 14 * row, sample.event, 11, fill=colour, weight="bold")


def time_axis(canvas: Canvas, seconds: float, y: float) -> None:
    step = 0.2 if seconds <= 2 else 0.5
    ticks = int(seconds / step + 1e-9)
    for tick in range(ticks + 1):
        at = tick * step
        x = LEFT + at / seconds * PLOT_W
        canvas.line(x, y, x, y + 4, MUTED)
        canvas.text(x, y + 15, f"{at:.1f} s", 10, "middle", MUTED)


def pictures() -> dict[str, bytes]:
    panels = []
    for what, make in SCENES:
        trace = make()
        panels.append((what, trace, run_detector(trace)))
    return {FILE: draw(panels)}
