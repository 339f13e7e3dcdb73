"""``popdice status``'s readable lines, from status replies made up here: every field with
its unit and meaning, the link's counters complete, nested objects indented, and a reply of
unexpected shape still shown, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from popdice.cli.status_text import BOARD_FIELDS, DEVICE_FIELDS, LINK_FIELDS, duration, status_lines
from popdice.console.columns import aligned
from popdice.devices.client import LINK_COUNTERS
from popdice.devices.link import DeviceInfo

POPPER = DeviceInfo("/dev/ttyACM0", "popper", "e6614103e7452d2f", "0.1.0", 1, "0badcafe")
HANDHELD = DeviceInfo("/dev/ttyACM1", "handheld", "00000000000000bb", "0.1.0", 1, "12345678")


def popper_reply(**changed: object) -> dict[str, object]:
    """A popper's reply as the firmware sends it: link counters that are 0 left out."""
    reply: dict[str, object] = {
        "board": "popper",
        "fw": "0.1.0",
        "proto": 1,
        "uptime_ms": 3_720_000,
        "reset": "power on",
        "heap_free": 165_648,
        "heap_used": 28_016,
        "unacked_events": 2,
        "link": {"rx_frames": 1_204, "tx_frames": 1_311, "retransmits": 7},
        "mode": "lowdown",
        "samples": 1_488_000,
        "pops": 41,
        "overruns": 3,
        "detect_us": {"n": 1_488_000, "mean": 212, "max": 1_930},
        "detector": "detector.json",
        "pop_on": "release",
        "stream_dropped": 0,
        "accel": "ok",
        "accel_address": 0x19,
        "leds_ma": 212,
        "frames_capped": 4,
    }
    return {**reply, **changed}


def test_a_popper_status_reads_as_words_and_units() -> None:
    lines = status_lines(popper_reply(), POPPER)
    for expected in (
        "board: popper",
        "device id: e6614103e7452d2f",
        "port: /dev/ttyACM0",
        "session: 0badcafe (new at every boot)",
        "firmware: 0.1.0",
        "uptime: 1 h 02 min",
        "heap free: 165,648 B",
        "heap used: 28,016 B",
        "unacked events: 2 (events sent that no host has acknowledged)",
        "link:",
        "  frames received: 1,204 (whole frames read from the host)",
        "  events resent: 7 (sent again while unacknowledged)",
        "popper:",
        "  mode: lowdown (the game mode a press rolls for)",
        "  samples: 1,488,000 (accelerometer samples read since boot)",
        "  overruns: 3 (samples lost before the detector saw them)",
        "  pops: 41 (rolls since boot, by a press or by the host)",
        "  press detector time: mean 212 µs, longest 1,930 µs "
        "(per sample; the mean of recent ones)",
        "  detector: detector.json (where the press detector's settings came from)",
        "  pops on: release (the dome's release, or the press itself)",
        "  accelerometer: ok",
        "  accelerometer address: 0x19",
        "  LED current: 212 mA (the last frame's, estimated)",
        "  frames capped: 4 (LED frames dimmed to stay under the current cap)",
    ):
        assert expected in lines, expected
    assert lines[0] == "board: popper"
    assert lines.index("link:") < lines.index("popper:")


def test_every_link_counter_is_shown_the_zeros_too() -> None:
    lines = status_lines(popper_reply(), POPPER)
    link = lines[lines.index("link:") + 1 : lines.index("popper:")]
    labels = [line.split(":")[0].strip() for line in link]
    assert labels == [LINK_FIELDS[counter].label for counter in LINK_COUNTERS]
    assert "  frames damaged: 0 (received frames dropped: bad COBS or CRC, or too long)" in link


def test_no_line_shows_a_python_value() -> None:
    text = "\n".join(status_lines(popper_reply(), POPPER))
    for python in ("{", "}", "[", "':", "True", "False", "None", "_ms", "_us"):
        assert python not in text, python


def test_a_handheld_status_shows_nested_objects_as_indented_lines() -> None:
    reply = {
        "board": "handheld",
        "fw": "0.1.0",
        "proto": 1,
        "uptime_ms": 42_500,
        "heap_free": 190_464,
        "heap_used": 40_000,
        "unacked_events": 0,
        "link": {},
        "vsys_mv": 3_412,
        "battery_low": True,
        "display": {"present": True, "on": False, "address": 0x3C, "errors": 0},
        "roll": {"roll_id": "12345678-3", "commitment": "ab" * 32, "revealed": False},
    }
    lines = status_lines(reply, HANDHELD)
    handheld = lines[lines.index("handheld:") :]
    assert handheld == [
        "handheld:",
        "  battery: 3.41 V (VSYS)",
        "  battery low: yes",
        "  display:",
        "    present: yes (a panel answered at boot)",
        "    on: no",
        "    address: 0x3C",
        "    errors: 0 (writes to the panel that failed)",
        "  roll:",
        "    roll id: 12345678-3",
        f"    commitment: {'ab' * 32} (SHA-256 of the secret dice and a nonce)",
        "    revealed: no",
    ]
    assert "uptime: 42.5 s" in lines
    no_roll = status_lines({**reply, "roll": None, "display": {"address": None}}, HANDHELD)
    assert "  roll: none" in no_roll
    assert "    address: none (nothing answered)" in no_roll


def test_fields_it_does_not_know_are_shown_by_name_after_the_known_ones() -> None:
    reply = popper_reply(
        zz_new_counter=5, new_part={"lost_bytes": 1_024, "ok": True}, task_failures=2,
        task_failed="link reader: RuntimeError",
    )  # fmt: skip
    lines = status_lines(reply, POPPER)
    assert "task failures: 2 (tasks that raised and were started again by the supervisor)" in (
        lines
    )
    assert "last task failed: link reader: RuntimeError (the task and its error's type)" in lines
    tail = lines[-4:]
    assert tail == ["  new part:", "    lost bytes: 1,024", "    ok: yes", "  zz new counter: 5"]


@pytest.mark.parametrize(
    "odd",
    [
        {"heap_free": "lots", "uptime_ms": -5, "detect_us": 7, "leds_ma": None},
        {"detect_us": {"mean": 1}, "accel_address": "0x18", "link": [1, 2], "vsys_mv": 4.2},
        {"display": 3, "roll": [], "uptime_ms": True, "overruns": 10**30},
    ],
)
def test_a_reply_of_an_unexpected_shape_is_shown_as_it_is(odd: dict[str, object]) -> None:
    lines = status_lines(popper_reply(**odd), POPPER)
    assert lines[0] == "board: popper" and "link:" in lines
    assert all(isinstance(line, str) and "\n" not in line for line in lines)


@pytest.mark.parametrize(
    ("ms", "said"),
    [
        (0, "0.0 s"),
        (42_500, "42.5 s"),
        (59_999, "59.9 s"),
        (60_000, "1 min 00 s"),
        (303_000, "5 min 03 s"),
        (3_720_000, "1 h 02 min"),
        (86_399_999, "23 h 59 min"),
        (97_500_000, "1 d 03 h 05 min"),
    ],
)
def test_uptime_is_said_the_way_a_person_says_it(ms: int, said: str) -> None:
    assert duration(ms) == said


def test_every_field_the_docs_name_has_a_label() -> None:
    """docs/link.md, docs/popper.md and docs/handheld.md's status fields."""
    common = {"fw", "proto", "uptime_ms", "reset", "heap_free", "heap_used", "unacked_events"}
    popper = {"mode", "samples", "pops", "overruns", "detect_us", "detector", "stream_dropped",
              "accel", "accel_address", "leds_ma", "frames_capped"}  # fmt: skip
    handheld = {"vsys_mv", "battery_low", "display", "roll"}
    assert common <= set(DEVICE_FIELDS) and set(LINK_COUNTERS) == set(LINK_FIELDS)
    assert popper | handheld <= set(BOARD_FIELDS)


def test_columns_are_as_wide_as_their_widest_cell() -> None:
    lines = aligned(("ID", "NAME", "NOTE"), [["7", "Ann", ""], ["12", "Bo", "last"]], right={0})
    assert lines == ["ID  NAME  NOTE", " 7  Ann", "12  Bo    last"]


def label_and_meaning(line: str) -> tuple[str, str]:
    """A status line without its value: ``("  overruns", "samples the sensor ...")``."""
    meaning = re.search(r" \(([^()]*)\)$", line)
    return line.split(":")[0], meaning.group(1) if meaning else ""


def test_the_readme_shows_the_status_as_it_is_printed() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    shown = readme.split("$ popdice status --kind popper\n")[1].split("```")[0].splitlines()
    printed = status_lines(popper_reply(), POPPER)
    assert [label_and_meaning(line) for line in shown] == [
        label_and_meaning(line) for line in printed
    ]
