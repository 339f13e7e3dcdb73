"""Press-detection benchmark: the firmware's detector, inside MicroPython, over the fixed
corpus in bench/corpus/ (made by bench/make_corpus.py from the physical model).

Prints, per kind of trace and over all of them, recall, false presses per hour of non-press
time and the latency in samples, then each overall figure against its target (issue 3):
recall at least 99.5%, at most 1 false press per hour, latency at most 4 samples (10 ms).
How detections are matched to labels: popdice/traces/scoring.py.

    .venv/bin/python bench/detect.py [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from popdice.traces.files import read_labels, read_trace
from popdice.traces.runner import run_detector
from popdice.traces.scoring import (
    TARGET_FALSE_PER_HOUR,
    TARGET_LATENCY_SAMPLES,
    TARGET_RECALL,
    Score,
    score,
)

HERE = Path(__file__).resolve().parent
TRACE_SUFFIXES = (".csv.xz", ".csv.gz", ".csv")


def corpus_files(folder: Path) -> list[tuple[str, Path, Path]]:
    """(kind, trace, labels) for every labelled trace in ``folder``, by name."""
    found = []
    for labels in sorted(folder.glob("*.labels.json")):
        stem = labels.name[: -len(".labels.json")]
        traces = [folder / (stem + suffix) for suffix in TRACE_SUFFIXES]
        trace = next((path for path in traces if path.exists()), None)
        if trace is None:
            raise SystemExit(f"error: {labels} has no trace next to it")
        kind = json.loads(labels.read_text()).get("kind") or stem.rsplit("-", 1)[0]
        found.append((kind, trace, labels))
    if not found:
        raise SystemExit(f"error: no labelled traces in {folder} (run bench/make_corpus.py)")
    return found


def score_file(trace: Path, labels: Path) -> Score:
    t_ms, samples = read_trace(trace)
    return score(t_ms, run_detector(samples).indices, read_labels(labels))


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f} %"


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def row(name: str, result: Score) -> str:
    latency = result.latency()
    spread = "/".join("-" if latency[k] is None else str(latency[k]) for k in latency)
    return (
        f"{name:18} {result.labelled:7} {percent(result.recall):>9} {len(result.false_ms):6} "
        f"{result.non_press_seconds / 3600:8.2f} {rate(result.false_per_hour):>7}   {spread}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", default=str(HERE / "corpus"), help="(bench/corpus)")
    args = parser.parse_args(argv)
    files = corpus_files(Path(args.corpus))
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda item: score_file(item[1], item[2]), files))
    per_kind: dict[str, Score] = {}
    total = Score()
    for (kind, _, _), result in zip(files, results, strict=True):
        per_kind.setdefault(kind, Score()).add(result)
        total.add(result)

    print(
        f"press detection: firmware/popdice_fw/press.py inside MicroPython over {args.corpus} "
        f"({len(files)} traces, {total.seconds / 3600:.2f} h, {total.labelled} presses)"
    )
    print()
    print(
        "kind               presses    recall  false  non-press h  false/h   latency mean/p95/max"
    )
    for kind, result in per_kind.items():
        print(row(kind, result))
    print(row("all", total))
    print()
    latency = total.latency()
    met = total.meets_targets()
    lines = [
        (
            "recall",
            percent(total.recall),
            f">= {100 * TARGET_RECALL:g} %",
            met["recall"],
        ),
        (
            "false presses per hour",
            rate(total.false_per_hour),
            f"<= {TARGET_FALSE_PER_HOUR:g}",
            met["false_presses_per_hour"],
        ),
        ("latency, mean (samples)", str(latency["mean"]), "", None),
        ("latency, p95 (samples)", str(latency["p95"]), "", None),
        (
            "latency, max (samples)",
            str(latency["max"]),
            f"<= {TARGET_LATENCY_SAMPLES}",
            met["latency_samples"],
        ),
    ]
    print(f"{'measure':26} {'value':>9}   {'target':10} met")
    for name, value, target, ok in lines:
        verdict = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:26} {value:>9}   {target:10} {verdict}")
    print()
    verdict = "all targets met" if all(met.values()) else "targets NOT met"
    print(f"{verdict} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
