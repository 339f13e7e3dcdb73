"""``popdice bom``: each board's bill of materials holds every part the board wires (with all
of its pins in the wiring), the case's hardware and the tools; prints as text, CSV and
Markdown; and a parts list with a bad line is refused in one line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from popdice.cli.main import main
from popdice.deploy import files
from popdice.wiring import board as boards
from popdice.wiring import bom


@pytest.mark.parametrize("kind", files.KINDS)
def test_every_part_the_board_wires_is_a_line_of_its_bill(kind: str) -> None:
    board = boards.load(kind)
    lines = bom.lines(kind)
    wired = {name for line in lines for name in line.wired_as}
    assert {part.name for part in board.parts} == wired
    assert {w.part for w in board.wires if not w.on_board} <= wired
    assert {line.section for line in lines} == set(bom.SECTIONS)
    assert [line.section for line in lines] == sorted(
        (line.section for line in lines), key=bom.SECTIONS.index
    )
    assert any("Pico" in line.part for line in lines)
    assert all(line.number and line.purpose for line in lines)


@pytest.mark.parametrize("kind", files.KINDS)
def test_the_case_hardware_is_in_the_bill(kind: str) -> None:
    hardware = json.loads(files.board_data(kind, "case.json").read_text())["hardware"]
    case_lines = [line for line in bom.lines(kind) if line.section == "case"]
    assert hardware, "the case needs screws"
    for item in hardware:
        assert any(line.part == item["part"] and line.qty == item["qty"] for line in case_lines)


def test_the_command_prints_text_csv_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    lines = bom.lines("popper")
    assert main(["bom", "--board", "popper"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "ELECTRONICS"
    assert "  45 x WS2812B pixel on a 10 mm round board" in text
    assert "Texas Instruments SN74AHCT125N (DIP-14)" in text
    assert main(["bom", "--board", "popper", "--csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["section", "qty", "part", "number", "rating", "for"]
    assert len(rows) == len(lines) + 1
    assert ["electronics", "1", "resistor, 330 Ω", "Yageo MFR-25FBF52-330R"] in [
        row[:4] for row in rows
    ]
    assert main(["bom", "--board", "handheld", "--markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("**Electronics**\n\n| qty | part | number | rating | for |")
    assert "| 3 | momentary push button, panel mount |" in markdown


def test_text_fits_the_terminal() -> None:
    from popdice.wiring.bom_cli import as_text

    for width in (60, 80):
        assert max(map(len, as_text(bom.lines("popper"), width).splitlines())) <= width


BAD = {
    "needs a qty from 1 to 10000": {"qty": 0},
    "needs number (text)": {"number": None},
    "has section 'snacks' (one of: electronics, wire and board, case, tools)": {
        "section": "snacks"
    },
}


@pytest.mark.parametrize("problem", sorted(BAD))
def test_a_bad_line_is_refused_in_one_line(
    problem: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    listing = json.loads(files.board_data("handheld", "parts.json").read_text())
    listing["parts"][1].update(BAD[problem])
    (tmp_path / "parts.json").write_text(json.dumps(listing))
    (tmp_path / "case.json").write_text('{"hardware": []}')
    monkeypatch.setattr(bom.deploy_files, "board_data", lambda kind, name: tmp_path / name)
    assert main(["bom", "--board", "handheld"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err and "boards/handheld/parts.json" in err
