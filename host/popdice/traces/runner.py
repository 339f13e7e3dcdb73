"""Runs the firmware's own press detector inside MicroPython (the unix port, with a Pico's
192K heap) over samples the CPython side hands it, and reads back its events: where it cued,
popped and cancelled.

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
SETTINGS_VARIABLE = "POPDICE_DETECTOR_SETTINGS"  # what run_detector.py reads its settings from
HEAP_SIZE = "192K"
TIMEOUT_S = 600


class DetectorError(PopdiceError):
    """The detector could not be run inside MicroPython."""


CUE, POP, CANCEL = 1, 2, 3  # the detector's events (popdice_fw.press)


@dataclass(frozen=True)
class Detections:
    """What the detector did over one run of samples."""

    events: list[tuple[int, int]]  # (sample, event) of every event
    samples: int
    counts: dict[str, int]  # cues, pops, cancels, rejected, releases

    @property
    def indices(self) -> list[int]:
        """The samples on which the detector popped."""
        return [index for index, event in self.events if event == POP]

    def of(self, kind: int) -> list[int]:
        return [index for index, event in self.events if event == kind]


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
    """Feeds readings (g) through the firmware's detector inside MicroPython: with the
    built-in settings, or with ``settings``."""
    return run_detector_mg(driver_mg(samples_g), settings)


def run_detector_mg(samples_mg: array, settings: dict[str, Any] | None = None) -> Detections:
    """Feeds driver samples (flat x, y, z in mg) through the detector inside MicroPython."""
    if samples_mg.typecode != "h":
        raise ValueError("samples go to the detector as 16-bit integers")
    if sys.byteorder != "little":
        samples_mg = array("h", samples_mg)
        samples_mg.byteswap()
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FIRMWARE_DIR), ".frozen"]))
    env.pop(SETTINGS_VARIABLE, None)
    if settings:
        # in the environment: the unix port's wheel fails on an argument of 256 bytes or more
        env[SETTINGS_VARIABLE] = json.dumps(settings)
    try:
        proc = subprocess.run(
            [*micropython_command(), str(RUNNER)],
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
    lines = proc.stdout.decode("ascii", "replace").splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].startswith("done "):
        problem = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        last = problem[-1] if problem else f"exit code {proc.returncode}"
        raise DetectorError(f"the detector failed inside MicroPython: {last}")
    samples, *numbers = (int(word) for word in lines[-1].split()[1:])
    names = ("cues", "pops", "cancels", "rejected", "releases")
    events = []
    for line in lines[:-1]:
        index, event = line.split()
        events.append((int(index), int(event)))
    return Detections(events, samples, dict(zip(names, numbers, strict=True)))
