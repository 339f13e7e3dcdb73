"""Writes the fixed press-detection corpus in bench/corpus/ from the physical model
(popdice.sim.physics): five-minute traces, each a CSV (xz-compressed) and its labels (each
press's onset and release, ``popdice.traces.files.write_labels``).

Every file comes from a fixed kind and seed, so running this again gives the same bytes.
About 1,200 presses and 1.1 hours of non-press time (the non-press traces, and the time
between presses in the press traces less each press's hold and the second after its
release) in about 5 MB: timestamps cost the most, and two hours
would take 8 MB. ``--scale N`` writes N times as many traces per kind (the same ones first,
then further seeds), for a longer run of bench/detect.py --corpus DIR. ``--first-seed S``
starts every kind's seeds at S instead of 1: with a large S (say 1001) that is a held-out
corpus, none of whose traces the detector was tuned on.

    .venv/bin/python bench/make_corpus.py [--out DIR] [--scale N] [--first-seed S]
"""

from __future__ import annotations

import sys
from pathlib import Path

from popdice.sim.physics import trace
from popdice.traces.files import write_labels, write_trace
from popdice_lab.bench import parser as bench_parser

SECONDS = 300.0
# kind: how many five-minute traces (seeds 1, 2, ..., or from --first-seed on)
CORPUS = {
    "bursts": 4,
    "presses": 2,
    "press_in_buzz": 2,
    "press_in_lean": 1,
    "press_after_knock": 1,
    "knocks": 2,
    "bumps": 1,
    "handling": 1,
    "buzzing": 1,
    "leaning": 1,
    "mixed": 2,
}
HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--out", default=str(HERE / "corpus"), help="where (bench/corpus)")
    parser.add_argument("--scale", type=int, default=1, help="traces per kind, times N (1)")
    parser.add_argument(
        "--first-seed", type=int, default=1, help="each kind's seeds start here (1)"
    )
    args = parser.parse_args(argv)
    if args.scale < 1:
        parser.error("--scale must be at least 1")
    if args.first_seed < 1:
        parser.error("--first-seed must be at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    presses = 0
    for kind, count in CORPUS.items():
        for seed in range(args.first_seed, args.first_seed + count * args.scale):
            made = trace(kind, seed, SECONDS)
            name = f"{kind}-{seed:02d}"
            write_trace(out / f"{name}.csv.xz", made)
            write_labels(out / f"{name}.labels.json", made)
            presses += len(made.press_times_ms)
            print(f"{name}: {len(made.t_ms)} samples, {len(made.press_times_ms)} presses")
    print(f"{presses} presses in {sum(CORPUS.values()) * args.scale} traces of {SECONDS:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
