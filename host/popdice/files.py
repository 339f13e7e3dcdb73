"""Files the commands read and write, held to what they can be.

Reading: every file or standard input a command reads has a stated largest size, a named
constant beside its reader. ``read_limited`` reads at most that much and one byte more, so
an endless input (``/dev/zero``, a pipe that never ends) or a file past the size is refused
in one line at once, without holding more than the size in memory; a regular file past the
size is refused before any of it is read. ``open_limited`` gives the same bound to a reader
that streams (a trace, line by line). A folder, a disk or a socket is not a file to read; a
pipe (``<(...)``, ``-`` from another program) or a terminal is read like a file, within the
size.

Writing: ``write_replacing`` (or ``replacing``, for a writer that streams) writes a new file
or replaces a regular one atomically: into a temporary file in the same folder, then moved
over the old one, so a reader sees the old file or the new one, never half of one. A
symbolic link to a regular file is written through, and stays a link. A folder, a device, a
FIFO or a socket is refused and left as it was (``output_target`` says so before any
work is done).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import PopdiceError

MB = 1024 * 1024
STANDARD_INPUT = "-"
_CHUNK = MB  # what one read asks for: the input is held in memory, at most its limit

ErrorFactory = Callable[[str], Exception]
Readable = BinaryIO | io.BufferedIOBase  # a file, standard input, a gzip or xz reader


class FileRefused(PopdiceError):
    """A file a command will not read (too large, a folder, a device that is no file) or a
    path it will not write over (a folder, a device, a FIFO, a socket)."""


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
        if sys.stdin is None:  # started with it closed (``<&-``)
            raise error(f"{label(name)} is closed: give the {kind} through a pipe or a file")
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
        raise error(f"{name} is {_odd_kind(mode)}, not a {kind}")
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


# --- writing ------------------------------------------------------------------------------


def output_target(name: str | os.PathLike[str], error: ErrorFactory = FileRefused) -> Path:
    """Where writing ``name`` will put the file: ``name`` itself, or the regular file a
    symbolic link at ``name`` leads to. Raises ``error`` (message) if that is a folder, a
    device, a FIFO or a socket, if its folder does not exist, or if no file can be made in
    that folder (one is made and removed, as writing will: another user's folder, a
    read-only disk are refused before the work, not after)."""
    target = _target(name, error)
    probe, descriptor = _made_beside(target, name, error, 0o600)
    os.close(descriptor)
    os.unlink(probe)
    return target


def _target(name: str | os.PathLike[str], error: ErrorFactory) -> Path:
    """``output_target`` without making a file."""
    path = target = Path(name)
    try:
        if path.is_symlink():
            target = Path(os.path.realpath(path))
        mode = target.stat().st_mode
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise error(f"cannot write {name}: there is no folder {target.parent}") from None
        return target
    except OSError as bad:
        raise error(f"cannot write {name}: {bad.strerror or bad}") from None
    if stat.S_ISREG(mode):
        return target
    if stat.S_ISDIR(mode):
        raise error(f"{name} is a folder: give the name of a file to write")
    raise error(f"{name} is {_odd_kind(mode)}: only a new or a regular file is written")


def _made_beside(
    target: Path, name: str | os.PathLike[str], error: ErrorFactory, mode: int
) -> tuple[Path, int]:
    """A new temporary file in ``target``'s folder, and its descriptor open for writing."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileNotFoundError:  # /proc, say: a folder in which no file is made
        raise error(f"cannot write {name}: no file can be made in {target.parent}") from None
    except OSError as bad:
        raise error(f"cannot write {name}: {bad.strerror or bad}") from None


def _odd_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (a named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode) or stat.S_ISCHR(mode):
        return "a device"
    return "not a regular file"


@contextlib.contextmanager
def replacing(
    name: str | os.PathLike[str], error: ErrorFactory = FileRefused
) -> Iterator[BinaryIO]:
    """A binary stream whose bytes become the file at ``name`` when the block ends without
    an exception (see the module's docstring); nothing changes at ``name`` if it raises.
    ``error`` (message) is raised for a path that is refused or cannot be written."""
    target = _target(name, error)
    try:
        old_mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        old_mode = None
    temporary, descriptor = _made_beside(target, name, error, 0o666)
    try:
        with open(descriptor, "wb") as stream:
            yield stream
        if old_mode is not None:
            os.chmod(temporary, old_mode)
        os.replace(temporary, target)
    except OSError as bad:
        temporary.unlink(missing_ok=True)
        raise error(f"cannot write {name}: {bad.strerror or bad}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_replacing(
    name: str | os.PathLike[str], data: bytes | str, error: ErrorFactory = FileRefused
) -> None:
    """Writes ``data`` (text as UTF-8) as the file at ``name``; see ``replacing``."""
    with replacing(name, error) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)
