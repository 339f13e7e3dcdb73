"""Files the commands read, held to what they can be.

Reading: every file or standard input a command reads has a stated largest size, a named
constant beside its reader. ``read_limited`` reads at most that much and one byte more, so
an endless input (``/dev/zero``, a pipe that never ends) or a file past the size is refused
in one line at once, without holding more than the size in memory; a regular file past the
size is refused before any of it is read. ``open_limited`` gives the same bound to a reader
that streams (a trace, line by line). A folder, a disk or a socket is not a file to read; a
pipe (``<(...)``, ``-`` from another program) or a terminal is read like a file, within the
size.

"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO

from .errors import PopdiceError

MB = 1024 * 1024
STANDARD_INPUT = "-"
_CHUNK = MB  # what one read asks for: the input is held in memory, at most its limit

ErrorFactory = Callable[[str], Exception]
Readable = BinaryIO | io.BufferedIOBase  # a file, standard input, a gzip or xz reader


class FileRefused(PopdiceError):
    """A file a command will not read: too large, a folder, a device that is no file."""


def label(name: str) -> str:
    """How messages name an input: the file's name, or standard input for ``-``."""
    return "standard input" if name == STANDARD_INPUT else name


def too_large(name: str, limit: int, kind: str) -> str:
    """The message for an input past its stated size."""
    return f"{label(name)} is larger than {size_text(limit)}, the most a {kind} can be"


def size_text(limit: int) -> str:
    """A limit in megabytes (``8 MB``) or, below one, in kilobytes."""
    return f"{limit // MB} MB" if limit >= MB else f"{limit // 1024} KB"


def read_limited(
    name: str,
    limit: int,
    kind: str,
    error: ErrorFactory = FileRefused,
    *,
    dash_is_stdin: bool = False,
) -> bytes:
    """All of the file ``name``, at most ``limit`` bytes long; ``error`` (message) is raised
    for anything longer or not a file to read. With ``dash_is_stdin``, ``-`` is standard
    input. Failing to open the file raises the ``OSError``, for the caller to say in its
    own words."""
    with open_limited(name, limit, kind, error, dash_is_stdin=dash_is_stdin) as stream:
        return stream.read()


@contextlib.contextmanager
def open_limited(
    name: str,
    limit: int,
    kind: str,
    error: ErrorFactory = FileRefused,
    *,
    dash_is_stdin: bool = False,
) -> Iterator[BinaryIO]:
    """The file ``name`` (with ``dash_is_stdin``, ``-`` is standard input) open for reading
    in binary, as a stream that raises ``error`` (message) once more than ``limit`` bytes
    have come through it."""
    if dash_is_stdin and name == STANDARD_INPUT:
        yield limited(sys.stdin.buffer, limit, label(name), kind, error)
        return
    with open(name, "rb") as handle:
        _check_readable(name, os.fstat(handle.fileno()), limit, kind, error)
        yield limited(handle, limit, name, kind, error)


def limited(
    stream: Readable, limit: int, name: str, kind: str, error: ErrorFactory = FileRefused
) -> BinaryIO:
    """``stream`` as a buffered binary stream that raises ``error`` (naming ``name`` as too
    large a ``kind``) once more than ``limit`` bytes have been read from it."""
    return io.BufferedReader(_Limited(stream, limit, lambda: error(too_large(name, limit, kind))))


def _check_readable(
    name: str, status: os.stat_result, limit: int, kind: str, error: ErrorFactory
) -> None:
    mode = status.st_mode
    if stat.S_ISREG(mode):
        if status.st_size > limit:
            raise error(too_large(name, limit, kind))
    elif stat.S_ISDIR(mode):
        raise error(f"{name} is a folder, not a {kind}")
    elif stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise error(f"{name} is {'a socket' if stat.S_ISSOCK(mode) else 'a device'}, not a {kind}")
    # A FIFO (a pipe, <(...)) or a character device (a terminal, /dev/null, /dev/zero) is
    # read as it comes, within the limit.


class _Limited(io.RawIOBase):
    """A raw stream over another that raises once more than ``limit`` bytes came through."""

    def __init__(self, inner: Readable, limit: int, refuse: Callable[[], Exception]) -> None:
        super().__init__()
        self._inner = inner
        self._left = limit
        self._refuse = refuse

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        want = min(len(buffer), _CHUNK, self._left + 1)
        data = self._inner.read(want)
        if len(data) > self._left:
            raise self._refuse()
        self._left -= len(data)
        buffer[: len(data)] = data
        return len(data)
