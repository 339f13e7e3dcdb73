"""How far presses have moved the reading by the latency target, in noise sigmas."""

from __future__ import annotations

import random

import pytest

from popdice_lab.visibility import FAINT_SIGMAS, HORIZON_SAMPLES, noise_mg, visibility


def recording(steps_mg: list[int], noise: float, seed: int = 1) -> tuple[list, list, list]:
    """Rest at 1 g on z with white noise; press i a 100 ms step down on z of ``steps_mg[i]``,
    one every 2 s from 2 s on."""
    rng = random.Random(seed)
    t_ms, samples = [], []
    for k in range(800 * (len(steps_mg) + 1)):
        t_ms.append(k * 2.5)
        press, into = divmod(k, 800)
        dip = steps_mg[press - 1] if press >= 1 and into < 40 else 0
        for rest in (0, 0, 1000 - dip):
            samples.append(round((rest + rng.gauss(0.0, noise)) / 4) * 4)
    onsets = [800 * (i + 1) * 2.5 - 0.5 for i in range(len(steps_mg))]
    return t_ms, samples, onsets


def test_the_noise_of_each_axis_is_measured_and_never_below_a_step():
    _t, samples, _o = recording([], noise=12.0)
    assert all(10.0 < n < 14.0 for n in noise_mg(samples))
    _t, quiet, _o = recording([], noise=0.5)
    assert noise_mg(quiet) == (4.0, 4.0, 4.0)


def test_a_press_within_the_noise_is_faint_and_one_well_above_it_is_not():
    t_ms, samples, onsets = recording([24, 600, 20, 900], noise=8.0)
    seen = visibility(t_ms, samples, onsets)
    assert len(seen.sigmas) == 4
    assert seen.sigmas[1] > 40 and seen.sigmas[3] > 60
    assert seen.sigmas[0] < FAINT_SIGMAS and seen.sigmas[2] < FAINT_SIGMAS
    assert seen.faint == pytest.approx(0.5)


def test_a_press_is_judged_on_the_4_samples_after_its_label_and_no_later():
    assert HORIZON_SAMPLES == 4

    def moving_from(first: int) -> list[int]:
        """Rest at 1 g on z, 600 mg less from sample ``first`` on."""
        return [v for k in range(400) for v in (0, 0, 1000 - (600 if k >= first else 0))]

    t_ms = [2.5 * k for k in range(400)]
    label = [200 * 2.5]  # sample 200
    assert visibility(t_ms, moving_from(200 + HORIZON_SAMPLES), label).sigmas[0] > 100
    assert visibility(t_ms, moving_from(200 + HORIZON_SAMPLES + 1), label).sigmas[0] == 0
