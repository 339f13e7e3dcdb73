"""Where each part of a case goes, worked out from its dimensions as plain numbers, and
whether the parts fit together: the dice under the dome, the Pico beside the accelerometer,
the screws in their bosses. A misfit is a one-line ``PopdiceError`` saying what to change.

No geometry library here: ``popdice case`` checks a case before it loads manifold3d, and the
tests and the pictures use the same positions. Coordinates are those of ``case.json``: mm,
the case's centre at x = y = 0, its bottom at z = 0, the USB opening at -y.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import PopdiceError
from .dimensions import HandheldCase, Pico, PopperCase, UsbOpening

GRID = 3  # a die is 3x3 pixels
LEAST_THREAD = 4.0  # mm of a self-tapping screw in its boss, the least that holds
BOTTOM_LEFT = 0.6  # mm of plastic a blind hole leaves under it
NUT_ROOM = 2.5  # mm round a panel button's thread for its nut (M7: 10 mm across its flats)


@dataclass(frozen=True)
class PicoPlace:
    """The Pico lying flat, its USB end at ``usb_end_y`` facing -y, centred on x = 0."""

    usb_end_y: float
    holes: tuple[tuple[float, float], ...]
    usb_centre_z: float


@dataclass(frozen=True)
class PopperPlan:
    outer_radius: float  # the base's, the lid's and the rim's
    inner_radius: float  # the base's wall, inside
    screw_circle: float  # the lid screws' centres
    screw_angles: tuple[float, ...]  # degrees, anticlockwise from +x
    screws: tuple[tuple[float, float], ...]  # their centres
    dome_opening: float  # the rim's inner radius: the dome's body passes through it
    seat_radius: float  # the rim's pocket for the flange
    seat_depth: float
    pips: tuple[tuple[float, float], ...]  # die 0's nine pixels first, then die 1's...
    pad: tuple[float, float]  # the accelerometer pad's width and length
    pico: PicoPlace
    feet: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Rectangle:
    centre: tuple[float, float]
    width: float  # along x
    length: float  # along y


@dataclass(frozen=True)
class HandheldPlan:
    outer_width: float
    outer_length: float
    inner_corner_radius: float
    bosses: tuple[tuple[float, float], ...]
    lip_inner: tuple[float, float]  # the half width and half length inside the lid's lip
    pico: PicoPlace
    module: Rectangle
    glass: Rectangle
    window: Rectangle
    buttons: tuple[tuple[float, float], ...]  # in the order of their names, from -x


def die_centres(case: PopperCase) -> tuple[tuple[float, float], ...]:
    """Die k's centre: at first_angle_deg - 72k degrees on the ring (360/count in general)."""
    dice = case.dice
    step = 360.0 / dice.count
    return tuple(
        _polar(dice.ring_radius, dice.first_angle_deg - step * k) for k in range(dice.count)
    )


def pip_centres(case: PopperCase) -> tuple[tuple[float, float], ...]:
    """Every pip hole's centre seen from above: die by die, pixel i at column i % 3 (from -x)
    and row i // 3 (row 0 at +y)."""
    pitch = case.dice.pixel_pitch
    return tuple(
        (x + (i % GRID - 1) * pitch, y - (i // GRID - 1) * pitch)
        for x, y in die_centres(case)
        for i in range(GRID * GRID)
    )


def smallest_dome(case: PopperCase) -> float:
    """The smallest dome diameter (a whole mm) whose inside footprint holds every pip hole
    with the dome's margin to spare."""
    farthest = max(math.hypot(x, y) for x, y in pip_centres(case)) + case.dice.pip_hole / 2
    return float(math.ceil(2 * (farthest + case.dome.margin + case.dome.wall) - 1e-9))


def popper_plan(case: PopperCase) -> PopperPlan:
    """Where everything of the popper's case goes; refuses a case whose parts do not fit."""
    dome, c = case.dome, case.fit.clearance
    fits = smallest_dome(case)
    if dome.diameter < fits:
        raise PopdiceError(
            f"a {dome.diameter:g} mm dome is too small for the dice: the smallest that fits "
            f"is {fits:g} mm (--dome-diameter {fits:g})"
        )
    screws = case.screws
    flange_radius = dome.diameter / 2 + dome.flange_width
    seat_radius = flange_radius + c
    screw_circle = seat_radius + screws.clearance_hole / 2 + case.rim.wall_around_screw
    inner_radius = screw_circle + screws.boss_inset
    outer_radius = inner_radius + case.base.wall
    seat_depth = dome.flange_thickness - case.rim.clamp
    if seat_depth <= 0 or case.rim.thickness - seat_depth < 1.0:
        raise PopdiceError(
            f"{case.source}: rim.clamp must be less than dome.flange_thickness, and "
            "rim.thickness at least 1 mm more than the flange's seat is deep"
        )
    _check_screw(case, case.rim.thickness + case.lid.thickness, case.base.height - case.base.floor)
    pico = _pico_place(
        case.pico, case.base.floor, -math.sqrt(inner_radius**2 - (case.pico.width / 2) ** 2) + c
    )
    accel = case.accelerometer
    pad = (
        accel.width + 2 * (c + accel.pad_border),
        accel.length + 2 * (c + accel.pad_border),
    )
    pico_far_end = pico.usb_end_y + case.pico.length
    if pico_far_end + c > -pad[1] / 2:
        raise PopdiceError(
            f"{case.source}: the base is too small for the Pico beside the accelerometer's pad: "
            "a larger dome makes it larger"
        )
    _check_pico(case.source, case.pico, case.base.floor)
    _check_usb(case.source, case.usb, pico, case.base.floor, c)
    button = case.mode_button
    reach = button.thread / 2 + NUT_ROOM
    if button.height - reach < case.base.floor or (
        button.height + reach > case.base.height - case.lid.lip_height
    ):
        raise PopdiceError(
            f"{case.source}: mode_button.height leaves no room for the button's nut between "
            "the floor and the lid's lip"
        )
    feet = case.feet
    feet_circle = outer_radius - feet.inset - feet.diameter / 2 - c
    if feet.depth > case.base.floor - 1.0 or feet_circle <= feet.diameter:
        raise PopdiceError(
            f"{case.source}: feet must sit inside the base's bottom and leave 1 mm of its floor"
        )
    step = 360.0 / screws.count
    angles = tuple(screws.first_angle_deg + step * k for k in range(screws.count))
    boss_reach = screws.boss_diameter / 2 + c
    usb_reach = case.usb.width / 2 + c + boss_reach
    button_at = _polar(screw_circle, button.angle_deg)
    for angle in angles:
        x, y = _polar(screw_circle, angle)
        if y < 0 and abs(x) < usb_reach:
            raise PopdiceError(
                f"{case.source}: the lid screw's boss at {angle:g} degrees is in the way of the "
                "USB opening (lid_screws.first_angle_deg)"
            )
        if math.dist((x, y), button_at) < reach + boss_reach:
            raise PopdiceError(
                f"{case.source}: the lid screw's boss at {angle:g} degrees is in the way of "
                "MODE (lid_screws.first_angle_deg, mode_button.angle_deg)"
            )
    return PopperPlan(
        outer_radius=outer_radius,
        inner_radius=inner_radius,
        screw_circle=screw_circle,
        screw_angles=angles,
        screws=tuple(_polar(screw_circle, angle) for angle in angles),
        dome_opening=dome.diameter / 2 + c,
        seat_radius=seat_radius,
        seat_depth=seat_depth,
        pips=pip_centres(case),
        pad=pad,
        pico=pico,
        feet=tuple(
            _polar(feet_circle, feet.first_angle_deg + 360.0 / feet.count * k)
            for k in range(feet.count)
        ),
    )


def handheld_plan(case: HandheldCase) -> HandheldPlan:
    """Where everything of the handheld's case goes; refuses a case whose parts do not fit."""
    box, c, lid = case.box, case.fit.clearance, case.lid
    if box.corner_radius <= box.wall:
        raise PopdiceError(f"{case.source}: box.corner_radius must be more than box.wall")
    half_width, half_length = box.inner_width / 2, box.inner_length / 2
    if case.pico.length + 2 * c > box.inner_length or case.pico.width + 2 * c > box.inner_width:
        raise PopdiceError(f"{case.source}: the Pico does not fit inside the box")
    _check_screw(case, lid.thickness, box.height - box.floor)
    _check_pico(case.source, case.pico, box.floor)
    pico = _pico_place(case.pico, box.floor, -half_length + c)
    _check_usb(case.source, case.usb, pico, box.floor, c)
    inset = case.screws.boss_inset
    bosses = tuple(
        (sx * (half_width - inset), sy * (half_length - inset)) for sy in (-1, 1) for sx in (-1, 1)
    )
    lip_inner = (half_width - c - lid.lip_wall, half_length - c - lid.lip_wall)
    display = case.display
    module = Rectangle(
        (0.0, display.centre_y),
        display.module_width + 2 * c,
        display.module_length + 2 * c,
    )
    glass_y = display.centre_y + display.glass_offset_y
    glass = Rectangle((0.0, glass_y), display.glass_width + 2 * c, display.glass_length + 2 * c)
    window = Rectangle(
        (0.0, glass_y + display.active_offset_y),
        display.active_width + 2 * display.window_margin,
        display.active_length + 2 * display.window_margin,
    )
    if not _inside(window, glass) or not _inside(glass, module):
        raise PopdiceError(
            f"{case.source}: the display's window must lie inside its glass, and the glass "
            "inside its board (display.*_offset_y, display.window_margin)"
        )
    frame = display.frame_wall
    if (
        module.width / 2 + frame > lip_inner[0]
        or abs(display.centre_y) + module.length / 2 + frame > lip_inner[1]
    ):
        raise PopdiceError(f"{case.source}: the display's frame does not fit inside the lid's lip")
    buttons = case.buttons
    count = len(buttons.names)
    centres = tuple(((k - (count - 1) / 2) * buttons.pitch, buttons.centre_y) for k in range(count))
    reach = buttons.thread / 2 + NUT_ROOM
    if buttons.pitch < 2 * reach:
        raise PopdiceError(f"{case.source}: buttons.pitch leaves no room between their nuts")
    if centres[-1][0] + reach > lip_inner[0] or abs(buttons.centre_y) + reach > lip_inner[1]:
        raise PopdiceError(
            f"{case.source}: the buttons' nuts do not fit inside the lid's lip with a "
            f"clearance of {c:g} mm"
        )
    frame_edge = display.centre_y - module.length / 2 - frame
    if buttons.centre_y + max(reach, buttons.dot_offset + buttons.dot) > frame_edge:
        raise PopdiceError(f"{case.source}: the buttons overlap the display's frame")
    if buttons.dot_depth > lid.thickness / 2:
        raise PopdiceError(f"{case.source}: buttons.dot_depth must be at most half the lid")
    return HandheldPlan(
        outer_width=box.inner_width + 2 * box.wall,
        outer_length=box.inner_length + 2 * box.wall,
        inner_corner_radius=box.corner_radius - box.wall,
        bosses=bosses,
        lip_inner=lip_inner,
        pico=pico,
        module=module,
        glass=glass,
        window=window,
        buttons=centres,
    )


def _polar(radius: float, degrees: float) -> tuple[float, float]:
    angle = math.radians(degrees)
    return radius * math.cos(angle), radius * math.sin(angle)


def _inside(inner: Rectangle, outer: Rectangle) -> bool:
    return (
        abs(inner.centre[0] - outer.centre[0]) + inner.width / 2 <= outer.width / 2 + 1e-9
        and abs(inner.centre[1] - outer.centre[1]) + inner.length / 2 <= outer.length / 2 + 1e-9
    )


def _pico_place(pico: Pico, floor: float, usb_end_y: float) -> PicoPlace:
    across = pico.hole_across / 2
    near = usb_end_y + pico.hole_from_end
    far = near + pico.hole_along
    return PicoPlace(
        usb_end_y=usb_end_y,
        holes=((-across, near), (across, near), (-across, far), (across, far)),
        usb_centre_z=floor + pico.standoff_height + pico.thickness + pico.usb_socket_height / 2,
    )


def _check_pico(source: str, pico: Pico, floor: float) -> None:
    if pico.pilot_depth > pico.standoff_height + floor - BOTTOM_LEFT:
        raise PopdiceError(f"{source}: pico.pilot_depth would go through the floor")
    if pico.standoff_diameter < pico.pilot_hole + 2.0:
        raise PopdiceError(f"{source}: pico.standoff_diameter leaves under 1 mm round its hole")


def _check_usb(
    source: str, usb: UsbOpening, pico: PicoPlace, floor: float, clearance: float
) -> None:
    if pico.usb_centre_z - usb.height / 2 - clearance < floor:
        raise PopdiceError(
            f"{source}: the USB opening reaches into the floor: raise pico.standoff_height"
        )


def _check_screw(case: PopperCase | HandheldCase, through: float, boss_height: float) -> None:
    """The lid screws: through ``through`` mm of rim and lid, enough left in the boss."""
    screws = case.screws
    engaged = screws.length - through
    if engaged < LEAST_THREAD:
        raise PopdiceError(
            f"{case.source}: lid_screws.length leaves {engaged:g} mm in the boss, "
            f"under the {LEAST_THREAD:g} mm that holds"
        )
    if engaged > screws.pilot_depth - 0.5:
        raise PopdiceError(f"{case.source}: lid_screws.length is longer than the pilot holes")
    if screws.pilot_depth > boss_height - BOTTOM_LEFT:
        raise PopdiceError(f"{case.source}: lid_screws.pilot_depth is deeper than the bosses")
    if screws.boss_diameter < screws.pilot_hole + 2.0:
        raise PopdiceError(
            f"{case.source}: lid_screws.boss_diameter leaves under 1 mm round its hole"
        )
