"""The popper and the handheld on the emulated RP2040: what the chip itself measures.

Boots MicroPython's own Pico image with the firmware in rp2040js (``popdice sim --rp2040``)
and measures, in the emulated chip's time (``time.ticks_us`` on the chip, and the
emulator's clock for the LED data line):

- ``samples``, ``samples_lost``: every sample the LIS3DH produced while the firmware took
  ``--presses`` presses (popping, with their tumbles), a burst of 200 large events and a
  60-second raw stream (``popdice record``'s), and those lost (overwritten before they were
  read, or let go with the ring full: the firmware's own count, ``timing``), with the part's
  own count of samples it overwrote (``samples_overwritten``);
- ``detector_us_mean``, ``detector_us_max``: the press detector per sample, over all that;
  ``sample_path_us_mean``: the whole path (taken from the ring, streamed, detected);
  ``isr_us_max``: the interrupt that reads a sample, at its longest;
- ``release_to_led_ms_p50``, ``release_to_led_ms_p99``: from each press's release blow (the
  physical model's label: the dome snapping back) to the first bit of the first tumble frame
  on the WS2812 data pin, popping on the release, over presses of held-out seeds
  (``--first-seed``) of the project's model of a popper on a table, whose dome snaps back;
  ``press_to_cue_ms_p99``: from each press's main blow to the cue's frame (the faces dimmed);
  ``pops``: how many of the presses popped, ``cues`` how many cued, and
  ``pops_before_release`` how many popped in the hold (their latency counts as 0);
- ``heap_free``: the popper's heap after boot with everything running;
  ``handheld_heap_free`` the handheld's after a roll.

Prints a table, or with ``--json`` one JSON object with those keys (and ``emulated_speed``,
emulated seconds per wall second). Exit code 1 if a target is missed.

    .venv/bin/python bench/rp2040.py [--presses N] [--first-seed S] [--json]
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from popdice.devices.connect import connect_when_ready
from popdice.devices.handheld import Handheld
from popdice.devices.link import Event
from popdice.devices.popper import Popper, SensorTiming
from popdice.errors import SimulatorError
from popdice.sim.physics import scenes
from popdice.sim.supervisor import SimulatedPico
from popdice.traces.scoring import percentile
from popdice.traces.trace import main_blows_ms
from popdice_lab.bench import parser as bench_parser

REST = (0.0, 0.0, 1.0)
STREAM_S = 60
BURST = 200
TARGETS: dict[str, tuple[str, float]] = {  # key: (at most / at least, value)
    "samples_lost": ("<=", 0),
    "detector_us_mean": ("<=", 50),
    "detector_us_max": ("<=", 300),
    "release_to_led_ms_p99": ("<=", 15),
    "press_to_cue_ms_p99": ("<=", 15),
    "heap_free": (">=", 150_000),
}


def rest(seconds: float) -> list[tuple[float, float, float]]:
    return [REST] * int(400 * seconds)


def feed(control, samples) -> dict:
    """Feeds samples and waits until the firmware has read them; the accel_done event."""
    batch = control.feed_accel(samples, wait=True)
    return control.wait_for("accel_done", lambda e: e["batch"] == batch, timeout=60, after=0)


def press_phase(control, popper: Popper, presses: int, first_seed: int) -> dict[str, Any]:
    """Presses one after the other: when each cued and popped on the LED pin (a press that
    did not pop counts only among the presses)."""
    to_led, to_cue = [], []
    cues = pops = early = 0
    for seed in range(first_seed, first_seed + presses):
        trace = scenes.press_trace(seed=seed)
        mark = control.mark()
        first_us = feed(control, trace.samples_g)["first_us"]
        # sample i was latched at first_us + i periods
        blow_us, release_us, onset_us = (
            first_us + (ms - trace.t_ms[0]) * 1000
            for ms in (main_blows_ms(trace)[0], trace.releases_ms[0], trace.press_times_ms[0])
        )
        try:
            cue = control.wait_for(
                "leds", lambda e, t=onset_us: e["start_us"] > t, timeout=5, after=mark
            )
            to_cue.append((cue["start_us"] - blow_us) / 1000)
            # the frame after the cue: the tumble's first, or the cue taken back
            tumble = control.wait_for(
                "leds", lambda e, t=cue["start_us"]: e["start_us"] > t, timeout=5, after=mark
            )
        except SimulatorError:
            continue  # no frame: a press the detector missed altogether
        feed(control, rest(0.6))  # the tumble ends
        popped = False
        while (item := popper.next_event(0.5)) is not None:
            if isinstance(item, Event):
                popped = popped or item.kind == "pop"
                cues += item.kind == "cue" and bool(item.data.get("on"))
        pops += popped
        if popped:  # else that frame took the cue back
            # a pop before the release (in the hold) is not late: it counts as 0
            early += tumble["start_us"] < release_us
            to_led.append(max(0.0, (tumble["start_us"] - release_us) / 1000))
    return {
        "to_led": sorted(to_led),
        "to_cue": sorted(to_cue),
        "pops": pops,
        "cues": cues,
        "early": early,
    }


def burst_phase(control, popper: Popper) -> None:
    batch = control.feed_accel(rest(3.0), wait=False)
    popper.burst(BURST, pad=300)
    received = 0
    while received < BURST:
        item = popper.next_event(60)
        if item is None:
            raise SystemExit(f"the burst stopped after {received} of {BURST} events")
        received += isinstance(item, Event) and item.kind == "burst"
    control.wait_for("accel_done", lambda e: e["batch"] == batch, timeout=120, after=0)


def stream_phase(control, popper: Popper) -> int:
    """A minute of the raw stream; the samples it delivered."""
    batch = control.feed_accel(rest(STREAM_S), wait=False)
    popper.stream(True, STREAM_S)
    got = 0
    while True:
        samples = popper.next_samples(5.0)
        if samples is None:
            break
        got += len(samples)
    control.wait_for("accel_done", lambda e: e["batch"] == batch, timeout=600, after=0)
    popper.stream(False)
    return got


def measure_popper(presses: int, first_seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with SimulatedPico("popper", backend="rp2040") as sim, sim.control(timeout=60) as control:
        popper = connect_when_ready(sim.port, 60)
        assert isinstance(popper, Popper)
        wall0, emulated0 = time.monotonic(), control.emulator()["us"]
        feed(control, rest(1.0))
        out["heap_free"] = popper.status().heap_free
        overwritten0 = control.accel_stats().get("overruns", 0)
        popper.timing(reset=True)
        phases: list[SensorTiming] = []
        pressed = press_phase(control, popper, presses, first_seed)
        phases.append(popper.timing(reset=True))
        burst_phase(control, popper)
        phases.append(popper.timing(reset=True))
        out["stream_samples"] = stream_phase(control, popper)
        phases.append(popper.timing(reset=True))
        out["samples_overwritten"] = control.accel_stats().get("overruns", 0) - overwritten0
        out["emulated_speed"] = round(
            (control.emulator()["us"] - emulated0) / 1e6 / (time.monotonic() - wall0), 3
        )
        popper.close()
    samples = sum(p.samples + p.overruns for p in phases)
    detected = sum(p.detect_us.n for p in phases)
    out.update(
        samples=samples,
        samples_lost=sum(p.overruns for p in phases),
        detector_us_mean=round(sum(p.detect_us.mean * p.detect_us.n for p in phases) / detected, 1),
        detector_us_max=max(p.detect_us.max for p in phases),
        sample_path_us_mean=round(
            sum(p.sample_us.mean * p.sample_us.n for p in phases) / detected, 1
        ),
        isr_us_max=max(p.isr_max_us for p in phases),
        missed_edges=max(p.missed_edges for p in phases),
        presses=presses,
        cues=pressed["cues"],
        pops=pressed["pops"],
        pops_before_release=pressed["early"],
    )
    for name, values in (
        ("release_to_led_ms", pressed["to_led"]),
        ("press_to_cue_ms", pressed["to_cue"]),
    ):
        out[f"{name}_p50"] = round(percentile(values, 0.5), 1) if values else None
        out[f"{name}_p99"] = round(percentile(values, 0.99), 1) if values else None
    return out


def measure_handheld() -> int:
    with SimulatedPico("handheld", backend="rp2040") as sim:
        handheld = connect_when_ready(sim.port, 60)
        assert isinstance(handheld, Handheld)
        handheld.roll()  # the screens and the secret code are loaded
        heap = handheld.status().heap_free
        handheld.close()
    return heap


def missed_targets(figures: dict[str, Any]) -> list[str]:
    missed = []
    for key, (way, bound) in TARGETS.items():
        value = figures.get(key)
        if value is None or (value > bound if way == "<=" else value < bound):
            missed.append(f"{key} {value} (target {way} {bound:g})")
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--presses", type=int, default=20, help="presses to pop (20)")
    parser.add_argument(
        "--first-seed", type=int, default=5001, help="of the press traces (5001: held out)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = measure_popper(args.presses, args.first_seed)
    figures["handheld_heap_free"] = measure_handheld()
    missed = missed_targets(figures)
    if args.json:
        print(json.dumps(figures))
    else:
        print("emulated RP2040 (MicroPython's Pico image in rp2040js), in the chip's own clock")
        for key, value in figures.items():
            way, bound = TARGETS.get(key, ("", None))
            target = f"{way} {bound:,}" if bound is not None else ""
            print(f"{key:24} {value!s:>12}  {target}")
        print("targets met" if not missed else "TARGETS MISSED: " + "; ".join(missed))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
