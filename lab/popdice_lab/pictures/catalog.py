"""Every picture the README shows, by kind: what draws each, and how the files in a folder
compare with what it draws now."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from . import (
    case_renders,
    detector_plot,
    fairness_chart,
    handheld_screens,
    led_dice,
    phones,
    table_screenshot,
    wiring_diagrams,
)

DRAWERS: dict[str, Callable[[], dict[str, bytes]]] = {
    "wiring": wiring_diagrams.pictures,
    "leds": led_dice.pictures,
    "fairness": fairness_chart.pictures,
    "detector": detector_plot.pictures,
    "table": table_screenshot.pictures,
    "handheld": handheld_screens.pictures,
    "phones": phones.pictures,
    "case": case_renders.pictures,
}
KINDS = tuple(DRAWERS)
LOOSE = {phones.PHONE_FILE}
"""Pictures a browser draws: their pixels depend on the machine's fonts, so a check compares
their PNG header (its width and height), not their bytes."""


def draw(kinds: Iterable[str] = KINDS) -> dict[str, bytes]:
    """The files of the pictures of ``kinds``, by name, as drawn now."""
    files: dict[str, bytes] = {}
    for kind in kinds:
        files.update(DRAWERS[kind]())
    return files


def out_of_date(folder: Path, files: dict[str, bytes]) -> list[str]:
    """What is wrong in ``folder``: one line a file that is missing or differs from ``files``."""
    problems = []
    for name, content in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            problems.append(f"missing: {path}")
        elif name in LOOSE:
            if path.read_bytes()[:24] != content[:24]:
                problems.append(f"stale: {path}")
        elif path.read_bytes() != content:
            problems.append(f"stale: {path}")
    return problems


def write(folder: Path, files: dict[str, bytes]) -> list[Path]:
    """Writes every file into ``folder`` (each whole or not at all); returns those changed."""
    folder.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, content in sorted(files.items()):
        path = folder / name
        if path.is_file() and path.read_bytes() == content:
            continue
        temporary = path.with_name(f".{name}.tmp")
        temporary.write_bytes(content)
        temporary.replace(path)
        changed.append(path)
    return changed
