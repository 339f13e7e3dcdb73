"""Reading parsed JSON field by field, so that every complaint names the field it is about.

A ``Field`` is a JSON value plus its path (``piles[1][2].number``). Its accessors check the
type and range and raise the error class the reader was made with, with a one-line message
such as ``piles[1][2].number: 7 is not a die number (1-6)``.
"""

from __future__ import annotations

import codecs
import json
import math
from collections.abc import Callable, Sequence

from ..errors import PopdiceError

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import Any, NoReturn

_JSON_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "true/false",
    int: "an integer",
    float: "a fraction",
    type(None): "null",
}

ErrorFactory = Callable[[str], PopdiceError]


def shown(value: Any, limit: int = 40) -> str:
    """A value as it appears in JSON, shortened for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return kind_of(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind_of(value: Any) -> str:
    """What ``value`` is, in words: 'an object', 'a fraction', ..."""
    if isinstance(value, float) and not math.isfinite(value):  # 1e400 reads as infinity
        return "a number that is not finite (Infinity, NaN or too large)"
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


class Field:
    """One value of a JSON document, with the path that leads to it."""

    __slots__ = ("_error", "path", "value")

    def __init__(self, value: Any, path: str, error: ErrorFactory) -> None:
        self.value = value
        self.path = path
        self._error = error

    def fail(self, problem: str) -> NoReturn:
        raise self._error(f"{self.path or 'document'}: {problem}")

    def _expected(self, what: str) -> NoReturn:
        self.fail(f"expected {what}, got {kind_of(self.value)}")

    # --- containers -------------------------------------------------------------------

    def _child_path(self, key: str) -> str:
        if not key or not key.isprintable():  # "" or "\n": as a JSON string, so one line
            return f"{self.path}[{shown(key)}]"
        return f"{self.path}.{key}" if self.path else key

    def mapping(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            self._expected("an object")
        return self.value

    def key(self, key: str, missing: str = "missing") -> Field:
        """The member ``key`` of this object; it must be present (else ``missing`` says so)."""
        members = self.mapping()
        if key not in members:
            Field(None, self._child_path(key), self._error).fail(missing)
        return Field(members[key], self._child_path(key), self._error)

    def optional(self, key: str) -> Field | None:
        """The member ``key``, or None when it is absent or null."""
        members = self.mapping()
        if members.get(key) is None:
            return None
        return Field(members[key], self._child_path(key), self._error)

    def items(self) -> list[Field]:
        if not isinstance(self.value, list):
            self._expected("a list")
        return [Field(v, f"{self.path}[{i}]", self._error) for i, v in enumerate(self.value)]

    def entries(self) -> list[tuple[str, Field]]:
        return [(k, Field(v, self._child_path(k), self._error)) for k, v in self.mapping().items()]

    # --- scalars ----------------------------------------------------------------------

    def is_null(self) -> bool:
        return self.value is None

    def integer(self, low: int | None = None, high: int | None = None, what: str = "") -> int:
        """An integer within [low, high]; ``what`` names the kind, e.g. 'a die number (1-6)'."""
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and what:
                self.fail(f"{shown(value)} is not {what}: write it as an integer")
            self._expected(what or "an integer")
        if (low is not None and value < low) or (high is not None and value > high):
            self.fail(f"{shown(value)} is not {what or f'between {low} and {high}'}")
        return value

    def number_in(self, allowed: Sequence[int], what: str) -> int:
        value = self.integer(what=what)
        if value not in allowed:
            self.fail(f"{shown(value)} is not {what}")
        return value

    def string(self, what: str = "a string") -> str:
        if not isinstance(self.value, str):
            self._expected(what)
        return self.value

    def choice(self, options: Sequence[str], what: str) -> str:
        """A string that must be one of ``options``; ``what`` names the kind ('a colour')."""
        value = self.string(what)
        if value not in options:
            self.fail(f"{shown(value)} is not {what} ({', '.join(options)})")
        return value

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self._expected("true or false")
        return self.value


def faces_text(faces: Sequence[int]) -> str:
    """'1-6' for a run of die faces, else the faces listed: for messages."""
    ordered = sorted(faces)
    if ordered and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(face) for face in ordered)


_BYTE_ORDER_MARKS = (  # UTF-32's marks begin with UTF-16's, so they come first
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(data: bytes) -> str:
    """``data`` as text: UTF-8, or UTF-8, UTF-16 or UTF-32 after a byte-order mark (as Windows
    PowerShell 5.1's ``>`` writes UTF-16). Raises ``UnicodeDecodeError`` for anything else."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return data[len(mark) :].decode(encoding)
    return data.decode("utf-8")


def parse_document(text: str, label: str, error: ErrorFactory) -> Field:
    """Parse ``text`` as JSON; ``label`` (a file name) starts the message if it is not JSON."""
    prefix = f"{label}: " if label else ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as bad:
        where = f"line {bad.lineno}, column {bad.colno}"
        raise error(f"{prefix}not valid JSON ({where}): {bad.msg}") from None
    except RecursionError:
        raise error(f"{prefix}not valid JSON: nested too deeply") from None
    except ValueError:  # Python refuses integers of over 4,300 digits
        raise error(f"{prefix}not valid JSON: a number with too many digits") from None
    return Field(value, "", error)
