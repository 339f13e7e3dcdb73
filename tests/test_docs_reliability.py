"""docs/reliability.md names a test for every promise: each one it names must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"`(?:tests/)?((?:upy/)?test_\w+\.py)::(\w+)`")


def functions_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    }


def test_every_test_the_reliability_page_names_exists():
    text = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = NAMED.findall(text)
    assert len(named) >= 40, "the page names its tests as `tests/FILE.py::NAME`"
    missing = []
    for file, name in named:
        path = ROOT / "tests" / file
        if not path.exists() or name not in functions_in(path):
            missing.append(f"{file}::{name}")
    assert missing == []
