"""How detections are scored against labelled presses.

- A label is a press's onset: the instant (ms) its blow starts.
- A detection is the sample on which the detector returned True; its time is that sample's.
- A detection matches a label if it comes at most ``MATCH_BEFORE_MS`` before and at most
  ``MATCH_AFTER_MS`` after the onset. Labels are taken in time order, each matched by the
  first unmatched detection in its window; every detection that matches no label is a false
  press.
- Latency is counted in samples: from the first sample at or after the onset (the first
  that can show the press) to the detection.
- Non-press time is the trace's length less ``PRESS_SPAN_MS`` for each labelled press (the
  press, its ringing and its release); false presses per hour are counted over it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

MATCH_BEFORE_MS = 5.0
MATCH_AFTER_MS = 30.0
PRESS_SPAN_MS = 1000.0

TARGET_RECALL = 0.995
TARGET_FALSE_PER_HOUR = 1.0
TARGET_LATENCY_SAMPLES = 4


@dataclass
class Score:
    """Detections against labels, over one trace or many added together."""

    labelled: int = 0
    latencies: list[int] = field(default_factory=list)
    missed_ms: list[float] = field(default_factory=list)
    false_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    non_press_seconds: float = 0.0

    @property
    def detected(self) -> int:
        return len(self.latencies)

    @property
    def recall(self) -> float | None:
        return self.detected / self.labelled if self.labelled else None

    @property
    def false_per_hour(self) -> float | None:
        if self.non_press_seconds <= 0:
            return None
        return len(self.false_ms) * 3600.0 / self.non_press_seconds

    def latency(self) -> dict[str, float | int | None]:
        """Mean, 95th percentile and largest latency (samples)."""
        if not self.latencies:
            return {"mean": None, "p95": None, "max": None}
        ordered = sorted(self.latencies)
        p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
        return {
            "mean": round(sum(ordered) / len(ordered), 2),
            "p95": p95,
            "max": ordered[-1],
        }

    def meets_targets(self) -> dict[str, bool]:
        recall, false = self.recall, self.false_per_hour
        worst = max(self.latencies) if self.latencies else None
        return {
            "recall": recall is not None and recall >= TARGET_RECALL,
            "false_presses_per_hour": false is not None and false <= TARGET_FALSE_PER_HOUR,
            "latency_samples": worst is not None and worst <= TARGET_LATENCY_SAMPLES,
        }

    def add(self, other: Score) -> None:
        self.labelled += other.labelled
        self.latencies += other.latencies
        self.missed_ms += other.missed_ms
        self.false_ms += other.false_ms
        self.seconds += other.seconds
        self.non_press_seconds += other.non_press_seconds


def score(t_ms: Sequence[float], detections: Iterable[int], onsets_ms: Iterable[float]) -> Score:
    """Scores detections (sample indices into ``t_ms``) against press onsets (ms)."""
    found = sorted(detections)
    found_ms = [t_ms[i] for i in found]
    used = [False] * len(found)
    result = Score()
    for onset in sorted(onsets_ms):
        result.labelled += 1
        first = bisect.bisect_left(found_ms, onset - MATCH_BEFORE_MS)
        last = bisect.bisect_right(found_ms, onset + MATCH_AFTER_MS)
        match = next((k for k in range(first, last) if not used[k]), None)
        if match is None:
            result.missed_ms.append(onset)
            continue
        used[match] = True
        result.latencies.append(found[match] - bisect.bisect_left(t_ms, onset))
    result.false_ms = [found_ms[k] for k in range(len(found)) if not used[k]]
    result.seconds = _length_s(t_ms)
    result.non_press_seconds = max(result.seconds - result.labelled * PRESS_SPAN_MS / 1000, 0.0)
    return result


def _length_s(t_ms: Sequence[float]) -> float:
    """A trace's length: its first to its last sample, and one sample period more."""
    if len(t_ms) < 2:
        return 0.0
    span = t_ms[-1] - t_ms[0]
    return (span + span / (len(t_ms) - 1)) / 1000.0
