"""A progress bar on standard error: redrawn in place on a terminal; elsewhere (a log, a
pipe) a line at each tenth of the way, so long jobs do not flood the output."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self._live = self.stream.isatty()
        self._tenths_shown = -1

    def __call__(self, done: int, total: int, item: str = "") -> None:
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        line = f"{self.label} [{bar}] {done}/{total} {item}"
        if self._live:
            self.stream.write("\r\x1b[K" + line)
            if done >= total:
                self.stream.write("\n")
        else:
            tenths = 10 * done // max(total, 1)
            if tenths == self._tenths_shown:
                return
            self._tenths_shown = tenths
            self.stream.write(line + "\n")
        self.stream.flush()
