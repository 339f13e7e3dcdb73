"""Help text as `popdice ... --help` prints it: descriptions wrapped to one width, so that
text with figures put into it still reads as even paragraphs."""

from __future__ import annotations

import textwrap

HELP_WIDTH = 90  # no line of any command's help is wider


def paragraphs(text: str) -> str:
    """``text`` with each paragraph (blank-line separated) wrapped anew to ``HELP_WIDTH``."""
    return "\n\n".join(textwrap.fill(part, HELP_WIDTH) for part in text.strip().split("\n\n"))
