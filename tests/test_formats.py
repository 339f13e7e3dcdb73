"""docs/formats.md and the JSON Schemas of the rule-check commands: every example on the page
is valid against its schema and is exactly what the command answers; the commands refuse
what the schemas refuse; the validator applies every keyword a schema uses, in the style of
the other error lines."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from popdice.cli.main import main
from popdice.games import schema
from popdice.games.errors import Reason

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ROOT / "docs" / "formats.md"
COMMANDS = {
    "check-popalotsy": ["check", "popalotsy"],
    "check-ringer": ["check", "ringer"],
    "check-lowdown-move": ["check", "lowdown-move"],
    "score-lowdown": ["score", "lowdown"],
}


def examples() -> list[tuple[str, list[str], Any]]:
    """(schema name, extra arguments, document) for each example block, in page order."""
    text = FORMATS.read_text(encoding="utf-8")
    found = re.findall(r"<!-- example: ([\w-]+)((?: --[\w-]+)*) -->\n```json\n(.*?)```", text, re.S)
    return [(name, extra.split(), json.loads(body)) for name, extra, body in found]


def pairs() -> list[tuple[str, list[str], Any, Any]]:
    """(command's schema, arguments, input, the output the page shows for it)."""
    found = examples()
    result = []
    for (name, extra, doc), (answer, _, shown) in zip(found[::2], found[1::2], strict=True):
        assert answer == f"{name}-result", f"the example after {name} must be its result"
        result.append((name, extra, doc, shown))
    return result


def run(capsys, monkeypatch, argv: list[str], doc: Any) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(doc).encode())))
    code = main([*argv, "-"])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_has_an_example_and_every_schema_is_on_the_page() -> None:
    assert sorted({name for name, _, _, _ in pairs()}) == sorted(COMMANDS)
    text = FORMATS.read_text(encoding="utf-8")
    assert schema.names() == sorted([*COMMANDS, *(f"{n}-result" for n in COMMANDS)])
    for name in schema.names():
        assert f"`{name}.json`" in text


@pytest.mark.parametrize(("name", "extra", "doc", "shown"), pairs())
def test_each_example_is_valid_and_is_what_the_command_answers(
    capsys, monkeypatch, name, extra, doc, shown
) -> None:
    assert schema.first_problem(doc, schema.load(name)) is None
    assert schema.first_problem(shown, schema.load(f"{name}-result")) is None
    code, out, err = run(capsys, monkeypatch, [*COMMANDS[name], *extra], doc)
    assert (code, err) == (0, "")
    assert json.loads(out) == shown


def test_the_result_schemas_name_only_reasons_the_engines_have() -> None:
    known = {reason.value for reason in Reason}
    for name in COMMANDS:
        text = json.dumps(schema.load(f"{name}-result"))
        for enum in re.findall(r'"reason": \{"title": "a reason", "enum": \[(.*?)\]', text):
            assert set(json.loads(f"[{enum}]")) <= known


REFUSED = [
    (["check", "popalotsy"], {"dice": [], "piles": [], "hand": {"ann": 1}},
     "error: hand: unknown field (the known ones: dice, piles, hands, emptied)"),
    (["check", "popalotsy"],
     {"dice": [{"color": "red", "number": 3, "colour": "red"}], "piles": [[]]},
     "error: dice[0].colour: unknown field (the known ones: color, number)"),
    (["check", "ringer"], {"die": 4, "top": {"suit": "pink", "number": 2, "text": "x"},
                           "events": []},
     "error: top.text: unknown field (the known ones: suit, number, power)"),
    (["score", "lowdown"], {"boards": {"ann": {"grid": {}}}},
     "error: boards.ann.grid: unknown field (the known ones: grids, crossed, wilds)"),
    (["check", "lowdown-move"], {"board": {}, "move": {"grid": "red/orange", "row": 0,
                                                       "col": 0, "number": 2, "color": "red",
                                                       "wild": True, "colour": "red"}},
     "error: move.colour: unknown field (the known ones: grid, row, col, number, color, wild)"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "doc", "message"), REFUSED)
def test_a_field_the_schema_does_not_know_is_refused_in_one_line(
    capsys, monkeypatch, argv, doc, message
) -> None:
    assert run(capsys, monkeypatch, argv, doc) == (2, "", message + "\n")


def test_optional_fields_may_be_null(capsys, monkeypatch) -> None:
    doc = {"dice": [{"color": "red", "number": 3}], "piles": [[]], "hands": None, "emptied": None}
    code, out, _ = run(capsys, monkeypatch, ["check", "popalotsy"], doc)
    assert code == 0 and json.loads(out) == {"piles": [{"die": 0, "ok": True, "cards": 0}]}
    move = {"grid": "red/orange", "row": 0, "col": 2, "number": 5, "color": "red", "wild": None}
    code, out, _ = run(capsys, monkeypatch, ["check", "lowdown-move"], {"board": {}, "move": move})
    assert code == 0 and json.loads(out) == {"legal": True}


EVENT = "a Ringer event"
CASES = [
    ({"dice": 3, "piles": []}, "check-popalotsy", "dice: expected a list, got an integer"),
    ({"dice": [], "piles": [[{"color": "red", "number": 4, "by": 7}]]}, "check-popalotsy",
     "piles[0][0].by: expected a string, got an integer"),
    ({"dice": [], "piles": [], "hands": {"ann": -1}}, "check-popalotsy",
     "hands.ann: -1 is less than 0"),
    ({"die": 4, "events": []}, "check-ringer", "top: missing"),
    ({"die": 4, "top": {"number": 2}, "events": []}, "check-ringer", "top.suit: missing"),
    ({"die": 4, "top": "pink 2", "events": []}, "check-ringer",
     'top: "pink 2" is not a card, or null (no stack yet)'),
    ({"die": 4, "top": None, "events": [{"roll": 2, "start": {"suit": "pink"}}]},
     "check-ringer", 'events[0]: {"roll": 2, "start": {"suit": "pink"}} is not an event with '
     "exactly one of play, roll, start"),
    ({"die": 4, "top": None, "events": [{}]}, "check-ringer",
     "events[0]: {} is not an event with exactly one of play, roll, start"),
    ({"die": 4, "top": None, "events": [{"play": {"suit": "pink", "power": "skip"}}]},
     "check-ringer", 'events[0].play.power: "skip" is not a power (ask, draw1, draw2, '
     "take_over, reroll, steal1, null)"),
    ({"boards": {"ann": {"grids": {"red/orange": [[1, "Y", None]]}}}}, "score-lowdown",
     'boards.ann.grids.red/orange[0][1]: "Y" is not a box: a number, "X" (blacked out) or '
     "null (empty)"),
    ({"board": {"grids": {"red/orange": [[True]]}}, "move": {}}, "check-lowdown-move",
     'board.grids.red/orange[0][0]: true is not a box: a number, "X" (blacked out) or null '
     "(empty)"),
    ({"board": {}, "move": {"grid": "red/orange", "row": -1, "col": 0, "number": 2,
                            "color": "red"}},
     "check-lowdown-move", "move.row: -1 is less than 0"),
    ({"board": {}, "move": {"grid": "red/orange", "row": 0, "col": 0, "number": 2,
                            "wild": True}},
     "check-lowdown-move", "move.color: missing"),
    ([], "score-lowdown", "document: expected an object, got a list"),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "name", "problem"), CASES)
def test_the_validator_names_the_first_problem_like_the_other_error_lines(doc, name, problem):
    assert schema.first_problem(doc, schema.load(name)) == problem


def test_the_validator_applies_each_keyword(tmp_path, monkeypatch) -> None:
    rules = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"type": "array", "minItems": 2, "items": {"type": "integer", "maximum": 5}},
            "b": {"const": "X"},
            "c": {"title": "a small number or a word", "oneOf": [
                {"type": "integer", "maximum": 3}, {"type": "string"}]},
            "d": {"$ref": "#/$defs/d"},
        },
        "additionalProperties": {"type": "boolean"},
        "$defs": {"d": {"enum": [1, True]}},
    }  # fmt: skip
    for doc, problem in (
        ({"a": [1, 2]}, None),
        ({"a": [1]}, "a: has 1 items, fewer than 2"),
        ({"a": [1, 6]}, "a[1]: 6 is more than 5"),
        ({"a": [1, 2.0]}, None),  # JSON Schema: 2.0 is an integer
        ({"a": [1, 2], "b": "Y"}, 'b: "Y" is not "X"'),
        ({"a": [1, 2], "c": 4}, "c: 4 is more than 3"),
        ({"a": [1, 2], "c": "x"}, None),
        ({"a": [1, 2], "c": None}, "c: null is not a small number or a word"),
        ({"a": [1, 2], "d": 1}, None),
        ({"a": [1, 2], "d": 1.0}, None),
        ({"a": [1, 2], "d": False}, "d: false is not one of (1, true)"),
        ({"a": [1, 2], "e": True}, None),
        ({"a": [1, 2], "e": 1}, "e: expected true or false, got an integer"),
        ({"a": [True, 2]}, "a[0]: expected an integer, got true/false"),
    ):
        assert schema.first_problem(doc, rules) == problem, doc

    monkeypatch.setattr(schema, "SCHEMA_DIR", tmp_path)
    schema.load.cache_clear()
    try:
        (tmp_path / "loose.json").write_text('{"type": "object", "patternProperties": {}}')
        with pytest.raises(schema.SchemaError, match="'patternProperties' is not applied"):
            schema.load("loose")
        (tmp_path / "nested.json").write_text(
            '{"properties": {"a": {"items": {"format": "date"}}}}'
        )
        with pytest.raises(schema.SchemaError, match=r"nested\.json/properties/a/items"):
            schema.load("nested")
        (tmp_path / "untitled.json").write_text('{"anyOf": [{"type": "null"}]}')
        with pytest.raises(schema.SchemaError, match="anyOf needs a title"):
            schema.load("untitled")
    finally:
        schema.load.cache_clear()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_schema_file_loads_and_is_draft_2020_12(name: str) -> None:
    for which in (name, f"{name}-result"):
        loaded = schema.load(which)
        assert loaded["$schema"] == schema.DIALECT and loaded["$id"] == f"{which}.json"
        assert "docs/formats.md" in loaded["$comment"]
