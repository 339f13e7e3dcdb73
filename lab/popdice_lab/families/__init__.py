"""Model families: independently written physical models of a popper at a table, each with its
own idea of what a press and everything that is not a press look like to the LIS3DH.

A family is a module with:

- ``NAME`` (str) and ``SUMMARY`` (one line: the press mechanics and the unit it models);
- ``session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace``:
  ``unit`` picks one physical popper as built (its dome, feet, case, how the sensor is
  mounted, the sensor part's own errors, what it stands on), drawn from the family's spread;
  the same ``unit`` is the same popper in every session. ``seed`` picks what happens in the
  session. ``presses=True`` is play at the table: presses (single ones, quick series, presses
  in the middle of other things) among everyday disturbances; ``presses=False`` is the
  disturbances alone. Deterministic: the same arguments give the same trace. The trace's
  ``press_times_ms`` gives each press's onset and its ``releases_ms`` each press's release
  blow, one a press in the same order: the instant the dome snaps back, or for a dome that
  does not click the instant the finger's force falls away (each family's docstring says
  which instant its model takes).

Families are scored against each other with one left out (``bench/detect.py``), so they must
not share code for the physics: each is its own author's model.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from popdice.traces.trace import Trace

FAMILY_MODULES = {
    "table": "popdice_lab.families.table",
    "snapdome": "popdice_lab.families.snapdome",
    "softpress": "popdice_lab.families.softpress",
    "springmass": "popdice_lab.families.springmass",
    "cushion": "popdice_lab.families.cushion",
}


def family(name: str) -> ModuleType:
    """The family module called ``name``; ``KeyError`` naming the known ones if none is."""
    if name not in FAMILY_MODULES:
        known = ", ".join(sorted(FAMILY_MODULES))
        raise KeyError(f"no model family {name!r} (known: {known})")
    return importlib.import_module(FAMILY_MODULES[name])


def available() -> list[str]:
    """The names of the families whose modules are present."""
    found = []
    for name, module in FAMILY_MODULES.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        found.append(name)
    return found


def chosen(names: str | None) -> list[str]:
    """The families a comma-separated option names (every available one for none or "");
    ``ValueError`` with a one-line message naming the first unknown one."""
    if not names:
        return available()
    picked = [name.strip() for name in names.split(",") if name.strip()]
    present = available()
    for name in picked:
        if name not in present:
            raise ValueError(f"no model family {name!r} (there are: {', '.join(present)})")
    return picked


__all__ = ["FAMILY_MODULES", "Trace", "available", "chosen", "family"]
