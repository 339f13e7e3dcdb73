"""``make pictures`` (``python -m popdice_lab.pictures``): the pictures in docs/images/ are the ones
the project's code draws today, the README and docs show every one of them, and ``--check``
names what is stale or missing."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from popdice.sim.physics import scenes
from popdice.traces.scoring import TARGET_LATENCY_MS
from popdice_lab.pictures import catalog, detector_plot, led_dice, phones, table_screenshot
from popdice_lab.pictures.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("kind", catalog.KINDS)
def test_the_pictures_in_docs_are_the_ones_drawn_today(kind: str) -> None:
    browserless = kind == "phones" and not Path(phones.CHROMIUM).exists()
    if browserless and os.environ.get("POPDICE_REQUIRE_BROWSER") != "1":
        pytest.skip(f"the phone's picture needs Chromium at {phones.CHROMIUM}: make browser")
    files = catalog.draw([kind])
    assert files
    problems = catalog.out_of_date(IMAGES, files)
    assert not problems, "; ".join(problems) + ": run `make pictures`"


def test_the_readme_and_docs_show_every_picture() -> None:
    pages = (ROOT / "README.md").read_text(encoding="utf-8") + "".join(
        page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))
    )
    drawn = {path.name for path in IMAGES.iterdir() if not path.name.startswith(".")}
    shown = set(re.findall(r"images/([\w.-]+\.(?:svg|png))", pages))
    assert drawn <= shown, f"not shown anywhere: {sorted(drawn - shown)}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("popper-leds.svg", "fairness.svg", "detector.svg", "table-lowdown.svg"):
        assert f"docs/images/{name}" in readme


def test_check_names_a_stale_and_a_missing_picture_and_writing_mends_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path), "--only", "wiring"]
    assert main(out) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dice-popper.svg",
        "wiring-handheld.svg",
        "wiring-popper.svg",
    ]
    assert main([*out, "--check"]) == 0
    (tmp_path / "wiring-popper.svg").write_text("<svg/>")
    (tmp_path / "wiring-handheld.svg").unlink()
    capsys.readouterr()
    assert main([*out, "--check"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"missing: {tmp_path / 'wiring-handheld.svg'}",
        f"stale: {tmp_path / 'wiring-popper.svg'}",
        "2 of 3 pictures out of date: run `make pictures`",
    ]
    assert main(out) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"3 pictures in {tmp_path}, 2 changed"
    assert main([*out, "--check"]) == 0
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_led_picture_shows_every_pixel_of_the_frames_it_was_given() -> None:
    white, dark = (96, 96, 96), (0, 0, 0)
    frame = [white] * 9 + [dark] * 36
    svg = ET.fromstring(led_dice.draw(96, {"ringer": frame}))
    fills = [c.get("fill") for c in svg.iter(f"{SVG}circle") if c.get("opacity") is None]
    assert len(fills) == 45
    assert fills[:9] == ["#ffffff"] * 9 and set(fills[9:]) == {led_dice.UNLIT}
    assert led_dice.full_brightness((96, 27, 0), 96) == (255, 71, 0)


def test_the_detector_plot_marks_the_press_and_not_the_knock() -> None:
    trace = scenes.press_trace(seed=1)
    press = detector_plot.run_detector(trace)
    events = [(i, s.event) for i, s in enumerate(press) if s.event]
    assert [event for _, event in events] == ["cue", "pop"]
    (cue, _), (pop, _) = events
    onset_ms, release_ms = trace.press_times_ms[0], trace.releases_ms[0]
    # cued on the press blow, popped on the release blow, within the latency target
    assert onset_ms <= trace.t_ms[cue] <= onset_ms + 20
    assert release_ms <= trace.t_ms[pop] <= release_ms + TARGET_LATENCY_MS
    assert {s.state for s in press} == set(range(len(detector_plot.STATE_NAMES)))
    assert press[cue].state == detector_plot.STATE_NAMES.index("hold")
    knock = detector_plot.run_detector(detector_plot.knock())
    assert [s.event for s in knock if s.event] in (["cue", "cancel"], [])
    carry = detector_plot.run_detector(scenes.carry_trace(seed=4, seconds=4.0))
    assert not any(s.event for s in carry)
    svg = ET.fromstring(detector_plot.draw([("a press", trace, press)]))
    named = [t.text for t in svg.iter(f"{SVG}text") if t.get("font-weight") == "bold"]
    assert named.count("pop") == named.count("cue") == 1 and "cancel" not in named


def test_the_table_screenshot_names_its_styles_the_same_every_time() -> None:
    svg = (IMAGES / table_screenshot.FILE).read_text(encoding="utf-8")
    assert "terminal-" not in svg and table_screenshot.STYLE_PREFIX in svg
    assert "refused: gy 1,2 does not take green (wrong_color)" in svg.replace("&#160;", " ")
