"""Runs the firmware's own press detector inside MicroPython (the unix port, with a Pico's
192K heap) over samples the CPython side hands it, and reads back where it saw presses.

The samples go in as the driver would give them (``sensor.driver_mg``); the MicroPython side
is ``upy/run_detector.py``, which imports ``popdice_fw.press`` from the firmware directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..deploy.files import FIRMWARE_DIR
from ..errors import PopdiceError
from .trace import driver_mg

RUNNER = Path(__file__).resolve().with_name("upy") / "run_detector.py"
HEAP_SIZE = "192K"
TIMEOUT_S = 600


class DetectorError(PopdiceError):
    """The detector could not be run inside MicroPython."""


@dataclass(frozen=True)
class Detections:
    """What the detector did over one run of samples."""

    indices: list[int]  # the samples on which update() returned True
    samples: int
    presses: int
    rejected: int
    releases: int


def micropython_command() -> list[str]:
    from ..deploy.unix_port import find_micropython

    try:
        exe = find_micropython()
    except PopdiceError as error:
        raise DetectorError(str(error)) from None
    return [exe, "-X", f"heapsize={HEAP_SIZE}"]


def run_detector(
    samples_g: Iterable[Iterable[float]], settings: dict[str, Any] | None = None
) -> Detections:
    """Feeds readings (g) through the firmware's detector inside MicroPython: the default
    one, or with ``settings`` the settings-driven one (``popdice_fw.impulse``)."""
    return run_detector_mg(driver_mg(samples_g), settings)


def run_detector_mg(samples_mg: array, settings: dict[str, Any] | None = None) -> Detections:
    """Feeds driver samples (flat x, y, z in mg) through the detector inside MicroPython."""
    if samples_mg.typecode != "h":
        raise ValueError("samples go to the detector as 16-bit integers")
    if sys.byteorder != "little":
        samples_mg = array("h", samples_mg)
        samples_mg.byteswap()
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FIRMWARE_DIR), ".frozen"]))
    try:
        proc = subprocess.run(
            [*micropython_command(), str(RUNNER), *([json.dumps(settings)] if settings else [])],
            input=samples_mg.tobytes(),
            capture_output=True,
            env=env,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DetectorError(f"the detector took over {TIMEOUT_S} s") from None
    except OSError as error:
        raise DetectorError(f"cannot run MicroPython: {error.strerror or error}") from None
    lines = proc.stdout.decode("ascii", "replace").split()
    if proc.returncode != 0 or "done" not in lines:
        problem = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        last = problem[-1] if problem else f"exit code {proc.returncode}"
        raise DetectorError(f"the detector failed inside MicroPython: {last}")
    done = lines.index("done")
    samples, presses, rejected, releases = (int(word) for word in lines[done + 1 : done + 5])
    return Detections([int(word) for word in lines[:done]], samples, presses, rejected, releases)
