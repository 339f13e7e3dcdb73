"""Recording the popper's accelerometer with the presses labelled: the samples come from the
popper's raw stream (``Popper.stream``), the labels from a person who marks each press (a key)
or presses when asked (prompts), each placed on the press it belongs to in the signal.

Placing a label: a person hits the key a moment *after* pressing, and presses a moment after
a prompt, so the label goes on the sharpest change of the reading in a window around the
mark (``KEY_WINDOW_S`` before a key to a little after it; ``PROMPT_WINDOW_S`` after a
prompt), at its onset: the first sample of the rise to that change. A window with no change
well above its own background holds no press: the mark is reported and not labelled.
"""

from __future__ import annotations

import bisect
import os
import statistics
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from ..devices.popper import Popper
from ..errors import PopdiceError
from .trace import Trace

PERIOD_MS = 2.5
SAMPLES_PER_S = 1000.0 / PERIOD_MS
LEASE_S = 5
RENEW_S = 2.0
BATCH_TIMEOUT_S = 1.0
KEY_WINDOW_S = (1.5, 0.15)  # before and after a key
PROMPT_WINDOW_S = (0.0, 3.0)  # after a prompt
MIN_CHANGE_MG = 60  # the sharpest change must be at least this...
MIN_CHANGE_BACKGROUND = 6  # ...and this many times the window's typical change
ONSET_SHARE = 0.25  # the onset: the first sample of the rise above this share of the change
MAX_SECONDS = 3600


class RecordError(PopdiceError):
    """A recording could not be made (no samples, the stream stopped)."""


@dataclass
class Mark:
    """A person's mark: host time (``time.monotonic``) and what it was (``key`` or
    ``prompt``)."""

    at: float
    kind: str


@dataclass
class Recording:
    """Samples by number on the sensor's clock, with the marks made while they came."""

    numbers: array = field(default_factory=lambda: array("q"))
    xyz: array = field(default_factory=lambda: array("h"))
    clock: list[tuple[float, int]] = field(default_factory=list)  # (host time, next number)
    marks: list[Mark] = field(default_factory=list)
    gaps: int = 0

    def add(self, first: int, values: array, arrived: float) -> None:
        count = len(values) // 3
        if self.numbers and first != self.numbers[-1] + 1:
            self.gaps += 1
        self.numbers.extend(range(first, first + count))
        self.xyz.extend(values)
        self.clock.append((arrived, first + count))

    def span(self) -> int:
        """Samples on the sensor's clock from the first to the last (gaps included)."""
        return self.numbers[-1] - self.numbers[0] + 1 if self.numbers else 0

    def number_at(self, host_time: float) -> float:
        """The sample number the sensor was at, at ``host_time`` (from the last batch that
        had arrived by then)."""
        arrived, number = self.clock[0]
        for when, next_number in self.clock:
            if when > host_time:
                break
            arrived, number = when, next_number
        return number + (host_time - arrived) * SAMPLES_PER_S

    def trace(self, labels_ms: list[float]) -> Trace:
        first = self.numbers[0] if self.numbers else 0
        t_ms = [round((n - first) * PERIOD_MS, 1) for n in self.numbers]
        xyz = self.xyz
        samples = [
            (xyz[3 * i] / 1000.0, xyz[3 * i + 1] / 1000.0, xyz[3 * i + 2] / 1000.0)
            for i in range(len(self.numbers))
        ]
        return Trace(t_ms, samples, labels_ms, "recorded")


def record(
    popper: Popper,
    seconds: float,
    marks: list[Mark] | None = None,
    progress: Callable[[float], None] | None = None,
    prompt: Callable[[], None] | None = None,
    prompt_every_s: float = 4.0,
    stop: threading.Event | None = None,
) -> Recording:
    """Streams ``seconds`` of samples. ``marks`` is filled by whoever marks presses (another
    thread may append to it); with ``prompt`` it is called every ``prompt_every_s`` (after a
    first second of rest) and each call is a prompt mark; ``stop`` ends it early."""
    if not 0 < seconds <= MAX_SECONDS:
        raise RecordError(f"a recording is 0-{MAX_SECONDS} s long, not {seconds:g}")
    recording = Recording(marks=marks if marks is not None else [])
    wanted = int(seconds * SAMPLES_PER_S)
    popper.stream(True, LEASE_S)
    renewed = time.monotonic()
    # Prompts keep to the sensor's clock (the span recorded), as the recording's length does.
    next_prompt = SAMPLES_PER_S if prompt else None
    try:
        while recording.span() < wanted and not (stop and stop.is_set()):
            now = time.monotonic()
            if now - renewed >= RENEW_S:
                popper.stream(True, LEASE_S)
                renewed = now
            if next_prompt is not None and prompt is not None and recording.span() >= next_prompt:
                recording.marks.append(Mark(now, "prompt"))
                prompt()
                next_prompt = recording.span() + prompt_every_s * SAMPLES_PER_S
                if (wanted - recording.span()) * PERIOD_MS < 3500:
                    next_prompt = None  # no prompt too near the end to be answered
            batch = popper.next_samples(BATCH_TIMEOUT_S)
            if batch is None:
                raise RecordError(f"no samples from the popper for {BATCH_TIMEOUT_S:g} s")
            recording.add(batch.first, batch.xyz, time.monotonic())
            if progress:
                progress(min(recording.span(), wanted) * PERIOD_MS / 1000.0)
    finally:
        popper.stream(False)
    if recording.numbers:
        last = recording.numbers[0] + wanted
        keep = next((i for i, n in enumerate(recording.numbers) if n >= last), None)
        if keep is not None:
            del recording.numbers[keep:]
            del recording.xyz[3 * keep :]
    return recording


def place_presses(recording: Recording) -> tuple[list[float], list[Mark]]:
    """(press onsets in ms of the trace, the marks that held no press). Samples the stream
    dropped leave a gap in the numbers: the change across a gap counts as spread evenly over
    the samples it spans, and windows and onsets are placed by sample number, not by
    position."""
    count = len(recording.numbers)
    if not count:
        return [], list(recording.marks)
    numbers = recording.numbers
    first = numbers[0]
    xyz = recording.xyz
    change = [0] * count
    for i in range(1, count):
        moved = sum(abs(xyz[3 * i + k] - xyz[3 * i - 3 + k]) for k in range(3))
        change[i] = moved // (numbers[i] - numbers[i - 1])  # a gap: spread over its samples
    onsets: set[int] = set()
    unplaced = []
    for mark in recording.marks:
        before, after = KEY_WINDOW_S if mark.kind == "key" else PROMPT_WINDOW_S
        at = recording.number_at(mark.at)
        low = max(1, bisect.bisect_left(numbers, at - before * SAMPLES_PER_S))
        high = min(count, bisect.bisect_left(numbers, at + after * SAMPLES_PER_S))
        onset = _onset(change, low, high)
        if onset is None:
            unplaced.append(mark)
        else:
            onsets.add(onset)
    return [(numbers[i] - first - 0.5) * PERIOD_MS for i in sorted(onsets)], unplaced


def _onset(change: list[int], low: int, high: int) -> int | None:
    if high - low < 8:
        return None
    window = change[low:high]
    peak = max(range(len(window)), key=window.__getitem__)
    typical = statistics.median(window)
    if window[peak] < max(MIN_CHANGE_MG, MIN_CHANGE_BACKGROUND * typical):
        return None
    onset = peak
    while onset > 0 and window[onset - 1] >= ONSET_SHARE * window[peak]:
        onset -= 1
    # the sample before the first that moved is the last at rest: the press starts after it
    return low + onset


_WINDOWS_PREFIXES = ("\x00", "\xe0")  # msvcrt gives an arrow or a function key as two


def keys_in(text: str) -> list[str]:
    """The keys in what a terminal sent at once: an escape sequence (an arrow, a function
    key: ESC [ ... or ESC O and a final letter; Alt with a key: ESC and the key) is one."""
    keys = []
    i = 0
    while i < len(text):
        end = i + 1
        if text[i] == "\x1b" and end < len(text):
            end += 1  # ESC and the next: Alt with a key
            if text[i + 1] in "[O":  # a sequence, to its final byte (@ to ~)
                while end < len(text) and not "\x40" <= text[end] <= "\x7e":
                    end += 1
                end += 1
        keys.append(text[i:end])
        i = end
    return keys


class KeyMarks:
    """Marks from a key per press on a terminal (POSIX cbreak mode, or msvcrt on Windows),
    read on a thread until ``stop``; any key but q marks (an arrow key too, once), q ends
    the recording early."""

    def __init__(self, marks: list[Mark], on_mark: Callable[[int], None]) -> None:
        self.marks = marks
        self.quit = threading.Event()
        self.listening = threading.Event()  # set once keys are read one by one
        self._on_mark = on_mark
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> KeyMarks:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)

    def _key(self, key: str) -> None:
        if key.lower() == "q":
            self.quit.set()
            return
        self.marks.append(Mark(time.monotonic(), "key"))
        self._on_mark(len(self.marks))

    def _run(self) -> None:
        try:
            import msvcrt  # type: ignore[import-not-found]  # Windows
        except ImportError:
            self._run_posix()
            return
        self.listening.set()
        while not self._stop.is_set():  # pragma: no cover - Windows
            if msvcrt.kbhit():  # type: ignore[attr-defined]
                key = msvcrt.getwch()  # type: ignore[attr-defined]
                if key in _WINDOWS_PREFIXES:
                    key += msvcrt.getwch()  # type: ignore[attr-defined]
                self._key(key)
            else:
                time.sleep(0.01)

    def _run_posix(self) -> None:
        import select
        import sys
        import termios
        import tty

        stream = sys.stdin
        saved = termios.tcgetattr(stream)
        try:
            tty.setcbreak(stream.fileno())
            self.listening.set()
            while not self._stop.is_set():
                ready, _, _ = select.select([stream], [], [], 0.05)
                if ready:  # a key's whole escape sequence comes in one read
                    sent = os.read(stream.fileno(), 64).decode("utf-8", "replace")
                    for key in keys_in(sent):
                        self._key(key)
        finally:
            termios.tcsetattr(stream, termios.TCSADRAIN, saved)
