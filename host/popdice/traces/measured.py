"""The firmware's settings-driven press detector (``popdice_fw/impulse.py``) run in CPython,
fast enough to try thousands of settings on the same recordings.

The firmware module itself is loaded (with a stand-in for MicroPython's ``const``), so the
arithmetic is the firmware's, not a copy. Its first stage, ``measure``, runs once over a
trace for each band and its results are kept (``Measured``); a set of settings is then tried
by handing its second stage, ``decide``, only the samples where something can happen: those
whose impulse reaches the threshold, the samples of a candidate's window after them, and the
first and last samples of each stretch where the unit moves. ``decide`` counts time by sample
numbers, so it reaches the same decisions as on every sample; ``tests/test_tune.py`` checks
that against the detector inside MicroPython.
"""

from __future__ import annotations

import bisect
import importlib.util
import sys
import types
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..deploy.files import FIRMWARE_DIR

MODULE_PATH = FIRMWARE_DIR / "popdice_fw" / "impulse.py"
WINDOW_MAX = 3


@lru_cache(maxsize=1)
def firmware_module() -> Any:
    """``popdice_fw.impulse``, loaded into CPython from the firmware directory."""
    if "micropython" not in sys.modules:
        shim = types.ModuleType("micropython")
        shim.const = lambda value: value  # type: ignore[attr-defined]
        sys.modules["micropython"] = shim
    spec = importlib.util.spec_from_file_location("popdice_fw_impulse_host", MODULE_PATH)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {MODULE_PATH}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def defaults() -> dict[str, Any]:
    return firmware_module().defaults()


def firmware_settings() -> tuple[tuple[str, Any, Any, Any], ...]:
    """The firmware's settings: (name, smallest, largest, default) each."""
    return firmware_module().SETTINGS


def check_settings(values: object) -> dict[str, Any]:
    """The firmware's own check (ValueError naming the setting)."""
    return firmware_module().check_settings(values)


@dataclass
class Measured:
    """The first stage over one trace at one band: per sample, the impulse, the background,
    the energies and the stillness (mg, the firmware's units)."""

    band: int
    impulse: array
    lead: array
    background: array
    along_energy: array
    sideways_energy: array
    still: array
    _by_size: list[int] = field(default_factory=list, repr=False)
    _sizes: list[int] = field(default_factory=list, repr=False)
    _moving: dict[int, list[int]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, samples_mg: Sequence[int], band: int) -> Measured:
        """Runs ``measure`` over flat x, y, z samples (mg)."""
        module = firmware_module()
        settings = module.defaults()
        settings["band_samples"] = band
        detector = module.ImpulseDetector(settings)
        measure = detector.measure
        count = len(samples_mg) // 3
        impulse = array("i", bytes(4 * count))
        lead = array("i", bytes(4 * count))
        background = array("i", bytes(4 * count))
        along = array("i", bytes(4 * count))
        sideways = array("i", bytes(4 * count))
        still = array("i", bytes(4 * count))
        for k in range(count):
            measure(samples_mg[3 * k], samples_mg[3 * k + 1], samples_mg[3 * k + 2])
            impulse[k] = detector.impulse
            lead[k] = detector.lead
            background[k] = detector.background
            along[k] = detector.along_energy
            sideways[k] = detector.sideways_energy
            still[k] = detector.still_mg
        return cls(band, impulse, lead, background, along, sideways, still)

    def __len__(self) -> int:
        return len(self.impulse)

    def reaching(self, threshold: int, polarity: int) -> list[int]:
        """The samples whose impulse, in the press's direction, reaches ``threshold``."""
        if not self._by_size:
            sizes = [abs(v) for v in self.impulse]
            self._by_size = sorted(range(len(sizes)), key=sizes.__getitem__)
            self._sizes = [sizes[i] for i in self._by_size]
        first = bisect.bisect_left(self._sizes, threshold)
        found = self._by_size[first:]
        if polarity < 0:
            found = [i for i in found if self.impulse[i] <= -threshold]
        elif polarity > 0:
            found = [i for i in found if self.impulse[i] >= threshold]
        return found

    def moving_edges(self, moving_mg: int) -> list[int]:
        """The first and the last sample of every stretch where the stillness exceeds
        ``moving_mg``."""
        edges = self._moving.get(moving_mg)
        if edges is None:
            edges = []
            inside = False
            for i, value in enumerate(self.still):
                if (value > moving_mg) != inside:
                    edges.append(i if not inside else i - 1)
                    inside = not inside
            if inside:
                edges.append(len(self.still) - 1)
            self._moving[moving_mg] = edges
        return edges


def detections(measured: Measured, settings: dict[str, Any]) -> list[int]:
    """The samples (from 0) on which the detector with ``settings`` recognises a press.
    ``settings['band_samples']`` must be the band ``measured`` was made at."""
    if settings["band_samples"] != measured.band:
        raise ValueError("the settings' band is not the one these measurements were made at")
    module = firmware_module()
    detector = module.ImpulseDetector(settings)
    window = settings["window_samples"]
    moving_mg = settings["moving_mg"]
    count = len(measured)
    wanted = set(measured.moving_edges(moving_mg))
    reaching = measured.reaching(settings["threshold_mg"], settings["polarity"])
    wanted.update(reaching)
    for later in range(1, window):
        wanted.update([i + later for i in reaching if i + later < count])
    impulse, lead, background = measured.impulse, measured.lead, measured.background
    along, sideways, still = measured.along_energy, measured.sideways_energy, measured.still
    decide = detector.decide
    found = []
    for i in sorted(wanted):
        # sample i is the detector's sample number i + 1 (it counts before it decides)
        moving = still[i] > moving_mg
        if decide(i + 1, impulse[i], lead[i], background[i], along[i], sideways[i], moving):
            found.append(i)
    return found


def full_run(samples_mg: Sequence[int], settings: dict[str, Any]) -> list[int]:
    """The detector on every sample, in CPython (slow; what ``detections`` must equal)."""
    detector = firmware_module().ImpulseDetector(settings)
    update = detector.update
    return [
        k
        for k in range(len(samples_mg) // 3)
        if update(samples_mg[3 * k], samples_mg[3 * k + 1], samples_mg[3 * k + 2])
    ]
