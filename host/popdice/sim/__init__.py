"""The simulated Pico: the unchanged firmware on the MicroPython unix port."""

from .control import SimControl, SimState
from .protocol import SimEvent
from .supervisor import SimulatedPico

__all__ = ["SimControl", "SimEvent", "SimState", "SimulatedPico"]
