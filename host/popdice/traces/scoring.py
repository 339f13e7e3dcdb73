"""How the detector's pops are scored against labelled presses.

- A press is labelled by its onset (ms), the instant its blow starts; where it is known, by
  its release too (the dome's snap-back, or the instant the force falls away).
- A detection is the sample on which the detector popped; its time is that sample's.
- A detection matches a press if it lies from ``MATCH_BEFORE_MS`` before the onset to
  ``MATCH_AFTER_RELEASE_MS`` after the release. Without a release the window runs
  ``UNRELEASED_MS`` past the onset, and never into the next press's. Presses are taken in
  time order, each matched by the first unmatched detection in its window; every detection
  that matches no press is a false press.
- Latency runs from an anchor to the detection, in ms: the release blow when the detector
  pops on the release, the press's main blow when it pops on the press (the caller gives
  them; without, the onset). A detection before its anchor counts as 0; one more than
  ``EARLY_MS`` before it is also counted as early (``early``): dice that pop while the dome
  is still held.
- Non-press time is the trace's length less, for each press, from its onset to its release
  (if known) and ``PRESS_SPAN_MS`` more (its ringing); false presses per hour are counted
  over it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

MATCH_BEFORE_MS = 5.0
MATCH_AFTER_RELEASE_MS = 40.0
UNRELEASED_MS = 5000.0  # the longest hold the detector waits out
PRESS_SPAN_MS = 1000.0
EARLY_MS = 5.0  # a pop this long before it was due came in the hold

TARGET_RECALL = 0.995
TARGET_FALSE_PER_HOUR = 1.0
TARGET_LATENCY_MS = 15.0  # p99
Z_95 = 1.959964


@dataclass
class Score:
    """Detections against labels, over one trace or many added together."""

    labelled: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    missed_ms: list[float] = field(default_factory=list)
    false_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    non_press_seconds: float = 0.0
    timed: bool = True  # every latency was counted from a known anchor
    early: int = 0  # presses popped more than EARLY_MS before their anchor

    @property
    def detected(self) -> int:
        return len(self.latencies_ms)

    @property
    def recall(self) -> float | None:
        return self.detected / self.labelled if self.labelled else None

    @property
    def false_per_hour(self) -> float | None:
        if self.non_press_seconds <= 0:
            return None
        return len(self.false_ms) * 3600.0 / self.non_press_seconds

    def recall_interval(self) -> tuple[float, float] | None:
        """The 95 % confidence interval of the recall (Wilson's)."""
        return wilson(self.detected, self.labelled)

    def false_interval(self) -> tuple[float, float] | None:
        """The 95 % confidence interval of the false presses an hour (Poisson)."""
        if self.non_press_seconds <= 0:
            return None
        low, high = poisson(len(self.false_ms))
        hours = self.non_press_seconds / 3600.0
        return low / hours, high / hours

    def latency(self) -> dict[str, float | None]:
        """Median, 99th percentile and largest latency (ms)."""
        if not self.latencies_ms:
            return {"p50": None, "p99": None, "max": None}
        ordered = sorted(self.latencies_ms)
        return {
            "p50": round(percentile(ordered, 0.5), 1),
            "p99": round(percentile(ordered, 0.99), 1),
            "max": round(ordered[-1], 1),
        }

    def meets_targets(self) -> dict[str, bool]:
        recall, false = self.recall, self.false_per_hour
        p99 = self.latency()["p99"]
        return {
            "recall": recall is not None and recall >= TARGET_RECALL,
            "false_presses_per_hour": false is not None and false <= TARGET_FALSE_PER_HOUR,
            "latency_ms": p99 is not None and p99 <= TARGET_LATENCY_MS,
        }

    def add(self, other: Score) -> None:
        self.labelled += other.labelled
        self.latencies_ms += other.latencies_ms
        self.missed_ms += other.missed_ms
        self.false_ms += other.false_ms
        self.seconds += other.seconds
        self.non_press_seconds += other.non_press_seconds
        self.timed = self.timed and other.timed
        self.early += other.early


def score(
    t_ms: Sequence[float],
    detections: Iterable[int],
    onsets_ms: Sequence[float],
    releases_ms: Sequence[float] | None = None,
    anchors_ms: Sequence[float] | None = None,
) -> Score:
    """Scores detections (sample indices into ``t_ms``) against press onsets (ms), with each
    press's release and latency anchor where known (in the onsets' order)."""
    order = sorted(range(len(onsets_ms)), key=onsets_ms.__getitem__)
    onsets = [onsets_ms[k] for k in order]
    releases = None if releases_ms is None else [releases_ms[k] for k in order]
    anchors = None if anchors_ms is None else [anchors_ms[k] for k in order]
    found = sorted(detections)
    found_ms = [t_ms[i] for i in found]
    used = [False] * len(found)
    result = Score(timed=anchors is not None)
    span_ms = 0.0
    trace_end_ms = t_ms[-1] if len(t_ms) else 0.0  # a press held past it counts up to it
    for k, onset in enumerate(onsets):
        result.labelled += 1
        if releases is not None:
            end = releases[k] + MATCH_AFTER_RELEASE_MS
            span_ms += max(min(releases[k], trace_end_ms) - onset, 0.0)
        else:
            end = onset + UNRELEASED_MS
            if k + 1 < len(onsets):
                end = min(end, onsets[k + 1] - MATCH_BEFORE_MS)
        span_ms += PRESS_SPAN_MS
        first = bisect.bisect_left(found_ms, onset - MATCH_BEFORE_MS)
        last = bisect.bisect_right(found_ms, end)
        match = next((j for j in range(first, last) if not used[j]), None)
        if match is None:
            result.missed_ms.append(onset)
            continue
        used[match] = True
        anchor = onset if anchors is None else anchors[k]
        result.latencies_ms.append(max(found_ms[match] - anchor, 0.0))
        if anchors is not None and found_ms[match] < anchor - EARLY_MS:
            result.early += 1
    result.false_ms = [found_ms[j] for j in range(len(found)) if not used[j]]
    result.seconds = _length_s(t_ms)
    result.non_press_seconds = max(result.seconds - span_ms / 1000.0, 0.0)
    return result


def percentile(ordered: Sequence[float], share: float) -> float:
    """The value at ``share`` of ``ordered`` (nearest rank)."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def wilson(successes: int, trials: int) -> tuple[float, float] | None:
    """Wilson's 95 % interval of a proportion."""
    if trials <= 0:
        return None
    p = successes / trials
    z2 = Z_95 * Z_95
    middle = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z_95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, middle - half), min(1.0, middle + half)


def poisson(count: int) -> tuple[float, float]:
    """A 95 % interval of a Poisson mean from one count (Wilson and Hilferty's cube roots of
    the chi-squared quantiles, within a few per cent of the exact interval)."""

    def chi2(quantile_z: float, freedom: int) -> float:
        a = 2.0 / (9.0 * freedom)
        return freedom * (1.0 - a + quantile_z * math.sqrt(a)) ** 3

    low = 0.0 if count == 0 else chi2(-Z_95, 2 * count) / 2.0
    high = chi2(Z_95, 2 * count + 2) / 2.0
    return low, high


def _length_s(t_ms: Sequence[float]) -> float:
    """A trace's length: its first to its last sample, and one sample period more."""
    if len(t_ms) < 2:
        return 0.0
    span = t_ms[-1] - t_ms[0]
    return (span + span / (len(t_ms) - 1)) / 1000.0
