"""Rule settings: the open questions of docs/rules.md as frozen dataclasses with checked values.

Each game has a ``...Config`` dataclass whose defaults are the recommended choices. Settings
can be changed by name (``mode=strict``), e.g. from ``popdice simulate --rule``; names and
values are checked and a bad one raises ``ConfigError``. ``from_json`` reads settings kept as a
JSON object (the table's journal keeps a game's so), checked the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from .errors import ConfigError
from .fields import Field

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import Any, TypeVar

    C = TypeVar("C")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_DIGITS_MOST = 100  # far beyond any count a rule takes, far below int()'s 4,300


def require_choice(name: str, value: str, options: Sequence[str]) -> None:
    if value not in options:
        raise ConfigError(f"rule {name}: {value!r} is not one of {', '.join(options)}")


def require_at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise ConfigError(f"rule {name}: {value} is less than {low}")


def require_at_most(name: str, value: int, high: int, what: str) -> None:
    """Refuses setting ``name`` above ``high``, which ``what`` names ('the 105 cards of the
    deck')."""
    if value > high:
        raise ConfigError(f"rule {name}: {value} is more than {what}")


def require_not_above(config: Any, name: str, limit: str) -> None:
    """Refuses setting ``name`` of ``config`` above its setting ``limit``. The message is about
    ``limit``, unless that still has its default value: then it is ``name`` that was set."""
    value, most = getattr(config, name), getattr(config, limit)
    if value <= most:
        return
    defaults = {field.name: field.default for field in dataclasses.fields(config)}
    if most == defaults[limit]:
        raise ConfigError(f"rule {name}: {value} is more than {limit} ({most})")
    raise ConfigError(f"rule {limit}: {most} is less than {name} ({value})")


def _convert(name: str, text: str, current: Any) -> Any:
    if isinstance(current, bool):
        word = text.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise ConfigError(f"rule {name}: {text!r} is not true or false")
    if isinstance(current, int):
        if len(text.strip()) > _DIGITS_MOST:
            raise ConfigError(f"rule {name}: a number of over {_DIGITS_MOST} digits")
        try:
            return int(text)
        except ValueError:
            raise ConfigError(f"rule {name}: {text!r} is not a whole number") from None
    return text


def with_settings(config: C, settings: Iterable[str]) -> C:
    """``config`` with each ``NAME=VALUE`` of ``settings`` applied (checked)."""
    assert dataclasses.is_dataclass(config) and not isinstance(config, type)
    known = {f.name for f in dataclasses.fields(config)}
    changes: dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ConfigError(f"rule {setting!r}: write it as NAME=VALUE")
        if name not in known:
            raise ConfigError(f"rule {name}: unknown (known: {', '.join(sorted(known))})")
        changes[name] = _convert(name, text, getattr(config, name))
    return dataclasses.replace(config, **changes)


def from_json(config: C, settings: Field) -> C:
    """``config`` with the settings of the JSON object ``settings`` (NAME: VALUE, each value of
    its setting's JSON type) applied and checked; a bad one is ``settings``' error, naming it."""
    assert dataclasses.is_dataclass(config) and not isinstance(config, type)
    known = {f.name for f in dataclasses.fields(config)}
    changes: dict[str, Any] = {}
    for name, value in settings.entries():
        if name not in known:
            value.fail("not a rule setting")
        current = getattr(config, name)
        if isinstance(current, bool):
            changes[name] = value.boolean()
        elif isinstance(current, int):
            changes[name] = value.integer()
        else:
            changes[name] = value.string()
    try:
        return dataclasses.replace(config, **changes)
    except ConfigError as error:
        settings.fail(str(error))


def describe(config: Any) -> dict[str, Any]:
    """The settings as a plain dict, for summaries and views."""
    return dataclasses.asdict(config)
