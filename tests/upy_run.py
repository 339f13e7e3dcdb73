"""Runs one module of tests/upy inside MicroPython (the unix port, heap capped at 192K like a
Pico) through tests/upy/upytest.py, and reads its results: one per test the runner listed,
and a failure for every listed test it never reported (the interpreter ended before).
``shared_results`` runs a module once for all the workers of a pytest run."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

UPY_TESTS = Path(__file__).resolve().parent / "upy"
ROOT = UPY_TESTS.parents[1]
RUNNER = UPY_TESTS / "upytest.py"
LISTED = "tests: "  # upytest.LISTED
# ".frozen" holds the unix port's frozen modules (asyncio among them): MICROPYPATH replaces
# the default path, so it has to be named.
UPY_PATH = [ROOT / "host" / "popdice" / "sim" / "upy", ROOT / "firmware", UPY_TESTS, ".frozen"]
# A folder the workers of one pytest run share (tests/conftest.py makes it): each module's
# results, written by the first worker that runs it.
RESULTS_ENV = "POPDICE_UPY_RESULTS"


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


def _upy_env() -> dict[str, str]:
    """The environment of a MicroPython run: the tests' and the firmware's modules on its
    path, the project's root for files it reads."""
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(str(p) for p in UPY_PATH))
    env["POPDICE_ROOT"] = str(ROOT)
    return env


def _upytest(path: Path, *flags: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = _upy_env()
    # A folder of this run's own for tests that write files (the unix port has no getpid, and
    # runs in parallel workers or other checkouts must not share one).
    with tempfile.TemporaryDirectory(prefix="popdice-upy-") as scratch:
        env["POPDICE_UPY_TMP"] = scratch
        return subprocess.run(
            [*micropython_command(), str(RUNNER), *flags, str(path)],
            capture_output=True,
            encoding="utf-8",
            errors="replace",  # one test's stray bytes must not hide the others
            env=env,
            timeout=timeout,
            cwd=ROOT,
        )


def run_code(code: str, timeout: float = 120) -> str:
    """What ``code`` prints, run in the unix port with the tests' and the firmware's modules
    on its path."""
    proc = subprocess.run(
        [*micropython_command(), "-c", code],
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        env=_upy_env(),
        timeout=timeout,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        raise UpyFailure(
            f"MicroPython failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
        )
    return proc.stdout


def list_module(path: Path, timeout: float = 60) -> list[str]:
    """The names of the module's tests, in the order it runs them (none is run)."""
    proc = _upytest(path, "--list", timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith(LISTED):
            return json.loads(line[len(LISTED) :])
    raise UpyFailure(
        f"no tests listed by MicroPython (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
    )


def run_module(path: Path, timeout: float = 120) -> list[UpyResult]:
    proc = _upytest(path, timeout=timeout)
    return read_results(proc.stdout, proc.stderr, proc.returncode)


def shared_results(path: Path) -> list[UpyResult]:
    """``run_module(path)``, run once in this pytest run however many workers ask: the first
    runs it and keeps the results in the run's shared folder, the others wait and read them.
    Without the folder (a run that did not make one) it simply runs."""
    folder = os.environ.get(RESULTS_ENV)
    if not folder:
        return run_module(path)
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    kept = Path(folder) / f"{path.stem}-{key}.json"
    with open(kept.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.exists():
            return [UpyResult(**result) for result in json.loads(kept.read_text())]
        results = run_module(path)
        kept.write_text(json.dumps([asdict(result) for result in results]))
        return results


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
