"""The table app with the phones: F6 shows each player's QR code, every change of the game
reaches the phones, and a phone's move is played on the table's own thread, as if made at
the laptop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.binding import Binding

from ..errors import PopdiceError
from ..table.app import TableApp
from ..table.session import Outcome
from .host import TableHost
from .screen import PhonesScreen


class ServedTableApp(TableApp):
    BINDINGS = [*TableApp.BINDINGS, Binding("f6", "phones", "Phones", priority=True)]

    def __init__(
        self,
        *args: Any,
        urls: list[str],
        renew: Callable[[int], str] | None = None,
        **kwargs: Any,
    ) -> None:
        """``urls``: each seat's page; ``renew(seat)``: a new one for the seat (F6, R)."""
        super().__init__(*args, **kwargs)
        self.urls = urls
        self.renew = renew
        self.host = TableHost(self.session, run=self.run_here, after_move=self.report)

    def run_here(self, function: Callable[[], Any]) -> Any:
        """``function``'s result, run on the app's thread (the server calls from its own)."""
        if not self.is_running:  # ended: a call sent to its closed loop would be left there
            raise PopdiceError("the table has closed")
        try:
            return self.call_from_thread(function)
        except RuntimeError:  # the app has ended meanwhile: its pages are closed
            raise PopdiceError("the table has closed") from None

    def report(self, outcome: Outcome | None) -> None:
        super().report(outcome)
        self.host.changed()

    def on_mount(self) -> None:
        super().on_mount()
        self.push_screen(self.phones_screen())

    def phones_screen(self) -> PhonesScreen:
        return PhonesScreen(self.session.referee.players, self.urls, self.renew)

    def action_phones(self) -> None:
        if not isinstance(self.screen, PhonesScreen):
            self.push_screen(self.phones_screen())
