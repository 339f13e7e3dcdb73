"""What the command line loads (issue 14): `import popdice` loads none of its modules,
`popdice --help` no simulator, table, game engine, asyncio or Textual, and a subcommand
only its own; a subcommand whose arguments come late has the same --help all the same.
Each import check runs in a fresh interpreter and reads its ``sys.modules``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from popdice.cli.main import SUBCOMMANDS, SubcommandParser, build_parser
from popdice.devices.connect import client_class
from popdice.devices.handheld import Handheld
from popdice.devices.popper import Popper

# The modules `popdice --help` must not load, by name or as a package's prefix.
HEAVY = (
    "popdice.sim",
    "popdice.table",
    "popdice.games",
    "popdice.traces",
    "popdice.sim.rp2040",
    "asyncio",
    "textual",
)
ENGINES = (
    "popdice.games.lowdown.state",
    "popdice.games.ringer.state",
    "popdice.games.popalotsy.state",
)

LOADED = """\
import contextlib, io, json, sys
from popdice.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)))
"""


def modules_loaded(*argv: str) -> set[str]:
    """Every module a fresh interpreter holds after ``popdice ARGV``."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def among(loaded: set[str], names: tuple[str, ...]) -> list[str]:
    """The loaded modules that are one of ``names`` or inside one of them."""
    return sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in names))


def test_import_popdice_loads_none_of_its_modules() -> None:
    code = "import json, sys, popdice; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    loaded = set(json.loads(done.stdout))
    assert among(loaded, ("popdice",)) == ["popdice"]
    assert not among(loaded, ("popdice_fw", "serial", "typing", "dataclasses"))


def test_help_loads_no_simulator_table_engine_asyncio_or_textual() -> None:
    loaded = modules_loaded("--help")
    assert not among(loaded, HEAVY)
    assert not among(loaded, ("popdice.devices.client", "popdice.devices.link", "serial"))


@pytest.mark.parametrize(
    ("argv", "not_loaded"),
    [
        (["check", "ringer", "--help"], (*ENGINES, "popdice.sim", "popdice.table", "asyncio")),
        (
            ["status", "--help"],
            ("popdice.games", "popdice.sim", "popdice.table", "popdice.deploy.files", "asyncio"),
        ),
        (["sim", "--help"], ("popdice.games", "popdice.table", "textual")),
    ],
)
def test_a_subcommand_loads_only_its_own(argv: list[str], not_loaded: tuple[str, ...]) -> None:
    assert not among(modules_loaded(*argv), (*not_loaded, "textual"))


def test_check_ringer_judges_without_the_engines(tmp_path) -> None:
    document = tmp_path / "plays.json"
    document.write_text('{"die": 4, "top": {"suit": "pink", "number": 3}, "events": []}')
    loaded = modules_loaded("check", "ringer", str(document))
    assert "popdice.games.ringer.check" in loaded
    assert not among(loaded, (*ENGINES, "popdice.sim", "popdice.table", "asyncio", "textual"))


def test_each_subcommand_gets_its_arguments_when_chosen_with_the_same_help() -> None:
    def subcommands(parser: argparse.ArgumentParser) -> dict[str, SubcommandParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        found = dict(action.choices)
        assert all(isinstance(p, SubcommandParser) for p in found.values())
        return found

    lazy, complete = subcommands(build_parser(complete=False)), subcommands(build_parser())
    assert list(lazy) == [name for name, _, _ in SUBCOMMANDS] == list(complete)
    assert not any(parser.has_arguments for parser in lazy.values())
    for name, parser in lazy.items():
        assert parser.format_help() == complete[name].format_help(), name
        assert parser.has_arguments


def test_a_handshake_names_the_client_class_of_its_board() -> None:
    assert client_class("popper") is Popper and client_class("handheld") is Handheld
    assert client_class(Popper.board) is Popper and client_class("toaster") is None
