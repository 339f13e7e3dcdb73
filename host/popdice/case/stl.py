"""Binary STL, written and read back: the triangles of a case's bodies, in millimetres.

The writer's bytes depend on the triangles alone: every triangle starts at its smallest
corner (its orientation kept) and the triangles are sorted, so the same solids give the same
file whatever order the geometry library produced them in. Each facet's normal is worked out
from its corners (anticlockwise seen from outside, as STL wants).
"""

from __future__ import annotations

import numpy as np

from ..errors import PopdiceError

HEADER_SIZE = 80
RECORD = np.dtype(
    [("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attributes", "<u2")]
)  # 50 bytes a facet


def write(triangles: np.ndarray, header: str) -> bytes:
    """The STL file of ``triangles`` ((n, 3, 3) corners); ``header`` is ASCII, at most 80."""
    corners = canonical(np.asarray(triangles, dtype=np.float32))
    records = np.zeros(len(corners), dtype=RECORD)
    records["corners"] = corners
    records["normal"] = normals(corners)
    title = header.encode("ascii")[:HEADER_SIZE].ljust(HEADER_SIZE, b" ")
    count = np.array([len(corners)], dtype="<u4").tobytes()
    return title + count + records.tobytes()


def read(data: bytes) -> tuple[str, np.ndarray]:
    """The header and the (n, 3, 3) float32 corners of a binary STL file."""
    if len(data) < HEADER_SIZE + 4:
        raise PopdiceError("not a binary STL file: shorter than its header")
    count = int(np.frombuffer(data, dtype="<u4", count=1, offset=HEADER_SIZE)[0])
    if len(data) != HEADER_SIZE + 4 + count * RECORD.itemsize:
        raise PopdiceError(f"not a binary STL file of {count} facets: {len(data)} bytes")
    records = np.frombuffer(data, dtype=RECORD, count=count, offset=HEADER_SIZE + 4)
    header = data[:HEADER_SIZE].decode("ascii", errors="replace").rstrip()
    return header, records["corners"].copy()


def canonical(corners: np.ndarray) -> np.ndarray:
    """The triangles each rotated to start at its smallest corner (by x, then y, then z),
    sorted by their corners."""
    if len(corners) == 0:
        return corners.reshape(0, 3, 3)
    first = np.zeros(len(corners), dtype=np.int64)
    for candidate in (1, 2):
        smaller = _less(corners[:, candidate], corners[np.arange(len(corners)), first])
        first[smaller] = candidate
    order = (first[:, None] + np.arange(3)[None, :]) % 3
    rotated = corners[np.arange(len(corners))[:, None], order]
    flat = rotated.reshape(len(rotated), 9)
    return rotated[np.lexsort(flat.T[::-1])]


def normals(corners: np.ndarray) -> np.ndarray:
    """Each triangle's unit normal (zero for a triangle without area)."""
    wide = corners.astype(np.float64)
    cross = np.cross(wide[:, 1] - wide[:, 0], wide[:, 2] - wide[:, 0])
    length = np.sqrt((cross * cross).sum(axis=1))
    safe = np.where(length > 0, length, 1.0)
    return (cross / safe[:, None]).astype(np.float32)


def _less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where point ``a`` comes before point ``b`` (rows of x, y, z)."""
    return (a[:, 0] < b[:, 0]) | (
        (a[:, 0] == b[:, 0]) & ((a[:, 1] < b[:, 1]) | ((a[:, 1] == b[:, 1]) & (a[:, 2] < b[:, 2])))
    )
