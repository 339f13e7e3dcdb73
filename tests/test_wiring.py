"""``popdice wiring`` and the board modules it reads: the diagrams in docs/images/ are the ones
the board modules draw today, every wire is in them, a board table that does not hold
together is refused in one line, and the simulators' own pin maps agree with the boards."""

from __future__ import annotations

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
from popdice.wiring import pico
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
    assert len(lines) == len(wired)
    for part, about in board.parts:
        assert part in texts and about in texts
    for wire in wired:
        assert wire.carries in texts and wire.part_pin in texts
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
        x, y = line.get("points", "").split()[-1].split(",")
        ends.append((int(x), int(y)))
    assert ends and all(end in pads for end in ends)
    assert len(pads) == len({w.header for w in board.wires if w.header is not None})


def test_ground_goes_to_the_nearest_gnd_pin_and_power_by_name() -> None:
    rows = boards.table(boards.load("popper"))
    assert ("8", "GND", "LIS3DH", "GND", "ground") in rows  # beside GP4-GP6 (pins 6, 7, 9)
    assert ("3", "GND", "LED dice", "GND", "ground") in rows  # beside GP2 (pin 4)
    assert ("36", "3V3(OUT)", "LIS3DH", "VIN", "3.3 V") in rows
    assert ("40", "VBUS", "LED dice", "5V", "5 V, 1000 µF") in rows
    grounds = tuple(n for n in range(1, 41) if pico.name(n) == "GND")
    assert grounds == pico.GROUND


BROKEN = {
    "a wire to 'dome', which is not in PARTS": '(1, "dome", "A", "x")',
    "GP30 is not a GPIO of the RP2040": '(30, "LED", "A", "x")',
    "GP23 is not on the Pico's header": '(23, "LED", "A", "x")',
    "'5V' is not a Pico pin (a GPIO number, or 3V3, VSYS, VBUS, GND)": '("5V", "LED", "A", "x")',
    "a wire is (Pico pin, part, part's pin, carries): (1, 'LED')": '(1, "LED")',
}


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_a_board_table_that_does_not_hold_together_is_one_line(
    problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wires = f'(2, "LED", "DIN", "data"), {BROKEN[problem]}'
    (tmp_path / "popper").mkdir()
    (tmp_path / "popper" / "board.py").write_text(
        f'PARTS = (("LED", "a strip"),)\nWIRES = ({wires},)\n'
    )
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    with pytest.raises(PopdiceError) as refused:
        boards.load("popper")
    assert str(refused.value) == f"boards/popper/board.py: {problem}"


def test_a_part_without_a_wire_a_bad_part_and_a_module_that_fails_are_refused(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    (tmp_path / "popper").mkdir()
    board = tmp_path / "popper" / "board.py"
    board.write_text('PARTS = (("LED", "a strip"), ("dome", "x"))\nWIRES = ((2, "LED", "A", "x"),)')
    with pytest.raises(PopdiceError, match=r"^boards/popper/board\.py: no wire to dome$"):
        boards.load("popper")
    boards.load.cache_clear()
    board.write_text('PARTS = (("LED",),)\nWIRES = ()')
    with pytest.raises(PopdiceError, match=r"^boards/popper/board\.py: a part is \(name, what"):
        boards.load("popper")
    boards.load.cache_clear()
    board.write_text("import nosuchmodule\n")
    with pytest.raises(PopdiceError, match=r"^boards/popper/board\.py does not load: No module"):
        boards.load("popper")


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
