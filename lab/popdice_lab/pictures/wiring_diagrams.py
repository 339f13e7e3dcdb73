"""The wiring diagrams of both boards, as ``popdice wiring --board KIND --out FILE.svg``
draws them from each board module and parts list (``popdice.wiring``), and the popper's
LED dice, as ``popdice wiring --board popper --dice --out FILE.svg`` draws them."""

from __future__ import annotations

from popdice.deploy.files import KINDS
from popdice.wiring import board as boards
from popdice.wiring import dice
from popdice.wiring.dice_svg import render_dice
from popdice.wiring.svg import render


def pictures() -> dict[str, bytes]:
    files = {f"wiring-{kind}.svg": render(boards.load(kind)).encode() for kind in KINDS}
    files["dice-popper.svg"] = render_dice(dice.layout("popper")).encode()
    return files
