"""Fairness: the chi-squared p-value, the test of a die, and 100,000 rolls of the popper."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from popdice.devices.fairness import chi_squared_p, chi_squared_test, run_fairness

POPDICE = str(Path(sys.executable).with_name("popdice"))


@pytest.mark.parametrize(
    ("statistic", "degrees", "p"),
    [
        (11.0705, 5, 0.05),  # table values of the chi-squared distribution
        (15.0863, 5, 0.01),
        (20.5150, 5, 0.001),
        (1.1455, 5, 0.95),
        (3.8415, 1, 0.05),
        (0.0, 5, 1.0),
    ],
)
def test_p_values_match_the_tables(statistic, degrees, p):
    assert chi_squared_p(statistic, degrees) == pytest.approx(p, rel=1e-3, abs=1e-12)


def test_two_degrees_of_freedom_is_an_exponential():
    for x in (0.1, 1.0, 4.0, 30.0, 200.0):
        assert chi_squared_p(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)


def test_a_fair_die_passes_and_byte_modulo_six_fails():
    fair = chi_squared_test(0, "d6", [10000] * 6)
    assert fair.statistic == 0 and fair.p_value == 1.0 and not fair.suspect
    # byte % 6 over bytes: faces 1-4 get 43 of 256 values, 5-6 get 42
    biased = [43 * 3000] * 4 + [42 * 3000] * 2
    verdict = chi_squared_test(0, "d6", biased)
    assert verdict.suspect and verdict.p_value < 1e-6


@pytest.mark.unix_only("100,000 rolls are about 90 s of the emulated chip (6 min here)")
def test_100000_rolls_of_the_simulated_popper_are_fair(popper):
    mode, tests = run_fairness(popper, 100_000, "popalotsy")
    assert mode == "popalotsy" and len(tests) == 5
    for t in tests:
        assert sum(t.counts) == 100_000
        assert min(t.counts) > 15_500 and max(t.counts) < 17_800
        assert t.p_value > 1e-4, t
    assert popper.status().extra["pops"] == 0  # counting rolls shows nothing, pops nothing


def test_lowdown_colour_dice_are_counted_by_colour(popper):
    mode, tests = run_fairness(popper, 6000, "lowdown", batch=2000)
    assert mode == "lowdown"
    assert [t.label for t in tests] == ["number (1-6)", "number (1-6)", "colour", "colour"]
    assert all(sum(t.counts) == 6000 and min(t.counts) > 700 for t in tests)


def test_the_fairness_command_prints_a_table_and_json(popper_dut):
    popper_dut.release()
    result = subprocess.run(
        [POPDICE, "fairness", "--rolls", "3000", "--port", popper_dut.port, "--mode", "ringer"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "3,000 rolls of ringer" in result.stdout and "p" in result.stdout.splitlines()[1]
    result = subprocess.run(
        [POPDICE, "fairness", "--rolls", "600", "--port", popper_dut.port, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    report = json.loads(result.stdout)
    assert report["rolls"] == 600 and all(sum(d["counts"]) == 600 for d in report["dice"])
    bad = subprocess.run([POPDICE, "fairness", "--rolls", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "argument --rolls: expected a whole number from 1" in bad.stderr
