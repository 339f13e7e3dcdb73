"""The wiring diagrams of both boards, as ``popdice wiring --board KIND --out FILE.svg``
draws them from each board module (``popdice.wiring``)."""

from __future__ import annotations

from popdice.deploy.files import KINDS
from popdice.wiring import board as boards
from popdice.wiring.svg import render


def pictures() -> dict[str, bytes]:
    return {f"wiring-{kind}.svg": render(boards.load(kind)).encode() for kind in KINDS}
