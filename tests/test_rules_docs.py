"""docs/rules.md against the engines: each game's settings table is its config's fields with
their defaults, every setting named in the text is one, the components are the data files',
every section the code, the tests and the docs cite (``§3.5``) exists, and the project
cites nothing a user of it does not have."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from popdice.games.errors import Reason
from popdice.games.lowdown.rules import LowdownConfig, LowdownData
from popdice.games.popalotsy.rules import PopalotsyConfig, PopalotsyData
from popdice.games.ringer.rules import RingerConfig, RingerData

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
GAMES = {
    "Popalotsy": (1, PopalotsyConfig),
    "Ringer": (2, RingerConfig),
    "Lowdown": (3, LowdownConfig),
}


def part(game: str) -> str:
    text = RULES.read_text(encoding="utf-8")
    number = GAMES[game][0]
    start = text.index(f"## {number}. {game}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def flat(text: str) -> str:
    return " ".join(text.split())


def settings_table(game: str) -> list[tuple[str, str]]:
    """(setting, default) per row of the game's settings table."""
    text = part(game)
    table = text[text.index(" Settings\n") :]
    return re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", table, re.M)


def shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_settings_table_is_the_engines_settings_with_their_defaults(game: str) -> None:
    config = GAMES[game][1]()
    fields = [(f.name, shown(getattr(config, f.name))) for f in dataclasses.fields(config)]
    assert settings_table(game) == fields


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_setting_named_in_a_part_is_one_of_its_games(game: str) -> None:
    known = {f.name for f in dataclasses.fields(GAMES[game][1])}
    reasons = {reason.value for reason in Reason}
    named = set(re.findall(r"`([a-z]+(?:_[a-z0-9]+)+)`", part(game)))
    assert named, game
    assert named <= known | reasons, named - known - reasons
    settings_text = part(game)[: part(game).index(" Settings\n")]
    for name in known - {"max_rounds", "max_turns"}:
        assert f"`{name}`" in settings_text, f"{name} is not explained in the text"


def test_popalotsy_components_are_the_data_files() -> None:
    data = PopalotsyData.load()
    text = flat(part("Popalotsy"))
    assert f"{data.min_players} to {data.max_players} players" in text
    assert f"{len(data.deck)} ring cards" in text
    colours = ", ".join(data.colors[:-1]) + f" and {data.colors[-1]}"
    assert f"the five colours are {colours}" in text
    for color in data.colors:
        counts = [data.deck.count(card) for card in data.deck if card.color == color]
        twice = sorted({card.number for card in data.deck if card.color == color
                        and data.deck.count(card) == 2})  # fmt: skip
        assert len(counts) == 8 and f"{color} {twice[0]} and {twice[1]}" in text
    assert f"dealt {PopalotsyConfig().hand_size} cards (`hand_size`)" in text


def test_ringer_components_are_the_data_files() -> None:
    data = RingerData.load()
    text = flat(part("Ringer"))
    assert f"{data.min_players} to {data.max_players} players; {len(data.deck)} cards" in text
    suits = ", ".join(data.suits[:-1]) + f" and {data.suits[-1]}"
    assert f"Five suits: {suits}" in text and data.suits[-1] == data.wild
    per_suit = {suit: [c for c in data.deck if c.suit == suit] for suit in data.suits}
    for cards in per_suit.values():
        assert len(cards) == 21 and sum(c.number is None for c in cards) == 3
        assert sum(c.power is not None and c.number is not None for c in cards) == 5
    assert f"dealt {RingerConfig().hand_size} cards (`hand_size`)" in text
    assert f"holding {RingerConfig().hand_limit} cards (`hand_limit`)" in text


def test_lowdown_components_are_the_data_files() -> None:
    data = LowdownData.load()
    text = flat(part("Lowdown"))
    assert f"{data.min_players} to {data.max_players} players" in text
    assert f"({', '.join(data.grid_names)}), and {data.wild_boxes} wild boxes" in text
    colours = ", ".join(data.color_faces[:-1]) + f" and {data.color_faces[-1]}"
    assert f"colour dice show {colours}" in text
    faces = f"{data.number_faces[0]} to {data.number_faces[-1]}"
    assert f"number dice show {faces}" in text and f"is {data.size} by {data.size}" in text
    square = ("AB*", "B*A", "*AB")
    for layout in data.layouts:
        for grid in data.grids:
            for row, pattern in zip(layout.boxes[grid.name], square, strict=True):
                kinds = {"A": {grid.colors[0]}, "B": {grid.colors[1]}, "*": set(grid.colors)}
                assert [set(box) for box in row] == [kinds[k] for k in pattern]
    assert "A B H\n  B H A\n  H A B" in part("Lowdown")


def cited_sections() -> dict[str, list[str]]:
    """Every section number cited as rules (``§3.5``, ``rules §1.4-1.6``), by where."""
    found: dict[str, list[str]] = {}
    places = [*(ROOT / "host" / "popdice").rglob("*.py"), *(ROOT / "docs").glob("*.md")]
    places += list((ROOT / "host" / "popdice" / "games" / "data").glob("*.json"))
    places += [*(ROOT / "tests").glob("*.py"), ROOT / "README.md"]
    for path in places:
        for match in re.finditer(r"§\s?(\d+\.\d+)(?:\s?[-\u2013]\s?(\d+\.\d+))?", path.read_text()):
            for number in match.groups():
                if number:
                    found.setdefault(number, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_section_cited_exists() -> None:
    headings = set(re.findall(r"^### (\d+\.\d+) ", RULES.read_text(encoding="utf-8"), re.M))
    cited = cited_sections()
    assert len(cited) > 10
    missing = {number: places for number, places in cited.items() if number not in headings}
    assert not missing, missing


PRIVATE = ("shared" + "/spec", "shared" + "/seeds")


def test_the_project_cites_only_what_it_ships() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    citing = []
    for name in filter(None, tracked):
        path = ROOT / name.decode()
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        data = path.read_bytes()
        if b"\0" in data[:1024]:
            continue
        text = data.decode("utf-8", errors="replace")
        citing += [f"{name.decode()}: {private}" for private in PRIVATE if private in text]
    assert not citing, citing
