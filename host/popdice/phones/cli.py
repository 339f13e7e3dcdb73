"""``popdice table ... --serve``: the table's app with each player's page served, its tokens
kept beside the journal until the table closes on a game that is over, the server entered
into the command's stack (it closes first)."""

from __future__ import annotations

import argparse
from contextlib import ExitStack

from ..errors import PopdiceError
from ..table.devices import Hands
from ..table.lowdown_table import LowdownTable
from ..table.session import TableSession
from .app import ServedTableApp
from .run import PhoneServer, lan_address
from .tokens import Tokens


def served_app(
    stack: ExitStack, session: TableSession, args: argparse.Namespace, hands: dict[str, Hands]
) -> ServedTableApp:
    referee = session.referee
    if not isinstance(referee, LowdownTable):
        raise PopdiceError(f"--serve is for Lowdown; {referee.game} is played at the laptop")
    folder = session.journal.path.parent
    tokens = Tokens.for_game(folder, session.game_id, len(referee.players))

    def forget_when_over() -> None:
        if session.finished:
            Tokens.forget(folder, session.game_id)

    stack.callback(forget_when_over)  # before the server's exit, so it runs after it
    app = ServedTableApp(session, simulated=bool(hands), hands=hands, urls=[])
    server = PhoneServer(app.host, tokens, args.address or lan_address(), args.port)
    app.urls = [server.url(seat) for seat in range(len(referee.players))]
    stack.enter_context(server)
    session.note(f"phones served at http://{server.address}:{server.port} (F6: the QR codes)")
    return app
