"""Runs one module of tests/upy inside MicroPython (the unix port, heap capped at 192K like a
Pico) through tests/upy/upytest.py, and reads its results: one per test the runner listed,
and a failure for every listed test it never reported (the interpreter ended before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

UPY_TESTS = Path(__file__).resolve().parent / "upy"
ROOT = UPY_TESTS.parents[1]
RUNNER = UPY_TESTS / "upytest.py"
LISTED = "tests: "  # upytest.LISTED
# ".frozen" holds the unix port's frozen modules (asyncio among them): MICROPYPATH replaces
# the default path, so it has to be named.
UPY_PATH = [ROOT / "host" / "popdice" / "sim" / "upy", ROOT / "firmware", UPY_TESTS, ".frozen"]


class UpyFailure(Exception):
    pass


@dataclass(frozen=True)
class UpyResult:
    test: str
    ok: bool
    error: str | None


def micropython_command() -> list[str]:
    exe = Path(sys.executable).with_name("micropython")
    if not exe.exists():
        pytest.fail("micropython (the unix port) is not installed in this environment", False)
    return [str(exe), "-X", "heapsize=192K"]


def run_module(path: Path, timeout: float = 120) -> list[UpyResult]:
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(str(p) for p in UPY_PATH))
    env["POPDICE_ROOT"] = str(ROOT)
    # A folder of this run's own for tests that write files (the unix port has no getpid, and
    # runs in parallel workers or other checkouts must not share one).
    with tempfile.TemporaryDirectory(prefix="popdice-upy-") as scratch:
        env["POPDICE_UPY_TMP"] = scratch
        proc = subprocess.run(
            [*micropython_command(), str(RUNNER), str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            cwd=ROOT,
        )
    return read_results(proc.stdout, proc.stderr, proc.returncode)


def read_results(stdout: str, stderr: str, returncode: int) -> list[UpyResult]:
    """The result of every test the runner listed, in its order."""
    listed: list[str] | None = None
    reported: dict[str, UpyResult] = {}
    for line in stdout.splitlines():
        if line.startswith(LISTED):
            listed = json.loads(line[len(LISTED) :])
        elif line.startswith("{"):
            result = json.loads(line)
            reported[result["test"]] = UpyResult(result["test"], result["ok"], result["error"])
    if listed is None:
        raise UpyFailure(f"no tests listed by MicroPython (exit {returncode}):\n{stdout}{stderr}")
    results = []
    ended = f"MicroPython ended (exit {returncode}) first:\n{stdout}{stderr}"
    first_missing = True
    for name in listed:
        if name in reported:
            results.append(reported[name])
            continue
        what = "did not finish" if first_missing else "did not run"
        first_missing = False
        results.append(UpyResult(name, False, f"{what}: {ended}"))
    return results
