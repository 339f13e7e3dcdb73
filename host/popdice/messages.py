"""Error lines for people: one line, and short however long the value that was wrong.

``quoted`` shows a value the user gave inside a message; ``one_line`` is the last step
before a message reaches standard error: whitespace (newlines too) becomes single spaces,
a quoted value longer than ``QUOTE_LIMIT`` characters is cut, and so is any other run of
characters without a space longer than ``WORD_LIMIT`` (a 5,000-digit number, a path), and
the whole line beyond ``LINE_LIMIT``.
"""

from __future__ import annotations

import re

QUOTE_LIMIT = 40
WORD_LIMIT = 80
LINE_LIMIT = 300

_LONG_QUOTE = re.compile(rf"'([^'\s]{{{QUOTE_LIMIT + 1},}})'")
_LONG_WORD = re.compile(rf"\S{{{WORD_LIMIT + 1},}}")


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or its first ``limit`` - 3 characters and "..." when it is longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` in quotes, as a message shows a value the user gave, cut to ``limit``."""
    return repr(cut(text, limit))


def one_line(message: str, limit: int = LINE_LIMIT) -> str:
    """``message`` as one line of at most ``limit`` characters (see the module's docstring)."""
    line = " ".join(message.split())
    line = _LONG_QUOTE.sub(lambda match: quoted(match.group(1)), line)
    line = _LONG_WORD.sub(lambda match: cut(match.group(0), QUOTE_LIMIT), line)
    return cut(line, limit)
