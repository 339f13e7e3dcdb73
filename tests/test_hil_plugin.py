"""The hardware-in-the-loop plugin itself, run on small test files with pytester."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

FAILING = """
def test_fails_after_talking(popper):
    popper.echo(marker="talked")
    popper.link.send_raw(b"garbage-bytes-here\\x00")
    popper.link.complaints.get(timeout=2)
    assert False, "on purpose"
"""

NEEDS_CONTROL = """
def test_presses(popper_control):
    popper_control.click("mode")

def test_plain(popper):
    assert popper.counter() == 1
"""


def test_a_failure_report_carries_the_device_output_and_the_frames(pytester: pytest.Pytester):
    pytester.makepyfile(FAILING)
    result = pytester.runpytest_subprocess("-p", "popdice.hil", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "popper output" in out and "popper frames" in out
    assert "'marker': 'talked'" in out  # the echo command and its reply
    assert "bad_frame" in out  # the device's error frame


def test_a_port_of_the_wrong_kind_is_skipped_with_the_reason(
    pytester: pytest.Pytester, handheld_dut
):
    pytester.makepyfile(NEEDS_CONTROL)
    handheld_dut.release()
    result = pytester.runpytest_subprocess(
        "-p", "popdice.hil", "--device", handheld_dut.port, "-rs"
    )
    result.assert_outcomes(skipped=2)
    assert f"{handheld_dut.port} is a handheld; this test needs a popper" in result.stdout.str()


def test_control_tests_are_skipped_on_a_real_port(pytester: pytest.Pytester, popper_dut):
    pytester.makepyfile(NEEDS_CONTROL)
    popper_dut.release()
    result = pytester.runpytest_subprocess("-p", "popdice.hil", "--device", popper_dut.port, "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert "needs the simulated board's control channel" in result.stdout.str()


def test_auto_without_a_board_skips_with_the_reason(pytester: pytest.Pytester):
    pytester.makepyfile(NEEDS_CONTROL)
    result = pytester.runpytest_subprocess("-p", "popdice.hil", "--device", "auto", "-rs")
    result.assert_outcomes(skipped=2)
    assert "no real popper plugged in" in result.stdout.str()


UNIX_ONLY = """
import pytest

@pytest.mark.unix_only("stands in for a test of the unix port's own parts")
def test_unix_only():
    pass

def test_anywhere():
    pass
"""


def test_without_the_emulator_rp2040_tests_skip_saying_why(pytester: pytest.Pytester):
    pytester.makepyfile(NEEDS_CONTROL)
    nowhere = str(pytester.path / "no-rp2040js")
    result = _run_without_emulator(pytester, nowhere, require=False)
    result.assert_outcomes(skipped=2)
    assert "no emulated RP2040 here: rp2040js is not installed" in result.stdout.str()


def test_ci_makes_a_missing_emulator_a_failure(pytester: pytest.Pytester):
    pytester.makepyfile(NEEDS_CONTROL)
    result = _run_without_emulator(pytester, str(pytester.path / "no-rp2040js"), require=True)
    result.assert_outcomes(errors=2)
    assert "the emulated RP2040 is required" in result.stdout.str()


def test_unix_only_tests_are_skipped_on_the_emulator(pytester: pytest.Pytester):
    pytester.makepyfile(UNIX_ONLY)
    result = pytester.runpytest_subprocess("-p", "popdice.hil", "--device", "rp2040", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert "not on the emulated RP2040: stands in for" in result.stdout.str()


def _run_without_emulator(pytester: pytest.Pytester, nowhere: str, require: bool):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POPDICE_RP2040JS", nowhere)
        if require:
            patch.setenv("POPDICE_REQUIRE_RP2040", "1")
        else:
            patch.delenv("POPDICE_REQUIRE_RP2040", raising=False)
        return pytester.runpytest_subprocess("-p", "popdice.hil", "--device", "rp2040", "-rs")
