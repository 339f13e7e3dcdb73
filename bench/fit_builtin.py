"""Fits the press detector's built-in settings on the model families and writes them to
firmware/popdice_fw/builtin_settings.py: the settings a popper uses without a detector.json.

The fit is ``popdice tune``'s (popdice.traces.tune.Tuner), popping on the release, over the
pools of units the cross-family bench keeps for fitting (lab/popdice_lab/crossfamily.py:
units numbered from 1000, never evaluated on): by default the families of a popper standing
on a table as docs/build.md builds it (table, snapdome, springmass). It minimises the worst
family's cost, not the sum: pooled, a fit gives a family up whole when that costs less.
It prints the fit's figures on those sessions and, with --write, writes the module
(otherwise it only says what it would write). bench/detect.py then scores the settings
on units none of this saw.

    .venv/bin/python bench/fit_builtin.py [--families F,G] [--units N] [--write]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from popdice.console.arguments import whole_number
from popdice.traces.trace import driver_mg, main_blows_ms
from popdice.traces.tune import Recording, Tuner, cost
from popdice_lab.bench import parser as bench_parser
from popdice_lab.crossfamily import POOL_UNITS_FROM
from popdice_lab.families import chosen, family

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "firmware" / "popdice_fw" / "builtin_settings.py"
ON_A_TABLE = "table,snapdome,springmass"
PLAY_S = 360.0
QUIET_S = 180.0

HEADER = '''"""The press detector's built-in settings, for a popper with no ``detector.json``.

Written by ``bench/fit_builtin.py`` from the model families, not set by hand; fitted on
{fitted}.
"""

'''


def pool(names: list[str], units: int) -> list[Recording]:
    """Each family's pool units: a session of play and one of everything else each."""
    made = []
    for name in names:
        module = family(name)
        for unit in range(POOL_UNITS_FROM, POOL_UNITS_FROM + units):
            for seed, presses, seconds in ((1, True, PLAY_S), (2, False, QUIET_S)):
                trace = module.session(unit, seed, seconds, presses)
                kind = "play" if presses else "quiet"
                made.append(
                    Recording(
                        f"{name}/u{unit}/pool-{kind}-{seed}",
                        trace.t_ms,
                        driver_mg(trace.samples_g),
                        list(trace.press_times_ms),
                        releases_ms=list(trace.releases_ms),
                        blows_ms=main_blows_ms(trace),
                    )
                )
    return made


def module_text(settings: dict, fitted: str) -> str:
    lines = [HEADER.format(fitted=fitted), "BUILT_IN = {\n"]
    lines += [f"    {json.dumps(name)}: {json.dumps(value)},\n" for name, value in settings.items()]
    lines.append("}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--families", default=ON_A_TABLE, help=f"default {ON_A_TABLE}")
    parser.add_argument("--units", type=whole_number(1, 20), default=3, help="per family")
    parser.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    try:
        names = chosen(args.families)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    recordings = pool(names, args.units)
    tuner = Tuner(
        recordings,
        progress=lambda what: print(f"  {what}", flush=True),
        groups=[r.name.split("/")[0] for r in recordings],
    )
    settings = tuner.fit(pop_on="release")
    result = tuner.score(settings)
    minutes = sum(r.seconds for r in recordings) / 60
    fitted = f"{', '.join(names)}; {args.units} units each, {minutes:.0f} min in all"
    latency = result.latency()
    print(f"fitted on {fitted} ({time.monotonic() - started:.0f} s)")
    print(
        f"on those sessions: recall {100 * (result.recall or 0):.2f} %, "
        f"{result.false_per_hour or 0:.2f} false presses an hour, latency p50 "
        f"{latency['p50']} / p99 {latency['p99']} ms, cost {cost(result):.1f}"
    )
    for name in names:
        part = [i for i, r in enumerate(recordings) if r.name.startswith(f"{name}/")]
        own = tuner.score(settings, part)
        print(
            f"  {name:11} recall {100 * (own.recall or 0):.2f} %, "
            f"{own.false_per_hour or 0:.2f} false presses an hour"
        )
    print(json.dumps(settings))
    if args.write:
        OUT.write_text(module_text(settings, fitted), encoding="utf-8")
        print(f"written to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
