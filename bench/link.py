"""Link benchmark: round-trip latency and sustained frames per second over the serial path.

Runs against a simulated popper on a pty by default (`--port` for a real board) and
prints a table. Targets (issue 2): p99 round trip under 5 ms, at least 1,000 frames/s.

    .venv/bin/python bench/link.py [--port PORT] [--round-trips N] [--events N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import ExitStack

from popdice import connect
from popdice.link import Event

P99_TARGET_MS = 5.0
FRAMES_TARGET = 1000


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def measure_round_trips(client, count: int) -> list[float]:
    for i in range(50):  # warm up
        client.echo(i=i)
    times = []
    for i in range(count):
        start = time.perf_counter()
        client.echo(i=i)
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def measure_events(client, count: int, pad: int) -> float:
    start = time.perf_counter()
    client.burst(count, pad)
    received = 0
    while received < count:
        item = client.next_event(5.0)
        if item is None:
            raise SystemExit(f"events stopped after {received} of {count}")
        if isinstance(item, Event) and item.kind == "burst":
            received += 1
    return count / (time.perf_counter() - start)


def measure_commands(client, seconds: float) -> float:
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        client.echo()
        calls += 1
    return 2 * calls / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", help="a real board's port (default: a simulated popper)")
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        port = args.port
        where = port
        if port is None:
            from popdice.sim.supervisor import SimulatedPico

            sim = stack.enter_context(SimulatedPico("popper"))
            port = sim.port
            where = f"simulated popper on {port} (MicroPython unix port, 192K heap)"
        client = stack.enter_context(connect(port))
        rtt = measure_round_trips(client, args.round_trips)
        small = measure_events(client, args.events, 0)
        large = measure_events(client, max(args.events // 5, 100), 300)
        commands = measure_commands(client, 2.0)
        heap = client.status().heap_free
    rows = [
        ("round trip p50 (echo)", f"{percentile(rtt, 0.50):.3f} ms", ""),
        ("round trip p99 (echo)", f"{percentile(rtt, 0.99):.3f} ms", f"< {P99_TARGET_MS:g} ms"),
        ("round trip mean / max", f"{statistics.mean(rtt):.3f} / {rtt[-1]:.3f} ms", ""),
        ("events, ~60 B frames", f"{small:,.0f} frames/s", f">= {FRAMES_TARGET:,}"),
        ("events, ~360 B frames", f"{large:,.0f} frames/s", ""),
        ("commands + replies", f"{commands:,.0f} frames/s", ""),
        ("device heap free after", f"{heap:,} B", ""),
    ]
    print(f"link benchmark: {where}")
    print(f"{'measure':26} {'value':>22}  target")
    for name, value, target in rows:
        print(f"{name:26} {value:>22}  {target}")
    ok = percentile(rtt, 0.99) < P99_TARGET_MS and small >= FRAMES_TARGET
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
