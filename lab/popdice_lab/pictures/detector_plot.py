"""The detector plot: a press, a knock and a carry as the popper's accelerometer reads them,
with what the firmware's settings-driven press detector made of each, sample by sample.

The traces come from the physical model (``popdice.sim.physics.scenes``, seeded); the detector is
``popdice_fw/impulse.py`` itself, with its shipped defaults, loaded into CPython as the tuner
loads it (``traces.measured``), fed each sample as the driver hands it over. For every sample
the plot keeps the detector's state (shaded), its impulse in the press's direction against
its threshold, and what it decided: a press, a candidate rejected (it rocked sideways or the
unit moved), or a release (the dome snapping back, weaker than the press).
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

# (what, the trace): seeds picked to show each decision once; every one is drawn as it came.
SCENES: list[tuple[str, Callable[[], Trace]]] = [
    ("a press (and its release)", lambda: scenes.press_trace(seed=1)),
    ("a knock on the table beside it", lambda: scenes.knock_trace(seed=4)),
    ("picked up, carried and put down", lambda: scenes.carry_trace(seed=4, seconds=4.0)),
]

STATE_NAMES = ("settling", "armed", "candidate", "refractory")
STATE_FILLS = ("#e6e6e6", "#ffffff", "#ffd54f", "#cfe3f7")
PRESS = "#d62728"
REJECTED = "#7f7f7f"
RELEASE = "#1f77b4"
READING = "#333333"
IMPULSE = "#9467bd"
INK = "#222222"
MUTED = "#666666"
GRID = "#dddddd"

LEFT = 70
PLOT_W = 760
TOP = 96
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
    state: int
    decision: str  # "", "press", "rejected" or "release"


def run_detector(trace: Trace) -> list[Sample]:
    """The firmware's detector over ``trace``, with what it was doing on every sample."""
    module = firmware_module()
    settings = defaults()
    detector = module.ImpulseDetector(settings)
    polarity = settings["polarity"] or 1
    values = driver_mg(trace.samples_g)
    out = []
    for index, reading in enumerate(trace.samples_g):
        rejected, releases = detector.rejected, detector.releases
        x, y, z = values[3 * index : 3 * index + 3]
        pressed = detector.update(x, y, z)
        if pressed:
            decision = "press"
        elif detector.rejected > rejected:
            decision = "rejected"
        elif detector.releases > releases:
            decision = "release"
        else:
            decision = ""
        magnitude = math.sqrt(sum(g * g for g in reading))
        out.append(Sample(magnitude, detector.impulse * polarity, detector.state, decision))
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
        "traces from the physical model (popdice.sim.physics, seeded); the firmware's impulse.py, "
        "shipped settings, decides on each sample (400 Hz)",
        11,
        fill=MUTED,
    )
    legend(canvas, 20, 72)
    threshold = defaults()["threshold_mg"]
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
        reading_strip(canvas, samples, top)
        impulse_strip(canvas, samples, top + READING_H + STRIP_GAP, threshold)
        decisions(canvas, samples, top, panel_h)
        time_axis(canvas, seconds, top + panel_h)
    canvas.text(20, height - 14, DRAWN_BY, 10, fill=MUTED)
    return canvas.document()


def x_of(index: float, count: int) -> float:
    return LEFT + index * PLOT_W / count


def legend(canvas: Canvas, left: float, y: float) -> None:
    for name, fill in zip(STATE_NAMES, STATE_FILLS, strict=True):
        canvas.rect(left, y - 9, 14, 10, fill, stroke="#bbbbbb")
        canvas.text(left + 18, y, name, 10, fill=MUTED)
        left += 30 + 6 * len(name)
    for name, colour in (("press", PRESS), ("rejected", REJECTED), ("release", RELEASE)):
        canvas.line(left + 6, y - 10, left + 6, y + 2, colour, stroke_width="2")
        canvas.text(left + 14, y, name, 10, fill=MUTED)
        left += 28 + 6 * len(name)
    canvas.line(left, y - 4, left + 16, y - 4, READING, stroke_width="1.2")
    canvas.text(left + 20, y, "|a| (g)", 10, fill=MUTED)
    left += 66
    canvas.line(left, y - 4, left + 16, y - 4, IMPULSE, stroke_width="1.2")
    canvas.text(left + 20, y, "impulse (mg) and its threshold", 10, fill=MUTED)


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


def impulse_strip(canvas: Canvas, samples: list[Sample], top: float, threshold: int) -> None:
    ceiling = 4 * threshold
    middle = top + IMPULSE_H / 2
    scale = IMPULSE_H / (2 * ceiling)
    canvas.line(LEFT, middle, LEFT + PLOT_W, middle, GRID)
    threshold_y = middle - threshold * scale
    canvas.line(LEFT, threshold_y, LEFT + PLOT_W, threshold_y, IMPULSE, stroke_dasharray="5 3")
    canvas.text(LEFT - 6, threshold_y + 4, f"{threshold} mg", 10, "end", MUTED)
    points = []
    for index, sample in enumerate(samples):
        clipped = max(-ceiling, min(ceiling, sample.impulse_mg))
        points.append((x_of(index + 0.5, len(samples)), middle - clipped * scale))
    canvas.polyline(points, IMPULSE, stroke_width="1.2")


def decisions(canvas: Canvas, samples: list[Sample], top: float, height: float) -> None:
    colours = {"press": PRESS, "rejected": REJECTED, "release": RELEASE}
    for index, sample in enumerate(samples):
        if not sample.decision:
            continue
        x = x_of(index + 0.5, len(samples))
        colour = colours[sample.decision]
        canvas.line(x, top, x, top + height, colour, stroke_width="2")
        canvas.polygon([(x - 5, top - 1), (x + 5, top - 1), (x, top + 7)], colour)
        canvas.text(x + 7, top + 14, sample.decision, 11, fill=colour, weight="bold")


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
