"""The firmware's press detector (``popdice_fw/press.py``) run in CPython, fast enough to try
thousands of settings on the same recordings.

The firmware module itself is loaded, with stand-ins for MicroPython's ``const``,
``viper`` and ``ptr32`` (its integers stay far below a Pico's limits, so CPython's give the
same results), so the arithmetic is the firmware's, not a copy. Its ``step`` runs in two
stages. The first, ``MEASURE``, runs once over a trace for each band and its results are
kept (``Measured``); a set of settings is then tried by handing the second, ``DECIDE``, only
the samples
where something can happen: those whose impulse reaches the threshold and the rest of a
candidate's window, the first and last samples of each stretch where the unit moves, and
during a hold the samples whose impulse could be the release, then the one after the hold.
``decide`` counts time by sample numbers, so it reaches the same decisions as on every
sample; ``tests/test_tune.py`` checks that against the detector inside MicroPython.
"""

from __future__ import annotations

import bisect
import heapq
import importlib.util
import sys
import types
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..deploy.files import FIRMWARE_DIR

MODULE_PATH = FIRMWARE_DIR / "popdice_fw" / "press.py"
SETTINGS_PATH = FIRMWARE_DIR / "popdice_fw" / "builtin_settings.py"
POP = 2  # press.POP, the event a detection is


def _load(name: str, path: Any, extra: dict[str, Any]) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(extra)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=1)
def firmware_module() -> Any:
    """``popdice_fw.press``, loaded into CPython from the firmware directory."""
    shim = types.ModuleType("micropython")
    shim.const = lambda value: value  # type: ignore[attr-defined]
    shim.viper = lambda function: function  # type: ignore[attr-defined]
    saved = {name: sys.modules.get(name) for name in ("micropython", "popdice_fw.builtin_settings")}
    sys.modules["micropython"] = shim
    sys.modules["popdice_fw.builtin_settings"] = _load("popdice_fw_builtin_host", SETTINGS_PATH, {})
    try:
        return _load("popdice_fw_press_host", MODULE_PATH, {"ptr32": lambda buffer: buffer})
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def defaults() -> dict[str, Any]:
    return firmware_module().defaults()


def firmware_settings() -> tuple[tuple[str, Any, Any], ...]:
    """The firmware's settings: (name, smallest, largest) each."""
    return firmware_module().SETTINGS


def check_settings(values: object) -> dict[str, Any]:
    """The firmware's own check (ValueError naming the setting)."""
    return firmware_module().check_settings(values)


@dataclass
class Measured:
    """The first stage over one trace at one band: per sample, what ``measure`` leaves in
    the slots from ``IMPULSE`` to ``STILL`` (the impulse, the lead, the background, the
    energies and the stillness), biased as the firmware keeps them, in ``slots`` (six a
    sample); and, unbiased, the impulse, the background and the stillness (mg)."""

    band: int
    slots: array
    impulse: array
    background: array
    still: array
    _by_size: list[int] = field(default_factory=list, repr=False)
    _sizes: list[int] = field(default_factory=list, repr=False)
    _moving: dict[int, list[int]] = field(default_factory=dict, repr=False)
    _wanted: dict[tuple[int, int, int, int], list[int]] = field(default_factory=dict, repr=False)
    _clear: dict[int, tuple[array, array]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, samples_mg: Sequence[int], band: int) -> Measured:
        """Runs ``measure`` over flat x, y, z samples (mg)."""
        module = firmware_module()
        settings = module.defaults()
        settings["band_samples"] = band
        detector = module.PressDetector(settings, stages=module.MEASURE)
        state = detector.slots
        step = module.step
        first, last = module.IMPULSE, module.STILL + 1
        count = len(samples_mg) // 3
        slots = array("i")
        for k in range(count):
            step(state, samples_mg[3 * k], samples_mg[3 * k + 1], samples_mg[3 * k + 2])
            slots.extend(state[first:last])
        width, bias = last - first, module._BIAS

        def column(slot: int) -> array:
            return array("i", [value - bias for value in slots[slot - first :: width]])

        return cls(band, slots, column(module.IMPULSE), column(module.BACKGROUND), column(last - 1))

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

    def wanted(self, threshold: int, polarity: int, window: int, moving_mg: int) -> list[int]:
        """The samples ``decide`` must see besides those of a hold, in order: those whose
        impulse reaches the threshold and the rest of their window, and the edges of every
        stretch of moving."""
        key = (threshold, polarity, window, moving_mg)
        found = self._wanted.get(key)
        if found is None:
            reaching = self.reaching(threshold, polarity)
            wanted = set(self.moving_edges(moving_mg))
            wanted.update(reaching)
            for later in range(1, window):
                wanted.update(i + later for i in reaching if i + later < len(self))
            found = self._wanted[key] = sorted(wanted)
        return found

    def standing_clear(self, contrast_x4: int, floor: int) -> tuple[array, array]:
        """The samples whose impulse is at least ``floor`` and stands ``contrast_x4`` / 4
        times over the background (those that could be a release), and their sizes."""
        found = self._clear.get(contrast_x4)
        if found is None:
            where, sizes = array("i"), array("i")
            for i, value in enumerate(self.impulse):
                size = value if value >= 0 else -value
                if size >= floor and size * 4 >= contrast_x4 * self.background[i]:
                    where.append(i)
                    sizes.append(size)
            found = self._clear[contrast_x4] = (where, sizes)
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


class _Feed:
    """``decide`` of one detector, handed the measured values of chosen samples."""

    def __init__(self, measured: Measured, settings: dict[str, Any]) -> None:
        module = firmware_module()
        self.module = module
        self.measured = measured
        self.detector = module.PressDetector(settings, stages=module.DECIDE)
        self.slots = self.detector.slots
        self.bias = module._BIAS
        self._first = module.IMPULSE
        self._width = module.STILL + 1 - module.IMPULSE
        self._step = module.step
        self._n = module._N

    def event(self, i: int) -> int:
        """``decide`` on sample ``i`` (the detector's sample number ``i + 1``: it counts
        before it decides)."""
        slots, width = self.slots, self._width
        slots[self._n] = i + 1 + self.bias
        slots[self._first : self._first + width] = self.measured.slots[width * i : width * (i + 1)]
        return self._step(slots, 0, 0, 0)

    def value(self, slot: int) -> int:
        return self.slots[slot] - self.bias


def detections(measured: Measured, settings: dict[str, Any]) -> list[int]:
    """The samples (from 0) on which the detector with ``settings`` pops. The settings'
    ``band_samples`` must be the band ``measured`` was made at."""
    if settings["band_samples"] != measured.band:
        raise ValueError("the settings' band is not the one these measurements were made at")
    feed = _Feed(measured, settings)
    module = feed.module
    checked = feed.detector.settings
    count = len(measured)
    queue = list(
        measured.wanted(
            checked["threshold_mg"],
            checked["polarity"],
            checked["window_samples"],
            checked["moving_mg"],
        )
    )  # sorted: a heap already
    release_x256 = feed.value(module._S_RELEASE_X256)
    clear, sizes = measured.standing_clear(
        feed.value(module._S_RELEASE_CONTRAST_X4), module._RELEASE_FLOOR_MG
    )
    found = []
    last = -1
    while queue:
        i = heapq.heappop(queue)
        if i <= last:
            continue
        last = i
        if feed.event(i) == POP:
            found.append(i)
        if feed.value(module.STATE) != module.HOLD:
            continue
        # In a hold: the next sample that could be its release, else the one that ends it.
        # (Sample i is number i + 1: a release may come on numbers hold_from..hold_until,
        # and number hold_until + 1 ends the hold.)
        timeout = min(feed.value(module._HOLD_UNTIL), count)
        floor = -(-release_x256 * feed.value(module._PRESS_PEAK) // 256)
        j = bisect.bisect_left(clear, max(feed.value(module._HOLD_FROM) - 1, i + 1))
        while j < len(clear) and clear[j] < timeout and sizes[j] < floor:
            j += 1
        h = clear[j] if j < len(clear) and clear[j] < timeout else timeout
        if h < count:
            heapq.heappush(queue, h)
    return found


def full_run(samples_mg: Sequence[int], settings: dict[str, Any]) -> list[tuple[int, int]]:
    """The detector on every sample, in CPython (slow; what ``detections`` must agree with):
    (sample, event) of every event."""
    detector = firmware_module().PressDetector(settings)
    update = detector.update
    events = []
    for k in range(len(samples_mg) // 3):
        event = update(samples_mg[3 * k], samples_mg[3 * k + 1], samples_mg[3 * k + 2])
        if event:
            events.append((k, event))
    return events
