"""The game data files: the packaged defaults in games/data/, or a replacement file.

Card lists, colours and board layouts are not known for sure (docs/rules.md says which), so
they live in JSON files that can be swapped for the real ones. This module finds and parses a
file; each game's module reads the fields and says what is wrong with a bad one.
"""

from __future__ import annotations

from pathlib import Path

from ..files import MB, read_limited
from .errors import DataFileError
from .fields import Field, parse_document

# Beside this module, as the schemas are (a wheel installs popdice as files, never zipped);
# importlib.resources would cost `popdice check` a fifth of its start-up.
PACKAGED = Path(__file__).resolve().parent / "data"

DATA_FILE_MOST = MB
"""The largest game data file read (``--data``): 1 MB, some two hundred times the packaged
ones."""


def read_data_file(name: str, path: str | Path | None = None) -> Field:
    """The parsed data file: ``path`` if given, else the packaged ``data/<name>``."""
    label = str(path) if path is not None else f"games/data/{name}"
    try:
        if path is not None:
            text = read_limited(str(path), DATA_FILE_MOST, "game data file", DataFileError).decode(
                "utf-8"
            )
        else:
            text = (PACKAGED / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(f"data file {label}: no such file") from None
    except (OSError, UnicodeDecodeError) as bad:
        raise DataFileError(f"data file {label}: cannot read it: {bad}") from None

    def error(message: str) -> DataFileError:
        return DataFileError(f"data file {label}: {message}")

    return parse_document(text, "", error)
