"""The emulated board's part models (LIS3DH, SSD1306, WS2812 chain, flash chip), tested on
their own in Node (tests/js, node:test), against rp2040js's own simulation clock."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from popdice.errors import SimulatorError
from popdice.sim.rp2040 import tools

JS_TESTS = Path(__file__).resolve().parent / "js"


def test_the_part_models_in_node():
    try:
        node = tools.node_executable()
        rp2040js = tools.rp2040js_dir()
    except SimulatorError as error:
        if os.environ.get("POPDICE_REQUIRE_RP2040"):
            pytest.fail(f"the emulator's tools are required: {error}")
        pytest.skip(str(error))
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    assert len(files) >= 4
    proc = subprocess.run(
        [str(node), "--test", "--test-reporter=tap", *files],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RP2040JS": str(rp2040js)},
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.M)
    assert re.search(r"^# fail 0$", proc.stdout, re.M) and passed and int(passed[1]) >= 10
