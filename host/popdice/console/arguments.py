"""Argument types of the `popdice` subcommands, checked while the command line is parsed: a
bad value is refused with one line and exit code 2 before any file is read or any device
is touched, and the line quotes at most a few dozen characters of it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..files import output_target
from .messages import quoted

_DIGITS_MAX = 30  # longer is out of every range here (and int() refuses 4,300 digits)


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """A type for ``add_argument``: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        value = None
        if len(text.strip()) <= _DIGITS_MAX:
            try:
                value = int(text)
            except ValueError:
                pass
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, not {quoted(text)}"
            )
        return value

    return parse


def example_port() -> str:
    """A Pico's serial port as this system names it, for messages."""
    return {"win32": "COM3", "darwin": "/dev/cu.usbmodem1101"}.get(sys.platform, "/dev/ttyACM0")


def serial_port(text: str) -> str:
    """A type for ``--port``: a serial port's name or a pyserial URL, not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"the port is empty: give one such as {example_port()}")
    _refuse_nul(text)
    return text


def file_name(text: str) -> str:
    """A type for a file to read (an empty name would mean the current folder)."""
    return _name(text, "file")


def output_file(text: str) -> str:
    """A type for a file to write: a new file, or a regular one to replace (a folder, a
    device, a FIFO or a socket is refused, and left as it is)."""
    _name(text, "file")
    output_target(text, argparse.ArgumentTypeError)
    return text


class OutputFile:
    """A type for a file to write (as ``output_file``) in the one format a command writes:
    its name must end in ``suffix``. ``written_as`` says what is written, for the error
    ("the diagram is drawn as SVG")."""

    def __init__(self, suffix: str, written_as: str) -> None:
        self.suffix = suffix
        self.written_as = written_as
        self.__name__ = f"a {suffix} file name"

    def __call__(self, text: str) -> str:
        output_file(text)
        if not text.lower().endswith(self.suffix):
            raise argparse.ArgumentTypeError(
                f"{self.written_as}: give a file name ending in {self.suffix}, not {quoted(text)}"
            )
        return text


def folder_name(text: str) -> str:
    """A type for a folder argument."""
    return _name(text, "folder")


def input_file(text: str) -> str:
    """A type for a document to read: a file name, or - for standard input."""
    if not text:
        raise argparse.ArgumentTypeError(
            "the file name is empty: give a file, or - for standard input"
        )
    return file_name(text)


def _name(text: str, what: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError(f"the {what} name is empty")
    _refuse_nul(text)
    return text


def _refuse_nul(text: str) -> None:
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{quoted(text)} holds a NUL character")
