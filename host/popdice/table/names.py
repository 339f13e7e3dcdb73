"""Players' names: checked once when a game starts, and always shown as they were typed.

``check_name`` holds a new game's names to the rules: not empty, at most ``MAX_NAME``
characters, and no control character (a tab, a line break, an escape; bidirectional
overrides too, which would show the name in another order). A journal written before these
rules may hold a name they refuse: it still resumes, since nothing that reads a journal
applies them.

``literal`` is what the screen and ``popdice history`` show of a name, or of a line that
holds one: the text itself, with each control character written as its escape (``\\x1b``).
The table draws it as plain text, never as markup, so ``[b]Ann[/b]`` shows as typed.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 24
CONTROL_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")
"""Control characters, lone surrogates (bytes that were not text) and line separators."""
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The characters that make a terminal show the text after them in another order."""


def is_control(char: str) -> bool:
    """Whether ``char`` would do something on a screen rather than show itself."""
    return char in BIDI_CONTROLS or unicodedata.category(char) in CONTROL_CATEGORIES


def literal(text: str) -> str:
    """``text`` as the screen shows it: each control character as its escape."""
    if not any(is_control(char) for char in text):
        return text
    return "".join(_escape(char) if is_control(char) else char for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a new player's name (None: nothing)."""
    if not name:
        return "a player's name is empty"
    control = next((char for char in name if is_control(char)), None)
    if control is not None and 0xDC80 <= ord(control) <= 0xDCFF:  # how Python keeps a byte
        return (  # of a command line that was not text in the system's encoding
            f"the name '{literal(name)}' holds byte 0x{ord(control) - 0xDC00:02x}, which is not "
            "text: give names as UTF-8"
        )
    if control is not None:
        return f"the name '{literal(name)}' holds a control character ({_escape(control)})"
    if len(name) > MAX_NAME:
        return f"the name '{literal(name)}' is {len(name)} characters long: {MAX_NAME} at the most"
    return None
