"""Collects tests/upy/test_*.py as MicroPython tests: each file runs once in the unix port
(heap capped at 192K like a Pico) and each of its test functions is reported as an item."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNNER = HERE / "upytest.py"
# ".frozen" holds the unix port's frozen modules (asyncio among them): MICROPYPATH replaces
# the default path, so it has to be named.
UPY_PATH = [ROOT / "host" / "popdice" / "sim" / "upy", ROOT / "firmware", HERE, ".frozen"]


def micropython_command():
    exe = Path(sys.executable).with_name("micropython")
    if not exe.exists():
        pytest.fail("micropython (the unix port) is not installed in this environment", False)
    return [str(exe), "-X", "heapsize=192K"]


class UpyFailure(Exception):
    pass


class UpyFile(pytest.File):
    def collect(self):
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(str(p) for p in UPY_PATH))
        env["POPDICE_ROOT"] = str(ROOT)
        proc = subprocess.run(
            [*micropython_command(), str(RUNNER), str(self.path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            cwd=ROOT,
        )
        results = []
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                results.append(json.loads(line))
        if not results:
            raise UpyFailure(
                "no results from MicroPython (exit %d):\n%s%s"
                % (proc.returncode, proc.stdout, proc.stderr)
            )
        for result in results:
            yield UpyItem.from_parent(self, name=result["test"], result=result)


class UpyItem(pytest.Item):
    def __init__(self, *, result, **kwargs):
        super().__init__(**kwargs)
        self.result = result

    def runtest(self):
        if not self.result["ok"]:
            raise UpyFailure(self.result["error"])

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, UpyFailure):
            return "MicroPython test failed:\n" + str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, "upy: " + self.name


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name.startswith("test_"):
        return UpyFile.from_parent(parent, path=module_path)
    return None
