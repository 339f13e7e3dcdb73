"""The table's log on screen: every line the table shows, the latest at the bottom.

A ``RichLog`` wraps a line once, when it is written, at the width it has then, and keeps its
place in the scroll when its size changes: after a resize its lines would keep the old
width and it could show the oldest lines. ``TableLog`` keeps the lines it was given, wraps
them all again (at words) when its width changes, and shows the latest after any resize.
Lines are plain text, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog


class TableLog(RichLog):
    """The log; ``add`` a line to it."""

    DEFAULT_CSS = """
    TableLog { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, min_width=1)
        self.texts: list[str] = []
        """Every line added, in order, as given."""
        self.wrapped_at = 0
        """The width the lines are wrapped at (0: not yet known)."""

    def add(self, text: str) -> None:
        """Adds ``text`` (plain, one line of the log) at the bottom and shows it."""
        self.texts.append(text)
        self.write(Text(text), width=self.wrapped_at or None)

    def on_resize(self, event: Resize) -> None:
        del event  # the width to wrap at is the content's, known once the layout is done
        self.call_after_refresh(self.rewrap)

    def rewrap(self) -> None:
        """Every line wrapped again if the width changed; the latest lines shown."""
        width = self.scrollable_content_region.width
        if width and width != self.wrapped_at:
            self.wrapped_at = width
            self.clear()
            for text in self.texts:
                self.write(Text(text), width=width, scroll_end=False)
        self.scroll_end(animate=False, immediate=True)
