"""Three-vectors and rotations for the physical model: plain tuples, no numpy."""

from __future__ import annotations

import math
import random

Vec = tuple[float, float, float]
Mat = tuple[Vec, Vec, Vec]

UP: Vec = (0.0, 0.0, 1.0)
IDENTITY: Mat = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def scale(v: Vec, k: float) -> Vec:
    return (v[0] * k, v[1] * k, v[2] * k)


def add(a: Vec, b: Vec) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


def norm(v: Vec) -> float:
    return math.sqrt(dot(v, v))


def unit(v: Vec) -> Vec:
    length = norm(v)
    return scale(v, 1.0 / length) if length else UP


def apply(m: Mat, v: Vec) -> Vec:
    return (dot(m[0], v), dot(m[1], v), dot(m[2], v))


def compose(a: Mat, b: Mat) -> Mat:
    """The rotation ``a`` after ``b``."""
    columns = [apply(a, (b[0][j], b[1][j], b[2][j])) for j in range(3)]
    return (
        (columns[0][0], columns[1][0], columns[2][0]),
        (columns[0][1], columns[1][1], columns[2][1]),
        (columns[0][2], columns[1][2], columns[2][2]),
    )


def rotation(axis: Vec, angle_rad: float) -> Mat:
    """Rotation by ``angle_rad`` about ``axis`` (Rodrigues' formula)."""
    x, y, z = unit(axis)
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    k = 1.0 - c
    return (
        (c + x * x * k, x * y * k - z * s, x * z * k + y * s),
        (y * x * k + z * s, c + y * y * k, y * z * k - x * s),
        (z * x * k - y * s, z * y * k + x * s, c + z * z * k),
    )


def horizontal(azimuth_rad: float) -> Vec:
    """The unit vector in the x-y plane at ``azimuth_rad`` from x."""
    return (math.cos(azimuth_rad), math.sin(azimuth_rad), 0.0)


def tilted_up(angle_rad: float, azimuth_rad: float) -> Vec:
    """``UP`` tipped by ``angle_rad`` towards ``azimuth_rad``."""
    s = math.sin(angle_rad)
    return (s * math.cos(azimuth_rad), s * math.sin(azimuth_rad), math.cos(angle_rad))


def random_rotation(rng: random.Random) -> Mat:
    """A rotation drawn uniformly over all orientations (a uniform unit quaternion)."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    w, x = a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2)
    y, z = b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3)
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


def direction(rng: random.Random, lateral_ratio: float, up: Vec = UP) -> Vec:
    """A unit vector mostly along ``up`` with ``lateral_ratio`` of sideways component in a
    random horizontal direction (``up`` is taken as near vertical)."""
    side = horizontal(rng.uniform(0.0, 2 * math.pi))
    return unit(add(up, scale(side, lateral_ratio)))
