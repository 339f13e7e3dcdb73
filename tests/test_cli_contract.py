"""The command line's contract, fuzzed: every subcommand, every option, bad values of every
kind (huge and negative numbers, empty strings, missing files, folders given as files,
binary files, JSON that is huge, deep or of the wrong type, unknown options) each give exit
code 2 and exactly one short line on standard error, never a traceback. The commands run
in-process through ``popdice.cli.main.main``; a few run as real processes."""

from __future__ import annotations

import argparse
import io
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from popdice.cli.main import build_parser, main
from popdice.console.arguments import (
    OutputFile,
    file_name,
    folder_name,
    input_file,
    output_file,
    serial_port,
)
from popdice.console.help_text import HELP_WIDTH
from popdice.console.messages import LINE_LIMIT
from popdice.errors import SimulatorError
from popdice.sim.supervisor import SimulatedPico

POPDICE = str(Path(sys.executable).with_name("popdice"))
HUGE = "9" * 5000
FUZZ_SECONDS = 20
NO_SIMULATOR = "a bad value got as far as starting a simulator"


@pytest.fixture(scope="module")
def files() -> Iterator[dict[str, str]]:
    """Bad files of every kind, a valid document and trace, and places that hold no device,
    in a folder with a short name: a message may quote a whole path, and a path over 60
    characters counts as a value quoted too long (pytest's own folders outgrow that once it
    has made a hundred, /tmp/pytest-of-root/pytest-100/popen-gw0/fuzz0/missing.json/x)."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as name:
        yield bad_files(Path(name))


def bad_files(folder: Path) -> dict[str, str]:
    """Makes them in ``folder``; their paths by name."""
    made = {
        "binary": b"\xff\xfe\x00\x9c not text",
        "huge.json": b'{"x": ' + HUGE.encode() + b"}",
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
        "list.json": b'[true, "x"]',
        "string.json": b'"boards"',
        "ringer.json": b'{"die": 4, "top": null, "events": []}',
        "trace.csv": b"t_ms,x_g,y_g,z_g\n0,0,0,1\n2.5,0,0,1\n",
        "image.uf2": b"UF2\n" * 64,
    }
    for name, data in made.items():
        (folder / name).write_bytes(data)
    (folder / "empty").mkdir()
    paths = {name: str(folder / name) for name in [*made, "empty"]}
    paths["missing"] = str(folder / "missing.json")
    paths["folder"] = str(folder)
    paths["port"] = str(folder / "no-such-port")
    paths["out.csv"] = str(folder / "out.csv")
    paths["out.json"] = str(folder / "out.json")
    paths["out.uf2"] = str(folder / "out.uf2")
    paths["out.svg"] = str(folder / "out.svg")
    paths["out.stl"] = str(folder / "out.stl")
    return paths


@pytest.fixture(autouse=True)
def no_devices_or_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator is found or started, no real journal is touched, standard input is
    not a terminal."""
    monkeypatch.setenv("POPDICE_SIM_DIR", str(tmp_path / "sims"))
    monkeypatch.setenv("POPDICE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))

    def start(self: SimulatedPico) -> SimulatedPico:
        raise SimulatorError(NO_SIMULATOR)

    monkeypatch.setattr(SimulatedPico, "start", start)


def leaf_commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every runnable command (``check ringer``, ``status``, ...) and its parser."""
    return every_command(leaves_only=True)


def every_command(leaves_only: bool = False) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command and its parser: the runnable ones and, unless ``leaves_only``, the
    groups of them (``check``, ``score``)."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if words and not (subs and leaves_only):
            found[words] = parser
        for action in subs:
            for name, child in action.choices.items():
                walk(child, (*words, name))

    walk(build_parser(), ())
    return found


def base_arguments(files: dict[str, str]) -> dict[tuple[str, ...], dict[str, str | None]]:
    """Per command, good values for what it requires (by dest; None: a flag), such that a
    bad value that slipped through would still reach no device and start nothing slow."""
    port: dict[str, str | None] = {"port": files["port"]}
    return {
        ("devices",): {},
        ("status",): port,
        ("flash",): {**port, "board": "popper"},
        ("fairness",): port,
        ("demo",): {},
        ("sim",): {"kind": "popper"},
        ("uf2",): {"board": "popper", "out": files["out.uf2"], "micropython": files["image.uf2"]},
        ("bom",): {"board": "popper"},
        ("wiring",): {"board": "popper", "out": files["out.svg"]},
        ("case",): {"board": "popper", "out": files["out.stl"]},
        ("check", "popalotsy"): {"file": files["ringer.json"]},
        ("check", "ringer"): {"file": files["ringer.json"]},
        ("check", "lowdown-move"): {"file": files["ringer.json"]},
        ("score", "lowdown"): {"file": files["ringer.json"]},
        ("simulate",): {"game": "ringer", "games": "1", "rule": "max_turns=5"},
        ("table",): {"game": "ringer", "players": "Ann"},
        ("history",): {},
        ("detect",): {"trace": files["trace.csv"]},
        ("record",): {**port, "seconds": "1", "out": files["out.csv"], "prompt": None},
        ("tune",): {"folder": files["empty"], "out": files["out.json"]},
        ("calibrate",): port,
    }


def bad_values(action: argparse.Action, files: dict[str, str]) -> list[str]:
    """Values ``action`` must refuse, by what it takes."""
    if action.type in (file_name, input_file):
        return ["", files["missing"], files["folder"], files["binary"], files["huge.json"],
                files["deep.json"], files["list.json"], files["string.json"], "a\0b"]  # fmt: skip
    if action.type is folder_name:
        return ["", files["binary"], "a\0b"]
    if action.type is output_file or isinstance(action.type, OutputFile):
        wrong_kind = ["-", files["out.csv"]] if isinstance(action.type, OutputFile) else []
        return ["", files["folder"], files["missing"] + "/x", "a\0b", *wrong_kind]
    if action.type is serial_port:
        return ["", " ", files["missing"], "x" * 300, "a\0b"]
    if action.choices is not None:
        return ["", "nosuch", HUGE]
    if action.type is not None:  # a number
        return ["", "x", HUGE, "-" + HUGE, "-1", "1e999", "nan"]
    return ["", HUGE]


def argv_for(
    words: tuple[str, ...],
    parser: argparse.ArgumentParser,
    values: dict[str, str | None],
) -> list[str]:
    argv = list(words)
    for action in parser._actions:
        if action.dest not in values:
            continue
        value = values[action.dest]
        if not action.option_strings:
            argv.append(value or "")
        elif value is None:
            argv.append(action.option_strings[-1])
        else:
            argv += [action.option_strings[-1], value]
    return argv


def cases(files: dict[str, str]) -> Iterator[tuple[list[str], str]]:
    """(argv, the bad value in it) for every command and every argument that takes one."""
    base = base_arguments(files)
    commands = leaf_commands()
    assert set(commands) == set(base), "a new command needs its good values in base_arguments"
    for words, parser in commands.items():
        good = base[words]
        yield [*words, "--no-such-option"], "--no-such-option"
        for action in parser._actions:
            if action.nargs == 0 or isinstance(action, argparse._SubParsersAction):
                continue
            for value in bad_values(action, files):
                yield argv_for(words, parser, {**good, action.dest: value}), value


def run_in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # main must not let one through; the assertion says so
        code = -1000 - int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_refuses_every_bad_value_in_one_line(files, capsys) -> None:
    started = time.monotonic()
    failures = []
    count = 0
    for argv, value in cases(files):
        count += 1
        code, out, err = run_in_process(argv, capsys)
        shown = [word if len(word) < 60 else word[:20] + "..." for word in argv]
        if code != 2 or err.count("\n") != 1 or not err.endswith("\n") or "Traceback" in err:
            failures.append(f"{shown}: exit {code}, stderr {err[:300]!r}")
        elif NO_SIMULATOR in err:
            failures.append(f"{shown}: accepted, a simulator would have started")
        elif len(err) > LINE_LIMIT + 1 or (len(value) > 60 and value[:60] in err):
            failures.append(f"{shown}: the line is too long: {err[:300]!r}")
        elif out:
            failures.append(f"{shown}: printed on standard output: {out[:100]!r}")
    assert not failures, f"{len(failures)} of {count}:\n" + "\n".join(failures)
    assert count > 300
    assert time.monotonic() - started < FUZZ_SECONDS


def test_every_command_teaches_by_example() -> None:
    for words, parser in every_command().items():
        command = "popdice " + " ".join(words)
        shown = parser.format_help()
        assert "``" not in shown, f"{command} --help shows reStructuredText"
        _, found, after = shown.partition("\nexamples:\n")
        examples = list(itertools.takewhile(str.strip, after.splitlines()))
        assert found and any(command in line for line in examples), f"{command}: no examples"


def test_help_is_wrapped_to_fit(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", str(HELP_WIDTH))
    for words, parser in {(): build_parser(), **every_command()}.items():
        wide = [line for line in parser.format_help().splitlines() if len(line) > HELP_WIDTH]
        assert not wide, (words, wide)


def test_empty_values_are_called_empty(files, capsys) -> None:
    for argv in (
        ["status", "--port", ""],
        ["fairness", "--port", ""],
        ["record", "--port", "", "--seconds", "1", "--out", files["out.csv"]],
        ["check", "ringer", ""],
        ["score", "lowdown", "--data", "", files["ringer.json"]],
        ["detect", ""],
        ["tune", files["empty"], "--out", ""],
        ["uf2", "--board", "popper", "--out", ""],
        ["wiring", "--board", "popper", "--out", ""],
        ["case", "--board", "popper", "--out", ""],
    ):
        code, out, err = run_in_process(argv, capsys)
        assert code == 2 and out == "" and "is empty" in err and err.count("\n") == 1, (argv, err)


def test_bounds_are_stated_and_checked_before_any_device(files, capsys, monkeypatch) -> None:
    from popdice.cli import devices

    def no_device(*_args: object) -> str:
        raise AssertionError("a device was looked for")

    monkeypatch.setattr(devices, "pick_port", no_device)
    for argv, words in (
        (["fairness", "--batch", "0"], "from 1 to 20,000, not '0'"),
        (["fairness", "--batch", "-1"], "from 1 to 20,000, not '-1'"),
        (["fairness", "--batch", str(10**9)], "from 1 to 20,000, not '1000000000'"),
        (["fairness", "--rolls", str(10**9)], "from 1 to 10,000,000"),
        (["simulate", "ringer", "--games", str(10**12)], "from 1 to 100,000"),
        (["simulate", "ringer", "--games", HUGE], "not '" + "9" * 18 + "..." + "9" * 19 + "'"),
    ):
        code, out, err = run_in_process(argv, capsys)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, (argv, err)


def test_help_states_defaults_ranges_and_output(capsys) -> None:
    for argv, words in (
        (
            ["fairness", "--help"],
            ["(default: the mode it is in)", "(default 10,000; 1 to 10,000,000)"],
        ),
        (["record", "--help"], ["seconds between prompts, 3 to 60 (default 4)", "1 to 3600 s"]),
        (
            ["sim", "--help"],
            ["first the serial port to open", '"control: PATH"', '"device id: ID"'],
        ),
    ):
        assert main(argv) == 0
        shown = " ".join(capsys.readouterr().out.split())
        for word in words:
            assert word in shown, (argv, word)


def test_a_real_process_keeps_the_contract(files) -> None:
    for argv, words in (
        (["simulate", "ringer", "--games", HUGE], "argument --games"),
        (["status", "--port", ""], "the port is empty"),
        (["check", "ringer", files["deep.json"]], "nested too deeply"),
        (
            ["check", "ringer", "-", "--nope"],
            "popdice check ringer: unrecognized arguments: --nope",
        ),
        (
            ["status", "--nope", "x"],
            "popdice status: unrecognized arguments: --nope x (see popdice ",
        ),
        (["--nope"], "popdice: unrecognized arguments: --nope (see popdice --help)"),
    ):
        done = subprocess.run(
            [POPDICE, *argv],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "POPDICE_SIM_DIR": files["empty"]},
        )
        assert done.returncode == 2 and done.stdout == "", (argv, done)
        assert done.stderr.count("\n") == 1 and words in done.stderr, (argv, done.stderr)
        assert len(done.stderr) <= LINE_LIMIT + 1


def test_a_closed_pipe_ends_quietly(files, tmp_path) -> None:
    events = ",".join(['{"roll": 3}'] * 20000)
    document = tmp_path / "long.json"
    document.write_text('{"die": 4, "top": null, "events": [' + events + "]}")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [POPDICE, "check", "ringer", str(document)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1 and done.stderr == ""


def test_a_long_file_name_is_shortened_keeping_its_end(tmp_path, capsys) -> None:
    deep = tmp_path.joinpath(*["folder"] * 20, "race.json")
    code, out, err = run_in_process(["check", "popalotsy", str(deep)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "...r/folder/race.json: no such file" in err and len(err) < 100, err
