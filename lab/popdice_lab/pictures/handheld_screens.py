"""The handheld's screens as PNGs, taken from the simulated display (docs/handheld.md).

Runs a simulated handheld, drives it through the link and its control channel as a player
would, and keeps what its SSD1306 shows:

- ``handheld-ready.png``: just booted, no secret roll yet;
- ``handheld-blank.png``: a secret roll held, nothing of it shown;
- ``handheld-peek.png``: PEEK held;
- ``handheld-reveal.png``: revealed to the table;
- ``handheld-low-battery.png``: a secret held, VSYS at 3.4 V;
- ``handheld-screens.png``: blank, peek, reveal and low battery side by side (for README).

The dice are rolled (and peeked at, and revealed) until they come up ``COLOUR`` and
``NUMBER``, so every run draws the same pictures.
"""

from __future__ import annotations

from collections.abc import Callable

from popdice.devices.connect import connect_when_ready
from popdice.devices.handheld import Handheld
from popdice.errors import PopdiceError
from popdice.sim import SimControl, SimulatedPico, render
from popdice.sim.protocol import SimEvent

COLOUR = "purple"
NUMBER = 4
MAX_ROLLS = 1000
LOW_VSYS = 3.4
STRIP = ("blank", "peek", "reveal", "low-battery")


def is_peek(buffer: bytes) -> bool:
    """The peek screen: its small colour die is filled where the reveal's large one is not."""
    return render.pixel(buffer, 18, 16) and not render.pixel(buffer, 10, 40)


def is_reveal(buffer: bytes) -> bool:
    return render.pixel(buffer, 10, 40)


def showing(predicate: Callable[[bytes], bool]) -> Callable[[SimEvent], bool]:
    return lambda event: bool(event["on"]) and predicate(event["buffer"])


def screens(colour: str = COLOUR, number: int = NUMBER) -> dict[str, dict]:
    """The display's state on each screen, by name."""
    shots: dict[str, dict] = {}
    with SimulatedPico("handheld") as sim:
        client = connect_when_ready(sim.port)
        if not isinstance(client, Handheld):
            raise PopdiceError(f"the simulated handheld answered as a {client.info.board}")
        with client, SimControl(sim.control_path) as control:
            client.settings(idle_ms=3_600_000, peek_ms=60_000)
            shots["ready"] = control.display()
            for _ in range(MAX_ROLLS):
                client.roll()
                control.press("peek")
                peek = control.wait_for("display", showing(is_peek)).data
                control.release("peek")
                control.wait_for("display", showing(lambda b: not is_peek(b)))
                reveal = client.reveal()
                shown = control.wait_for("display", showing(is_reveal)).data
                if (reveal.colour, reveal.number) == (colour, number):
                    break
            else:
                raise PopdiceError(f"no {colour} {number} in {MAX_ROLLS} rolls")
            shots["peek"], shots["reveal"] = peek, shown

            mark = control.mark()
            client.roll()
            hinted = control.wait_for("display", showing(lambda b: True), after=mark)
            blank = control.wait_for(
                "display", showing(lambda b: b != hinted["buffer"]), after=hinted.seq
            )
            shots["blank"] = blank.data
            control.set_vsys(LOW_VSYS)
            shots["low-battery"] = control.wait_for("display", showing(lambda b: True)).data
    return shots


def pictures() -> dict[str, bytes]:
    shots = screens()
    files = {f"handheld-{name}.png": render.display_png(state) for name, state in shots.items()}
    strip = [shots[name] for name in STRIP]
    files["handheld-screens.png"] = render.displays_png(strip, scale=2, gap=8)
    return files
