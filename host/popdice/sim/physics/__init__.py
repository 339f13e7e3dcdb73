"""The physical world the simulators feed the sensor from: a popper on a table (``mechanics``:
presses, knocks, bumps, handling, buzzing phones, leaning), sessions of such events
(``scenes``), and the LIS3DH that reads them (``sensor``), with its geometry and filter
(``geometry``, ``lowpass``). ``trace(kind, seed, seconds)`` makes a labelled ``Trace``."""

from .scenes import KINDS, OTHER_KINDS, PRESS_KINDS, knock_trace, press_trace, trace

__all__ = ["KINDS", "OTHER_KINDS", "PRESS_KINDS", "knock_trace", "press_trace", "trace"]
