"""The MicroPython test runner (tests/upy/upytest.py and its pytest bridge): a test that
ends the interpreter fails loudly and hides none of the tests after it."""

from __future__ import annotations

from pathlib import Path

from upy_run import UpyResult, run_module


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
