"""The popper's printed bodies as solids, where they sit in the assembled case: the base (an
open round tray holding the Pico and the LIS3DH), the lid (the dice windows) and the rim that
clamps the dome's flange onto the lid. And the bought dome, for pictures.

Stacked from z = 0: the base up to its wall's top; the lid on it, its lip inside the wall;
the dome's flange on the lid; the rim over the flange, its seat (a pocket in its underside)
holding the flange. The lid screws go through the rim and the lid into the base's bosses.
"""

from __future__ import annotations

import math

from .bed import Body
from .dimensions import PopperCase
from .placement import PopperPlan, popper_plan
from .shapes import (
    Solid,
    ball,
    box,
    box_between,
    common,
    cut,
    cylinder,
    holes,
    radial_cylinder,
    ring,
    union,
)


def bodies(case: PopperCase) -> list[Body]:
    """Base, lid and rim, assembled; the lid and the rim print upside down."""
    plan = popper_plan(case)
    return [
        Body("base", base(case, plan)),
        Body("lid", lid(case, plan), upside_down=True),
        Body("rim", rim(case, plan), upside_down=True),
    ]


def lid_bottom(case: PopperCase) -> float:
    return case.base.height


def rim_bottom(case: PopperCase) -> float:
    return case.base.height + case.lid.thickness


def base(case: PopperCase, plan: PopperPlan) -> Solid:
    full, c = case.fit.segments, case.fit.clearance
    height, floor = case.base.height, case.base.floor
    sunk = floor / 2  # what stands on the floor starts inside it, so it merges
    screws, pico, accel = case.screws, case.pico, case.accelerometer
    shell = cut(
        cylinder(plan.outer_radius, 0.0, height, full),
        [cylinder(plan.inner_radius, floor, height + 1.0, full)],
    )
    bosses = [
        cylinder(screws.boss_diameter / 2, sunk, height, full, centre) for centre in plan.screws
    ]
    standoff_top = floor + pico.standoff_height
    standoffs = [
        cylinder(pico.standoff_diameter / 2, sunk, standoff_top, full, hole)
        for hole in plan.pico.holes
    ]
    pad_top = floor + accel.pad_height
    pad = box((0.0, 0.0), plan.pad[0], plan.pad[1], sunk, pad_top)
    solid = union([shell, *bosses, *standoffs, pad])

    usb = case.usb
    opening_half_width = usb.width / 2 + c
    wall_inside_at_edge = -math.sqrt(plan.inner_radius**2 - opening_half_width**2)
    usb_opening = box_between(
        (-opening_half_width, -plan.outer_radius - 1.0),
        (opening_half_width, wall_inside_at_edge + 0.15),
        plan.pico.usb_centre_z - usb.height / 2 - c,
        plan.pico.usb_centre_z + usb.height / 2 + c,
    )
    button = case.mode_button
    mode_hole = radial_cylinder(
        button.thread / 2 + c,
        plan.inner_radius - 1.0,
        plan.outer_radius + 1.0,
        button.angle_deg,
        button.height,
        full,
    )
    pocket_bottom = pad_top - accel.pocket_depth
    pocket = box((0.0, 0.0), accel.width + 2 * c, accel.length + 2 * c, pocket_bottom, pad_top + 1)
    boss_pilots = holes(
        screws.pilot_hole, height - screws.pilot_depth, height + 1, plan.screws, full
    )
    standoff_pilots = holes(
        pico.pilot_hole, standoff_top - pico.pilot_depth, standoff_top + 1, plan.pico.holes, full
    )
    feet = holes(case.feet.diameter + 2 * c, -1.0, case.feet.depth, plan.feet, full)
    return cut(solid, [*boss_pilots, *standoff_pilots, pocket, usb_opening, mode_hole, *feet])


def lid(case: PopperCase, plan: PopperPlan) -> Solid:
    full, c = case.fit.segments, case.fit.clearance
    bottom, top = lid_bottom(case), lid_bottom(case) + case.lid.thickness
    lip_outside = plan.inner_radius - c
    lip_bottom = bottom - case.lid.lip_height
    lip = cut(
        ring(lip_outside - case.lid.lip_wall, lip_outside, lip_bottom, (bottom + top) / 2, full),
        holes(case.screws.boss_diameter + 2 * c, lip_bottom - 1, top, plan.screws, full),
    )
    plate = cylinder(plan.outer_radius, bottom, top, full)
    screws = _screw_holes(case, plan, lip_bottom - 1, top + 1)
    return cut(union([plate, lip]), [*screws, *pip_holes(case, plan, bottom - 1, top + 1)])


def pip_holes(case: PopperCase, plan: PopperPlan, bottom: float, top: float) -> list[Solid]:
    """The lid's 45 round windows, one over each pixel."""
    return holes(case.dice.pip_hole, bottom, top, plan.pips, case.fit.segments)


def rim(case: PopperCase, plan: PopperPlan) -> Solid:
    full = case.fit.segments
    bottom = rim_bottom(case)
    top = bottom + case.rim.thickness
    seat = cylinder(plan.seat_radius, bottom - 1, bottom + plan.seat_depth, full, hole=True)
    return cut(
        ring(plan.dome_opening, plan.outer_radius, bottom, top, full),
        [seat, *_screw_holes(case, plan, bottom - 1, top + 1)],
    )


def dome(case: PopperCase) -> Solid:
    """The bought dome in place on the lid (for pictures): its flange and a cap as high as
    ``dome.height``."""
    dome_, full = case.dome, case.fit.segments
    bottom = rim_bottom(case)
    radius = dome_.diameter / 2
    rise = min(dome_.height, radius)
    sphere_radius = (radius**2 + rise**2) / (2 * rise)
    sphere = ball(sphere_radius, bottom + rise - sphere_radius, full)
    cap = common(sphere, cylinder(radius * 1.01, bottom, bottom + rise + 1, full))
    flange = cylinder(radius + dome_.flange_width, bottom, bottom + dome_.flange_thickness, full)
    return union([cap, flange])


def _screw_holes(case: PopperCase, plan: PopperPlan, bottom: float, top: float) -> list[Solid]:
    # clearance_hole already has a screw's clearance
    return holes(case.screws.clearance_hole, bottom, top, plan.screws, case.fit.segments)
