"""The MicroPython test runner (tests/upy/upytest.py and its pytest bridge): a test that
ends the interpreter fails loudly and hides none of the tests after it; listing a module's
tests runs none, and a module runs once for all the workers of a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from upy_run import RESULTS_ENV, UpyResult, list_module, run_module, shared_results


def outcomes(results: list[UpyResult]) -> list[tuple[str, bool]]:
    return [(result.test, result.ok) for result in results]


def test_a_test_that_calls_sys_exit_fails_and_the_rest_still_run(tmp_path: Path) -> None:
    module = tmp_path / "test_exits.py"
    module.write_text(
        "import sys\n\n"
        "def test_a(): pass\n"
        "def test_b(): sys.exit(3)\n"
        "def test_c(): raise KeyboardInterrupt\n"
        "def test_d(): pass\n"
    )
    results = run_module(module)
    assert outcomes(results) == [("test_a", True), ("test_b", False), ("test_c", False),
                                 ("test_d", True)]  # fmt: skip
    assert "tried to end the interpreter (SystemExit)" in str(results[1].error)
    assert "(KeyboardInterrupt)" in str(results[2].error)


def test_a_test_that_kills_the_interpreter_fails_and_so_does_each_after_it(
    tmp_path: Path,
) -> None:
    module = tmp_path / "test_killed.py"
    module.write_text(
        "import os\n\n"
        "def test_a(): pass\n"
        "def test_b(): os.system('kill -KILL $PPID')\n"
        "def test_c(): pass\n"
    )
    results = run_module(module)
    assert outcomes(results) == [("test_a", True), ("test_b", False), ("test_c", False)]
    assert str(results[1].error).startswith("did not finish: MicroPython ended (exit -9)")
    assert str(results[2].error).startswith("did not run: MicroPython ended (exit -9)")


def test_listing_runs_no_test_and_shared_results_run_a_module_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    module = tmp_path / "test_counted.py"
    module.write_text(
        f"def test_a():\n    open({str(runs)!r}, 'a').write('a')\n\ndef test_b(): assert False\n"
    )
    assert list_module(module) == ["test_a", "test_b"]
    assert not runs.exists()
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    first, again = shared_results(module), shared_results(module)
    assert outcomes(first) == outcomes(again) == [("test_a", True), ("test_b", False)]
    assert again[1].error == first[1].error and "AssertionError" in str(first[1].error)
    assert runs.read_text() == "a"
