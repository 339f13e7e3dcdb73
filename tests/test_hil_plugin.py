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
