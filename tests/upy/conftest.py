"""Collects tests/upy/test_*.py as MicroPython tests: each file runs once in the unix port
(heap capped at 192K like a Pico, tests/upy_run.py) and each of its test functions is
reported as an item; one the interpreter never got to report fails."""

import pytest
from upy_run import UpyFailure, run_module


class UpyFile(pytest.File):
    def collect(self):
        for result in run_module(self.path):
            yield UpyItem.from_parent(self, name=result.test, result=result)


class UpyItem(pytest.Item):
    def __init__(self, *, result, **kwargs):
        super().__init__(**kwargs)
        self.result = result

    def runtest(self):
        if not self.result.ok:
            raise UpyFailure(self.result.error)

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
