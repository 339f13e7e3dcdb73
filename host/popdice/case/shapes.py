"""The solids the case bodies are made of (cylinders, boxes, rounded boxes, rings), and how they
combine: the one module that calls manifold3d to make them.

Every circle is a polygon of our own, its first corner on +x and its number of sides a
multiple of four, so a round body's bounding box is its exact diameter. A solid circle is
inscribed in its radius; a hole (``hole=True``) is drawn around it instead, so that what goes
into it (a screw, a button's thread) fits whatever the number of sides.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from manifold3d import CrossSection, Manifold, OpType

Solid = Manifold

FULL_RADIUS = 30.0  # mm: circles this large or larger get every segment asked for
LEAST_SEGMENTS = 16


def segments_for(radius: float, full: int) -> int:
    """The sides of a circle of ``radius``: ``full`` from FULL_RADIUS up, fewer below (a
    multiple of four, at least LEAST_SEGMENTS)."""
    wanted = full * min(1.0, radius / FULL_RADIUS)
    return max(LEAST_SEGMENTS, 4 * math.ceil(wanted / 4))


def circle(
    radius: float, segments: int, centre: tuple[float, float] = (0.0, 0.0), *, hole: bool = False
) -> np.ndarray:
    """The corners of a circle as a polygon, anticlockwise."""
    reach = radius / math.cos(math.pi / segments) if hole else radius
    angles = [2 * math.pi * k / segments for k in range(segments)]
    return np.array(
        [(centre[0] + reach * math.cos(a), centre[1] + reach * math.sin(a)) for a in angles],
        dtype=np.float64,
    )


def rounded_rectangle(width: float, length: float, radius: float, segments: int) -> np.ndarray:
    """A rectangle centred on the origin with round corners of ``radius``, anticlockwise."""
    per_corner = segments // 4
    corners = ((1, 1), (-1, 1), (-1, -1), (1, -1))
    points: list[tuple[float, float]] = []
    for quarter, (sx, sy) in enumerate(corners):
        cx, cy = sx * (width / 2 - radius), sy * (length / 2 - radius)
        for step in range(per_corner + 1):
            angle = math.pi / 2 * (quarter + step / per_corner)
            points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return np.array(points, dtype=np.float64)


def prism(outlines: Sequence[np.ndarray], bottom: float, top: float) -> Solid:
    """The polygons ``outlines`` (holes clockwise) extruded from ``bottom`` to ``top``."""
    section = CrossSection(list(outlines))
    return Manifold.extrude(section, top - bottom).translate((0.0, 0.0, bottom))


def cylinder(
    radius: float,
    bottom: float,
    top: float,
    full: int,
    centre: tuple[float, float] = (0.0, 0.0),
    *,
    hole: bool = False,
) -> Solid:
    """An upright cylinder; ``full`` is the segments of the largest circles."""
    return prism([circle(radius, segments_for(radius, full), centre, hole=hole)], bottom, top)


def holes(
    diameter: float,
    bottom: float,
    top: float,
    centres: Iterable[tuple[float, float]],
    full: int,
) -> list[Solid]:
    """Upright round holes of ``diameter`` from ``bottom`` to ``top``, one at each centre."""
    return [cylinder(diameter / 2, bottom, top, full, at, hole=True) for at in centres]


def ring(inner: float, outer: float, bottom: float, top: float, full: int) -> Solid:
    """An upright ring about the z axis (its inside drawn as a hole)."""
    inside = circle(inner, segments_for(inner, full), hole=True)[::-1]
    return prism([circle(outer, segments_for(outer, full)), inside], bottom, top)


def box(
    centre: tuple[float, float], width: float, length: float, bottom: float, top: float
) -> Solid:
    """An upright box, ``width`` along x and ``length`` along y."""
    corner = (centre[0] - width / 2, centre[1] - length / 2, bottom)
    return Manifold.cube((width, length, top - bottom)).translate(corner)


def box_between(
    corner: tuple[float, float], opposite: tuple[float, float], bottom: float, top: float
) -> Solid:
    """An upright box between two opposite corners seen from above."""
    centre = ((corner[0] + opposite[0]) / 2, (corner[1] + opposite[1]) / 2)
    return box(centre, opposite[0] - corner[0], opposite[1] - corner[1], bottom, top)


def radial_cylinder(
    radius: float, start: float, end: float, angle_deg: float, height: float, full: int
) -> Solid:
    """A lying cylinder along the direction ``angle_deg`` (anticlockwise from +x), from
    ``start`` to ``end`` away from the z axis, its axis ``height`` above z = 0: a hole
    through a round wall. Drawn around its radius, like every hole."""
    upright = cylinder(radius, start, end, full, hole=True)
    return (
        upright.rotate((0.0, 90.0, 0.0)).rotate((0.0, 0.0, angle_deg)).translate((0.0, 0.0, height))
    )


def ball(radius: float, centre_z: float, full: int) -> Solid:
    """A sphere on the z axis."""
    return Manifold.sphere(radius, segments_for(radius, full)).translate((0.0, 0.0, centre_z))


def union(solids: Iterable[Solid]) -> Solid:
    return Manifold.batch_boolean(list(solids), OpType.Add)


def cut(solid: Solid, tools: Iterable[Solid]) -> Solid:
    """``solid`` with every one of ``tools`` taken away."""
    return Manifold.batch_boolean([solid, *tools], OpType.Subtract)


def common(solid: Solid, other: Solid) -> Solid:
    """What ``solid`` and ``other`` share."""
    return Manifold.batch_boolean([solid, other], OpType.Intersect)


def turned_over(solid: Solid) -> Solid:
    """``solid`` turned upside down about the x axis (y and z change sign)."""
    return solid.rotate((180.0, 0.0, 0.0))
