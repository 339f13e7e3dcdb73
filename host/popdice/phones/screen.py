"""The laptop's screen of the phones' QR codes (F6): one player's at a time, with their name
and their page's address; left and right (or Tab) go to the next player, R gives the player
a new code (the pages open under the old one close: a lost phone, a page someone else
opened), Esc closes."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..errors import PopdiceError
from ..table.names import literal
from .qr import qr_text


class PhonesScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    PhonesScreen { align: center middle; }
    PhonesScreen #phone { width: auto; height: auto; background: $panel; padding: 0 1; }
    PhonesScreen Static { width: auto; height: auto; }
    PhonesScreen #who { text-style: bold; }
    """
    BINDINGS = [
        Binding("escape,f6,q", "dismiss", "close"),
        Binding("right,tab,n", "next(1)", "next player"),
        Binding("left,shift+tab,p", "next(-1)", "previous player"),
        Binding("r", "renew", "a new code"),
    ]

    def __init__(
        self, players: list[str], urls: list[str], renew: Callable[[int], str] | None = None
    ) -> None:
        """``renew(seat)``: a new address for the seat's page (none: the codes stay)."""
        super().__init__()
        self.players, self.urls, self.renew = players, urls, renew
        self.seat = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="phone"):
            yield Static(id="who", markup=False)
            yield Static(id="code")
            yield Static(id="url", markup=False)
            if self.renew is not None:
                yield Static("R: a new code for this player (the old one stops working)")

    def on_mount(self) -> None:
        self.show_seat()

    def show_seat(self) -> None:
        name = literal(self.players[self.seat])
        count = len(self.players)
        self.query_one("#who", Static).update(
            f"{name}: scan for your board ({self.seat + 1} of {count}; ← → the others, Esc)"
        )
        self.query_one("#code", Static).update(qr_text(self.urls[self.seat]))
        self.query_one("#url", Static).update(self.urls[self.seat])

    def action_renew(self) -> None:
        if self.renew is None:
            return
        try:
            self.urls[self.seat] = self.renew(self.seat)
        except PopdiceError as error:  # the new token could not be kept: the old one stays
            self.notify(str(error), title="no new code", severity="error")
            return
        self.show_seat()

    def action_next(self, step: int) -> None:
        self.seat = (self.seat + step) % len(self.players)
        self.show_seat()
