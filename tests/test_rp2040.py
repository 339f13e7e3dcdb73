"""The emulated Pico itself: MicroPython's own image for the RP2040 in rp2040js, with the
parts on its pins. Runs with ``--device rp2040`` (the second pass of ``make test``)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_device_link import mpremote_exec
from upy_run import run_code

from popdice.deploy.base_image import load_base
from popdice.deploy.board_image import filesystem_image, flash_image
from popdice.deploy.files import FlashFile, compiled_files
from popdice.deploy.uf2 import Segment
from popdice.devices.connect import connect_when_ready
from popdice.sim.rp2040.core import FLASH_FILE
from popdice.sim.supervisor import SimulatedPico

pytestmark = pytest.mark.rp2040_tier
POPDICE = str(Path(sys.executable).with_name("popdice"))
MPREMOTE = str(Path(sys.executable).with_name("mpremote"))
TESTS = Path(__file__).resolve().parent
# The firmware's logic tests that could pass on the unix port and fail on the chip: its
# small ints are 31-bit, not 63, and its viper code is the Cortex-M0+'s (the press detector
# against its plain reference sample by sample, and its and the meter's no-allocation
# claims), and the link's CRC is its own binascii.
# The firmware's logic tests run on the chip in two emulators at once (make test runs the
# tier on two workers): the detector against its reference, and the rest. With the fewest
# tests each must report.
ON_CHIP = {
    ("test_press.py",): 16,
    ("test_stream.py", "test_meter.py", "test_codec.py", "test_dice.py"): 18,
}
HELPERS = ("upytest.py", "simbus.py", "vectors.py", "cobs_reference.py", "press_reference.py")


@pytest.fixture(autouse=True)
def emulator(sim_backend):
    if sim_backend != "rp2040":
        pytest.skip("tests the emulated RP2040: run with --device rp2040")


def test_the_emulated_sensor_runs_at_400_hz_of_the_chips_own_clock(popper_dut):
    popper = popper_dut.client
    popper.timing(reset=True)
    popper_dut.control.feed_accel([(0.0, 0.0, 1.0)] * 400, wait=True)
    timing = popper.timing()
    assert timing.samples >= 400
    assert 2450 <= timing.gap_us.mean <= 2550  # ticks_us on the chip: 1/400 s apart
    assert timing.detect_us.n == timing.samples and timing.detect_us.mean > 0
    assert timing.sample_us.mean > timing.detect_us.mean  # the I2C read takes time too


def test_the_device_id_is_the_flash_chips_unique_id():
    sim = SimulatedPico("popper", device_id="0123456789abcdef", backend="rp2040")
    with sim, connect_when_ready(sim.port, 60) as client:
        assert client.info.device_id == "0123456789abcdef"


def test_a_pop_clicks_the_buzzer(popper_dut):
    control = popper_dut.control
    mark = control.mark()
    popper_dut.client.pop()
    on = control.wait_for("pwm", lambda e: e["on"], timeout=10, after=mark)
    assert on["pin"] == 15 and abs(on["freq"] - 2200) < 25 and on["duty_u16"] > 30000
    off = control.wait_for("pwm", lambda e: not e["on"], timeout=10, after=on.seq)
    assert 5000 <= off["us"] - on["us"] <= 20000  # the firmware's 6 ms click


def test_machine_reset_reboots_the_chip_and_the_firmware_comes_back(popper_dut):
    boots = popper_dut.control.state().boots
    popper_dut.client.enter_repl()
    mark = popper_dut.control.mark()
    command = "import machine; machine.reset()"
    subprocess.run(
        [MPREMOTE, "connect", popper_dut.port, "resume", "exec", "--no-follow", command],
        capture_output=True,
        timeout=60,
        check=True,
    )
    exit_ = popper_dut.control.wait_for("exit", timeout=30, after=mark)
    assert exit_["reason"] == "machine.reset()"
    popper_dut.control.wait_for("boot", timeout=30, after=exit_.seq)
    with connect_when_ready(popper_dut.port, 60) as fresh:
        assert fresh.counter() == 1
    assert popper_dut.control.state().boots == boots + 1


def test_popdice_sim_rp2040_runs_a_board_until_sigterm(tmp_path):
    proc = subprocess.Popen(
        [
            POPDICE,
            "sim",
            "handheld",
            "--rp2040",
            "--id",
            "00000000feedf00d",
            "--flash",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert proc.stdout.readline().startswith("control: ")
        assert proc.stdout.readline().strip() == "device id: 00000000feedf00d"
        with connect_when_ready(port, 60) as client:
            assert client.info.board == "handheld"
            assert client.status().extra["vsys_mv"] > 4000  # the ADC reads VSYS / 3
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
    assert code == 0, proc.stderr.read() if proc.stderr else ""
    assert (tmp_path / "flash.bin").stat().st_size == 2 * 1024 * 1024  # kept for next time


def test_the_flash_keeps_what_the_board_wrote_across_runs(tmp_path):
    with SimulatedPico("popper", flash_dir=tmp_path, backend="rp2040") as sim:
        with connect_when_ready(sim.port, 60) as client:
            client.enter_repl()
        mpremote_exec(sim.port, "f = open('note.txt', 'w'); f.write('kept'); f.close()")
    with SimulatedPico("popper", flash_dir=tmp_path, backend="rp2040") as sim:
        assert sim.flash_files()["note.txt"] == b"kept"
        with connect_when_ready(sim.port, 60) as client:
            assert client.info.board == "popper"


def test_a_burst_of_large_events_arrives_whole_and_in_order(popper_dut):
    popper = popper_dut.client
    popper.burst(60, pad=300)
    seen = []
    while len(seen) < 60:
        event = popper.next_event(30)
        assert event is not None, f"{len(seen)} of 60 burst events came"
        if getattr(event, "kind", None) == "burst":
            seen.append(event.data["i"])
    assert seen == list(range(60))
    assert popper.status().link["events_dropped"] == 0


@pytest.mark.runs_long
@pytest.mark.parametrize("modules", list(ON_CHIP), ids=lambda modules: modules[0][:-3])
def test_the_firmware_logic_tests_pass_on_the_chips_own_micropython(modules, tmp_path):
    vectors = [str(TESTS / "vectors" / "frames.json")]
    if "test_press.py" in modules:  # the reference's digests, made where it runs fast
        digests = tmp_path / "press_digests.json"
        made = "import json, test_press as t; print(json.dumps(t.reference_digests(t.CHIP_ROUNDS)))"
        digests.write_text(run_code(made))
        vectors.append(str(digests))
    on_board = {f"t/{name}": TESTS / "upy" / name for name in (*HELPERS, *modules)}
    on_board.update({f"tests/vectors/{Path(path).name}": Path(path) for path in vectors})
    write_flash_with("popper", on_board, tmp_path)
    # MODE held at boot: safe mode, the REPL free for mpremote
    with SimulatedPico("popper", flash_dir=tmp_path, hold=("mode",), backend="rp2040") as sim:
        results = []
        for module in modules:
            run = (
                f"import sys; sys.path.insert(0, '/t'); import upytest; upytest.main('/t/{module}')"
            )
            out = mpremote(sim.port, "exec", run, timeout=600)
            lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            assert lines, f"{module} ran no test on the chip:\n{out}"
            results += [(module, line) for line in lines]
    failed = [f"{m}::{r['test']}\n{r['error']}" for m, r in results if not r["ok"]]
    assert not failed, "\n".join(failed)
    assert len(results) >= ON_CHIP[modules]


def write_flash_with(kind: str, extra: dict[str, Path], folder: Path) -> None:
    """Writes ``flash.bin`` into ``folder``: a freshly flashed board of ``kind`` (as
    ``board_segments`` lays it out) with the ``extra`` files (board path: file here) in its
    filesystem too. Copied over the emulated USB by mpremote, the logic tests took 7 s a run."""
    base = load_base()
    files = compiled_files(kind, folder / "compiled")
    files += [FlashFile(source, target) for target, source in extra.items()]
    filesystem = Segment(base.fs_address, filesystem_image(files, base.fs_size))
    (folder / FLASH_FILE).write_bytes(flash_image([*base.segments, filesystem]))


def mpremote(port: str, *args: str, timeout: float = 120) -> str:
    proc = subprocess.run(
        [MPREMOTE, "connect", port, "resume", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
