"""The printed cases as PNGs (docs/build.md): ``case-popper.png`` and ``case-handheld.png``.

Each is an exploded view of the case as ``popdice case`` builds it from the board's
``case.json`` (``popdice.case``): the bodies the right way up, drawn apart along z, seen from
above and in front (the USB opening's side). The popper's bought dome is drawn too, see-through.

A small rasteriser in numpy: orthographic projection, a depth buffer, flat Lambert shading,
dark lines where the surface folds or one body passes behind another, drawn at twice the size
and averaged down. Only adding, multiplying, dividing and square roots touch the pixels
(exact in IEEE arithmetic, the same on every machine), and the PNG is written by hand with
zlib, so every run gives the same bytes.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from popdice.case import dimensions, handheld, popper
from popdice.case.shapes import Solid

SUPERSAMPLE = 2
MARGIN = 16  # px around the drawing
BACKGROUND = (255, 255, 255)
LINE = np.array((40.0, 44.0, 52.0))
FOLD_COSINE = 0.8  # neighbouring pixels whose normals differ more than ~37 degrees: a fold
AMBIENT = 0.45
SEE_THROUGH = 0.3  # how much of the dome's own colour covers what is behind it


@dataclass(frozen=True)
class View:
    """An orthographic camera: from ``azimuth`` degrees (anticlockwise from +x) and
    ``elevation`` degrees above the horizon, ``scale`` pixels a millimetre."""

    azimuth: float
    elevation: float
    scale: float

    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit vectors: the screen's right, its up, and towards the camera."""
        a, e = math.radians(self.azimuth), math.radians(self.elevation)
        towards = np.array((math.cos(a) * math.cos(e), math.sin(a) * math.cos(e), math.sin(e)))
        right = np.array((-math.sin(a), math.cos(a), 0.0))
        up = np.array(
            (
                towards[1] * right[2] - towards[2] * right[1],
                towards[2] * right[0] - towards[0] * right[2],
                towards[0] * right[1] - towards[1] * right[0],
            )
        )
        return right, up, towards


@dataclass(frozen=True)
class Part:
    """A solid to draw, raised by ``lift`` mm, in ``colour``; ``see_through`` draws it over
    the others, blended."""

    solid: Solid
    colour: tuple[int, int, int]
    lift: float = 0.0
    see_through: bool = False


POPPER_VIEW = View(azimuth=-62.0, elevation=32.0, scale=3.2)
HANDHELD_VIEW = View(azimuth=-58.0, elevation=38.0, scale=4.4)
LIGHT = (0.35, -0.45, 0.82)
PLASTIC = (122, 150, 184)
LID = (214, 218, 224)
RIM = (96, 104, 118)
DOME = (170, 215, 245)


def pictures() -> dict[str, bytes]:
    return {"case-popper.png": popper_picture(), "case-handheld.png": handheld_picture()}


def popper_picture() -> bytes:
    case = dimensions.load("popper")
    assert isinstance(case, dimensions.PopperCase)
    base, lid, rim = (body.solid for body in popper.bodies(case))
    return render(
        [
            Part(base, PLASTIC),
            Part(lid, LID, lift=70.0),
            Part(rim, RIM, lift=130.0),
            Part(popper.dome(case), DOME, lift=105.0, see_through=True),
        ],
        POPPER_VIEW,
    )


def handheld_picture() -> bytes:
    case = dimensions.load("handheld")
    assert isinstance(case, dimensions.HandheldCase)
    base, lid = (body.solid for body in handheld.bodies(case))
    return render([Part(base, PLASTIC), Part(lid, LID, lift=45.0)], HANDHELD_VIEW)


def render(parts: Sequence[Part], view: View) -> bytes:
    """The parts drawn from ``view``, as a PNG."""
    right, up, towards = view.axes()
    meshes = [_projected(part, right, up, towards) for part in parts]
    scale = view.scale * SUPERSAMPLE
    corners = np.concatenate([m[0].reshape(-1, 3) for m in meshes])
    low, high = corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)
    margin = MARGIN * SUPERSAMPLE
    width = math.ceil((high[0] - low[0]) * scale) + 2 * margin
    height = math.ceil((high[1] - low[1]) * scale) + 2 * margin
    width += -width % SUPERSAMPLE
    height += -height % SUPERSAMPLE
    origin = np.array((low[0] - margin / scale, high[1] + margin / scale))
    light = np.array(LIGHT) / math.sqrt(sum(c * c for c in LIGHT))

    opaque = _Canvas(width, height)
    glass = _Canvas(width, height)
    for index, (part, (screen, normals)) in enumerate(zip(parts, meshes, strict=True)):
        canvas = glass if part.see_through else opaque
        pixels = (screen[:, :, :2] - origin) * np.array((scale, -scale))
        canvas.draw(pixels, screen[:, :, 2], normals, index + 1)

    image = np.empty((height, width, 3))
    image[:] = BACKGROUND
    _paint(image, opaque, parts, light, right, up, towards)
    shown = glass.depth > opaque.depth
    if shown.any():
        behind = image.copy()
        _paint(image, glass, parts, light, right, up, towards)
        image[shown] = behind[shown] * (1 - SEE_THROUGH) + image[shown] * SEE_THROUGH
        image[~shown] = behind[~shown]
    small = image.reshape(height // SUPERSAMPLE, SUPERSAMPLE, width // SUPERSAMPLE, SUPERSAMPLE, 3)
    averaged = small.mean(axis=(1, 3))
    return png(np.clip(np.floor(averaged + 0.5), 0, 255).astype(np.uint8))


class _Canvas:
    """A depth buffer with the normal and the part drawn at each pixel."""

    def __init__(self, width: int, height: int) -> None:
        self.depth = np.full((height, width), -np.inf)
        self.normal = np.zeros((height, width, 3))
        self.part = np.zeros((height, width), dtype=np.int32)

    def draw(self, pixels: np.ndarray, depths: np.ndarray, normals: np.ndarray, part: int) -> None:
        """Fills each triangle (corners in pixels, their depths) where it is nearest."""
        height, width = self.depth.shape
        for corners, depth, normal in zip(pixels, depths, normals, strict=True):
            x0 = max(math.floor(corners[:, 0].min()), 0)
            x1 = min(math.ceil(corners[:, 0].max()), width - 1)
            y0 = max(math.floor(corners[:, 1].min()), 0)
            y1 = min(math.ceil(corners[:, 1].max()), height - 1)
            if x1 < x0 or y1 < y0:
                continue
            (ax, ay), (bx, by), (cx, cy) = corners
            area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            if area == 0:
                continue
            xs = np.arange(x0, x1 + 1) + 0.5
            ys = (np.arange(y0, y1 + 1) + 0.5)[:, None]
            wa = ((bx - xs) * (cy - ys) - (by - ys) * (cx - xs)) / area
            wb = ((cx - xs) * (ay - ys) - (cy - ys) * (ax - xs)) / area
            wc = 1.0 - wa - wb
            inside = (wa >= 0) & (wb >= 0) & (wc >= 0)
            if not inside.any():
                continue
            z = wa * depth[0] + wb * depth[1] + wc * depth[2]
            window = self.depth[y0 : y1 + 1, x0 : x1 + 1]
            nearer = inside & (z > window)
            window[nearer] = z[nearer]
            self.normal[y0 : y1 + 1, x0 : x1 + 1][nearer] = normal
            self.part[y0 : y1 + 1, x0 : x1 + 1][nearer] = part


def _projected(
    part: Part, right: np.ndarray, up: np.ndarray, towards: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The part's triangles on the screen (x, y and depth of each corner) and their normals
    (in the world)."""
    mesh = part.solid.translate((0.0, 0.0, part.lift)).to_mesh()
    points = np.asarray(mesh.vert_properties, dtype=np.float64)[:, :3]
    triangles = points[np.asarray(mesh.tri_verts, dtype=np.int64)]
    screen = np.stack([_dot(triangles, axis) for axis in (right, up, towards)], axis=-1)
    edge1 = triangles[:, 1] - triangles[:, 0]
    edge2 = triangles[:, 2] - triangles[:, 0]
    normal = np.stack(
        (
            edge1[:, 1] * edge2[:, 2] - edge1[:, 2] * edge2[:, 1],
            edge1[:, 2] * edge2[:, 0] - edge1[:, 0] * edge2[:, 2],
            edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0],
        ),
        axis=-1,
    )
    length = np.sqrt(normal[:, 0] ** 2 + normal[:, 1] ** 2 + normal[:, 2] ** 2)
    keep = length > 0
    return screen[keep], normal[keep] / length[keep, None]


def _dot(vectors: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """Dot products written out (no BLAS, whose order of adding differs between machines)."""
    return vectors[..., 0] * axis[0] + vectors[..., 1] * axis[1] + vectors[..., 2] * axis[2]


def _paint(
    image: np.ndarray,
    canvas: _Canvas,
    parts: Sequence[Part],
    light: np.ndarray,
    right: np.ndarray,
    up: np.ndarray,
    towards: np.ndarray,
) -> None:
    """Shades the canvas's pixels into ``image`` and draws its lines."""
    drawn = canvas.part > 0
    facing = _dot(canvas.normal, towards)
    normal = np.where((facing < 0)[..., None], -canvas.normal, canvas.normal)
    brightness = AMBIENT + (1 - AMBIENT) * np.maximum(_dot(normal, light), 0.0)
    colours = np.array([(0, 0, 0), *(part.colour for part in parts)], dtype=np.float64)
    shaded = colours[canvas.part] * brightness[..., None]
    image[drawn] = shaded[drawn]
    image[_lines(canvas)] = LINE


def _lines(canvas: _Canvas) -> np.ndarray:
    """Pixels on a fold, on the outline of a part, or where the surface jumps in depth."""
    lines = np.zeros(canvas.part.shape, dtype=bool)
    step = 1.5 * SUPERSAMPLE  # a jump deeper than this (in pixels of depth) is an edge
    for dy, dx in ((0, 1), (1, 0)):
        here = (slice(0, canvas.part.shape[0] - dy), slice(0, canvas.part.shape[1] - dx))
        there = (slice(dy, None), slice(dx, None))
        part_a, part_b = canvas.part[here], canvas.part[there]
        cosine = _dot(canvas.normal[here] * canvas.normal[there], np.ones(3))
        depth_a, depth_b = canvas.depth[here], canvas.depth[there]
        both = (part_a > 0) & (part_b > 0)
        jump = np.zeros_like(both)
        jump[both] = np.abs(depth_a[both] - depth_b[both]) > step
        edge = (part_a != part_b) | (both & ((cosine < FOLD_COSINE) | jump))
        lines[here] |= edge
    return lines


def png(pixels: np.ndarray) -> bytes:
    """An RGB PNG of ``pixels`` (height, width, 3; uint8), each row filtered by Sub."""
    height, width, _ = pixels.shape
    rows = pixels.astype(np.int16).reshape(height, width * 3)
    sub = rows.copy()
    sub[:, 3:] = rows[:, 3:] - rows[:, :-3]
    filtered = np.concatenate(
        [np.ones((height, 1), dtype=np.uint8), (sub % 256).astype(np.uint8)], axis=1
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(filtered.tobytes(), 9)),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)
