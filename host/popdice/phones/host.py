"""The table as the phone server sees it: each player's page, and a player's move, both made
where the game lives (the table app's thread), and word of every change.

``run`` carries a function to that thread and returns its result (the app's
``call_from_thread``); without an app, calls run here under a lock. Every change of the game,
whoever made it (a phone, the laptop, a device), is passed on by ``changed``, and a seat's
renewed token to that seat's pages alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..table.lowdown_table import LowdownTable
from ..table.referee import Refused
from ..table.session import TableSession, refused_text
from .views import lowdown_page, move_of

T = TypeVar("T")
NOT_ALLOWED = {"accepted": False, "text": "refused: this page's code was replaced (renewed)"}


class TableHost:
    def __init__(
        self,
        session: TableSession,
        run: Callable[[Callable[[], Any]], Any] | None = None,
        after_move: Callable[[Any], None] | None = None,
    ) -> None:
        if not isinstance(session.referee, LowdownTable):
            raise Refused("bad_game", "phones serve Lowdown only")
        self.session = session
        self._lock = threading.Lock()
        self._run = run or self._here
        self._after_move = after_move
        self.listeners: list[Callable[[int | None], None]] = []
        """Told of every change: with a seat when only that seat's pages need to look again."""

    def _here(self, function: Callable[[], Any]) -> Any:
        with self._lock:
            return function()

    @property
    def table(self) -> LowdownTable:
        referee = self.session.referee
        assert isinstance(referee, LowdownTable)
        return referee

    def page(self, seat: int) -> dict[str, Any]:
        return self._run(lambda: lowdown_page(self.table, seat, list(self.session.log)))

    def play(
        self, seat: int, message: Any, allowed: Callable[[], bool] | None = None
    ) -> dict[str, Any]:
        """Plays what ``seat``'s page asks; the reply says whether it was taken and why not.
        A move the rules refuse is told to that page only: it is neither journaled nor
        logged, and no page looks again (a page may send one every few moments).
        ``allowed`` (the page's token still opens the seat) is asked where the move is
        played, so that nothing done on that thread meanwhile (a renewal) slips between."""
        return self._run(lambda: self._play(seat, message, allowed))

    def _play(
        self, seat: int, message: Any, allowed: Callable[[], bool] | None = None
    ) -> dict[str, Any]:
        if allowed is not None and not allowed():
            return dict(NOT_ALLOWED)
        try:
            move = move_of(self.table, seat, message)
        except Refused as refusal:
            return {"accepted": False, "text": refused_text(refusal)}
        noted = len(self.session.log)
        outcome = self.session.move(move, keep_refusal=False)
        if len(self.session.log) > noted:  # played, or what came of it is for everyone
            if self._after_move is not None:
                self._after_move(outcome)
            else:
                self.changed()
        return {"accepted": outcome.accepted, "text": outcome.text}

    def changed(self, seat: int | None = None) -> None:
        """Every page looks again; only ``seat``'s, given one (its token was renewed)."""
        for listener in list(self.listeners):
            listener(seat)
