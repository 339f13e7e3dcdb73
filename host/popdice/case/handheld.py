"""The handheld's printed bodies as solids, where they sit in the assembled case: the base (an
open box with rounded corners holding the Pico, its USB opening at -y) and the lid (the
screen's window over the SSD1306 module, and the three buttons' holes, each labelled with
as many engraved dots as its place in the row).

The lid sits on the base's wall, its lip inside it, held by a screw in each corner.
"""

from __future__ import annotations

import numpy as np

from .bed import Body
from .dimensions import HandheldCase
from .placement import HandheldPlan, Rectangle, handheld_plan
from .shapes import (
    Solid,
    box,
    box_between,
    cut,
    cylinder,
    holes,
    prism,
    rounded_rectangle,
    segments_for,
    union,
)


def bodies(case: HandheldCase) -> list[Body]:
    """Base and lid, assembled; the lid prints upside down."""
    plan = handheld_plan(case)
    return [Body("base", base(case, plan)), Body("lid", lid(case, plan), upside_down=True)]


def lid_bottom(case: HandheldCase) -> float:
    return case.box.height


def base(case: HandheldCase, plan: HandheldPlan) -> Solid:
    full, c = case.fit.segments, case.fit.clearance
    box_, pico, screws = case.box, case.pico, case.screws
    height, floor = box_.height, box_.floor
    sunk = floor / 2  # what stands on the floor starts inside it, so it merges
    inside = _outline(box_.inner_width, box_.inner_length, plan.inner_corner_radius, full)
    shell = cut(
        prism([_outline(plan.outer_width, plan.outer_length, box_.corner_radius, full)], 0, height),
        [prism([inside], floor, height + 1)],
    )
    bosses = [cylinder(screws.boss_diameter / 2, sunk, height, full, at) for at in plan.bosses]
    standoff_top = floor + pico.standoff_height
    standoffs = [
        cylinder(pico.standoff_diameter / 2, sunk, standoff_top, full, at) for at in plan.pico.holes
    ]
    usb = case.usb
    half_width = usb.width / 2 + c
    opening = box_between(
        (-half_width, -plan.outer_length / 2 - 1.0),
        (half_width, -box_.inner_length / 2 + 0.01),
        plan.pico.usb_centre_z - usb.height / 2 - c,
        plan.pico.usb_centre_z + usb.height / 2 + c,
    )
    boss_pilots = holes(
        screws.pilot_hole, height - screws.pilot_depth, height + 1, plan.bosses, full
    )
    standoff_pilots = holes(
        pico.pilot_hole, standoff_top - pico.pilot_depth, standoff_top + 1, plan.pico.holes, full
    )
    return cut(union([shell, *bosses, *standoffs]), [*boss_pilots, *standoff_pilots, opening])


def lid(case: HandheldCase, plan: HandheldPlan) -> Solid:
    full, c = case.fit.segments, case.fit.clearance
    box_, lid_, display, buttons = case.box, case.lid, case.display, case.buttons
    bottom = lid_bottom(case)
    top = bottom + lid_.thickness
    middle = (bottom + top) / 2
    outline = _outline(plan.outer_width, plan.outer_length, box_.corner_radius, full)
    plate = prism([outline], bottom, top)
    lip_radius = plan.inner_corner_radius - c
    lip_outside = _outline(box_.inner_width - 2 * c, box_.inner_length - 2 * c, lip_radius, full)
    half_width, half_length = plan.lip_inner
    lip_inside_radius = max(lip_radius - lid_.lip_wall, 0.5)
    lip_inside = _outline(2 * half_width, 2 * half_length, lip_inside_radius, full)[::-1]
    lip_bottom = bottom - lid_.lip_height
    lip = cut(
        prism([lip_outside, lip_inside], lip_bottom, middle),
        holes(case.screws.boss_diameter + 2 * c, lip_bottom - 1, top, plan.bosses, full),
    )
    frame = cut(
        _rectangle_box(plan.module, display.frame_wall, bottom - display.frame_height, middle),
        [_rectangle_box(plan.module, 0.0, bottom - display.frame_height - 1, middle)],
    )
    below = lip_bottom - 1
    openings = [
        *holes(case.screws.clearance_hole, below, top + 1, plan.bosses, full),
        *holes(buttons.thread + 2 * c, below, top + 1, plan.buttons, full),
        *label_dots(case, plan, top),
        _rectangle_box(plan.glass, 0.0, below, bottom + display.glass_thickness),
        _rectangle_box(plan.window, 0.0, below, top + 1),
    ]
    return cut(union([plate, lip, frame]), openings)


def label_dots(case: HandheldCase, plan: HandheldPlan, top: float) -> list[Solid]:
    """Button k's label: k + 1 dots engraved in the lid's top, in a row beside its hole."""
    buttons = case.buttons
    dots: list[Solid] = []
    for place, (x, y) in enumerate(plan.buttons):
        count = place + 1
        for k in range(count):
            at = (x + (k - (count - 1) / 2) * buttons.dot_pitch, y + buttons.dot_offset)
            dots.append(
                cylinder(buttons.dot / 2, top - buttons.dot_depth, top + 1, case.fit.segments, at)
            )
    return dots


def _outline(width: float, length: float, radius: float, full: int) -> np.ndarray:
    return rounded_rectangle(width, length, radius, segments_for(radius, full))


def _rectangle_box(rectangle: Rectangle, grow: float, bottom: float, top: float) -> Solid:
    return box(
        rectangle.centre, rectangle.width + 2 * grow, rectangle.length + 2 * grow, bottom, top
    )
