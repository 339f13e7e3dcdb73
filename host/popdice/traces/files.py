"""Traces and labels on disk.

A trace is CSV, ``t_ms,x_g,y_g,z_g`` (a header line of those names is optional), one sample a
line: its instant in milliseconds and the reading in g. A name ending in ``.gz`` or ``.xz`` is
read and written compressed (gzip, xz). Labels are JSON: ``{"presses_ms": [onset, ...]}``
(other keys are ignored) or just the list of onsets; beside the onsets, ``"releases_ms":
[release, ...]`` may give each press's release blow, one a press, none before its press.
Anything else raises ``TraceError`` naming the file and, for CSV, the line.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import lzma
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ..errors import PopdiceError
from ..files import MB, limited, open_limited, read_limited, replacing, write_replacing
from .trace import Trace

HEADER = ["t_ms", "x_g", "y_g", "z_g"]


class TraceError(PopdiceError):
    """A trace or labels file that cannot be read."""


TRACE_MOST = 64 * MB
"""The largest trace read, as CSV text (a compressed file counts as it unpacks, and is no
larger packed): 64 MB, over an hour of the popper at its 400 samples a second."""
LINE_MOST = 200
"""The longest line of a trace: a sample line is some 30 characters."""
LABELS_MOST = MB
"""The largest labels file read: 1 MB, some hundred thousand presses."""
LARGEST_TIME_MS = 10**15
"""No label lies further than this from a trace's start (some 30,000 years)."""
RELEASE_AFTER_END_MS = 60_000.0
"""A press held past the trace's end may give a release after it, but not by a minute."""


@contextmanager
def _reading(path: Path) -> Iterator[BinaryIO]:
    """The trace at ``path`` as bytes, unpacked through gzip or xz if its name says so,
    raising TraceError once more than ``TRACE_MOST`` bytes come through."""
    with open_limited(str(path), TRACE_MOST, "trace", TraceError) as raw:
        if path.name.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
                yield limited(unpacked, TRACE_MOST, str(path), "trace", TraceError)
        elif path.name.endswith(".xz"):
            with lzma.LZMAFile(raw, "rb") as unpacked:
                yield limited(unpacked, TRACE_MOST, str(path), "trace", TraceError)
        else:
            yield raw


@contextmanager
def _writing(path: Path) -> Iterator[TextIO]:
    """A new trace at ``path`` as text, through gzip or xz if its name says so, in place of
    the old one only once it is all written."""
    with replacing(path, TraceError) as raw:
        if path.name.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw, mode="wb") as binary, _text(binary) as text:
                yield text
        elif path.name.endswith(".xz"):
            preset = 9 | lzma.PRESET_EXTREME
            with lzma.LZMAFile(raw, "w", preset=preset) as binary, _text(binary) as text:
                yield text
        else:
            with _text(raw) as text:
                yield text


def _text(binary: gzip.GzipFile | lzma.LZMAFile | BinaryIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(binary, encoding="ascii", newline="")


def read_trace(
    path: str | Path,
) -> tuple[list[float], list[tuple[float, float, float]]]:
    """The sample instants (ms) and readings (g) of a CSV trace."""
    path = Path(path)
    t_ms: list[float] = []
    samples: list[tuple[float, float, float]] = []
    try:
        with _reading(path) as stream:
            for number, row in _rows(path, stream):
                if number == 1 and [cell.strip() for cell in row] == HEADER:
                    continue
                t, x, y, z = _parse_row(path, number, row)
                if t_ms and t <= t_ms[-1]:
                    raise TraceError(f"{path}:{number}: time {t} ms is not after {t_ms[-1]} ms")
                t_ms.append(t)
                samples.append((x, y, z))
    except (
        UnicodeDecodeError,
        EOFError,
        gzip.BadGzipFile,
        lzma.LZMAError,
        csv.Error,
    ) as error:
        raise TraceError(f"{path}: not a CSV trace ({error})") from None
    except OSError as error:
        raise TraceError(f"cannot read {path}: {error.strerror or error}") from None
    if not t_ms:
        raise TraceError(f"{path}: no samples")
    return t_ms, samples


def _rows(path: Path, stream: BinaryIO) -> Iterator[tuple[int, list[str]]]:
    for number, row in enumerate(csv.reader(_lines(path, stream)), start=1):
        if row:
            yield number, row


def _lines(path: Path, stream: BinaryIO) -> Iterator[str]:
    """The lines of ``stream`` as text, each at most ``LINE_MOST`` characters."""
    number = 0
    while line := stream.readline(LINE_MOST + 1):
        number += 1
        if len(line) > LINE_MOST:
            raise TraceError(
                f"{path}:{number}: not a CSV trace (a line of over {LINE_MOST} characters)"
            )
        if number == 1 and line.startswith(codecs.BOM_UTF8):  # a spreadsheet's CSV
            line = line[len(codecs.BOM_UTF8) :]
        try:
            yield line.decode("ascii")
        except UnicodeDecodeError as error:
            raise TraceError(
                f"{path}:{number}: not a CSV trace (byte 0x{line[error.start]:02x} is not "
                "plain text)"
            ) from None


def _parse_row(path: Path, number: int, row: list[str]) -> tuple[float, float, float, float]:
    if len(row) != 4:
        raise TraceError(f"{path}:{number}: expected t_ms,x_g,y_g,z_g, got {len(row)} fields")
    values = []
    for name, cell in zip(HEADER, row, strict=True):
        try:
            value = float(cell)
        except ValueError:
            raise TraceError(f"{path}:{number}: {name} is not a number: {cell.strip()!r}") from None
        if not math.isfinite(value):
            raise TraceError(f"{path}:{number}: {name} is not finite: {cell.strip()!r}")
        values.append(value)
    return values[0], values[1], values[2], values[3]


def read_labels(path: str | Path) -> list[float]:
    """Press onsets (ms) from a labels file."""
    path = Path(path)
    return _onsets(path, _read_json(path))


def read_releases(path: str | Path) -> list[float] | None:
    """Each press's release blow (ms) from a labels file, in the order of its onsets; None if
    the file gives none (no ``releases_ms``, or just a list of onsets)."""
    return read_presses(path)[1]


def read_presses(
    path: str | Path, span_ms: tuple[float, float] | None = None
) -> tuple[list[float], list[float] | None]:
    """The press onsets and releases (as ``read_labels`` and ``read_releases``) of a labels
    file, read once: it may be a pipe. With ``span_ms`` (its trace's first and last
    instants), a press outside it is refused: the labels are another trace's."""
    path = Path(path)
    document = _read_json(path)
    onsets = _onsets(path, document)
    if span_ms is not None:
        first, last = span_ms
        outside = next((onset for onset in onsets if not first <= onset <= last), None)
        if outside is not None:
            raise TraceError(
                f"{path}: a press at {outside:g} ms is outside the trace ({first:g} to "
                f"{last:g} ms): are these its labels?"
            )
    releases = _releases(path, document, onsets)
    if span_ms is not None and releases is not None:
        last = span_ms[1]
        late = next((r for r in releases if r > last + RELEASE_AFTER_END_MS), None)
        if late is not None:
            raise TraceError(
                f"{path}: a release at {late:g} ms is over a minute after the trace ends "
                f"({last:g} ms): are these its labels?"
            )
    return onsets, releases


def _releases(path: Path, document: Any, onsets: list[float]) -> list[float] | None:
    if not isinstance(document, dict) or "releases_ms" not in document:
        return None
    releases = document["releases_ms"]
    if not isinstance(releases, list):
        raise TraceError(f"{path}: releases_ms is not a list of release times")
    _check_times(path, releases, "release time")
    if len(releases) != len(onsets):
        raise TraceError(
            f"{path}: {len(releases)} release times for {len(onsets)} presses (one a press)"
        )
    for onset, release in zip(onsets, releases, strict=True):
        if release < onset:
            raise TraceError(f"{path}: release time {release!r} is before its press at {onset!r}")
    return [float(value) for value in releases]


def _read_json(path: Path) -> Any:
    return read_json_file(path, LABELS_MOST, "labels file")


def read_json_file(path: str | Path, limit: int, kind: str) -> Any:
    """The JSON document in file ``path`` (a ``kind`` of at most ``limit`` bytes); a
    ``TraceError`` of one line naming the file if it cannot be read or is not JSON."""
    try:
        return json.loads(read_limited(str(path), limit, kind, TraceError))
    except OSError as error:
        raise TraceError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not JSON ({error})") from None
    except RecursionError:
        raise TraceError(f"{path}: not JSON (nested too deeply)") from None
    except ValueError:  # Python refuses integers of over 4,300 digits
        raise TraceError(f"{path}: not JSON (a number with too many digits)") from None


def _onsets(path: Path, document: Any) -> list[float]:
    onsets = document.get("presses_ms") if isinstance(document, dict) else document
    if not isinstance(onsets, list):
        raise TraceError(f'{path}: expected {{"presses_ms": [...]}} or a list of press times')
    _check_times(path, onsets, "press time")
    return [float(value) for value in onsets]


def _check_times(path: Path, values: list[Any], what: str) -> None:
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TraceError(f"{path}: {what} {value!r} is not a number")
        if isinstance(value, int) and abs(value) > LARGEST_TIME_MS:
            raise TraceError(f"{path}: {what} {_shown(value)} is too large")
        if not math.isfinite(value):
            raise TraceError(f"{path}: {what} {value!r} is not finite")
    seen: set[float] = set()
    for value in values:
        if value in seen:
            raise TraceError(f"{path}: {what} {value!r} is given twice")
        seen.add(value)


def _shown(number: int) -> str:
    text = str(number)
    return text if len(text) <= 20 else f"{text[:8]}... ({len(text)} digits)"


def write_trace(path: str | Path, trace: Trace) -> None:
    """Writes a trace as CSV with a header (compressed if the name ends in .gz or .xz)."""
    with _writing(Path(path)) as stream:
        stream.write(",".join(HEADER) + "\n")
        for t, (x, y, z) in zip(trace.t_ms, trace.samples_g, strict=True):
            stream.write(f"{t:.1f},{x:.3f},{y:.3f},{z:.3f}\n")


def write_labels(path: str | Path, trace: Trace) -> None:
    """Writes a trace's press onsets and, if it has them, their releases, with its kind and
    seed for the record."""
    document: dict[str, Any] = {"presses_ms": trace.press_times_ms}
    if trace.releases_ms:
        document["releases_ms"] = trace.releases_ms
    document |= {"kind": trace.kind, "seed": trace.seed}
    write_replacing(path, json.dumps(document) + "\n", TraceError)
