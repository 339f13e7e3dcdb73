"""Link benchmark: round-trip latency and sustained frames per second over the serial path.

Runs against a simulated popper on a pty (``--device sim``, the MicroPython unix port, the
default), an emulated one (``--device rp2040``: MicroPython's Pico image in rp2040js), or a
real board (``--port``), and prints a table.

On the emulated RP2040 the figures that count are in the chip's own time: a round trip is
from the device taking the request off USB to its last reply byte going out, and events/s
are counted over the emulated time the burst took (the emulator runs slower than a real chip,
so wall-clock figures there say more about this machine than about the board). Targets: on
the unix port p99 under 5 ms and at least 1,000 frames/s; on the RP2040 p99 under 10 ms.

    .venv/bin/python bench/link.py [--device sim|rp2040 | --port PORT] [--round-trips N]
"""

from __future__ import annotations

import statistics
import sys
import time
from contextlib import ExitStack

from popdice import connect
from popdice.devices.link import Event
from popdice_lab.bench import parser as bench_parser

TARGETS = {"sim": (5.0, 1000), "rp2040": (10.0, None), "port": (5.0, 1000)}
DEFAULT_COUNTS = {"sim": (2000, 5000), "rp2040": (300, 400), "port": (2000, 5000)}


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def measure_round_trips(client, count: int) -> list[float]:
    for i in range(20):  # warm up
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
        item = client.next_event(10.0)
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


class EmulatedClock:
    """Reads the emulated chip's USB transfers (emulated us) around a measurement."""

    def __init__(self, control) -> None:
        self.control = control
        self.since = 0.0

    def start(self) -> None:
        self.since = self.control.emulator()["us"]

    def transfers(self) -> list[tuple[str, float, int]]:
        return [tuple(t) for t in self.control.emulator()["serial"] if t[1] >= self.since]

    def round_trips_ms(self) -> list[float]:
        """One per request: from the device taking its first byte to its reply's last byte."""
        trips = []
        started = None
        last_out = None
        for direction, us, _size in self.transfers():
            if direction == "rx":
                if started is not None and last_out is not None:
                    trips.append((last_out - started) / 1000)
                if started is None or last_out is not None:
                    started, last_out = us, None
            else:
                last_out = us
        if started is not None and last_out is not None:
            trips.append((last_out - started) / 1000)
        return sorted(trips)

    def frames_per_s(self, frames: int) -> float:
        moments = [us for _d, us, _n in self.transfers()]
        return frames / ((max(moments) - min(moments)) / 1e6)


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    where_group = parser.add_mutually_exclusive_group()
    where_group.add_argument("--port", help="a real board's port")
    where_group.add_argument(
        "--device", choices=("sim", "rp2040"), default="sim", help="which simulated popper"
    )
    parser.add_argument("--round-trips", type=int, help="echo round trips (2000; rp2040: 300)")
    parser.add_argument("--events", type=int, help="burst events (5000; rp2040: 400)")
    args = parser.parse_args(argv)
    kind = "port" if args.port else args.device
    trips_n = args.round_trips or DEFAULT_COUNTS[kind][0]
    events_n = args.events or DEFAULT_COUNTS[kind][1]
    p99_target, frames_target = TARGETS[kind]
    emulated = None
    with ExitStack() as stack:
        port = args.port
        where = port
        if port is None:
            from popdice.sim.supervisor import SimulatedPico

            backend = "rp2040" if kind == "rp2040" else "unix"
            sim = stack.enter_context(SimulatedPico("popper", backend=backend))
            port = sim.port
            where = (
                f"emulated RP2040 popper on {port} (MicroPython's Pico image in rp2040js)"
                if kind == "rp2040"
                else f"simulated popper on {port} (MicroPython unix port, 192K heap)"
            )
            if kind == "rp2040":
                emulated = EmulatedClock(stack.enter_context(sim.control()))
        from popdice.devices.connect import connect_when_ready

        client = stack.enter_context(connect_when_ready(port, 60) if port else connect(port))
        rows = []
        p99 = f"< {p99_target:g} ms"
        if emulated is not None:
            emulated.start()
        rtt = measure_round_trips(client, trips_n)
        if emulated is not None:
            device = emulated.round_trips_ms()
            check = percentile(device, 0.99)
            rows += [
                ("round trip p50 (emulated)", f"{percentile(device, 0.50):.2f} ms", ""),
                ("round trip p99 (emulated)", f"{check:.2f} ms", p99),
                ("round trip max (emulated)", f"{device[-1]:.2f} ms", ""),
                ("round trip p50 (wall, here)", f"{percentile(rtt, 0.50):.2f} ms", ""),
            ]
        else:
            check = percentile(rtt, 0.99)
            rows += [
                ("round trip p50 (echo)", f"{percentile(rtt, 0.50):.3f} ms", ""),
                ("round trip p99 (echo)", f"{check:.3f} ms", p99),
                ("round trip mean / max", f"{statistics.mean(rtt):.3f} / {rtt[-1]:.3f} ms", ""),
            ]
        if emulated is not None:
            emulated.start()
        small = measure_events(client, events_n, 0)
        small_emulated = emulated.frames_per_s(events_n) if emulated else None
        if emulated is not None:
            emulated.start()
        large_n = max(events_n // 5, 100)
        large = measure_events(client, large_n, 300)
        large_emulated = emulated.frames_per_s(large_n) if emulated else None
        if emulated is not None:
            rows += [
                ("events, ~60 B (emulated)", f"{small_emulated:,.0f} frames/s", ""),
                ("events, ~360 B (emulated)", f"{large_emulated:,.0f} frames/s", ""),
            ]
        at_least = f">= {frames_target:,}" if frames_target else ""
        rows += [
            ("events, ~60 B frames", f"{small:,.0f} frames/s", at_least),
            ("events, ~360 B frames", f"{large:,.0f} frames/s", ""),
            ("commands + replies", f"{measure_commands(client, 2.0):,.0f} frames/s", ""),
            ("device heap free after", f"{client.status().heap_free:,} B", ""),
        ]
    print(f"link benchmark: {where}")
    print(f"{'measure':30} {'value':>20}  target")
    for name, value, target in rows:
        print(f"{name:30} {value:>20}  {target}")
    ok = check < p99_target and (frames_target is None or small >= frames_target)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
