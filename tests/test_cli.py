"""The `popdice` command as a user runs it: devices, status, flash, errors, safe mode."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_device_link import mpremote_exec

import popdice
from popdice.cli.devices import DEVICE_COLUMNS
from popdice.deploy.files import FIRMWARE_DIR, flash_files
from popdice.devices.client import LINK_COUNTERS
from popdice.sim.supervisor import SimulatedPico
from popdice_fw import PROTOCOL, VERSION

POPDICE = str(Path(sys.executable).with_name("popdice"))


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([POPDICE, *args], capture_output=True, text=True, timeout=timeout)


def test_help_teaches_every_command():
    out = run("--help").stdout
    for command in ("devices", "status", "flash", "sim", "demo"):
        assert command in out
    assert "examples:" in out
    assert "--export prints one game's journal as JSON" in " ".join(out.split())


def echo_server(stack: contextlib.ExitStack) -> int:
    """A TCP port on this machine that sends back whatever it gets (a serial loopback plug
    behind ``socket://``): its number."""
    server = stack.enter_context(socket.create_server(("127.0.0.1", 0)))

    def echo() -> None:
        with contextlib.suppress(OSError):
            connection, _ = server.accept()
            with connection:
                while data := connection.recv(4096):
                    connection.sendall(data)

    threading.Thread(target=echo, daemon=True).start()
    return server.getsockname()[1]


def closed_port() -> int:
    """A TCP port on this machine that nothing listens on."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        return server.getsockname()[1]


def test_a_port_with_no_board_behind_it_is_said_in_plain_words():
    with contextlib.ExitStack() as stack:
        echo, closed = echo_server(stack), closed_port()
        for port, said in [
            ("loop://", "loop:// is a loopback with no board behind it"),
            (
                "socket://256.0.0.1:99999",
                "socket://256.0.0.1:99999 is not a host and port PopDice can connect to",
            ),
            (
                f"socket://127.0.0.1:{closed}",
                f"socket://127.0.0.1:{closed} is not a host and port PopDice can connect to",
            ),
            (
                f"socket://127.0.0.1:{echo}",
                f"socket://127.0.0.1:{echo} answered without naming a board: not a PopDice one",
            ),
        ]:
            result = run("status", "--port", port)
            assert result.returncode == 2 and result.stdout == "", (port, result.stderr)
            assert result.stderr.startswith(f"error: {said}"), (port, result.stderr)
            assert result.stderr.count("\n") == 1, (port, result.stderr)
            assert "debug|info" not in result.stderr and "None" not in result.stderr


def test_bad_input_is_one_line_and_exit_2():
    result = run("status", "--port", "/dev/nonexistent")
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot open /dev/nonexistent")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    result = run("flash", "--port", "/dev/null", "--board", "toaster")
    assert result.returncode == 2 and "invalid choice: 'toaster'" in result.stderr


def test_devices_and_status_find_a_running_simulator(popper_dut):
    device_id = popper_dut.client.info.device_id
    popper_dut.release()
    listed = json.loads(run("devices", "--json", "--sim-only").stdout)
    mine = [d for d in listed if d["port"] == popper_dut.port]
    assert len(mine) == 1 and mine[0]["kind"] == "popper" and mine[0]["simulated"]
    assert mine[0]["device_id"] == device_id
    header, *rows = run("devices", "--sim-only").stdout.splitlines()
    assert re.split(" {2,}", header) == list(DEVICE_COLUMNS)
    mine = [re.split(" {2,}", row) for row in rows if popper_dut.port in row]
    assert mine == [["popper", device_id, VERSION, f"{popper_dut.port} (simulated)", "ready"]]
    status = json.loads(run("status", "--port", popper_dut.port, "--json").stdout)
    assert status["board"] == "popper" and status["heap_free"] > 0


def test_status_of_a_simulated_popper_is_readable_lines(popper_dut):
    popper_dut.client.pop()
    info = popper_dut.client.info
    popper_dut.release()
    result = run("status", "--port", popper_dut.port)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "board: popper",
        f"device id: {info.device_id}",
        f"port: {popper_dut.port}",
        f"session: {info.session} (new at every boot)",
    ]
    text = result.stdout
    assert re.search(r"^uptime: \d+(\.\d s| min \d\d s| h \d\d min)$", text, re.M)
    assert re.search(r"^heap free: \d{1,3}(,\d{3})* B$", text, re.M)
    overruns = r"^  overruns: [\d,]+ \(samples lost before the detector saw them\)$"
    assert re.search(overruns, text, re.M)
    assert "  pops: 1 (rolls since boot, by a press or by the host)" in lines
    assert "  accelerometer: ok" in lines and "  accelerometer address: 0x18" in lines
    link = lines[lines.index("link:") + 1 : lines.index("popper:")]
    assert len(link) == len(LINK_COUNTERS) and all(line.startswith("  ") for line in link)
    assert not re.search(r"[{}\[\]]|True|False|None", text)


def test_status_of_the_wrong_kind_is_refused_in_one_line(popper_dut):
    popper_dut.release()
    result = run("status", "--port", popper_dut.port, "--kind", "handheld")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert result.stderr.endswith(" is a popper, not a handheld\n")  # after the port


def test_status_json_is_the_reply_as_the_popper_sent_it(popper_dut):
    popper_dut.client.pop()
    info = popper_dut.client.info
    popper_dut.release()
    status = json.loads(run("status", "--port", popper_dut.port, "--json").stdout)
    assert (status["port"], status["device_id"]) == (popper_dut.port, info.device_id)
    assert (status["board"], status["fw"], status["proto"]) == ("popper", VERSION, PROTOCOL)
    assert status["pops"] == 1 and status["accel"] == "ok"
    assert set(status["detect_us"]) == {"n", "mean", "max"}
    assert status["link"] and all(count > 0 for count in status["link"].values())  # no zeros


@pytest.mark.rp2040_tier
def test_safe_mode_leaves_the_repl_free(sim_backend):
    with SimulatedPico("popper", hold=("mode",), backend=sim_backend) as sim:
        with pytest.raises(popdice.HandshakeFailed):
            popdice.connect(sim.port)
        assert mpremote_exec(sim.port, "print(6 * 7)") == "42"


@pytest.mark.rp2040_tier
def test_flash_deploys_compiled_firmware_and_boots_it(popper_dut):
    sim = popper_dut.sim
    if sim is None:
        pytest.skip("reads the flash back from the simulator")
    session = popper_dut.client.info.session
    boots = popper_dut.control.state().boots
    programmed = pages_programmed(popper_dut)
    popper_dut.release()
    result = run("flash", "--port", popper_dut.port, "--board", "popper", timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("flashed: popper")
    assert "[" in result.stderr and "main.py" in result.stderr  # the progress bar
    after = sim.flash_files()
    files = [f for f in flash_files("popper") if f.target != "main.py"]
    # A board of another machine than the RP2040 (the unix port) compiles the modules with
    # viper code itself: it gets them as sources.
    native = {f.target for f in files if "@micropython.viper" in f.source.read_text()}
    assert native >= {"popdice_fw/press.py", "popdice_fw/sampler.py"}
    if sim.backend == "rp2040":
        native = set()
    compiled = {f.target[: -len(".py")] + ".mpy" for f in files if f.target not in native}
    assert set(after) == compiled | native | {"main.py"}
    assert after["main.py"] == (FIRMWARE_DIR / "main.py").read_bytes()
    assert after["popdice_fw/link.mpy"].startswith(b"M")  # mpy-cross's header
    if sim.backend == "rp2040":  # the chip's flash was written: a page at least per file
        assert pages_programmed(popper_dut) >= programmed + len(after)
    # A unix-port process ends at a soft reset (and is started again); a Pico stays up.
    assert popper_dut.control.state().boots == boots + (1 if sim.backend == "unix" else 0)
    with popdice.connect(popper_dut.port) as fresh:
        assert fresh.info.session != session
        assert fresh.counter() == 1


def pages_programmed(dut) -> int:
    """Pages programmed in the emulated chip's flash so far (0 on the unix port)."""
    if dut.sim.backend != "rp2040":
        return 0
    return dut.control.emulator()["flash"]["programs"]


def test_demo_runs_the_link_on_simulators_then_points_at_the_table():
    result = subprocess.run(
        [POPDICE, "demo", "--sim", "--table", "ringer"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for kind in ("popper", "handheld"):
        assert f"no real {kind} plugged in: started a simulated one" in out
        assert f"{kind:9} still running" in out
    assert "demo finished" in out
    assert out.strip().endswith('popdice table ringer --sim --players "Ann,Bob,Cy"')


def test_demo_in_a_terminal_starts_the_table_on_simulated_devices(monkeypatch):
    from popdice.cli import demo
    from popdice.table import cli as table_cli

    started: list[tuple[str, bool, str]] = []

    def run_table(args, open_device, serve=None) -> int:
        started.append((args.game, args.sim, args.players))
        return 0

    monkeypatch.setattr(table_cli, "run_table", run_table)
    assert demo.run_table_demo("lowdown", "Ann,Bob", interactive=True) == 0
    assert started == [("lowdown", True, "Ann,Bob")]


def test_demo_says_its_defaults_and_refuses_players_with_no_table(monkeypatch, capsys) -> None:
    from popdice.cli import demo
    from popdice.cli.main import main
    from popdice.table import cli as table_cli

    linked: list[bool] = []
    tables: list[tuple[str, str]] = []

    def run_demo(real: bool = True) -> int:
        linked.append(real)
        return 0

    def run_table_demo(game: str, players: str, interactive: bool) -> int:
        tables.append((game, players))
        return 0

    monkeypatch.setattr(demo, "run_demo", run_demo)
    monkeypatch.setattr(demo, "run_table_demo", run_table_demo)
    monkeypatch.setattr(table_cli, "has_terminal", lambda: True)
    assert main(["demo", "--table", "none", "--players", "Zed"]) == 2
    out, err = capsys.readouterr()
    assert (
        out == "" and err == "error: --players is for the table demo: --table none plays no game\n"
    )
    assert linked == [] and tables == []
    assert main(["demo", "--table", "none"]) == 0
    assert linked == [True] and tables == []
    assert main(["demo", "--sim"]) == 0
    assert linked == [True, False] and tables == [("lowdown", "Ann,Bob,Cy")]
    assert main(["demo", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "(default: lowdown, with the popper and the handheld)" in shown
    assert '(default: "Ann,Bob,Cy")' in shown


def test_every_usage_error_is_one_line_and_exit_2(capsys) -> None:
    from popdice.cli.main import build_parser, main

    commands = next(
        action.choices
        for action in build_parser()._actions
        if isinstance(action.choices, dict) and "devices" in action.choices
    )
    for argv in [["nosuch"], *[[name, "--not-an-option"] for name in commands]]:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith("error: popdice"), (argv, err)
        assert "--help" in err


def test_json_with_huge_numbers_or_deep_nesting_is_one_line(tmp_path, capsys) -> None:
    from popdice.cli.main import main
    from popdice.sim.physics import press_trace
    from popdice.traces.files import write_trace

    trace = tmp_path / "t.csv"
    write_trace(trace, press_trace(seed=1))
    big = tmp_path / "big.json"
    big.write_text('{"x": ' + "9" * 5000 + "}")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for document, words in ((big, "too many digits"), (deep, "nested too deeply")):
        for argv in (
            ["check", "ringer", str(document)],
            ["check", "popalotsy", str(document)],
            ["score", "lowdown", str(document)],
            ["detect", str(trace), "--labels", str(document)],
            ["detect", str(trace), "--config", str(document)],
        ):
            assert main(argv) == 2, argv
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1 and words in err, (argv, err)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_a_full_disk_is_one_line_and_exit_1() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [POPDICE, "bom", "--board", "popper"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr == "error: No space left on device\n"


def test_output_redirected_in_a_legacy_encoding_is_utf8_all_the_same() -> None:
    # Windows' redirected output: cp1252, which has no ohm sign for the BOM's resistor.
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    done = subprocess.run(
        [POPDICE, "bom", "--board", "popper", "--csv"], capture_output=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert "330 Ω" in done.stdout.decode("utf-8")


def test_text_utf8_cannot_carry_is_written_escaped_not_raised(tmp_path: Path) -> None:
    # A board's error text decoded with surrogatepass can hold a lone surrogate.
    code = (
        "import sys\nfrom popdice.cli.main import _utf8_output\n"
        "_utf8_output()\nprint('key \\udc80 refused')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout == b"key \\udc80 refused\n"
