"""Collects tests/upy/test_*.py as MicroPython tests: each file's tests are listed at
collection (MicroPython imports the module and runs nothing), and the file runs once in the
unix port (heap capped at 192K like a Pico, tests/upy_run.py) when its first test is due,
once for all the run's workers; each of its test functions is reported as an item, and one
the interpreter never got to report fails."""

import pytest
from upy_run import UpyFailure, list_module, shared_results


class UpyFile(pytest.File):
    def collect(self):
        for name in list_module(self.path):
            yield UpyItem.from_parent(self, name=name)

    def results(self):
        """The file's results by test name, run (or read) the first time they are wanted."""
        if getattr(self, "_results", None) is None:
            self._results = {result.test: result for result in shared_results(self.path)}
        return self._results


class UpyItem(pytest.Item):
    def runtest(self):
        result = self.parent.results().get(self.name)
        if result is None:
            raise UpyFailure("listed at collection, but not by the run")
        if not result.ok:
            raise UpyFailure(result.error)

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
