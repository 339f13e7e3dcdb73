"""The popper's raw samples stream and ``popdice record`` against the simulated popper: the
samples fed to its LIS3DH come back numbered and exact (on the unix port every one; on the
emulated RP2040 the sensor overwrites a few while the link encodes a frame, and the numbers
show each gap); the stream stops when asked and when its lease runs out; a recording's
labels sit on the fed presses."""

from __future__ import annotations

import os
import queue
import sys
from pathlib import Path

import pytest

from popdice.cli.main import main
from popdice.devices.popper import Popper
from popdice.sim.physics import press_trace
from popdice.traces.files import read_labels, read_trace
from popdice.traces.record import KeyMarks, Mark, Recording, place_presses
from popdice.traces.record_cli import record_to
from popdice.traces.trace import driver_mg

REST_MG = (0, 0, 1000)


def align(numbered: dict[int, tuple[int, ...]], fed: list[tuple[int, ...]]) -> tuple[int, int]:
    """(the number the fed samples started at, how many of them came back). The samples that
    came back are the fed ones, in order: each the next fed sample after the one before, the
    samples between lost (the first of the press too, on the emulated chip). (After a gap the
    numbers are the popper's estimate of how many the sensor overwrote, from the time between
    reads, so the numbers alone need not line up.)"""
    ordered = [numbered[n] for n in sorted(numbered)]
    numbers = sorted(numbered)
    first_moving = next(k for k, sample in enumerate(fed) if pressed(sample))
    begin = next(i for i, sample in enumerate(ordered) if pressed(sample))
    at = next((k for k in range(first_moving, len(fed)) if same(fed[k], ordered[begin])), None)
    assert at is not None, f"the first moved sample back was not fed: {ordered[begin]}"
    start = numbers[begin] - at
    arrived = 1
    for sample in ordered[begin + 1 :]:
        if at + 1 >= len(fed):
            break
        found = next((k for k in range(at + 1, len(fed)) if same(fed[k], sample)), None)
        assert found is not None, f"a sample that was not fed, or out of order: {sample}"
        at = found
        arrived += 1
    return start, arrived


def pressed(sample: tuple[int, ...]) -> bool:
    """Far from rest: the press itself, not the noise around it."""
    return any(abs(v - r) > 100 for v, r in zip(sample, REST_MG, strict=True))


def same(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """The same reading, within one 4 mg step: the emulated part rounds a reading exactly
    half-way between two steps up, Python's round() to the even one."""
    return all(abs(p - q) <= 4 for p, q in zip(a, b, strict=True))


def triples(values: list[int]) -> list[tuple[int, ...]]:
    return [tuple(values[i : i + 3]) for i in range(0, len(values), 3)]


@pytest.mark.rp2040_tier
def test_the_stream_gives_back_every_fed_sample_numbered(popper_dut):
    popper: Popper = popper_dut.client
    fed = press_trace(seed=3)
    expected = triples(list(driver_mg(fed.samples_g)))
    assert popper.stream(True, 10)["on"] is True
    popper_dut.control.feed_accel(fed.samples_g, wait=False)
    numbered: dict[int, tuple[int, ...]] = {}
    last = -1
    while not numbered or max(numbered) - min(numbered) < len(expected) + 400:
        batch = popper.next_samples(5.0)
        assert batch is not None, "the stream stopped"
        assert batch.first > last, "numbers went backwards"
        for k, sample in enumerate(triples(list(batch.xyz))):
            numbered[batch.first + k] = sample
        last = batch.first + len(batch) - 1
    reply = popper.stream(False)
    assert reply["on"] is False and reply["dropped"] == 0
    start, arrived = align(numbered, expected)
    first_moving = next(k for k, sample in enumerate(expected) if pressed(sample))
    if popper_dut.sim and popper_dut.sim.backend == "unix":
        assert arrived == len(expected) - first_moving, "a fed sample was lost"
        assert all(numbered[start + k] == sample for k, sample in enumerate(expected))
    else:  # the emulated chip loses some while it encodes frames (docs/popper.md)
        assert arrived >= (len(expected) - first_moving) * 3 // 4
    while popper.next_samples(0.5) is not None:
        pass  # what was on its way when it stopped
    assert popper.next_samples(0.5) is None, "samples after the stream was stopped"


@pytest.mark.rp2040_tier
def test_a_stream_nobody_renews_stops_by_itself(popper_dut):
    popper: Popper = popper_dut.client
    popper.stream(True, 1)
    assert popper.next_samples(2.0) is not None
    batches = 0
    while popper.next_samples(1.5) is not None:
        batches += 1
        assert batches < 100, "the lease did not end the stream"
    assert popper.status().extra["stream_dropped"] == 0


@pytest.mark.rp2040_tier
def test_bad_stream_arguments_are_refused(popper_dut):
    popper: Popper = popper_dut.client
    for args in ({}, {"on": 1}, {"on": True, "seconds": 0}, {"on": True, "seconds": 61}):
        with pytest.raises(Exception, match=r"on must be|seconds must be"):
            popper.link.call("stream", args)
    assert popper.mode() == "popalotsy", "the popper still answers"


# Not in the RP2040 tier: the emulated chip loses samples around a pop, and a label then
# sits on the first sample of the rise that came back, up to several samples late.
def test_record_with_prompts_labels_the_press_made_after_each(popper_dut, tmp_path: Path):
    popper: Popper = popper_dut.client
    control = popper_dut.control
    fed = press_trace(seed=5)
    out = tmp_path / "presses.csv"
    assert (
        record_to(
            popper,
            4.0,
            out,
            prompt=True,
            every_s=10.0,
            keys=False,
            on_prompt=lambda: control.feed_accel(fed.samples_g, wait=False),
        )
        == 0
    )
    t_ms, samples = read_trace(out)
    labels = read_labels(tmp_path / "presses.labels.json")
    numbers = [round(t / 2.5) for t in t_ms]
    assert numbers == sorted(set(numbers)) and t_ms[-1] >= 3990 - 2.5
    recorded = dict(zip(numbers, triples(list(driver_mg(samples))), strict=True))
    start, _arrived = align(recorded, triples(list(driver_mg(fed.samples_g))))
    onset_ms = start * 2.5 + fed.press_times_ms[0]
    assert len(labels) == 1 and abs(labels[0] - onset_ms) <= 5.0, (labels, onset_ms)


def test_record_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    missing = str(tmp_path / "no" / "x.csv")
    assert main(["record", "--port", "/dev/null", "--seconds", "2", "--out", missing]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "no folder" in err
    out = str(tmp_path / "x.csv")
    assert main(["record", "--port", "/dev/null", "--seconds", "2", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "needs a terminal; use --prompt" in err and err.count("\n") == 1


@pytest.mark.parametrize("seconds", ["0", "0.5", "-1", "3601", "nan", "inf", "two", "9" * 500])
def test_record_seconds_are_from_1_to_3600(
    seconds: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "x.csv")
    assert main(["record", "--port", "/dev/null", "--seconds", seconds, "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 200, err
    assert "expected seconds from 1 to 3600, not '" in err


def recording_with_a_gap(
    dropped: range, press_at: int, tilt_mg: int = 0, samples: int = 800
) -> Recording:
    """A recording at 400 Hz of host time from 10.0 s, the samples ``dropped`` missing (as a
    batch the stream dropped), a press from sample ``press_at`` (a fall of 600 mg over three
    samples), and the resting vector ``tilt_mg`` higher after the gap than before it."""
    recording = Recording()
    for number in range(samples):
        if number in dropped:
            continue
        z = 1000 + (tilt_mg if number >= dropped.stop else 0)
        if number >= press_at:
            z -= 200 * min(3, number - press_at + 1)
        recording.numbers.append(number)
        recording.xyz.extend((0, 0, z))
    recording.clock = [(10.0, 0), (12.0, samples)]
    return recording


def test_a_press_after_dropped_samples_is_labelled_at_its_own_sample_number():
    recording = recording_with_a_gap(range(200, 224), press_at=500)
    recording.marks.append(Mark(11.0, "prompt"))  # sample 400; the window runs 3 s on
    onsets, unplaced = place_presses(recording)
    assert unplaced == []
    assert onsets == [(500 - 0.5) * 2.5]  # not 24 samples early, where its position is


def test_a_jump_across_dropped_samples_is_no_press():
    recording = recording_with_a_gap(range(200, 224), press_at=10_000, tilt_mg=300)
    recording.marks.append(Mark(10.0 + 230 * 0.0025, "key"))  # the window takes in the gap
    onsets, unplaced = place_presses(recording)
    assert onsets == [] and [mark.kind for mark in unplaced] == ["key"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_an_arrow_key_marks_one_press_and_q_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    import pty

    master, slave = pty.openpty()
    counted: queue.Queue[int] = queue.Queue()
    marks: list[Mark] = []
    with open(slave, encoding="utf-8") as terminal:
        monkeypatch.setattr(sys, "stdin", terminal)
        with KeyMarks(marks, counted.put) as keys:
            assert keys.listening.wait(10)  # a key typed before waits for a whole line
            os.write(master, b"\x1b[A")  # up: three bytes, one key
            assert counted.get(timeout=10) == 1
            os.write(master, b"x\x1bOP")  # a letter, then F1
            assert [counted.get(timeout=10), counted.get(timeout=10)] == [2, 3]
            os.write(master, b"q")
            assert keys.quit.wait(10)
    os.close(master)
    assert len(marks) == 3 and counted.empty()
