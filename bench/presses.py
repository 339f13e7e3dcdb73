"""Single presses and hard knocks of the simulators' own model (``press_trace``,
``knock_trace``: a unit upright on a table, an ideal LIS3DH with 3 mg rms of noise unless
``--noise-mg`` says) through the press detector: how many presses pop, how many of them in
their hold (more than 5 ms before the release: the dice pop while the dome is held), the
latency from the release, and how many knocks pop.

The detector is the firmware's, run in CPython on every sample (popdice.traces.measured,
which tests/test_tune.py checks against the detector inside MicroPython), with its built-in
settings or ``--config`` (a `popdice tune` file). Seeds from 5001 are the held-out ones
(bench/rp2040.py presses the first 60 of them on the emulated chip).

    .venv/bin/python bench/presses.py [--presses N] [--first-seed S] [--noise-mg M]
                                      [--knocks K] [--knock-g G] [--config F] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from popdice.console.arguments import whole_number
from popdice.errors import PopdiceError
from popdice.sim.physics.scenes import knock_trace, press_trace
from popdice.sim.physics.sensor import IDEAL_NOISE_G
from popdice.traces.measured import Measured, check_settings, detections
from popdice.traces.scoring import percentile, score
from popdice.traces.trace import driver_mg
from popdice.traces.tune import read_config
from popdice_fw.builtin_settings import BUILT_IN
from popdice_lab.bench import parser as bench_parser


def pops(samples_g: list[tuple[float, float, float]], settings: dict) -> list[int]:
    """The samples the detector popped on."""
    return detections(Measured.of(driver_mg(samples_g), settings["band_samples"]), settings)


def measure(args: argparse.Namespace, settings: dict[str, Any]) -> dict[str, Any]:
    noise = IDEAL_NOISE_G if args.noise_mg is None else args.noise_mg / 1000.0
    missed: list[int] = []
    early: list[int] = []
    latencies: list[float] = []
    for seed in range(args.first_seed, args.first_seed + args.presses):
        made = press_trace(seed=seed, noise_g=noise)
        releases = made.releases_ms
        result = score(
            made.t_ms, pops(made.samples_g, settings), made.press_times_ms, releases, releases
        )
        if not result.detected:
            missed.append(seed)
        elif result.early:
            early.append(seed)
        else:
            latencies += result.latencies_ms
    knocked = [
        seed
        for seed in range(args.knocks)
        if pops(knock_trace(seed, args.knock_g).samples_g, settings)
    ]
    latencies.sort()
    return {
        "presses": args.presses,
        "first_seed": args.first_seed,
        "noise_mg": round(1000 * noise, 3),
        "popped": args.presses - len(missed),
        "missed": missed,
        "in_the_hold": early,
        "latency_ms_p50": round(percentile(latencies, 0.5), 1) if latencies else None,
        "latency_ms_p99": round(percentile(latencies, 0.99), 1) if latencies else None,
        "knocks": args.knocks,
        "knock_g": args.knock_g,
        "knocks_popped": knocked,
    }


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--presses", type=whole_number(1, 100_000), default=200)
    parser.add_argument("--first-seed", type=int, default=5001, help="5001: held out")
    parser.add_argument("--noise-mg", type=float, help="the part's noise, rms (default 3)")
    parser.add_argument("--knocks", type=whole_number(0, 100_000), default=200)
    parser.add_argument("--knock-g", type=float, default=1.0, help="at the unit (default 1)")
    parser.add_argument("--config", help="detector settings (popdice tune's file)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if args.noise_mg is not None and not 0.0 <= args.noise_mg <= 100.0:
        print("error: --noise-mg is 0 to 100", file=sys.stderr)
        return 2
    try:
        settings = read_config(args.config) if args.config else check_settings(dict(BUILT_IN))
    except PopdiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    figures = measure(args, settings)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(
        f"{figures['popped']} of {figures['presses']} presses popped (seeds "
        f"{args.first_seed}-{args.first_seed + args.presses - 1}, {figures['noise_mg']:g} mg "
        f"of noise); {len(figures['in_the_hold'])} of them in the hold"
    )
    print(
        f"  latency from the release (pops not in the hold) p50 / p99: "
        f"{figures['latency_ms_p50']} / {figures['latency_ms_p99']} ms"
    )
    print(f"  missed: {figures['missed']}")
    print(f"  in the hold: {figures['in_the_hold']}")
    print(
        f"{len(figures['knocks_popped'])} of {args.knocks} knocks of {args.knock_g:g} g popped: "
        f"{figures['knocks_popped']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
