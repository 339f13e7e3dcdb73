"""``popdice wiring`` and the board modules and parts lists it reads: the diagrams in
docs/images/ are the ones the boards draw today, every wire and every pin of every part is in
them, a wiring that does not hold together is refused in one line, and the simulators' own
pin maps agree with the boards."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from popdice.cli.main import main
from popdice.deploy import files
from popdice.errors import PopdiceError
from popdice.sim import wiring as sim_wiring
from popdice.wiring import board as boards
from popdice.wiring import dice, pico
from popdice.wiring.svg import render

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def fresh_boards() -> Iterator[None]:
    boards.load.cache_clear()
    yield
    boards.load.cache_clear()


@pytest.mark.parametrize("kind", files.KINDS)
def test_the_diagram_in_docs_is_the_one_the_board_module_draws(kind: str) -> None:
    picture = IMAGES / f"wiring-{kind}.svg"
    refresh = f"popdice wiring --board {kind} --out docs/images/wiring-{kind}.svg"
    assert picture.exists(), f"{picture.name} is missing: run `{refresh}`"
    assert picture.read_text(encoding="utf-8") == render(boards.load(kind)), (
        f"docs/images/{picture.name} is stale (boards/{kind}/board.py changed): run `{refresh}`"
    )


@pytest.mark.parametrize("kind", files.KINDS)
def test_the_diagram_is_the_same_bytes_every_time(kind: str) -> None:
    first = render(boards.load(kind))
    boards.load.cache_clear()
    assert render(boards.load(kind)) == first
    assert not re.search(r' (x|y|width|height|points)="[^"]*\d\.', first), "not a whole number"


@pytest.mark.parametrize("kind", files.KINDS)
def test_the_diagram_shows_every_part_wire_and_pin(kind: str) -> None:
    board = boards.load(kind)
    root = ET.fromstring(render(board))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    lines = list(root.iter(f"{SVG}polyline"))
    wired = [w for w in board.wires if not w.on_board]
    assert len(lines) == len(wired) + len(board.links)
    for part in board.parts:
        assert part.name in texts and part.label in texts
        for pin in part.pins:
            assert part.pin_label(pin) in texts, (part.name, pin)
    for wire in wired:
        assert wire.carries in texts
    notes = [t for t in texts if t and t.startswith("to ")]
    for link in board.links:
        assert any(n.endswith(f": {link.carries}") for n in notes), link
    for left_open in board.open_pins:
        assert left_open.why in texts
    for pin in range(1, pico.PINS + 1):
        assert str(pin) in texts and pico.name(pin) in texts
    for wire in board.wires:
        if wire.on_board:
            assert any(t and wire.pico_pin in t and wire.carries in t for t in texts)


def test_each_wire_ends_on_its_header_pin() -> None:
    board = boards.load("popper")
    root = ET.fromstring(render(board))
    pads = {}
    for rect in root.iter(f"{SVG}rect"):
        if rect.get("width") == "8" and rect.get("fill") == "#212121":
            pads[(int(rect.get("x", 0)) + 4, int(rect.get("y", 0)) + 4)] = True
    ends = []
    for line in root.iter(f"{SVG}polyline"):
        points = [tuple(map(int, p.split(","))) for p in line.get("points", "").split()]
        if points[0][0] != points[-1][0]:  # not a wire between parts, which ends where it began
            ends.append(points[-1])
    assert ends and all(end in pads for end in ends)
    assert len(pads) == len({w.header for w in board.wires if w.header is not None})


def test_ground_goes_to_the_nearest_gnd_pin_and_power_by_name() -> None:
    rows = boards.table(boards.load("popper"))
    assert ("8", "GND", "LIS3DH", "GND", "ground") in rows  # beside GP4-GP6 (pins 6, 7, 9)
    assert ("3", "GND", "74AHCT125", "GND (7)", "ground") in rows  # beside GP2 (pin 4)
    assert ("36", "3V3(OUT)", "LIS3DH", "VIN", "3.3 V") in rows
    assert ("40", "VBUS", "LED dice", "5V", "5 V") in rows
    grounds = tuple(n for n in range(1, 41) if pico.name(n) == "GND")
    assert grounds == pico.GROUND


PARTS_LIST = {
    "parts": [
        {"wired_as": ["LED"], "label": "a strip", "pins": ["DIN", "GND"]},
        {"part": "a tool, not wired"},
    ],
    "links": [],
}

BROKEN = {
    "a wire to 'dome', which is not in the parts list": '(1, "dome", "A", "x")',
    "a wire to LED pin 'A', which it lacks (DIN, GND)": '(1, "LED", "A", "x")',
    "GP30 is not a GPIO of the RP2040": '(30, "LED", "GND", "x")',
    "GP23 is not on the Pico's header": '(23, "LED", "GND", "x")',
    "'5V' is not a Pico pin (a GPIO number, or 3V3, VSYS, VBUS, GND)": '("5V", "LED", "GND", "x")',
    "a wire is (Pico pin, part, part's pin, carries): (1, 'LED')": '(1, "LED")',
}


def write_board(folder: Path, wires: str, parts: dict | None = None) -> None:
    (folder / "popper").mkdir(exist_ok=True)
    (folder / "popper" / "board.py").write_text(f"WIRES = ({wires},)\n" if wires else "")
    listing = PARTS_LIST if parts is None else parts
    (folder / "popper" / "parts.json").write_text(json.dumps(listing))


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_a_board_table_that_does_not_hold_together_is_one_line(
    problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_board(tmp_path, f'(2, "LED", "DIN", "data"), {BROKEN[problem]}')
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    with pytest.raises(PopdiceError) as refused:
        boards.load("popper")
    assert str(refused.value) == f"boards/popper/board.py: {problem}"


PARTS_BROKEN = {
    "LED pin GND goes nowhere (wire it, or list it in open with why)": {"links": []},
    "LED pin GND is both wired and open": {
        "links": [["LED", "GND", "R", "1", "ground"]],
        "open": [["LED", "GND", "unused"]],
    },
    "a link to R pin '3', which it lacks (1)": {"links": [["LED", "GND", "R", "3", "x"]]},
    "a link to 'C', which is not in the parts list": {"links": [["LED", "GND", "C", "1", "x"]]},
    "an open pin to LED pin 'X', which it lacks (DIN, GND)": {"open": [["LED", "X", "why"]]},
    "a link is [part, pin, part, pin, carries]: ['LED', 'GND']": {"links": [["LED", "GND"]]},
    "a link from LED pin GND to itself": {"links": [["LED", "GND", "LED", "GND", "x"]]},
    "R wired as more than one part": {"twice": True},
}


@pytest.mark.parametrize("problem", sorted(PARTS_BROKEN))
def test_a_parts_list_that_does_not_hold_together_is_one_line(
    problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change = PARTS_BROKEN[problem]
    resistor = {"wired_as": ["R"], "label": "a resistor", "pins": ["1"]}
    parts = {
        "parts": [*PARTS_LIST["parts"], resistor, *([resistor] if "twice" in change else [])],
        "links": change.get("links", [["R", "1", "LED", "GND", "x"]]),
        "open": change.get("open", []),
    }
    write_board(tmp_path, '(2, "LED", "DIN", "data"), (3, "R", "1", "x")', parts)
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    with pytest.raises(PopdiceError) as refused:
        boards.load("popper")
    assert str(refused.value) == f"boards/popper/parts.json: {problem}"


def test_a_part_without_a_wire_a_bad_part_and_a_module_that_fails_are_refused(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    dome = {"wired_as": ["dome"], "label": "x", "pins": ["A"]}
    write_board(tmp_path, '(2, "LED", "DIN", "x"), ("GND", "LED", "GND", "x")',
                {"parts": [*PARTS_LIST["parts"], dome]})  # fmt: skip
    with pytest.raises(PopdiceError, match=r"^boards/popper/board\.py: no wire to dome$"):
        boards.load("popper")
    boards.load.cache_clear()
    write_board(tmp_path, "", {"parts": [{"wired_as": ["LED"], "label": "x"}]})
    with pytest.raises(PopdiceError, match=r"^boards/popper/parts\.json: a wired part needs"):
        boards.load("popper")
    boards.load.cache_clear()
    (tmp_path / "popper" / "parts.json").write_text("[1, 2")
    with pytest.raises(PopdiceError, match=r"^boards/popper/parts\.json is not JSON: "):
        boards.load("popper")
    boards.load.cache_clear()
    (tmp_path / "popper" / "board.py").write_text("import nosuchmodule\n")
    with pytest.raises(PopdiceError, match=r"^boards/popper/board\.py does not load: No module"):
        boards.load("popper")


def test_every_pin_of_every_part_is_in_the_wiring_tables() -> None:
    for kind in files.KINDS:
        board = boards.load(kind)
        rows = boards.table(board)
        links = boards.links_table(board)
        ends = {(row[2], row[3]) for row in rows}
        ends |= {(row[0], row[1]) for row in links} | {(row[2], row[3]) for row in links}
        for part in board.parts:
            for pin in part.pins:
                assert (part.name, part.pin_label(pin)) in ends, (kind, part.name, pin)


def test_the_command_prints_the_table_and_writes_the_diagram(tmp_path, capsys) -> None:
    assert main(["wiring", "--board", "handheld"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Pico", "pin", "name", "part", "part's", "pin", "carries"]
    assert lines[1].split()[:4] == ["6", "GP4", "SSD1306", "SDA"]
    assert main(["wiring", "--board", "handheld", "--markdown"]) == 0
    assert "| 17 | GP13 | REVEAL | 1 | button, pull-up |" in capsys.readouterr().out
    out = tmp_path / "handheld.svg"
    assert main(["wiring", "--board", "handheld", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render(boards.load("handheld"))
    assert not list(tmp_path.glob(".*.tmp"))
    assert main(["wiring", "--board", "handheld", "--out", str(tmp_path)]) == 2
    assert f"{tmp_path} is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["-", "wiring.png", "wiring"])
@pytest.mark.parametrize("dice_flag", [[], ["--dice"]])
def test_an_out_that_is_not_an_svg_file_is_refused_in_one_line(
    name: str, dice_flag: list[str], tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["wiring", "--board", "popper", *dice_flag, "--out", name]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"the diagram is drawn as SVG: give a file name ending in .svg, not '{name}'" in err
    assert not list(tmp_path.iterdir())


def simhw_constants() -> dict[str, int]:
    text = (ROOT / "host/popdice/sim/upy/_simhw.py").read_text()
    return {m[1]: int(m[2]) for m in re.finditer(r"^(_\w+) = const\((\d+)\)", text, re.M)}


def test_the_simulators_wire_their_parts_where_the_board_modules_say() -> None:
    popper, handheld = boards.load("popper"), boards.load("handheld")
    buttons = {
        "popper": {"mode": popper.gpio("MODE_BUTTON")},
        "handheld": {
            "roll": handheld.gpio("ROLL_BUTTON"),
            "peek": handheld.gpio("PEEK_BUTTON"),
            "reveal": handheld.gpio("REVEAL_BUTTON"),
        },
    }
    assert buttons == sim_wiring.BUTTONS
    led_data, int1, buzzer = (popper.gpio(n) for n in ("LED_DATA", "ACCEL_INT1", "BUZZER"))
    assert (led_data, popper.setting("LED_COUNT")) == (
        sim_wiring.LED_DATA_PIN,
        sim_wiring.LED_COUNT,
    )
    assert (int1, buzzer) == (sim_wiring.ACCEL_INT1_PIN, sim_wiring.BUZZER_PIN)
    assert handheld.gpio("VSYS_SENSE") - 26 == sim_wiring.VSYS_ADC_CHANNEL
    inside = simhw_constants()
    for board in (popper, handheld):
        assert (inside["_I2C0_SDA"], inside["_I2C0_SCL"]) == (board.gpio("SDA"), board.gpio("SCL"))
        assert board.setting("I2C_ID") == 0
    assert inside["_ACCEL_INT1"] == popper.gpio("ACCEL_INT1")
    assert inside["_VSYS_CHANNEL"] == sim_wiring.VSYS_ADC_CHANNEL


def test_the_dice_are_numbered_as_the_firmware_chains_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["wiring", "--board", "popper", "--dice"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("die 0 (red): centre x 0.0 y 34.0; pixels 0-8; DIN from R1")
    die_one = lines.index(next(line for line in lines if line.startswith("die 1 (orange)")))
    assert [line.split() for line in lines[die_one + 1 : die_one + 4]] == [
        ["9", "10", "11"],
        ["12", "13", "14"],
        ["15", "16", "17"],
    ]
    assert "DIN from die 3's pixel 35" in lines[-4]
    layout = dice.layout("popper")
    assert len(layout.pixels) == boards.load("popper").setting("LED_COUNT")
    top_left, top_right = layout.pixel(0, 0), layout.pixel(0, 2)
    assert top_left[1] == top_right[1] and top_left[0] < top_right[0]  # row 0, left to right
    assert layout.pixel(0, 3)[1] < top_left[1]  # the next row is nearer the USB side
    out = tmp_path / "dice.svg"
    assert main(["wiring", "--board", "popper", "--dice", "--out", str(out)]) == 0
    texts = [t.text for t in ET.fromstring(out.read_text()).iter(f"{SVG}text")]
    assert all(str(n) in texts for n in range(45))
    assert main(["wiring", "--board", "handheld", "--dice"]) == 2
    assert capsys.readouterr().err == "error: the handheld has no LED dice\n"
    assert main(["wiring", "--board", "popper", "--dice", "--markdown"]) == 2
    assert "not Markdown" in capsys.readouterr().err
