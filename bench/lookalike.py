# pyright: reportMissingImports=false
"""How many presses look, within the sensor's noise, like a moment with no press at all?

A detector that must decide within 4 samples (10 ms, ``popdice_lab.visibility``'s
``HORIZON_SAMPLES``) of a press's label sees only what the sensor reported up to then. If,
in the same unit's sessions, some moment without a press gave the same readings up to
noise, no detector can tell the two apart: it finds that press only by also firing there.
This bench measures that, for every model family, on the sessions bench/detect.py uses
(``popdice_lab.crossfamily.Plan``, per evaluation unit its 12 calibration minutes and its 80
evaluation minutes together; about 2 minutes a unit on 2 cores), independently of any
detector:

- the motion is each sample less gravity (the mean of the 64 samples before it, 160 ms);
- a press's view is the motion on all three axes over the 8 samples that end 4 after its
  label (the latest a detector may decide). ``--latency N`` ends it N after the label
  instead (and makes it N + 4 samples long, to a multiple of 4), asking how the answer
  changes if a detector may decide later; ``--window`` sets its length; a moment without a press is
  any such window that holds no sample from 50 ms before a label to 1 s after it;
- the two look alike if, on each axis over every 4 samples, their difference is no larger
  than that between two readings of the same motion with the sensor's noise (a chi-square
  bound three standard deviations out, judged on short blocks so that a small but steady
  change is not lost among samples that agree; the noise from sample-to-sample steps in
  quiet stretches, which the sensor's own low-pass makes smaller: the test errs towards
  calling two views different, so it counts too few look-alikes rather than too many).

Per family it prints the share of presses with a look-alike, the distinct moments (runs of
look-alike windows) they match, the hours without presses, and the recall that remains
possible with at most one false press an hour (the calibrated target) and with five (the
uncalibrated one): firing on the moments that cover the most look-alike presses (greedily)
until the allowance is spent, every other look-alike press missed. That bound holds for any
detector that decides from the same window; one with a longer memory may do better, and the
model's labels may be earlier than anyone could hear a press.

The last column, "blow later", is the share of presses whose main blow comes more than the
latency after their label: the first sample whose step (the change in motion from the sample
before, on all three axes) reaches half the largest step in the 40 ms from the label. A
detector that finds such a press in time finds it from what came before its blow (a push
that rocks the unit on its feet before a dome clicks), not from the blow.

Needs numpy (`make bench-lookalike` installs it: requirements/analysis.txt).

    .venv/bin/python bench/lookalike.py [--families a,b] [--window N] [--latency N]
        [--units N] [--first-unit K]
"""

from __future__ import annotations

import bisect
import math
import sys
import time
from collections import Counter

try:
    import numpy as np
except ImportError:
    sys.exit("error: numpy is missing: `make bench-lookalike` installs what this needs")

from popdice.traces.scoring import TARGET_FALSE_PER_HOUR
from popdice.traces.tune import Recording
from popdice_lab.bench import parser as bench_parser
from popdice_lab.crossfamily import MOST_UNITS, Plan, bench_plan, make_family
from popdice_lab.families import chosen
from popdice_lab.visibility import HORIZON_SAMPLES

GRAVITY_SAMPLES = 64
BEFORE_PRESS_SAMPLES = 20  # 50 ms before a label...
AFTER_PRESS_SAMPLES = 400  # ...to 1 s after it belong to the press
SIGMAS = 3.0
BLOCK_SAMPLES = 4  # the difference is judged on each axis over every 4 samples
VIEW_BEYOND_LATENCY = 4  # a view is the latency and this many samples more, unless --window
ALLOWANCES = (TARGET_FALSE_PER_HOUR, 5.0)  # false presses an hour: calibrated, left out
MOMENT_GAP_SAMPLES = 100  # look-alike windows closer than this are one moment
STEP_NOISE = 1.0 / (0.6745 * math.sqrt(2.0))  # median |step| of white noise -> its sigma
BLOW_SAMPLES = 16  # a press's main blow is sought in the 40 ms from its label


def motion(recording: Recording) -> np.ndarray:
    """Each sample less the mean of the ``GRAVITY_SAMPLES`` before it (mg, samples x 3)."""
    samples = np.asarray(recording.samples_mg, dtype=np.float64).reshape(-1, 3)
    total = np.vstack([np.zeros((1, 3)), np.cumsum(samples, axis=0)])
    index = np.arange(len(samples))
    first = np.maximum(index - GRAVITY_SAMPLES, 0)
    count = np.maximum(index - first, 1)[:, None]
    gravity = np.where(index[:, None] > 0, (total[index] - total[first]) / count, samples[:1])
    return samples - gravity


class Unit:
    """One unit's sessions cut into views: every press's, and every moment's without one."""

    def __init__(
        self, recordings: list[Recording], window: int, latency: int = HORIZON_SAMPLES
    ) -> None:
        self.window = window
        presses, quiet, owners, noise = [], [], [], []
        self.blow_delays: list[int] = []
        self.non_press_samples = 0
        for number, recording in enumerate(recordings):
            moved = motion(recording)
            count = len(moved)
            labels = [bisect.bisect_left(recording.t_ms, t) for t in recording.onsets_ms]
            busy = np.zeros(count, dtype=bool)
            for label in labels:
                busy[max(label - BEFORE_PRESS_SAMPLES, 0) : label + AFTER_PRESS_SAMPLES] = True
            self.non_press_samples += int((~busy).sum())
            steps = np.abs(np.diff(moved, axis=0))[~busy[1:]]
            if len(steps):
                noise.append(float(np.median(steps)) * STEP_NOISE)
            busy_before = np.concatenate([[0], np.cumsum(busy)])
            ends = np.arange(window - 1, count)
            free = ends[busy_before[ends + 1] - busy_before[ends + 1 - window] == 0]
            if len(free):
                rows = free[:, None] + np.arange(1 - window, 1)[None, :]
                quiet.append(moved[rows].reshape(len(free), -1))
                owners.append(np.column_stack([np.full(len(free), number), free]))
            step_at = np.concatenate([[0.0], np.linalg.norm(np.diff(moved, axis=0), axis=1)])
            for label in labels:
                steps = step_at[label : label + BLOW_SAMPLES]
                if len(steps) == BLOW_SAMPLES:
                    self.blow_delays.append(int(np.argmax(steps >= 0.5 * steps.max())))
                end = label + latency
                if end - window + 1 >= 0 and end < count:
                    presses.append(moved[end - window + 1 : end + 1].reshape(-1))
        self.sigma = float(np.median(noise)) if noise else 1.0
        self.presses = np.array(presses, dtype=np.float32).reshape(-1, 3 * window)
        self.quiet = (
            np.vstack(quiet).astype(np.float32) if quiet else np.zeros((0, 3 * window), np.float32)
        )
        self.owners = np.vstack(owners) if owners else np.zeros((0, 2), dtype=int)

    @property
    def hours(self) -> float:
        return self.non_press_samples * 0.0025 / 3600.0

    def look_alikes(self, tag: int) -> list[set[tuple[int, int, int]]]:
        """For every press, the moments without a press that look like it, as (``tag``,
        recording, first sample of the run)."""
        blocks = 3 * self.window // BLOCK_SAMPLES
        block_limit = (
            2.0 * self.sigma**2 * (BLOCK_SAMPLES + SIGMAS * math.sqrt(2.0 * BLOCK_SAMPLES))
        )
        norms = (self.quiet.astype(np.float64) ** 2).sum(axis=1)
        found = []
        for view in self.presses:
            # every block alike means the whole alike within blocks x the block's limit
            distance = norms - 2.0 * (self.quiet @ view) + float(view @ view)
            near = np.flatnonzero(distance <= blocks * block_limit * 1.01)
            apart = (self.quiet[near] - view).reshape(len(near), blocks // 3, BLOCK_SAMPLES, 3)
            alike = ((apart.astype(np.float64) ** 2).sum(axis=2) <= block_limit).all(axis=(1, 2))
            close = near[alike]
            moments: set[tuple[int, int, int]] = set()
            last = None
            for k in close:
                recording, sample = (int(v) for v in self.owners[k])
                if last is None or recording != last[0] or sample - last[1] > MOMENT_GAP_SAMPLES:
                    moments.add((tag, recording, sample))
                last = (recording, sample)
            found.append(moments)
        return found


def recall_bound(matches: list[set[tuple[int, int, int]]], allowance: int) -> float:
    """Presses findable when a detector may fire on at most ``allowance`` look-alike moments
    (chosen greedily to cover the most presses): every other press with a look-alike missed."""
    uncovered = [m for m in matches if m]
    for _ in range(allowance):
        counts = Counter(moment for m in uncovered for moment in m)
        if not counts:
            break
        best = counts.most_common(1)[0][0]
        uncovered = [m for m in uncovered if best not in m]
    return 1.0 - len(uncovered) / len(matches) if matches else 1.0


def main() -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--families", help="comma-separated (default: every family)")
    parser.add_argument(
        "--window",
        type=int,
        help="samples in a view, a multiple of 4 (default: the latency + 4: 8)",
    )
    parser.add_argument(
        "--units", type=int, help=f"units per family (default {Plan().units}, at most {MOST_UNITS})"
    )
    parser.add_argument(
        "--first-unit", type=int, metavar="K", help="number the units from K (default 1)"
    )
    parser.add_argument(
        "--latency",
        type=int,
        default=HORIZON_SAMPLES,
        help=f"where the view ends, samples after the label (default {HORIZON_SAMPLES})",
    )
    args = parser.parse_args()
    try:
        names = chosen(args.families)
        plan = bench_plan(Plan(), args.units, args.first_unit)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not 0 <= args.latency <= 100:
        print("error: --latency must be 0 to 100 samples", file=sys.stderr)
        return 2
    if args.window is None:
        span = args.latency + VIEW_BEYOND_LATENCY
        args.window = -(-span // BLOCK_SAMPLES) * BLOCK_SAMPLES
    if not 4 <= args.window <= 200 or args.window % BLOCK_SAMPLES:
        print(
            f"error: --window must be a multiple of {BLOCK_SAMPLES} from 4 to 200 samples",
            file=sys.stderr,
        )
        return 2
    began = time.monotonic()
    print(
        f"presses whose last {args.window} samples (to {args.latency} after the label) "
        f"match a moment without a press within the noise (bench/lookalike.py)"
    )
    print(
        f"{'family':<11} {'presses':>7} {'look-alike':>10} {'moments':>7} {'hours':>6}"
        + "".join(f"  {f'recall, <= {a:g} false/h':>22}" for a in ALLOWANCES)
        + f"  {'blow later':>10}"
    )
    for name in names:
        print(f"[{time.monotonic() - began:4.0f} s] {name}", file=sys.stderr, flush=True)
        data = make_family(name, plan)
        matches: list[set[tuple[int, int, int]]] = []
        hours = 0.0
        delays: list[int] = []
        for unit in data.units:
            seen = Unit(unit.calibration + unit.evaluation, args.window, args.latency)
            matches += seen.look_alikes(unit.unit)
            hours += seen.hours
            delays += seen.blow_delays
        later = sum(1 for d in delays if d > args.latency) / len(delays) if delays else 0.0
        moments = len(set().union(*matches)) if matches else 0
        alike = sum(1 for m in matches if m)
        share = alike / len(matches) if matches else 0.0
        bounds = "".join(f"  {recall_bound(matches, int(a * hours)):>22.2%}" for a in ALLOWANCES)
        print(
            f"{name:<11} {len(matches):>7} {share:>10.2%} {moments:>7} {hours:>6.2f}{bounds}"
            f"  {later:>10.2%}"
        )
    print(f"({time.monotonic() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
