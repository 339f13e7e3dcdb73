"""The fairness histogram: how often each face of each popalotsy die came up in seeded rolls
of the firmware's own dice, against the count a fair die expects.

The rolls are made inside MicroPython by ``popdice_fw.dice`` and ``popdice_fw.modes``
(``upy/roll_counts.py``) with a seeded stand-in for ``os.urandom``, so the counts are the
same every run; each die gets ``popdice fairness``'s chi-squared test. Above, the counts
from zero with the expected count dashed; below, how far each count is from it in standard
deviations of a fair die's count, with two of them marked.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

from popdice.deploy.files import FIRMWARE_DIR
from popdice.devices.fairness import SUSPECT_P, chi_squared_test, die_labels
from popdice.errors import PopdiceError
from popdice.traces.runner import micropython_command

from .svg import DRAWN_BY, Canvas

FILE = "fairness.svg"
MODE = "popalotsy"
ROLLS = 100_000
SEED = "popdice-pictures"
FACES = 6
COUNTER = Path(__file__).resolve().with_name("upy") / "roll_counts.py"
TIMEOUT_S = 120

BAR_COLOURS = ("#d62728", "#ff7f0e", "#e0b000", "#2ca02c", "#1f5fd6")
LEFT = 70
TOP = 112
BAR_W = 16
BAR_GAP = 4
GROUP_GAP = 26
COUNTS_H = 200
OFF_TOP_GAP = 58
OFF_H = 90
OFF_RANGE = 3.0  # standard deviations from the middle to the edge of the lower chart
INK = "#222222"
MUTED = "#666666"
GRID = "#dddddd"


def seeded_counts(mode: str = MODE, rolls: int = ROLLS, seed: str = SEED) -> list[list[int]]:
    """Each die's six face counts over ``rolls`` seeded rolls of ``mode``, in MicroPython."""
    env = dict(os.environ, MICROPYPATH=str(FIRMWARE_DIR))
    try:
        done = subprocess.run(
            [*micropython_command(), str(COUNTER), mode, str(rolls), seed],
            capture_output=True,
            env=env,
            timeout=TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PopdiceError(
            f"the firmware's dice did not roll inside MicroPython: {error}"
        ) from None
    if done.returncode != 0:
        problem = done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        raise PopdiceError(f"the firmware's dice failed inside MicroPython: {problem[-1]}")
    return [[int(word) for word in line.split()] for line in done.stdout.decode().splitlines()]


def draw(counts: list[list[int]], mode: str = MODE) -> bytes:
    rolls = sum(counts[0])
    expected = rolls / FACES
    spread = math.sqrt(rolls * (1 / FACES) * (1 - 1 / FACES))
    group_w = FACES * BAR_W + (FACES - 1) * BAR_GAP
    width = LEFT + len(counts) * group_w + (len(counts) - 1) * GROUP_GAP + 30
    off_top = TOP + COUNTS_H + OFF_TOP_GAP
    height = off_top + OFF_H + 70
    canvas = Canvas(width, height)
    canvas.text(
        20, 30, f"Fairness: {rolls:,} rolls of {mode} by the firmware's dice", 18, weight="bold"
    )
    canvas.text(
        20,
        50,
        "popdice_fw.dice and modes inside MicroPython, os.urandom replaced by SHA-256 of a seed",
        11,
        fill=MUTED,
    )
    canvas.text(20, 66, "each die's chi-squared test as popdice fairness does it", 11, fill=MUTED)

    top_count = expected * 1.2
    scale = COUNTS_H / top_count
    baseline = TOP + COUNTS_H
    for tick in range(0, int(top_count) + 1, 5000):
        y = baseline - tick * scale
        canvas.line(LEFT - 4, y, width - 20, y, GRID)
        canvas.text(LEFT - 8, y + 4, f"{tick:,}", 10, "end", MUTED)
    middle = off_top + OFF_H / 2
    for sigmas in (-2, 0, 2):
        y = middle - sigmas * OFF_H / (2 * OFF_RANGE)
        canvas.line(LEFT - 4, y, width - 20, y, GRID if sigmas else "#999999")
        canvas.text(LEFT - 8, y + 4, f"{sigmas:+d}" if sigmas else "0", 10, "end", MUTED)
    canvas.text(20, off_top - 14, "off the expected count, in standard deviations", 11, fill=MUTED)

    labels = die_labels(mode)
    suspects = 0
    for die, faces in enumerate(counts):
        left = LEFT + die * (group_w + GROUP_GAP)
        fill = BAR_COLOURS[die % len(BAR_COLOURS)]
        test = chi_squared_test(die, labels[die], faces)
        suspects += test.suspect
        canvas.text(left + group_w / 2, TOP - 26, labels[die], 12, "middle", INK, "bold")
        canvas.text(
            left + group_w / 2,
            TOP - 10,
            f"chi2 {test.statistic:.2f}, p {test.p_value:.2f}",
            10,
            "middle",
            MUTED,
        )
        for face, count in enumerate(faces):
            x = left + face * (BAR_W + BAR_GAP)
            canvas.rect(x, baseline - count * scale, BAR_W, count * scale, fill)
            canvas.text(x + BAR_W / 2, baseline + 14, str(face + 1), 10, "middle", MUTED)
            off = max(-OFF_RANGE, min(OFF_RANGE, (count - expected) / spread))
            bar = off * OFF_H / (2 * OFF_RANGE)
            canvas.rect(x, min(middle, middle - bar), BAR_W, abs(bar), fill)
    expected_y = baseline - expected * scale
    canvas.line(LEFT - 4, expected_y, width - 20, expected_y, INK, stroke_dasharray="6 4")
    canvas.text(width - 20, expected_y - 6, f"expected {expected:,.0f}", 10, "end", INK)
    verdict = "look closer" if suspects else "no sign of bias"
    canvas.text(
        20,
        height - 34,
        f"faces 1-6 of each die, in its colour; {suspects} of {len(counts)} dice below "
        f"p = {SUSPECT_P}: {verdict}",
        10,
        fill=MUTED,
    )
    canvas.text(20, height - 16, DRAWN_BY, 10, fill=MUTED)
    return canvas.document()


def pictures() -> dict[str, bytes]:
    return {FILE: draw(seeded_counts())}
