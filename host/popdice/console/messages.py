"""Error lines for people: one line, and short however long the value that was wrong.

``quoted`` shows a value the user gave inside a message; ``one_line`` is the last step
before a message reaches standard error: whitespace (newlines too) becomes single spaces,
a quoted value longer than ``QUOTE_LIMIT`` characters is shortened to that, and so is any
other run of characters without a space longer than ``WORD_LIMIT`` (a 5,000-digit number, a
path: its start and its end are kept), and the whole line is cut at ``LINE_LIMIT``.
"""

from __future__ import annotations

import re

QUOTE_LIMIT = 40
WORD_LIMIT = 80
LINE_LIMIT = 300

_LONG_QUOTE = re.compile(rf"'([^'\s]{{{QUOTE_LIMIT + 1},}})'")
_LONG_WORD = re.compile(rf"\S{{{WORD_LIMIT + 1},}}")


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or when it is longer than ``limit`` its start and its end around "..."."""
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head) :]


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` in quotes, as a message shows a value the user gave, shortened to ``limit``."""
    return repr(shortened(text, limit))


def one_line(message: str, limit: int = LINE_LIMIT) -> str:
    """``message`` as one line of at most ``limit`` characters (see the module's docstring)."""
    line = " ".join(message.split())
    line = _LONG_QUOTE.sub(lambda match: quoted(match.group(1)), line)
    line = _LONG_WORD.sub(lambda match: shortened(match.group(0)), line)
    return line if len(line) <= limit else line[: limit - 3] + "..."
