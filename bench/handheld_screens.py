"""The handheld's screens as PNGs, taken from the simulated display (docs/handheld.md).

Runs a simulated handheld, drives it through the link and its control channel as a player
would, and saves what its SSD1306 shows:

- ``handheld-ready.png``: just booted, no secret roll yet;
- ``handheld-blank.png``: a secret roll held, nothing of it shown;
- ``handheld-peek.png``: PEEK held;
- ``handheld-reveal.png``: revealed to the table;
- ``handheld-low-battery.png``: a secret held, VSYS at 3.4 V;
- ``handheld-screens.png``: blank, peek, reveal and low battery side by side (for README).

The dice are rolled (and peeked at, and revealed) until they come up ``--colour`` and
``--number``, so every run draws the same pictures.

    .venv/bin/python bench/handheld_screens.py [--out docs/images] [--colour purple] [--number 4]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from popdice.client import connect_when_ready
from popdice.handheld import Handheld
from popdice.sim import SimControl, SimulatedPico, render
from popdice.sim.protocol import SimEvent
from popdice_fw.commit import COLOURS

MAX_ROLLS = 1000
LOW_VSYS = 3.4


def is_peek(buffer: bytes) -> bool:
    """The peek screen: its small colour die is filled where the reveal's large one is not."""
    return render.pixel(buffer, 18, 16) and not render.pixel(buffer, 10, 40)


def is_reveal(buffer: bytes) -> bool:
    return render.pixel(buffer, 10, 40)


def showing(predicate: Callable[[bytes], bool]) -> Callable[[SimEvent], bool]:
    return lambda event: bool(event["on"]) and predicate(event["buffer"])


def save(out: Path, name: str, state: dict, shots: dict[str, dict] | None = None) -> None:
    path = out / f"handheld-{name}.png"
    path.write_bytes(render.display_png(state))
    print(path)
    if shots is not None:
        shots[name] = state


def take(out: Path, colour: str, number: int) -> None:
    shots: dict[str, dict] = {}
    with SimulatedPico("handheld") as sim:
        client = connect_when_ready(sim.port)
        assert isinstance(client, Handheld)
        with client, SimControl(sim.control_path) as control:
            client.settings(idle_ms=3_600_000, peek_ms=60_000)
            save(out, "ready", control.display())
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
                raise SystemExit(f"no {colour} {number} in {MAX_ROLLS} rolls")
            save(out, "peek", peek, shots)
            save(out, "reveal", shown, shots)

            mark = control.mark()
            client.roll()
            hinted = control.wait_for("display", showing(lambda b: True), after=mark)
            blank = control.wait_for(
                "display", showing(lambda b: b != hinted["buffer"]), after=hinted.seq
            )
            save(out, "blank", blank.data, shots)
            control.set_vsys(LOW_VSYS)
            low = control.wait_for("display", showing(lambda b: True)).data
            save(out, "low-battery", low, shots)
    strip = [shots[name] for name in ("blank", "peek", "reveal", "low-battery")]
    path = out / "handheld-screens.png"
    path.write_bytes(render.displays_png(strip, scale=2, gap=8))
    print(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--colour", choices=COLOURS, default="purple")
    parser.add_argument("--number", type=int, choices=range(1, 7), default=4)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    take(args.out, args.colour, args.number)
    return 0


if __name__ == "__main__":
    sys.exit(main())
