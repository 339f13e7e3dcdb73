"""Accelerometer traces of the popper: a physical model of presses and of everything that
is not one, labelled traces made from it, and running the firmware's press detector over
them (``popdice detect``, ``bench/detect.py``)."""

from .scenes import (
    KINDS,
    OTHER_KINDS,
    PRESS_KINDS,
    Trace,
    knock_trace,
    press_trace,
    trace,
)

__all__ = [
    "KINDS",
    "OTHER_KINDS",
    "PRESS_KINDS",
    "Trace",
    "knock_trace",
    "press_trace",
    "trace",
]
