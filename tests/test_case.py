"""``popdice case``: each board's enclosure comes out as closed, consistently oriented solids, as
many bodies as it has, as large as its case.json says, the same bytes every time; its
features are where the data puts them (the USB opening, the MODE hole, the 45 pip holes,
the handheld's window and buttons); a dome too small for the dice, a bad clearance, a
misplaced option and a missing geometry library are each refused in one line."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from popdice.case import dimensions, placement, stl
from popdice.cli.main import main
from popdice.deploy.files import board_data
from popdice.errors import PopdiceError
from popdice.wiring import bom

manifold3d = pytest.importorskip("manifold3d")

from popdice.case import handheld, popper, shapes  # noqa: E402 - needs manifold3d

BODIES = {"popper": ["base", "lid", "rim"], "handheld": ["base", "lid"]}


def run_case(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["case", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, out: str, err: str) -> bool:
    return code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err


def solids(triangles: np.ndarray) -> list[float]:
    """The volume of each body in an STL's triangles, after checking that each is a closed
    solid: corners welded where they are equal, every edge shared by exactly two triangles,
    in opposite directions (each directed edge once), no triangle without area."""
    corners, index = np.unique(triangles.reshape(-1, 3), axis=0, return_inverse=True)
    faces = index.reshape(-1, 3)
    assert len(corners) >= 4
    assert not ((faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2])).any()
    assert not (faces[:, 0] == faces[:, 2]).any()
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    _, once = np.unique(directed, axis=0, return_counts=True)
    assert (once == 1).all(), "a directed edge twice: the orientation is not consistent"
    _, shared = np.unique(np.sort(directed, axis=1), axis=0, return_counts=True)
    assert (shared == 2).all(), "an edge not shared by exactly two triangles"
    body = _components(faces, len(corners))
    wide = triangles.astype(np.float64)
    signed = np.einsum("ij,ij->i", wide[:, 0], np.cross(wide[:, 1], wide[:, 2])) / 6
    return [float(signed[body == b].sum()) for b in range(int(body.max()) + 1)]


def _components(faces: np.ndarray, corners: int) -> np.ndarray:
    """Which body each triangle belongs to: triangles sharing a corner are one body."""
    parent = list(range(corners))

    def root(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b, c in faces.tolist():
        for other in (b, c):
            ra, rb = root(a), root(other)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([root(a) for a in faces[:, 0].tolist()])
    _, body = np.unique(roots, return_inverse=True)
    return body


def written(path: Path) -> np.ndarray:
    header, triangles = stl.read(path.read_bytes())
    assert header.startswith("popdice case: ")
    return triangles


def extent(triangles: np.ndarray) -> np.ndarray:
    points = triangles.reshape(-1, 3).astype(np.float64)
    return points.max(axis=0) - points.min(axis=0)


@pytest.mark.parametrize("board", sorted(BODIES))
def test_each_body_is_a_closed_solid_and_the_line_says_what_was_written(
    board: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"{board}.stl"
    code, printed, err = run_case(capsys, "--board", board, "--out", str(out))
    assert (code, err) == (0, "")
    volumes = solids(written(out))
    assert len(volumes) == len(BODIES[board]) and min(volumes) > 1000  # mm³
    assert printed.count("\n") == 1 and printed.startswith(f"wrote {out}: the {board}'s case")
    assert f"{len(volumes)} bodies" in printed
    assert all(f"{name} " in printed.split("(")[1] for name in BODIES[board])
    total = float(printed.split(" mm, ")[1].split(" cm³")[0])
    assert total == pytest.approx(sum(volumes) / 1000, abs=0.06)
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_popper_is_as_large_as_its_dome_makes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = dimensions.load("popper")
    assert isinstance(case, dimensions.PopperCase)
    sizes = {}
    for dome in (120, 140):
        out = tmp_path / f"popper-{dome}.stl"
        code, _, err = run_case(
            capsys, "--board", "popper", "--dome-diameter", str(dome), "--out", str(out)
        )
        assert (code, err) == (0, "")
        sizes[dome] = extent(written(out))
    radius = placement.popper_plan(case).outer_radius
    expected = (6 * radius + 2 * case.bed_gap, 2 * radius, case.base.height)
    assert sizes[120] == pytest.approx(expected, abs=1e-3)
    # base, lid and rim each 20 mm wider: the bed 60 mm longer, 20 mm deeper, as high
    assert sizes[140] - sizes[120] == pytest.approx((60.0, 20.0, 0.0), abs=1e-3)


def test_the_handheld_is_as_large_as_its_box(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = dimensions.load("handheld")
    assert isinstance(case, dimensions.HandheldCase)
    out = tmp_path / "handheld.stl"
    assert run_case(capsys, "--board", "handheld", "--out", str(out))[0] == 0
    box = case.box
    width, length = box.inner_width + 2 * box.wall, box.inner_length + 2 * box.wall
    assert extent(written(out)) == pytest.approx(
        (2 * width + case.bed_gap, length, box.height), abs=1e-3
    )
    lid = tmp_path / "lid.stl"
    assert run_case(capsys, "--board", "handheld", "--part", "lid", "--out", str(lid))[0] == 0
    assert extent(written(lid)) == pytest.approx((width, length, case.lid.thickness + 3.0), 1e-3)


def test_the_same_case_is_the_same_bytes(tmp_path: Path, capsys) -> None:
    first, second = tmp_path / "a.stl", tmp_path / "b.stl"
    for out in (first, second):
        assert run_case(capsys, "--board", "popper", "--segments", "48", "--out", str(out))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes()[:80].rstrip() == b"popdice case: popper base, lid, rim (mm)"


def test_a_dome_too_small_for_the_dice_is_refused_naming_the_smallest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = dimensions.load("popper")
    assert isinstance(case, dimensions.PopperCase)
    smallest = placement.smallest_dome(case)
    out = tmp_path / "small.stl"
    result = run_case(
        capsys, "--board", "popper", "--dome-diameter", f"{smallest - 0.5:g}", "--out", str(out)
    )
    assert refused(*result)
    assert f"expected a length from {smallest:g} to 300 mm" in result[2]
    assert not out.exists()
    small = replace(case, dome=replace(case.dome, diameter=smallest - 0.5))  # in case.json
    with pytest.raises(PopdiceError, match=f"the smallest that fits is {smallest:g} mm"):
        placement.popper_plan(small)
    # every pip hole of the smallest lies inside its footprint, by the margin
    inside = smallest / 2 - case.dome.wall - case.dome.margin
    pips = placement.pip_centres(case)
    assert max(math.hypot(x, y) for x, y in pips) + case.dice.pip_hole / 2 <= inside
    fits = run_case(
        capsys, "--board", "popper", "--dome-diameter", f"{smallest:g}", "--out", str(out)
    )
    assert fits[0] == 0 and out.exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--board", "popper", "--clearance", "-1"], "expected a length from 0 to 1.5 mm"),
        (["--board", "popper", "--clearance", "5"], "not '5'"),
        (["--board", "popper", "--clearance", "nan"], "not 'nan'"),
        (["--board", "popper", "--dome-diameter", "1e9"], "to 300 mm, not '1e9'"),
        (["--board", "handheld", "--dome-diameter", "140"], "the handheld has no dome"),
        (["--board", "handheld", "--part", "rim"], "the handheld has no rim"),
        (["--board", "popper", "--segments", "3"], "from 16 to 512"),
    ],
)
def test_bad_options_are_one_line(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.stl"
    code, printed, err = run_case(capsys, *argv, "--out", str(out))
    assert refused(code, printed, err) and words in err, err
    assert not out.exists()


def test_without_the_geometry_library_it_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "manifold3d", None)  # import manifold3d now fails
    out = tmp_path / "x.stl"
    code, printed, err = run_case(capsys, "--board", "popper", "--out", str(out))
    assert refused(code, printed, err)
    assert err.startswith("error: popdice case needs the case extra: pip install 'popdice[case]'")
    assert not out.exists()


def test_help_gives_the_ranges_that_work_and_the_defaults(capsys) -> None:
    case = dimensions.load("popper")
    assert isinstance(case, dimensions.PopperCase)
    assert main(["case", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    smallest = placement.smallest_dome(case)
    assert f"{smallest:g} (the smallest that covers the dice) to 300 mm" in shown
    assert f"(default: case.json's, {case.dome.diameter:g})" in shown
    handheld = dimensions.load("handheld")
    low, high = dimensions.SEGMENTS
    assert f"{low} to {high}; smaller ones get fewer (default: case.json's, " in shown
    assert f"{case.fit.segments} for the popper, {handheld.fit.segments} for the handheld" in shown


def test_help_does_not_load_the_geometry_library() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from popdice.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['case', '--help'])\n"
        "print('manifold3d' in sys.modules, 'numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


def probe_is_empty(solid: shapes.Solid, probe: shapes.Solid) -> bool:
    return shapes.common(solid, probe).volume() < 1e-6


def probe_is_full(solid: shapes.Solid, probe: shapes.Solid) -> bool:
    return shapes.common(solid, probe).volume() == pytest.approx(probe.volume(), rel=1e-6)


def popper_case() -> tuple[dimensions.PopperCase, placement.PopperPlan]:
    case = dimensions.load("popper")
    assert isinstance(case, dimensions.PopperCase)
    return case, placement.popper_plan(case)


def test_the_popper_base_has_its_usb_opening_mode_hole_standoffs_and_pad() -> None:
    case, plan = popper_case()
    base = popper.base(case, plan)
    z, usb = plan.pico.usb_centre_z, case.usb
    # a probe through the wall at -y, within the opening (half a mm in from each side)
    through = shapes.box_between(
        (-usb.width / 2 + 0.5, -plan.outer_radius - 1.0),
        (usb.width / 2 - 0.5, -plan.inner_radius - 0.1),
        z - usb.height / 2 + 0.5,
        z + usb.height / 2 - 0.5,
    )
    assert probe_is_empty(base, through)
    assert not probe_is_empty(base, through.translate((25.0, 0.0, 0.0)))  # beside: wall
    assert not probe_is_empty(base, through.translate((0.0, 0.0, usb.height + 2.0)))  # above
    # the socket sits in the opening's middle, at its height
    assert z - usb.height / 2 > case.base.floor
    button = case.mode_button
    hole = shapes.radial_cylinder(
        button.thread / 2 - 0.2,
        plan.inner_radius - 0.5,
        plan.outer_radius + 0.5,
        button.angle_deg,
        button.height,
        32,
    )
    assert probe_is_empty(base, hole)
    assert not probe_is_empty(base, hole.rotate((0.0, 0.0, 20.0)))
    floor, pico = case.base.floor, case.pico
    for x, y in plan.pico.holes:  # a standoff round each pilot hole, and the hole itself
        top = floor + pico.standoff_height
        assert probe_is_empty(
            base, shapes.cylinder(0.5, top - pico.pilot_depth + 0.1, top, 16, (x, y))
        )
        ring = shapes.box((x + pico.pilot_hole / 2 + 0.6, y), 0.6, 0.6, floor + 0.1, top - 0.1)
        assert probe_is_full(base, ring)
    accel = case.accelerometer
    pad_top = floor + accel.pad_height
    pocket = shapes.box(
        (0.0, 0.0), accel.width, accel.length, pad_top - accel.pocket_depth + 0.01, pad_top + 1
    )
    under = shapes.box((0.0, 0.0), accel.width, accel.length, 0.0, pad_top - accel.pocket_depth)
    assert probe_is_empty(base, pocket) and probe_is_full(base, under)
    for x, y in plan.feet:
        recess = shapes.cylinder(case.feet.diameter / 2, -0.5, case.feet.depth - 0.01, 32, (x, y))
        assert probe_is_empty(base, recess)


def expected_pips(case: dimensions.PopperCase) -> list[tuple[float, float]]:
    """The pip holes' centres as the wiring drawing reads case.json, worked out here anew."""
    dice, pips = case.dice, []
    for k in range(dice.count):
        angle = math.radians(dice.first_angle_deg - 72 * k)
        cx, cy = dice.ring_radius * math.cos(angle), dice.ring_radius * math.sin(angle)
        for i in range(9):
            pips.append((cx + (i % 3 - 1) * dice.pixel_pitch, cy - (i // 3 - 1) * dice.pixel_pitch))
    return pips


def test_the_lid_has_45_pip_holes_where_the_dice_are() -> None:
    case, plan = popper_case()
    lid = popper.lid(case, plan)
    bottom = popper.lid_bottom(case)
    top = bottom + case.lid.thickness
    pips = expected_pips(case)
    assert len(pips) == 45
    np.testing.assert_allclose(plan.pips, pips, atol=1e-9)
    inside = [shapes.cylinder(case.dice.pip_hole / 2 - 0.05, bottom, top, 32, at) for at in pips]
    filled = shapes.union([lid, *inside])
    assert filled.volume() - lid.volume() == pytest.approx(
        sum(c.volume() for c in inside), rel=1e-6
    )
    # die 0 is at +y: its middle pixel's hole is the nearest to (0, ring_radius)
    assert pips[4] == pytest.approx((0.0, case.dice.ring_radius))
    assert probe_is_full(lid, shapes.cylinder(1.0, bottom, top, 16, (0.0, 0.0)))
    # the lid's volume is the plate's less 45 holes: a smaller hole leaves that much more
    smaller = replace(case, dice=replace(case.dice, pip_hole=5.0))
    sides = shapes.segments_for(3.5, case.fit.segments)
    assert sides == shapes.segments_for(2.5, case.fit.segments)

    def hole_area(diameter: float) -> float:  # a hole's polygon is drawn round its circle
        return sides * (diameter / 2) ** 2 * math.tan(math.pi / sides)

    more = popper.lid(smaller, placement.popper_plan(smaller)).volume() - lid.volume()
    assert more == pytest.approx(45 * case.lid.thickness * (hole_area(7.0) - hole_area(5.0)))


def test_the_rim_seats_the_flange_and_the_screws_go_through_the_stack() -> None:
    case, plan = popper_case()
    rim = popper.rim(case, plan)
    bottom = popper.rim_bottom(case)
    flange_outer = case.dome.diameter / 2 + case.dome.flange_width
    # the flange's room in the rim's seat, and the rim's plastic over it
    seat = shapes.ring(
        case.dome.diameter / 2 + 0.5, flange_outer, bottom, bottom + plan.seat_depth - 0.01, 96
    )
    assert probe_is_empty(rim, seat)
    over = shapes.ring(
        case.dome.diameter / 2 + 0.5,
        flange_outer,
        bottom + plan.seat_depth + 0.01,
        bottom + case.rim.thickness - 0.01,
        96,
    )
    assert probe_is_full(rim, over)
    base, lid = popper.base(case, plan), popper.lid(case, plan)
    top = bottom + case.rim.thickness
    for angle in plan.screw_angles:
        at = (
            plan.screw_circle * math.cos(math.radians(angle)),
            plan.screw_circle * math.sin(math.radians(angle)),
        )
        screw = shapes.cylinder(
            case.screws.clearance_hole / 2 - 0.1, popper.lid_bottom(case), top, 32, at
        )
        assert probe_is_empty(rim, screw) and probe_is_empty(lid, screw)
        pilot = shapes.cylinder(
            case.screws.pilot_hole / 2 - 0.1,
            case.base.height - case.screws.pilot_depth + 0.1,
            case.base.height,
            32,
            at,
        )
        assert probe_is_empty(base, pilot)
        boss = shapes.ring(
            case.screws.pilot_hole / 2 + 0.3,
            case.screws.boss_diameter / 2 - 0.3,
            case.base.floor,
            case.base.height - 0.1,
            32,
        ).translate((*at, 0.0))
        assert probe_is_full(base, boss)
    # assembled, no two bodies overlap
    for one, other in ((base, lid), (lid, rim), (base, rim)):
        assert shapes.common(one, other).volume() < 1e-6


def test_the_handheld_has_its_window_buttons_and_usb_opening() -> None:
    case = dimensions.load("handheld")
    assert isinstance(case, dimensions.HandheldCase)
    plan = placement.handheld_plan(case)
    base, lid = handheld.base(case, plan), handheld.lid(case, plan)
    bottom = handheld.lid_bottom(case)
    top = bottom + case.lid.thickness
    display = case.display
    window = shapes.box(
        plan.window.centre, display.active_width, display.active_length, bottom - 1, top + 1
    )
    assert probe_is_empty(lid, window)
    assert not probe_is_empty(lid, window.translate((0.0, -plan.window.length - 2.0, 0.0)))
    assert [x for x, _ in plan.buttons] == [-case.buttons.pitch, 0.0, case.buttons.pitch]
    for at in plan.buttons:
        hole = shapes.cylinder(case.buttons.thread / 2, bottom - 1, top + 1, 32, at)
        assert probe_is_empty(lid, hole)
    usb, z = case.usb, plan.pico.usb_centre_z
    through = shapes.box_between(
        (-usb.width / 2 + 0.5, -plan.outer_length / 2 - 1.0),
        (usb.width / 2 - 0.5, -case.box.inner_length / 2 - 0.1),
        z - usb.height / 2 + 0.5,
        z + usb.height / 2 - 0.5,
    )
    assert probe_is_empty(base, through)
    assert not probe_is_empty(base, through.translate((0.0, 0.0, usb.height + 2.0)))
    assert shapes.common(base, lid).volume() < 1e-6


def test_the_dice_and_dome_keys_the_wiring_drawing_reads_are_there() -> None:
    document = json.loads(board_data("popper", "case.json").read_text())
    assert {
        k: document["dice"][k]
        for k in ("count", "pixel_pitch", "pip_hole", "ring_radius", "first_angle_deg")
    } == {
        "count": 5,
        "pixel_pitch": 10.5,
        "pip_hole": 7.0,
        "ring_radius": 34.0,
        "first_angle_deg": 90.0,
    }
    assert {k: document["dome"][k] for k in ("diameter", "flange_width", "flange_thickness")} == {
        "diameter": 120.0,
        "flange_width": 8.0,
        "flange_thickness": 1.5,
    }
    for group, values in document.items():
        if isinstance(values, dict):
            assert isinstance(values.get("about"), str) and values["about"], group


@pytest.mark.parametrize("board", sorted(BODIES))
def test_the_hardware_lines_match_the_case(board: str) -> None:
    document = json.loads(board_data(board, "case.json").read_text())
    for line in document["hardware"]:
        assert set(line) == {"qty", "part", "number", "rating", "for"}
        assert isinstance(line["qty"], int) and line["qty"] > 0
    case = dimensions.load(board)

    def qty(word: str) -> int:
        return sum(h.qty for h in case.hardware if word in h.number)

    def ordered(word: str) -> int:  # the whole bill: the buttons are wired parts
        return sum(line.qty for line in bom.lines(board) if word in line.number)

    if isinstance(case, dimensions.PopperCase):
        assert qty("ST2.2") == len(placement.popper_plan(case).pico.holes)
        assert qty("ST2.9") == case.screws.count
        assert ordered("PBS-110") == 1 and case.mode_button.thread > 0
        assert sum(h.qty for h in case.hardware if "foot" in h.part) == case.feet.count
        assert f"ST2.9 x {case.screws.length:g}" in " ".join(h.number for h in case.hardware)
    else:
        assert isinstance(case, dimensions.HandheldCase)
        assert qty("ST2.2") == len(placement.handheld_plan(case).pico.holes)
        assert qty("ST2.9") == 4 and ordered("PBS-110") == len(case.buttons.names)
        assert f"ST2.9 x {case.screws.length:g}" in " ".join(h.number for h in case.hardware)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["dome"].pop("flange_width"), "dome.flange_width is missing"),
        (lambda d: d["pico"].update(width="wide"), 'pico.width must be a number, not "wide"'),
        (lambda d: d["base"].update(floor=2.0), "base.floor must be at least 3 mm, not 2"),
        (lambda d: d["dice"].update(count=0), "dice.count must be a whole number from 1 to 12"),
        (lambda d: d.pop("rim"), "rim is missing"),
        (lambda d: d["hardware"][1].pop("for"), "hardware[1].for must be a text"),
        (lambda d: d["lid_screws"].update(length=30.0), "lid_screws.length is longer than"),
        (lambda d: d["lid_screws"].update(count=4), "boss at 270 degrees is in the way of the USB"),
        (lambda d: d["mode_button"].update(angle_deg=0), "in the way of MODE"),
    ],
)
def test_a_bad_case_json_is_one_line_naming_the_key(change, message: str, tmp_path: Path) -> None:
    document = json.loads(board_data("popper", "case.json").read_text())
    change(document)
    path = tmp_path / "case.json"
    path.write_text(json.dumps(document))
    with pytest.raises(PopdiceError) as error:
        case = dimensions.load("popper", path)
        assert isinstance(case, dimensions.PopperCase)
        placement.popper_plan(case)
    assert str(error.value).startswith("boards/popper/case.json: ")
    assert message in str(error.value) and "\n" not in str(error.value)
