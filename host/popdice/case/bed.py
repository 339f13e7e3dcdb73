"""Lays a case's bodies flat on the printer's bed: each turned the way it prints, its bottom
at z = 0, side by side along x, and gives their triangles for the STL file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .shapes import Solid, turned_over

MERGED = 0.001  # mm: corners closer than this become one (an STL's float32 would blur them)


@dataclass(frozen=True)
class Body:
    """One printed body, where it sits in the assembled case; ``upside_down`` when it prints
    turned over (about the x axis)."""

    name: str
    solid: Solid
    upside_down: bool = False


@dataclass(frozen=True)
class Placed:
    """A body on the bed."""

    name: str
    solid: Solid

    @property
    def size(self) -> tuple[float, float, float]:
        x0, y0, z0, x1, y1, z1 = self.solid.bounding_box()
        return x1 - x0, y1 - y0, z1 - z0

    @property
    def volume_cm3(self) -> float:
        return self.solid.volume() / 1000.0


def lay_out(bodies: Sequence[Body], gap: float) -> list[Placed]:
    """The bodies as printed, from x = 0 on, ``gap`` apart, each centred on y = 0."""
    placed: list[Placed] = []
    left = 0.0
    for body in bodies:
        solid = turned_over(body.solid) if body.upside_down else body.solid
        solid = solid.simplify(MERGED)
        x0, y0, z0, x1, y1, _ = solid.bounding_box()
        placed.append(Placed(body.name, solid.translate((left - x0, -(y0 + y1) / 2, -z0))))
        left += x1 - x0 + gap
    return placed


def extent(placed: Sequence[Placed]) -> tuple[float, float, float]:
    """The size of the bed the bodies cover, and their height."""
    boxes = np.array([p.solid.bounding_box() for p in placed], dtype=np.float64)
    low, high = boxes[:, :3].min(axis=0), boxes[:, 3:].max(axis=0)
    x, y, z = (high - low).tolist()
    return x, y, z


def triangles(placed: Sequence[Placed]) -> np.ndarray:
    """Every triangle of the bodies, as an (n, 3, 3) array of float32 corners."""
    parts: list[np.ndarray] = []
    for body in placed:
        mesh = body.solid.to_mesh()
        corners = np.asarray(mesh.vert_properties, dtype=np.float32)[:, :3]
        parts.append(corners[np.asarray(mesh.tri_verts, dtype=np.int64)])
    return np.concatenate(parts) if parts else np.zeros((0, 3, 3), dtype=np.float32)
