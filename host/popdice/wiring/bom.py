"""A board's bill of materials: every line of its parts list (``boards/<kind>/parts.json``)
and the hardware its printed case needs (``boards/<kind>/case.json``), checked and in order.

Each line says how many, what part, a manufacturer's part number or a widely sold module to
order, its key rating, and what it is for. Lines come in sections: the electronics, the wire
and board, the case, and the tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..case import dimensions
from ..deploy import files as deploy_files
from ..errors import PopdiceError
from . import board as boards

SECTIONS = ("electronics", "wire and board", "case", "tools")
FIELDS = ("qty", "part", "number", "rating", "for")


@dataclass(frozen=True)
class Line:
    """One line of the bill of materials."""

    section: str
    qty: int
    part: str
    number: str
    rating: str
    purpose: str
    wired_as: tuple[str, ...] = ()

    def cells(self) -> tuple[str, str, str, str, str]:
        return (str(self.qty), self.part, self.number, self.rating, self.purpose)


def lines(kind: str) -> list[Line]:
    """The bill of materials of ``kind``: its parts list, then its case's hardware, by
    section."""
    source = f"boards/{kind}/parts.json"
    listing = boards.read_parts_list(deploy_files.board_data(kind, "parts.json"), source)
    found = [_line(row, source, None) for row in listing["parts"]]
    found += [
        Line("case", item.qty, item.part, item.number, item.rating, item.used_for)
        for item in dimensions.load(kind).hardware
    ]
    return sorted(found, key=lambda line: SECTIONS.index(line.section))


def _line(row: Any, source: str, section: str | None) -> Line:
    if not isinstance(row, dict):
        raise PopdiceError(f"{source}: a part is an object: {row!r}")
    section = row.get("section", section)
    if section not in SECTIONS:
        raise PopdiceError(
            f"{source}: {row.get('part', row)!r} has section {section!r} "
            f"(one of: {', '.join(SECTIONS)})"
        )
    qty = row.get("qty")
    if not isinstance(qty, int) or isinstance(qty, bool) or not 1 <= qty <= 10_000:
        raise PopdiceError(f"{source}: {row.get('part', row)!r} needs a qty from 1 to 10000")
    for field in FIELDS[1:]:
        if not isinstance(row.get(field), str):
            raise PopdiceError(f"{source}: {row.get('part', row)!r} needs {field} (text)")
    if not row["part"]:
        raise PopdiceError(f"{source}: a part with no name: {row!r}")
    wired_as = row.get("wired_as", [])
    return Line(
        section,
        qty,
        row["part"],
        row["number"],
        row["rating"],
        row["for"],
        tuple(wired_as) if isinstance(wired_as, list) else (),
    )
