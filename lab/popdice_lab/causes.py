"""What a detector's false presses and misses on a model's session came with: the model
records everything it made happen (a knock, dice, the unit picked up...), so each mistake can
be put next to its likely cause.

Events are counted by kind ("knock 3.49 g" is a knock), and a model's own record of a press
is not an event here.

- A false press from a labelled press's onset to ``AFTER_PRESS_MS`` after its release (after
  its onset where the release is not known) is put down to that press (its hold, its
  release, or its own ringing: the span the scoring leaves out of non-press time);
  otherwise to the last thing that happened at most ``FALSE_LOOKBACK_MS`` before it, or to
  ``NOTHING`` if nothing did.
- A press is in the context of the last thing that happened at most ``MISS_LOOKBACK_MS``
  before its label, or ``ALONE``; misses are counted against the presses of each context.

It tells where to look, not why: the cause is the nearest event in time, and a knock two
seconds before a false press may not be what fooled the detector.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from popdice.traces.scoring import PRESS_SPAN_MS, Score

AFTER_PRESS_MS = PRESS_SPAN_MS
FALSE_LOOKBACK_MS = 3000.0
MISS_LOOKBACK_MS = 1500.0
AFTER_PRESS = "a press's hold, release or ringing"
NOTHING = "nothing within 3 s"
ALONE = "alone"


@dataclass
class Causes:
    """Mistakes by their likely cause, over one session or many added together."""

    false_by_cause: Counter[str] = field(default_factory=Counter)
    missed_by_context: Counter[str] = field(default_factory=Counter)
    presses_by_context: Counter[str] = field(default_factory=Counter)

    def add(self, other: Causes) -> None:
        self.false_by_cause.update(other.false_by_cause)
        self.missed_by_context.update(other.missed_by_context)
        self.presses_by_context.update(other.presses_by_context)

    def summary(self, most: int = 6) -> tuple[str, str]:
        """Two lines: false presses by cause, and misses against presses by context, the
        most frequent first."""
        false = ", ".join(f"{what} {n}" for what, n in self.false_by_cause.most_common(most))
        contexts = sorted(
            self.presses_by_context,
            key=lambda what: (-self.missed_by_context[what], -self.presses_by_context[what]),
        )
        missed = ", ".join(
            f"{what} {self.missed_by_context[what]}/{self.presses_by_context[what]}"
            for what in contexts[:most]
        )
        return false or "none", missed or "none"


def kind_of(what: str) -> str:
    """An event's kind: its name without the size some models add ("knock 3.49 g": knock)."""
    words = []
    for word in what.split():
        if word.lstrip("+-")[:1].isdigit():
            break
        words.append(word)
    return " ".join(words) or what


def _last_before(
    times: list[float], events: list[tuple[float, str]], at: float, within: float
) -> str | None:
    k = bisect.bisect_right(times, at) - 1
    if k >= 0 and at - times[k] <= within:
        return events[k][1]
    return None


def attribute(
    result: Score,
    onsets_ms: Sequence[float],
    events: Sequence[tuple[float, str]],
    releases_ms: Sequence[float] | None = None,
) -> Causes:
    """The causes of ``result``'s mistakes (one session's score against its ``onsets_ms``,
    with each press's release where known, in the onsets' order), from the session's other
    ``events`` (onset ms, what)."""
    kinds = [(t, kind_of(what)) for t, what in events]
    others = sorted((t, what) for t, what in kinds if what != "press")
    times = [t for t, _ in others]
    ends = list(onsets_ms) if releases_ms is None else list(releases_ms)
    spans = sorted(zip(onsets_ms, ends, strict=True))
    presses = [onset for onset, _ in spans]
    causes = Causes()
    for at in result.false_ms:
        k = bisect.bisect_right(presses, at) - 1
        if k >= 0 and at - spans[k][1] <= AFTER_PRESS_MS:  # in its hold, or soon after
            causes.false_by_cause[AFTER_PRESS] += 1
        else:
            causes.false_by_cause[
                _last_before(times, others, at, FALSE_LOOKBACK_MS) or NOTHING
            ] += 1
    missed = set(result.missed_ms)
    for at in presses:
        context = _last_before(times, others, at, MISS_LOOKBACK_MS) or ALONE
        causes.presses_by_context[context] += 1
        if at in missed:
            causes.missed_by_context[context] += 1
    return causes
