"""The popper and the handheld on the emulated RP2040: what the chip itself measures.

Boots MicroPython's own Pico image with the firmware in rp2040js (``popdice sim --rp2040``)
and prints, in the emulated chip's time (``time.ticks_us`` on the chip, and the emulator's
clock for the LED data line), the figures the link benchmark does not give:

- the press detector's cost per sample (mean and max, microseconds), and the whole sample
  path's (the I2C read of the LIS3DH and the detector), idle, during pops and during a burst
  of events;
- samples the LIS3DH overwrote before the firmware read them (its STATUS.ZYXOR says that
  it did, the time since the last read how many);
- heap free after boot with everything running, on both boards;
- press to the first LED frame: from the onset of a press (the physical model's label) to
  the first bit of the first frame on the WS2812 data pin, over presses the detector was
  not tuned on (``--first-seed``), split into the detector's decision and the firmware's;
- how fast the popper rolls five fair dice (``roll_counts``: ``os.urandom`` with rejection
  sampling), with the link's round trip in it.

    .venv/bin/python bench/rp2040.py [--presses N] [--first-seed S]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from popdice.devices.connect import connect_when_ready
from popdice.devices.handheld import Handheld
from popdice.devices.link import Event
from popdice.devices.popper import Popper
from popdice.sim.physics import scenes
from popdice.sim.supervisor import SimulatedPico
from popdice.traces.runner import run_detector

REST = (0.0, 0.0, 1.0)
SAMPLE_US = 2500
DETECT_MEAN_TARGET_US = 300
HEAP_TARGET = 100 * 1024
LATENCY_TARGET_MS = 15.0
ROLLS = 2000


def rest(seconds: float) -> list[tuple[float, float, float]]:
    return [REST] * int(400 * seconds)


def feed(control, samples) -> dict:
    """Feeds samples and waits until the firmware has read them; the accel_done event."""
    batch = control.feed_accel(samples, wait=True)
    return control.wait_for("accel_done", lambda e: e["batch"] == batch, timeout=10, after=0)


def spread(values: list[float]) -> str:
    """Median and range of times in ms."""
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f}) ms"


def lost(timing) -> str:
    """Samples the LIS3DH overwrote before they were read, of all it took."""
    due = timing.samples + timing.overruns
    return f"{timing.overruns} of {due} ({timing.overruns / due:.1%})"


def measure_popper(presses: int, first_seed: int) -> dict:
    out: dict = {}
    with SimulatedPico("popper", backend="rp2040") as sim, sim.control(timeout=30) as control:
        popper = connect_when_ready(sim.port, 60)
        assert isinstance(popper, Popper)
        wall0, emulated0 = time.monotonic(), control.emulator()["us"]
        feed(control, rest(1.0))
        out["heap_free"] = popper.status().heap_free

        popper.timing(reset=True)
        feed(control, rest(4.0))
        out["idle"] = popper.timing()

        popper.timing(reset=True)
        latencies = []
        deciding = []
        pops = 0
        for seed in range(first_seed, first_seed + presses):
            trace = scenes.press_trace(seed=seed)
            decided = run_detector(trace.samples_g).indices  # the same detector, unix port
            mark = control.mark()
            done = feed(control, trace.samples_g)
            onset_us = done["first_us"] + (trace.press_times_ms[0] - trace.t_ms[0]) * 1000
            frame = control.wait_for(
                "leds", lambda e, t=onset_us: e["start_us"] > t, timeout=10, after=mark
            )
            latencies.append((frame["start_us"] - onset_us) / 1000)
            if decided:  # the deciding sample was latched at first_us + index periods
                decided_us = done["first_us"] + decided[0] * SAMPLE_US
                deciding.append(
                    ((decided_us - onset_us) / 1000, (frame["start_us"] - decided_us) / 1000)
                )
            feed(control, rest(0.6))  # the tumble animation ends
            while (item := popper.next_event(0)) is not None:
                pops += isinstance(item, Event) and item.kind == "pop"
        out["pops"] = popper.timing()
        out["pop_count"] = pops
        out["latency_ms"] = sorted(latencies)
        out["deciding_ms"] = deciding

        started = control.emulator()["us"]
        popper.roll_counts(ROLLS)
        out["rolls_per_s"] = ROLLS / ((control.emulator()["us"] - started) / 1e6)

        popper.timing(reset=True)
        batch = control.feed_accel(rest(3.0), wait=False)
        popper.burst(200, pad=300)
        received = 0
        while received < 200:
            item = popper.next_event(30)
            if item is None:
                raise SystemExit(f"the burst stopped after {received} of 200 events")
            received += isinstance(item, Event) and item.kind == "burst"
        control.wait_for("accel_done", lambda e: e["batch"] == batch, timeout=60, after=0)
        out["burst"] = popper.timing()
        out["speed"] = (control.emulator()["us"] - emulated0) / 1e6 / (time.monotonic() - wall0)
        popper.close()
    return out


def measure_handheld() -> int:
    with SimulatedPico("handheld", backend="rp2040") as sim:
        handheld = connect_when_ready(sim.port, 60)
        assert isinstance(handheld, Handheld)
        handheld.roll()  # the screens and the secret code are loaded
        heap = handheld.status().heap_free
        handheld.close()
    return heap


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--presses", type=int, default=20, help="presses to pop (20)")
    parser.add_argument(
        "--first-seed", type=int, default=5001, help="of the press traces (5001: held out)"
    )
    args = parser.parse_args(argv)
    popper = measure_popper(args.presses, args.first_seed)
    handheld_heap = measure_handheld()
    latency = popper["latency_ms"]
    deciding = popper["deciding_ms"]
    idle, pops, burst = popper["idle"], popper["pops"], popper["burst"]
    rows = [
        (
            "detector per sample, idle: mean",
            f"{idle.detect_us.mean} us",
            f"< {DETECT_MEAN_TARGET_US} us",
        ),
        ("detector per sample, idle: max", f"{idle.detect_us.max} us", ""),
        ("sample path (I2C + detector): mean", f"{idle.sample_us.mean} us", ""),
        ("CPU the sample path takes, idle", f"{idle.sample_us.mean / SAMPLE_US:.0%}", ""),
        (
            "detector during pops: mean / max",
            f"{pops.detect_us.mean} / {pops.detect_us.max} us",
            "",
        ),
        ("samples lost at 400 Hz, idle", lost(idle), "0"),
        ("samples lost during pops", lost(pops), "0"),
        ("samples lost during a 200-event burst", lost(burst), ""),
        (
            "longest gap between samples",
            f"{max(idle.gap_us.max, pops.gap_us.max, burst.gap_us.max) / 1000:.1f} ms",
            "",
        ),
        ("pops / presses", f"{popper['pop_count']} / {len(latency)}", ""),
        ("press to first LED frame: p50", f"{statistics.median(latency):.1f} ms", ""),
        ("press to first LED frame: max", f"{latency[-1]:.1f} ms", f"< {LATENCY_TARGET_MS:g} ms"),
        ("  of which onset to the deciding sample", spread([d for d, _ in deciding]), ""),
        ("  and that sample to the first LED bit", spread([f for _, f in deciding]), ""),
        ("popper heap free after boot", f"{popper['heap_free']:,} B", f">= {HEAP_TARGET:,} B"),
        ("rolls of five dice (roll_counts)", f"{popper['rolls_per_s']:,.0f} /s", ""),
        ("handheld heap free after a roll", f"{handheld_heap:,} B", ""),
        ("emulated / wall time", f"{popper['speed']:.2f}", ""),
    ]
    print("emulated RP2040 (MicroPython's Pico image in rp2040js), times in the chip's own clock")
    print(f"{'measure':38} {'value':>18}  target")
    for name, value, target in rows:
        print(f"{name:38} {value:>18}  {target}")
    missed = []
    if idle.detect_us.mean >= DETECT_MEAN_TARGET_US:
        missed.append("detector mean")
    if idle.overruns or pops.overruns:
        missed.append("overruns")
    if latency[-1] >= LATENCY_TARGET_MS:
        missed.append("press to LED")
    if popper["heap_free"] < HEAP_TARGET:
        missed.append("heap")
    print("targets met" if not missed else "TARGETS MISSED: " + ", ".join(missed))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
