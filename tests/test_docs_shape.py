"""The user docs describe the system as it is: the README stays a short entry point, the
popper's page a reference, and no user doc names an issue (users do not have them). What
was tried lives in bench/NOTES.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
MOST_LINES = {"README.md": 250, "docs/popper.md": 250}
ISSUE = re.compile(r"\bissues? #?\d+|#\d+\b", re.IGNORECASE)


@pytest.mark.parametrize(("page", "most"), MOST_LINES.items())
def test_the_entry_pages_stay_short(page: str, most: int) -> None:
    lines = (ROOT / page).read_text(encoding="utf-8").count("\n")
    assert lines <= most, f"{page} has {lines} lines: reference goes to docs/, history to notes"


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda path: path.name)
def test_no_user_doc_names_an_issue(doc: Path) -> None:
    assert ISSUE.findall(doc.read_text(encoding="utf-8")) == []
