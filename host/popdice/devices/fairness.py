"""`popdice fairness`: many rolls from the popper, and a chi-squared test per die.

Each die's faces should come up equally often. For k faces and n rolls the statistic
sum((observed - n/k)^2 / (n/k)) follows a chi-squared distribution with k - 1 degrees of
freedom when the die is fair; its p-value is the chance of a statistic at least as large.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import PopdiceError
from .popper import MODES, ROLL_COUNTS_MAX, Popper

COLOURS = ("red", "orange", "purple", "blue", "green", "yellow")
POPALOTSY_COLOURS = ("red", "orange", "yellow", "green", "blue")
SUSPECT_P = 0.001
MAX_ROLLS = 10_000_000  # about five hours on a Pico


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below a + 1, a continued fraction above."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = d if abs(d) > tiny else tiny
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_squared_p(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-squared with ``degrees`` degrees of freedom."""
    return regularized_gamma_q(degrees / 2, statistic / 2)


@dataclass(frozen=True)
class DieTest:
    die: int
    label: str
    counts: tuple[int, ...]
    statistic: float
    p_value: float

    @property
    def suspect(self) -> bool:
        return self.p_value < SUSPECT_P


def chi_squared_test(die: int, label: str, counts: list[int]) -> DieTest:
    total = sum(counts)
    expected = total / len(counts)
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    return DieTest(die, label, tuple(counts), statistic, chi_squared_p(statistic, len(counts) - 1))


def die_labels(mode: str) -> list[str]:
    if mode == "popalotsy":
        return [f"{c} (1-6)" for c in POPALOTSY_COLOURS]
    if mode == "lowdown":
        return ["number (1-6)", "number (1-6)", "colour", "colour"]
    return ["d6 (1-6)"]


def run_fairness(
    popper: Popper,
    rolls: int,
    mode: str | None = None,
    batch: int = 2000,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[str, list[DieTest]]:
    """Asks for ``rolls`` rolls in batches and tests every die of the mode."""
    if not 1 <= rolls <= MAX_ROLLS:
        raise PopdiceError(f"rolls: {rolls} is not from 1 to {MAX_ROLLS:,}")
    if not 1 <= batch <= ROLL_COUNTS_MAX:
        raise PopdiceError(f"batch: {batch} is not from 1 to {ROLL_COUNTS_MAX:,}")
    mode = mode or popper.mode()
    if mode not in MODES:
        raise PopdiceError(f"the popper is in a mode this host does not know: {mode!r}")
    totals: list[list[int]] | None = None
    done = 0
    while done < rolls:
        size = min(batch, rolls - done)
        counts = popper.roll_counts(size, mode)
        totals = (
            counts
            if totals is None
            else [
                [a + b for a, b in zip(old, new, strict=True)]
                for old, new in zip(totals, counts, strict=True)
            ]
        )
        done += size
        if progress:
            progress(done, rolls, f"{done:,} rolls")
    assert totals is not None
    labelled = zip(die_labels(mode), totals, strict=True)
    return mode, [chi_squared_test(i, label, c) for i, (label, c) in enumerate(labelled)]


def format_report(mode: str, rolls: int, tests: list[DieTest], where: str) -> str:
    lines = [f"fairness: {rolls:,} rolls of {mode} on {where}"]
    if mode == "lowdown":
        lines.append(f"a colour die's faces 1-6 are {', '.join(COLOURS)}")
    lines.append(
        f"{'die':3}  {'what':14}"
        + "".join(f"{f:>8}" for f in ("1", "2", "3", "4", "5", "6"))
        + f"{'chi2':>9}{'p':>9}"
    )
    for t in tests:
        lines.append(
            f"{t.die:3}  {t.label:14}"
            + "".join(f"{c:8d}" for c in t.counts)
            + f"{t.statistic:9.2f}{t.p_value:9.4f}"
            + ("  SUSPECT" if t.suspect else "")
        )
    suspects = [t for t in tests if t.suspect]
    lines.append(
        f"{len(suspects)} of {len(tests)} dice below p = {SUSPECT_P}: "
        + ("look closer" if suspects else "no sign of bias")
    )
    return "\n".join(lines)
