"""Command-line benchmark: how long `popdice` takes to start, answer and let go of a device.

Times each command as a fresh process, RUNS times in rounds (every command once a round, so
a busy machine slows them alike; two warm-up rounds first), and prints the median and the
fastest wall time, and the median CPU time, against the targets of issue 14: `python -c
pass`, the floor every Python program pays; `popdice --help`; `popdice check ringer FILE`
(the Ringer example of docs/formats.md); `popdice status --port P` against a simulated
popper this script starts with `popdice sim popper`; and closing a client (connect, one
status, then the time `close()` takes). `popdice` runs as its console script does,
``python -c "from popdice.cli.main import main; ..."`` (the entry point pyproject.toml
names), with this interpreter, and with its
modules compiled, as an installed popdice has them: the warm-up rounds write the .pyc files
even where PYTHONDONTWRITEBYTECODE is set (without them every run compiles what it imports).

    .venv/bin/python bench/cli.py [--runs N] [--port PORT] [--baseline DIR]

--port: time `status` on that device instead (a real board, say, beside `mpremote connect
PORT exec "print(1)"`, which took 93-99 ms on one). --baseline DIR: also time the popdice of
another tree in the same rounds (e.g. `git archive HEAD~1 host firmware pyproject.toml |
tar -x -C DIR`), each of its rows marked "(baseline)".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from popdice_lab.bench import parser as bench_parser

ROOT = Path(__file__).resolve().parent.parent


def popdice_argv(tree: Path) -> list[str]:
    """``popdice`` as a tree's pyproject.toml names its entry point (``module:function``), run
    by this interpreter: a baseline from before a module moved runs its own entry point."""
    found = re.search(
        r'^popdice\s*=\s*"([\w.]+):(\w+)"', (tree / "pyproject.toml").read_text(), re.M
    )
    if found is None:
        raise SystemExit(f"{tree}: pyproject.toml names no popdice entry point")
    module, function = found.groups()
    return [
        sys.executable,
        "-c",
        f"import sys; from {module} import {function}; sys.exit({function}())",
    ]


POPDICE = popdice_argv(ROOT)
WARM_UP_ROUNDS = 2  # they fill the disk cache and write the .pyc files

# What mpremote took on a board for `exec "print(1)"` (issue 14): status should beat it.
MPREMOTE_EXEC_MS = 93.0

# The Ringer example of docs/formats.md: every kind of event and verdict.
RINGER_DOCUMENT = {
    "die": 4,
    "top": {"suit": "pink", "number": 2},
    "events": [
        {"play": {"suit": "pink", "number": 3}},
        {"play": {"suit": "blue", "number": 3, "power": "draw1"}},
        {"play": {"suit": "blue", "number": 4}},
        {"play": {"suit": "green", "number": 5}},
        {"roll": 6},
        {"start": {"suit": "yellow", "number": 5}},
        {"play": {"suit": "green", "number": 5, "power": "take_over"}, "out_of_turn": True},
        {"play": {"suit": "green", "number": 5}},
        {"play": {"suit": "green", "number": 3}},
        {"play": {"suit": "pink", "power": "reroll"}},
        {"play": {"suit": "wild", "number": 6}},
    ],
}


def compiled_env(**changes: str) -> dict[str, str]:
    """This process's environment with ``changes``, and with .pyc files written."""
    env = {**os.environ, **changes}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@dataclass
class Timed:
    """One command to time as a new process, its target, and the times taken (ms)."""

    label: str
    argv: list[str]
    target: str = ""
    met: Callable[[float], bool] | None = None
    env: dict[str, str] = field(default_factory=lambda: compiled_env())
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)

    def run_once(self) -> tuple[float, float]:
        """The wall time and the CPU time (user and system) of one run, in ms."""
        cpu_before = children_cpu_s()
        start = time.perf_counter()
        subprocess.run(
            self.argv, check=True, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        wall = (time.perf_counter() - start) * 1000
        return wall, (children_cpu_s() - cpu_before) * 1000


def children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def popdice_commands(
    popdice: list[str], port: str, ringer_file: Path, env: dict[str, str], mark: str
) -> list[Timed]:
    """The popdice commands and their targets; ``popdice``, ``env`` and ``mark`` for a
    baseline tree."""
    return [
        Timed(f"popdice --help{mark}", [*popdice, "--help"], "<= 60 ms", lambda ms: ms <= 60, env),
        Timed(
            f"popdice check ringer FILE{mark}",
            [*popdice, "check", "ringer", str(ringer_file)],
            "<= 60 ms",
            lambda ms: ms <= 60,
            env,
        ),
        Timed(
            f"popdice status --port P{mark}",
            [*popdice, "status", "--port", port],
            f"< mpremote exec, {MPREMOTE_EXEC_MS:.0f} ms",
            lambda ms: ms < MPREMOTE_EXEC_MS,
            env,
        ),
    ]


def time_in_rounds(commands: list[Timed], runs: int) -> None:
    for round_ in range(WARM_UP_ROUNDS + runs):
        for command in commands:
            wall, cpu = command.run_once()
            if round_ >= WARM_UP_ROUNDS:
                command.times.append(wall)
                command.cpu_times.append(cpu)


# Prints how long close() took, in ms, on RUNS clients that had just had a status reply.
CLOSE_TIMES = """\
import json, sys, time
from popdice import connect
times = []
for _ in range(int(sys.argv[2])):
    client = connect(sys.argv[1])
    client.status_reply()
    start = time.perf_counter()
    client.close()
    times.append((time.perf_counter() - start) * 1000)
print(json.dumps(times))
"""


def close_times(port: str, runs: int, env: dict[str, str]) -> list[float]:
    """How long closing a client takes (ms), in a process importing popdice as ``env`` says."""
    done = subprocess.run(
        [sys.executable, "-c", CLOSE_TIMES, port, str(runs)],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


@contextlib.contextmanager
def simulated_popper() -> Iterator[str]:
    """A ``popdice sim popper`` in the background for as long as the block runs: its port."""
    sim = subprocess.Popen(
        [*POPDICE, "sim", "popper"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert sim.stdout is not None
        port = sim.stdout.readline().strip()
        if not port:
            raise SystemExit(f"popdice sim popper did not start: {sim.communicate()[1].strip()}")
        yield port
    finally:
        sim.terminate()
        sim.wait(timeout=30)


def baseline_env(root: Path) -> dict[str, str]:
    """The environment that makes ``python`` import popdice from another source tree."""
    if not (root / "host" / "popdice" / "__init__.py").is_file():
        raise SystemExit(f"--baseline {root}: no host/popdice there")
    return compiled_env(PYTHONPATH=f"{root / 'host'}{os.pathsep}{root / 'firmware'}")


def report(commands: list[Timed], closing: dict[str, list[float]], runs: int) -> None:
    print(f"{runs} runs each, in ms; python {sys.version.split()[0]}")
    print(
        f"{'command':<38}{'median':>8}{'fastest':>9}{'CPU':>7}   {'target':<26}met\n"
        f"{'':<38}{'(wall)':>8}{'(wall)':>9}{'':>7}"
    )
    rows = [(c.label, c.times, c.cpu_times, c.target, c.met) for c in commands]
    rows += [(label, times, [], "<= 5 ms", lambda ms: ms <= 5) for label, times in closing.items()]
    for label, times, cpu_times, target, met in rows:
        median = statistics.median(times)
        verdict = "" if met is None else ("yes" if met(median) else "NO")
        cpu = f"{statistics.median(cpu_times):.0f}" if cpu_times else ""
        print(f"{label:<38}{median:>8.1f}{min(times):>9.1f}{cpu:>7}   {target:<26}{verdict}")
    print(
        "median and fastest: wall time; CPU: the median of user and system time, which a "
        "busy machine\nchanges less than wall time"
    )


def main() -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (20)")
    parser.add_argument("--port", help="a device to use instead of a simulated popper")
    parser.add_argument("--baseline", metavar="DIR", help="a source tree to time beside this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        ringer_file = Path(folder) / "ringer.json"
        ringer_file.write_text(json.dumps(RINGER_DOCUMENT))
        if args.port is None:
            # A folder of its own, so `status` and the simulator find nobody else's.
            os.environ["POPDICE_SIM_DIR"] = str(Path(folder) / "sims")
        port = args.port or stack.enter_context(simulated_popper())
        commands = [
            Timed("python -c pass", [sys.executable, "-c", "pass"], "(the floor)"),
            *popdice_commands(POPDICE, port, ringer_file, compiled_env(), ""),
        ]
        closing_in = {"closing a client": compiled_env()}
        if args.baseline:
            tree = Path(args.baseline).resolve()
            env = baseline_env(tree)
            commands += popdice_commands(popdice_argv(tree), port, ringer_file, env, " (baseline)")
            closing_in["closing a client (baseline)"] = env
        time_in_rounds(commands, args.runs)
        closing = {label: close_times(port, args.runs, env) for label, env in closing_in.items()}
    report(commands, closing, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
