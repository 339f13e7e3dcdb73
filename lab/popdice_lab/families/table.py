"""The first model family: the project's original physical model of a popper on a table
(``popdice/sim/physics/mechanics.py`` read through ``sensor.py``), in the families' interface.

That model draws its unit (mount, sensor errors, clock) afresh for every trace, so here a
``unit`` only seeds the mix of sessions: every unit of this family is the model's average
popper. Its releases are that model's own: the instant the dome's snap back starts."""

from __future__ import annotations

import random

from popdice.sim.physics.scenes import OTHER_KINDS, PRESS_KINDS, trace
from popdice.traces.trace import Trace

NAME = "table"
SUMMARY = "a firm dome pressed with a finger: the unit dips into rubber feet on a table"


def session(unit: int, seed: int, seconds: float, presses: bool = True) -> Trace:
    """A session of ``seconds`` on one of the model's kinds, chosen by ``unit`` and ``seed``."""
    rng = random.Random(f"family-table:{unit}:{seed}:{presses}")
    kinds = PRESS_KINDS if presses else OTHER_KINDS
    kind = rng.choice(kinds)
    return trace(kind, unit * 100_003 + seed, seconds)
