"""Widgets to play by pointing: a chip to click (or reach with Tab and press Enter), and the
bar of chips for the player who is playing at the screen now.

A chip posts ``Chip.Chosen`` with its key. The bar shows the chips it is given (a row wider
than the screen scrolls to the chip that has the keyboard) and keeps the keyboard on the
chip that had it when it is shown anew, so a player moving with Tab and Enter does not lose
their place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static


@dataclass(frozen=True)
class ChipSpec:
    """A chip to show: its key (what choosing it means), its label, whether it is chosen,
    and what it does, in words (its tooltip)."""

    key: str
    label: str
    chosen: bool = False
    says: str = ""


class Chip(Static, can_focus=True):
    """A choice to click, or to reach with Tab and take with Enter or Space."""

    DEFAULT_CSS = """
    Chip { width: auto; height: 1; padding: 0 1; margin-right: 1; background: $boost; }
    Chip.chosen { background: $accent; color: $text; text-style: bold; }
    Chip:focus { text-style: reverse; }
    Chip:hover { background: $primary; }
    """
    BINDINGS = [Binding("enter,space", "choose", "choose", show=False)]

    class Chosen(Message):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, spec: ChipSpec) -> None:
        super().__init__(spec.label, markup=False, classes="chosen" if spec.chosen else "")
        self.key = spec.key
        if spec.says:
            self.tooltip = spec.says

    def show(self, spec: ChipSpec) -> None:
        """The chip as ``spec`` (of the same key) says: its label, chosen or not, its tooltip."""
        self.update(spec.label)
        self.set_class(spec.chosen, "chosen")
        self.tooltip = spec.says or None

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.key))

    def action_choose(self) -> None:
        self.post_message(self.Chosen(self.key))


class PickBar(Vertical):
    """Two lines: the chips (who plays, their dice, the actions open to them), then a hint."""

    DEFAULT_CSS = """
    PickBar { height: 2; }
    PickBar #chips { height: 1; overflow-x: auto; overflow-y: hidden; scrollbar-size: 0 0; }
    PickBar #who { width: auto; padding-right: 1; text-style: bold; }
    PickBar #hint { height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: tuple[ChipSpec, ...] = ()

    def compose(self) -> ComposeResult:
        with Horizontal(id="chips"):
            yield Static(id="who", markup=False)
        yield Static(id="hint", markup=False)

    def show(self, who: str, chips: Sequence[ChipSpec], hint: str) -> None:
        """Shows ``who`` and ``chips``; the chip with the keyboard keeps it, by its key."""
        self.query_one("#who", Static).update(who)
        self.query_one("#hint", Static).update(hint)
        if tuple(chips) == self.shown:
            return
        current = list(self.query(Chip))
        if [chip.key for chip in current] == [spec.key for spec in chips]:
            for chip, spec in zip(current, chips, strict=True):
                chip.show(spec)  # the same choices: only their labels and marks change
            self.shown = tuple(chips)
            return
        focused = self.app.focused
        had_focus = isinstance(focused, Chip) and focused in self.query(Chip)
        self.shown = tuple(chips)
        row = self.query_one("#chips", Horizontal)
        if had_focus:
            self.app.set_focus(None)  # a removed widget must not keep the keyboard
        for old in list(self.query(Chip)):
            old.remove()
        made = [Chip(spec) for spec in chips]
        row.mount_all(made)
        if had_focus and made:
            assert isinstance(focused, Chip)
            same = [chip for chip in made if chip.key == focused.key]
            self.call_after_refresh((same or made)[0].focus)
