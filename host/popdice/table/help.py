"""The table's help screen (F1): the keys, every command of the game with an example, and
how the devices take part. Esc, F1 or q closes it.

The help is prose and tables, not text broken into lines, so that it wraps at words to the
width it has: at 80 columns as at 120 (a table's columns are never narrower than their
longest word)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


@dataclass(frozen=True)
class Section:
    """A part of the help: a title, paragraphs, a table of rows (a command, an example and
    what it does; or a key and what it does), then paragraphs after the table."""

    title: str
    prose: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    after: tuple[str, ...] = ()


KEYS = Section(
    "Keys",
    rows=(
        ("F1", "this help"),
        ("F2", "press the dome"),
        ("F3", "ROLL on the handheld"),
        ("F4", "REVEAL on the handheld"),
        ("F5", "knock the table (simulated popper: a knock must not pop)"),
        ("F6", "the phones' QR codes (popdice table lowdown --serve); R there: a new code"),
        ("Enter", "play the command typed below, or the chip or box that has the keyboard"),
        ("Tab, arrows, Esc", "move between boards and chips; move on a board; go back"),
        ("Ctrl+Q", "quit (the game is saved as it goes: popdice table --resume goes on with it)"),
    ),
    after=("Players are named by any unique start of their name, or by seat number from 1.",),
)

DEVICES = Section(
    "Devices",
    prose=(
        "With simulated devices F2 feeds a press to the popper's accelerometer and its own "
        "detector pops the dice; F3 and F4 push the handheld's buttons. With real boards F2 "
        "pops by command (for a stuck dome) and F3 rolls by command; F4 and F5 need the real "
        "buttons and the real table. An unplugged device is found again by its id when it "
        "comes back, on any port; meanwhile typed moves still work.",
    ),
)

GAMES = {
    "ringer": Section(
        "Ringer: the popper is the die",
        prose=(
            "Press the dome for the first roll. When a card scores a Ringer, record it and who "
            "won how many cards; the die is rolled again.",
            "Without typing: choose Ringer, Reroll, rule or end on the bar below and answer "
            "its questions by choosing chips (Tab and Enter, or clicks); back or Esc undoes "
            "the last answer. The commands below do the same by typing.",
        ),
        rows=(
            ("ringer PLAYER CARDS", "ringer ann 6", "Ann's Ringer won 6 cards"),
            ("reroll PLAYER", "reroll bob", "Bob's Reroll power: the popper re-rolls"),
            (
                "rule CARD on CARD",
                "rule pink4 on pink3",
                "is that play legal? (a ruling, no move); cards: pink4, blue-reroll, "
                "blue5/take_over",
            ),
            ("end N N ...", "end 3 0 5", "the cards left in each hand: game over"),
        ),
    ),
    "popalotsy": Section(
        "Popalotsy: each round's pop, then the check",
        prose=(
            "Press the dome for the round's pop. At the check, enter each die's pile, bottom "
            "card first, with who played it, then check; the table rules on every pile.",
            "Without typing: choose pile or check on the bar below and answer its questions "
            "by choosing chips (Tab and Enter, or clicks); back or Esc undoes the last answer.",
        ),
        rows=(
            ("pile DIE CARD:PLAYER ...", "pile 1 red4:ann red5:bob", "die 1's pile"),
            ("check [FIRST-OUT ...]", "check cy", "Cy went out first"),
        ),
    ),
    "lowdown": Section(
        "Lowdown: played on the laptop",
        prose=(
            "Each turn: press the dome for the active player's open dice (2 numbers, 2 "
            "colours); the player on the active player's right holds the handheld and presses "
            "ROLL for the hidden pair (only its commitment reaches the laptop). The active "
            "player writes with their own dice or types reveal and must then use the hidden "
            "pair; the table asks the handheld for the hidden pair when the others need it and "
            "checks it against its commitment. Then everyone else writes, crosses out what "
            "they like and says done.",
            "Without typing: click your board (or Tab to it), pick a number die and a colour "
            "die on the bar below, and click a lit box (marked >), or move to it with the "
            "arrows and press Enter. Reveal, wild, blackout, skip, done and each line you may "
            "cross out are on the bar when they are legal. Esc lets go. The commands below do "
            "the same by typing.",
        ),
        rows=(
            ("write PLAYER NUMBER COLOUR BOX", "write ann 4 red ro 1 3", ""),
            (
                "wild PLAYER NUMBER BOX [COLOUR]",
                "wild bob 4 gy 2 2",
                "active: name a colour to drop",
            ),
            ("blackout PLAYER BOX", "blackout cy pb 3 3", "+6: no move and no wild left"),
            ("cross PLAYER GRID LINE", "cross ann ro r1", "lines r1-r3, c1-c3, d1, d2"),
        ),
        after=(
            "skip PLAYER · done PLAYER · reveal",
            "A BOX is GRID ROW COL: ro, pb or gy, then row and column from 1.",
        ),
    ),
}


def sections(game: str) -> list[Section]:
    """The help for ``game``: its own section first, then the keys and the devices."""
    return [section for section in (GAMES.get(game), KEYS, DEVICES) if section is not None]


def rendered(section: Section) -> Group:
    """``section`` as the screen shows it: every line wraps at words, whatever the width."""
    parts: list[RenderableType] = [Text(section.title, style="bold")]
    parts += [Padding(Text(paragraph), (0, 0, 0, 2)) for paragraph in section.prose]
    if section.rows:
        table = Table.grid(padding=(0, 2), pad_edge=False)
        for column in zip(*section.rows, strict=True):
            longest_word = max(len(word) for cell in column for word in cell.split() or [""])
            table.add_column(min_width=longest_word, style="bold" if not table.columns else "")
        for row in section.rows:
            table.add_row(*row)
        parts.append(Padding(table, (0, 0, 0, 2)))
    parts += [Padding(Text(paragraph), (0, 0, 0, 2)) for paragraph in section.after]
    return Group(*parts)


def help_renderable(game: str) -> Group:
    """The whole help for ``game``, a blank line between its sections."""
    parts: list[RenderableType] = []
    for section in sections(game):
        if parts:
            parts.append(Text(""))
        parts.append(rendered(section))
    return Group(*parts)


def help_text(game: str, width: int = 84) -> str:
    """The help for ``game`` as plain text, wrapped at ``width`` columns."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(help_renderable(game))
    return console.export_text()


class HelpScreen(ModalScreen[None]):
    """The whole help for ``game``, over the table."""

    CSS = """
    HelpScreen { align: center middle; }
    #help-text { width: 88; max-width: 100%; height: auto; max-height: 100%;
                 border: round $primary; background: $panel; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,f1,q", "close", "Close help"),
    ]

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-text"):
            yield Static(help_renderable(self.game), markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
