"""Every file a command reads has a stated largest size, and every path it writes is a new or
a regular file (docs/reliability.md, "Files in and out"). Fuzzed over every command the
parser has: each input pointed at /dev/zero, a folder and a file past its size; each output
pointed at a device, a FIFO, a folder and a socket. Each ends at once, in one line, exit
code 2, leaving what was there as it was. The /dev/zero cases run as processes under a
memory limit, so that a reader gone endless again cannot eat the machine."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import os
import resource
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli_contract import argv_for, bad_files, base_arguments, leaf_commands, run_in_process

from popdice.console.arguments import OutputFile, file_name, input_file, output_file
from popdice.deploy.base_image import IMAGE_MOST
from popdice.errors import SimulatorError
from popdice.files import MB, FileRefused, output_target, replacing, size_text, write_replacing
from popdice.games.cli import DOCUMENT_MOST
from popdice.games.data import DATA_FILE_MOST
from popdice.sim.supervisor import SimulatedPico
from popdice.traces import files as trace_files
from popdice.traces.files import LABELS_MOST, TRACE_MOST
from popdice.traces.tune import DETECTOR_FILE_MOST

POPDICE = str(Path(sys.executable).with_name("popdice"))
MEMORY_LIMIT = 1024 * MB  # of address space, for a process that might read without end
TIMEOUT = 20  # seconds before a process that never ends is killed (the test then fails)
MOST_CPU_SECONDS = 1.0  # a refusal costs a process less than this, starting Python included
MOST_RSS_MB = 64  # and it holds less than this: Python and popdice (some 15 MB), the input
FUZZ_SECONDS = 15

# The stated size of every input, by command and argument: a new input must be added here.
INPUTS: dict[tuple[str, ...], dict[str, int]] = {
    ("check", "popalotsy"): {"file": DOCUMENT_MOST, "data": DATA_FILE_MOST},
    ("check", "ringer"): {"file": DOCUMENT_MOST, "data": DATA_FILE_MOST},
    ("check", "lowdown-move"): {"file": DOCUMENT_MOST, "data": DATA_FILE_MOST},
    ("score", "lowdown"): {"file": DOCUMENT_MOST, "data": DATA_FILE_MOST},
    ("simulate",): {"data": DATA_FILE_MOST},
    ("detect",): {"trace": TRACE_MOST, "labels": LABELS_MOST, "config": DETECTOR_FILE_MOST},
    ("uf2",): {"micropython": IMAGE_MOST},
    ("sim",): {"micropython": IMAGE_MOST},
    ("calibrate",): {"apply": DETECTOR_FILE_MOST},
}
# What a command needs beside its base arguments for an input to be read at all.
NEEDS: dict[tuple[str, ...], dict[str, str | None]] = {("sim",): {"rp2040": None}}


@pytest.fixture(scope="module")
def files() -> Iterator[dict[str, str]]:
    """Good and bad files (test_cli_contract's) in a folder with a short name."""
    with tempfile.TemporaryDirectory(prefix="io-") as name:
        yield bad_files(Path(name))


@pytest.fixture(autouse=True)
def no_devices_or_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator is found or started, no real journal is touched, standard input is
    empty and not a terminal."""
    monkeypatch.setenv("POPDICE_SIM_DIR", str(tmp_path / "sims"))
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))

    def start(self: SimulatedPico) -> SimulatedPico:
        raise SimulatorError("a bad file got as far as starting a simulator")

    monkeypatch.setattr(SimulatedPico, "start", start)


def inputs() -> Iterator[tuple[tuple[str, ...], str, int]]:
    """(the command's words, the argument's dest, its stated size) for every argument that
    names a file to read."""
    found = set()
    for words, parser in leaf_commands().items():
        for action in parser._actions:
            if action.type not in (file_name, input_file):
                continue
            found.add((words, action.dest))
            limit = INPUTS.get(words, {}).get(action.dest)
            assert limit is not None, f"{words} {action.dest}: give it a stated size in INPUTS"
            yield words, action.dest, limit
    stated = {(words, dest) for words, dests in INPUTS.items() for dest in dests}
    assert found == stated, "INPUTS names an argument the commands no longer have"


def with_value(words: tuple[str, ...], dest: str, value: str, files: dict[str, str]) -> list[str]:
    """The command's argv with ``value`` for ``dest`` and good values for the rest."""
    parser = leaf_commands()[words]
    values = {**base_arguments(files)[words], **NEEDS.get(words, {}), dest: value}
    return argv_for(words, parser, values)


def one_line(code: int, out: str, err: str) -> bool:
    return (
        code == 2
        and err.count("\n") == 1
        and err.endswith("\n")
        and "Traceback" not in err
        and "MemoryError" not in err
        and "got as far as starting a simulator" not in err
        and out == ""
    )


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


# `popdice ARGV`, telling the file named first its peak resident size (kB) as it ends: the
# kernel's own figure for a child counts the parent's size at the fork.
CHILD = """\
import sys
from popdice.cli.main import main
try:
    code = main(sys.argv[2:])
finally:
    peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
    open(sys.argv[1], "w").write(peak[0].split()[1])
sys.exit(code)
"""


def run_bounded(argv: list[str], stdin: int | None = None) -> tuple[int, str, str, float, float]:
    """Runs ``popdice argv`` under a memory limit and a timeout: its exit code, standard
    output and error, CPU seconds and largest resident size (MB)."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile() as peak,
    ):
        process = subprocess.Popen(
            [sys.executable, "-c", CHILD, peak.name, *argv],
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            stdout=out,
            stderr=err,
            preexec_fn=limit_memory,
            env={**os.environ, "POPDICE_SIM_DIR": tempfile.gettempdir() + "/io-no-sims"},
        )
        timer = threading.Timer(TIMEOUT, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (
            process.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            usage.ru_utime + usage.ru_stime,
            int(Path(peak.name).read_text() or "0") / 1024,
        )


def test_every_input_pointed_at_dev_zero_ends_at_once_in_one_line(files) -> None:
    started = time.monotonic()
    failures = []
    cases = [with_value(words, dest, "/dev/zero", files) for words, dest, _ in inputs()]
    cases += [[*words, "-"] for words in INPUTS if "file" in INPUTS[words]]  # standard input
    recordings = Path(files["folder"]) / "recordings"
    recordings.mkdir()
    (recordings / "zero.csv").symlink_to("/dev/zero")
    (recordings / "zero.labels.json").write_text('{"presses_ms": []}')
    cases.append(["tune", str(recordings), "--out", files["out.json"]])
    for argv in cases:
        with open("/dev/zero", "rb") as zero:
            code, out, err, cpu, rss = run_bounded(argv, zero.fileno())
        if not one_line(code, out, err):
            failures.append(f"{argv}: exit {code}, stderr {err[-300:]!r}")
        elif cpu > MOST_CPU_SECONDS or rss > MOST_RSS_MB:
            failures.append(f"{argv}: {cpu:.2f} s of CPU, {rss:.0f} MB: {err!r}")
    assert not failures, "\n".join(failures)
    assert len(cases) >= 20
    assert time.monotonic() - started < FUZZ_SECONDS


def test_every_input_refuses_a_folder_and_a_file_past_its_size(files, capsys, tmp_path) -> None:
    failures = []
    count = 0
    for words, dest, limit in inputs():
        past = tmp_path / f"{'-'.join(words)}-{dest}.past"
        with open(past, "wb") as sparse:
            sparse.truncate(limit + 1)  # a hole: nothing is written, nothing need be read
        for value, says in ((str(past), f"larger than {size_text(limit)}"), (files["empty"], "")):
            count += 1
            argv = with_value(words, dest, value, files)
            code, out, err = run_in_process(argv, capsys)
            if not one_line(code, out, err) or says not in err:
                failures.append(f"{argv}: exit {code}, stderr {err[:300]!r}")
    assert not failures, "\n".join(failures)
    assert count == 2 * sum(len(dests) for dests in INPUTS.values())


def test_standard_input_past_its_size_is_refused(capsys, monkeypatch) -> None:
    document = b'{"die": 4, "top": null, "events": [' + b" " * DOCUMENT_MOST + b"]}"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(document)))
    code, out, err = run_in_process(["check", "ringer", "-"], capsys)
    assert one_line(code, out, err)
    assert err == "error: standard input is larger than 8 MB, the most a JSON document can be\n"


def test_standard_input_closed_is_said_in_one_line(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # as Python starts with ``<&-``
    code, out, err = run_in_process(["check", "ringer", "-"], capsys)
    assert one_line(code, out, err)
    assert (
        err == "error: standard input is closed: give the JSON document through a pipe or a file\n"
    )


def test_a_packed_trace_is_held_to_its_size_as_it_unpacks(capsys, tmp_path, monkeypatch) -> None:
    lines = "".join(f"{t},0,0,1\n" for t in range(2000)).encode()
    packed = tmp_path / "long.csv.gz"
    packed.write_bytes(gzip.compress(lines))
    monkeypatch.setattr(trace_files, "TRACE_MOST", len(lines) - 1)
    assert packed.stat().st_size < len(lines) // 4
    code, out, err = run_in_process(["detect", str(packed)], capsys)
    assert one_line(code, out, err) and "is larger than" in err and "a trace can be" in err
    monkeypatch.setattr(trace_files, "TRACE_MOST", len(lines))
    assert run_in_process(["detect", str(packed)], capsys)[0] == 0


def test_a_trace_line_without_end_is_refused_at_once(capsys, tmp_path) -> None:
    endless = tmp_path / "one-line.csv"
    endless.write_bytes(b"0" * 10_000)
    code, out, err = run_in_process(["detect", str(endless)], capsys)
    assert one_line(code, out, err) and "one-line.csv:1: not a CSV trace" in err


def feed(document: bytes) -> str:
    """A pipe that gives ``document`` and ends, as ``<(...)`` does: its /dev/fd name."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with open(write_end, "wb") as pipe:
            pipe.write(document)

    threading.Thread(target=write, daemon=True).start()
    return f"/dev/fd/{read_end}"


def test_input_through_a_pipe_within_its_size_still_works(files, capsys) -> None:
    ringer = Path(files["ringer.json"]).read_bytes()
    code, out, err = run_in_process(["check", "ringer", feed(ringer)], capsys)
    assert (code, err) == (0, "") and '"results": []' in out
    trace = b"t_ms,x_g,y_g,z_g\n" + b"".join(b"%d,0,0,1\n" % (t * 3) for t in range(3000))
    labels = b'{"presses_ms": [100], "releases_ms": [200]}'
    code, out, err = run_in_process(["detect", feed(trace), "--labels", feed(labels)], capsys)
    assert (code, err) == (0, "") and '"labelled": 1' in out
    done = subprocess.run(
        [POPDICE, "check", "ringer", "-"], input=ringer, capture_output=True, timeout=30
    )
    assert (done.returncode, done.stderr) == (0, b"") and b'"results": []' in done.stdout


# --- outputs --------------------------------------------------------------------------------


def outputs() -> Iterator[tuple[tuple[str, ...], str]]:
    """(the command's words, the argument's dest) for every argument naming a file to write
    (``output_file``, or an ``OutputFile``: that, and the name's ending)."""
    for words, parser in leaf_commands().items():
        for action in parser._actions:
            if action.type is output_file or isinstance(action.type, OutputFile):
                yield words, action.dest


def odd_places(folder: Path) -> dict[str, Path]:
    """A FIFO, a folder with a file in it, a socket, a link to the FIFO and, where this user
    may make one, a device of /dev/null's kind, all in ``folder``: none of them a regular
    file. Never a link to a real device: a writer gone wrong that follows links would
    replace the device itself."""
    places = {"fifo": folder / "fifo", "folder": folder / "folder", "socket": folder / "sock"}
    os.mkfifo(places["fifo"])
    places["folder"].mkdir()
    (places["folder"] / "kept.txt").write_text("kept")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(places["socket"]))
    server.close()
    places["link to the fifo"] = folder / "fifo-link"
    places["link to the fifo"].symlink_to("fifo")
    try:
        os.mknod(folder / "null", stat.S_IFCHR | 0o666, os.stat(os.devnull).st_rdev)
        places["device"] = folder / "null"
    except OSError:
        pass  # only root may make a device; the other places still stand
    return places


def as_it_was(place: Path) -> tuple[object, ...]:
    """What must not change at ``place``: what it is, what it holds or leads to."""
    status = os.lstat(place)
    kind = stat.S_IFMT(status.st_mode)
    if stat.S_ISLNK(status.st_mode):
        return kind, os.readlink(place), stat.S_IFMT(os.stat(place).st_mode)
    if stat.S_ISDIR(status.st_mode):
        return kind, sorted(os.listdir(place))
    return kind, status.st_ino, status.st_rdev


@pytest.fixture()
def short_folder() -> Iterator[Path]:
    """A folder whose name is short enough for a socket's path."""
    with tempfile.TemporaryDirectory(prefix="io-") as name:
        yield Path(name)


@pytest.fixture()
def places(short_folder: Path) -> Iterator[dict[str, Path]]:
    """``odd_places``, with the FIFO read all along (so that a writer gone wrong cannot
    hang the test), and nothing read from it by the end."""
    made = odd_places(short_folder)
    reader = os.open(made["fifo"], os.O_RDONLY | os.O_NONBLOCK)
    got = bytearray()
    done = threading.Event()

    def drain() -> None:
        while not done.wait(0.01):
            with contextlib.suppress(BlockingIOError):
                got.extend(os.read(reader, 1 << 16))

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    yield made
    done.set()
    thread.join()
    os.close(reader)
    assert got == b"", "something was written into the FIFO"


def test_every_out_refuses_a_device_a_fifo_a_folder_and_a_socket(files, capsys, places) -> None:
    before = {name: as_it_was(place) for name, place in places.items()}
    failures = []
    found = list(outputs())
    assert {words for words, _ in found} >= {("wiring",), ("uf2",), ("tune",), ("record",)}
    for words, dest in found:
        for name, place in places.items():
            argv = with_value(words, dest, str(place), files)
            code, out, err = run_in_process(argv, capsys)
            if not one_line(code, out, err) or str(place) not in err:
                failures.append(f"{argv} ({name}): exit {code}, stderr {err[:300]!r}")
    assert not failures, "\n".join(failures)
    assert {name: as_it_was(place) for name, place in places.items()} == before


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_every_out_refuses_a_folder_where_no_file_can_be_made(files, capsys) -> None:
    place = "/proc/popdice-never-written.csv"  # a folder, but no file can be made in it
    with pytest.raises(FileRefused, match="no file can be made in /proc"):
        output_target(place)  # before the work: a recording is not made to be lost
    failures = []
    for words, dest in outputs():
        argv = with_value(words, dest, place, files)
        code, out, err = run_in_process(argv, capsys)
        if not one_line(code, out, err) or place not in err:
            failures.append(f"{argv}: exit {code}, stderr {err[:300]!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(os.name == "nt", reason="Windows words the error differently")
def test_every_out_refuses_a_name_too_long_for_the_disk(files, capsys, tmp_path) -> None:
    place = str(tmp_path / ("x" * 300))  # most disks take names of at most 255 bytes
    with pytest.raises(FileRefused, match="File name too long"):
        output_target(place)
    failures = []
    for words, dest in outputs():
        argv = with_value(words, dest, place, files)
        code, out, err = run_in_process(argv, capsys)
        if not one_line(code, out, err) or "File name too long" not in err:
            failures.append(f"{argv}: exit {code}, stderr {err[:300]!r}")
    assert not failures, "\n".join(failures)


def test_an_output_chosen_by_the_command_is_held_to_the_same(
    files, capsys, short_folder, places, monkeypatch
) -> None:
    before = {name: as_it_was(place) for name, place in places.items()}
    monkeypatch.chdir(short_folder)
    for place in places.values():
        default = short_folder / "popdice-popper.uf2"  # uf2 without --out
        default.symlink_to(place)
        code, out, err = run_in_process(["uf2", "--board", "popper"], capsys)
        assert one_line(code, out, err) and "popdice-popper.uf2" in err, err
        default.unlink()
        labels = short_folder / "rec.labels.json"  # record's labels, beside its --out
        labels.symlink_to(place)
        argv = ["record", "--port", files["port"], "--seconds", "1", "--out", "rec.csv"]
        code, out, err = run_in_process([*argv, "--prompt"], capsys)
        assert one_line(code, out, err) and "rec.labels.json" in err, err
        labels.unlink()
    assert {name: as_it_was(place) for name, place in places.items()} == before
    for place in places.values():
        with pytest.raises(FileRefused, match=r"is a (device|FIFO|socket|folder)"):
            write_replacing(place, "never written")
    assert {name: as_it_was(place) for name, place in places.items()} == before


def test_an_out_replaces_a_regular_file_whole_and_writes_through_a_link(capsys, tmp_path) -> None:
    real = tmp_path / "real.svg"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.svg"
    link.symlink_to(real.name)
    code, _, err = run_in_process(["wiring", "--board", "popper", "--out", str(link)], capsys)
    assert (code, err) == (0, "")
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_text().startswith("<svg") and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.svg", "real.svg"]


def test_a_write_that_fails_leaves_the_old_file(tmp_path) -> None:
    old = tmp_path / "detector.json"
    old.write_text("old")

    class Broken(Exception):
        pass

    with pytest.raises(Broken), replacing(old) as stream:
        stream.write(b"half")
        raise Broken
    assert old.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == [old.name]


def test_argparse_types_are_what_the_fuzz_enumerates() -> None:
    """The fuzz finds inputs and outputs by their argument types: a file argument must use
    one of them, or it would be left out."""
    for words, parser in leaf_commands().items():
        for action in parser._actions:
            takes_file = action.metavar and any(
                word in str(action.metavar) for word in ("FILE", ".json", ".uf2", "TRACE")
            )
            if takes_file and not isinstance(action, argparse._SubParsersAction):
                assert action.type in (file_name, input_file, output_file) or isinstance(
                    action.type, OutputFile
                ), (words, action.dest)
