"""The game data files: the packaged defaults in games/data/, or a replacement file.

Card lists, colours and board layouts are not known for sure (docs/rules.md says which), so
they live in JSON files that can be swapped for the real ones. This module finds and parses a
file and builds a deck from its card list; each game's module reads the fields and says what
is wrong with a bad one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..files import MB, read_limited
from .errors import DataFileError
from .fields import Field, decode_text, parse_document

TYPE_CHECKING = False  # typing is for the type checker: `popdice check` starts without it
if TYPE_CHECKING:
    from typing import TypeVar

    C = TypeVar("C")

# Beside this module, as the schemas are (a wheel installs popdice as files, never zipped);
# importlib.resources would cost `popdice check` a fifth of its start-up.
PACKAGED = Path(__file__).resolve().parent / "data"

DATA_FILE_MOST = MB
"""The largest game data file read (``--data``): 1 MB, some two hundred times the packaged
ones."""

DECK_MOST = 10_000
"""The most cards a data file's deck may hold: about a hundred times the packaged Ringer deck."""


def read_data_file(name: str, path: str | Path | None = None) -> Field:
    """The parsed data file: ``path`` if given, else the packaged ``data/<name>``."""
    label = str(path) if path is not None else f"games/data/{name}"
    try:
        if path is not None:
            data = read_limited(str(path), DATA_FILE_MOST, "game data file", DataFileError)
            text = decode_text(data)
        else:
            text = (PACKAGED / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(f"data file {label}: no such file") from None
    except IsADirectoryError:
        raise DataFileError(f"data file {label}: is a folder, not a file") from None
    except OSError as bad:
        raise DataFileError(f"data file {label}: cannot read it: {bad.strerror or bad}") from None
    except UnicodeDecodeError as bad:
        raise DataFileError(
            f"data file {label}: not UTF-8 text (byte 0x{bad.object[bad.start]:02x} at "
            f"offset {bad.start})"
        ) from None

    def error(message: str) -> DataFileError:
        return DataFileError(f"data file {label}: {message}")

    return parse_document(text, "", error)


def read_deck(doc: Field, read_card: Callable[[Field], C]) -> tuple[C, ...]:
    """The deck of data file ``doc``: each entry of its ``cards`` (read by ``read_card``)
    ``count`` times over. The counts are held to ``deck_size`` (at most ``DECK_MOST``) before
    the deck is built, so that a huge count is refused rather than built."""
    what = f"a card count (1 to {DECK_MOST:,})"
    counted = [
        (read_card(entry), entry.key("count").integer(1, DECK_MOST, what))
        for entry in doc.key("cards").items()
    ]
    size = doc.key("deck_size").integer(1, DECK_MOST, what)
    total = sum(count for _, count in counted)
    if total != size:
        doc.key("deck_size").fail(f"says {size} cards but the card list has {total}")
    return tuple(card for card, count in counted for _ in range(count))
