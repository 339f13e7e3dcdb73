"""The JSON Schemas of the rule-check documents (``schemas/*.json``, docs/formats.md) and the
small validator that holds a document to one.

The schemas keep to a subset of JSON Schema (draft 2020-12): ``type``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``enum``, ``const``, ``minimum``,
``maximum``, ``minItems``, ``anyOf``, ``oneOf`` and ``$ref`` to a ``$defs`` entry (of the
same file, or of another here: ``other.json#/$defs/name``), plus annotations. A schema that
uses any other keyword is refused when it is loaded, so no rule in a schema file is silently
skipped. The first problem found, depth first in document order, is reported as
``fields.Field`` reports one: ``piles[1][2].by: expected a string, got an integer``.

The schemas give a document's shape, which is the same whatever the data files say; which
colours, suits, faces and grids there are comes from the game's data file, and the check
commands read those values against it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from ..errors import PopdiceError
from .errors import InputError
from .fields import kind_of, shown

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

RULES = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "minimum", "maximum", "minItems", "anyOf", "oneOf", "$ref",
}  # fmt: skip
ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "examples"}
_TYPE_WORDS = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


class SchemaError(PopdiceError):
    """A schema file that is not valid JSON or uses a keyword the validator does not know."""


@cache
def load(name: str) -> dict[str, Any]:
    """``schemas/<name>.json``, checked to use only the keywords this validator applies."""
    path = SCHEMA_DIR / f"{name}.json"
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SchemaError(f"schema {path.name}: {error}") from None
    _check_keywords(schema, path.name, "")
    return schema


def names() -> list[str]:
    return sorted(path.stem for path in SCHEMA_DIR.glob("*.json"))


def check(value: Any, name: str) -> None:
    """Raise ``InputError`` naming the first place where ``value`` breaks schema ``name``."""
    problem = first_problem(value, load(name))
    if problem is not None:
        raise InputError(problem)


def first_problem(value: Any, schema: dict[str, Any], path: str = "") -> str | None:
    """Where and how ``value`` first breaks ``schema``, as one line; None if it does not."""
    return _problem(value, schema, path, schema)


def _problem(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> str | None:
    where = path or "document"
    if "$ref" in schema:
        target, root = _resolve(schema["$ref"], root)
        return _problem(value, target, path, root)
    types = schema.get("type")
    if types is not None and not _has_type(value, types):
        return f"{where}: expected {_words(types)}, got {kind_of(value)}"
    if "const" in schema and not _same(value, schema["const"]):
        return f"{where}: {shown(value)} is not {shown(schema['const'])}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(o if isinstance(o, str) else json.dumps(o) for o in schema["enum"])
        return f"{where}: {shown(value)} is not {schema.get('title', 'one of')} ({options})"
    for branch in ("anyOf", "oneOf"):
        if branch in schema:
            problem = _branches(value, schema, branch, path, root)
            if problem is not None:
                return problem
    if _is_number(value):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where}: {shown(value)} is less than {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where}: {shown(value)} is more than {schema['maximum']}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{where}: has {len(value)} items, fewer than {schema['minItems']}"
        if "items" in schema:
            for index, item in enumerate(value):
                problem = _problem(item, schema["items"], f"{path}[{index}]", root)
                if problem is not None:
                    return problem
    if isinstance(value, dict):
        return _members(value, schema, path, root)
    return None


def _members(
    value: dict[str, Any], schema: dict[str, Any], path: str, root: dict[str, Any]
) -> str | None:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key in schema.get("required", ()):
        if key not in value:
            return f"{_child(path, key)}: missing"
    for key, member in value.items():
        if key in properties:
            problem = _problem(member, properties[key], _child(path, key), root)
        elif extra is False:
            known = ", ".join(properties)
            problem = f"{_child(path, key)}: unknown field (the known ones: {known})"
        elif isinstance(extra, dict):
            problem = _problem(member, extra, _child(path, key), root)
        else:
            problem = None
        if problem is not None:
            return problem
    return None


def _branches(
    value: Any, schema: dict[str, Any], branch: str, path: str, root: dict[str, Any]
) -> str | None:
    """anyOf: one branch must hold; oneOf: exactly one. When the value's type picks out one
    branch, that branch's own first problem is the one reported."""
    options = [_resolve(o["$ref"], root) if "$ref" in o else (o, root) for o in schema[branch]]
    problems = [_problem(value, option, path, within) for option, within in options]
    held = problems.count(None)
    if held == 1 or (held > 1 and branch == "anyOf"):
        return None
    if held == 0:
        typed = [
            problem
            for (option, _), problem in zip(options, problems, strict=True)
            if "type" in option and _has_type(value, option["type"])
        ]
        if len(typed) == 1:
            return typed[0]
    return f"{path or 'document'}: {shown(value)} is not {schema['title']}"


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _resolve(reference: str, root: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The schema ``reference`` points at, and the file it is in (for the refs inside it)."""
    file, _, pointer = reference.partition("#")
    if file:
        root = load(file.removesuffix(".json"))
    name = pointer.removeprefix("/$defs/")
    if not pointer.startswith("/$defs/") or name not in root.get("$defs", {}):
        raise SchemaError(f"unknown $ref {reference!r}")
    return root["$defs"][name], root


def _has_type(value: Any, types: str | list[str] | None) -> bool:
    if types is None:
        return True
    wanted = [types] if isinstance(types, str) else types
    return any(_is_type(value, name) for name in wanted)


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return _is_number(value) and (isinstance(value, int) or value.is_integer())
    if name == "number":
        return _is_number(value)
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    return isinstance(value, kinds[name])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def _words(types: str | list[str]) -> str:
    wanted = [types] if isinstance(types, str) else types
    return " or ".join(_TYPE_WORDS[name] for name in wanted)


def _check_keywords(schema: Any, file: str, where: str) -> None:
    if not isinstance(schema, dict):
        raise SchemaError(f"schema {file}{where}: a schema is an object")
    unknown = set(schema) - RULES - ANNOTATIONS
    if unknown:
        raise SchemaError(f"schema {file}{where}: keyword {sorted(unknown)[0]!r} is not applied")
    for branch in ("anyOf", "oneOf"):
        if branch in schema and "title" not in schema:
            raise SchemaError(f"schema {file}{where}: {branch} needs a title for its message")
    for key in ("properties", "$defs"):
        for name, child in schema.get(key, {}).items():
            _check_keywords(child, file, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _check_keywords(schema[key], file, f"{where}/{key}")
    for branch in ("anyOf", "oneOf"):
        for index, child in enumerate(schema.get(branch, ())):
            _check_keywords(child, file, f"{where}/{branch}/{index}")
