"""A QR code drawn in the terminal: two modules a character (``▀`` in the top one's colour on
the bottom one's), black on white whatever the terminal's own colours, with a quiet zone."""

from __future__ import annotations

import segno
from rich.text import Text

QUIET = 2  # modules of white around the code
COLOURS = {True: "black", False: "white"}  # a dark module, a light one


def qr_text(url: str) -> Text:
    """``url`` as a QR code (error correction M), in lines of half blocks."""
    rows = [list(row) for row in segno.make(url, error="m").matrix_iter(scale=1, border=QUIET)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))
    text = Text()
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        for up, down in zip(top, bottom, strict=True):
            text.append("▀", style=f"{COLOURS[bool(up)]} on {COLOURS[bool(down)]}")
        text.append("\n")
    text.rstrip()
    return text
