"""Plain-text tables for the command line: a header line, then one line a row, each column
as wide as its widest cell, two spaces apart."""

from __future__ import annotations

from collections.abc import Collection, Sequence

GAP = "  "


def aligned(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, right: Collection[int] = ()
) -> list[str]:
    """``header`` and ``rows`` as lines of aligned columns. The columns numbered in ``right``
    are aligned right (numbers), the others left; no line ends in spaces."""
    table = [list(header), *(list(row) for row in rows)]
    widths = [max(len(line[column]) for line in table) for column in range(len(header))]
    return [_line(cells, widths, right) for cells in table]


def _line(cells: Sequence[str], widths: Sequence[int], right: Collection[int]) -> str:
    """One line of the table: each cell padded to its column's width."""
    padded = [
        cell.rjust(width) if column in right else cell.ljust(width)
        for column, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ]
    return GAP.join(padded).rstrip()
