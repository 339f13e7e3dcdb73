"""``popdice table ... --serve``: the table's app with each player's page served, its tokens
kept beside the journal until the table closes on a game that is over (the server's log
beside them), the server entered into the command's stack (it closes first). Its socket is
bound first: an address or port it cannot have is refused before anything is kept."""

from __future__ import annotations

import argparse
from contextlib import ExitStack

from ..errors import PopdiceError
from ..table.devices import Hands
from ..table.lowdown_table import LowdownTable
from ..table.session import TableSession
from .app import ServedTableApp
from .run import DEFAULT_PORT, PhoneServer, lan_address, listening_socket
from .tokens import Tokens


def served_app(
    stack: ExitStack, session: TableSession, args: argparse.Namespace, hands: dict[str, Hands]
) -> ServedTableApp:
    referee = session.referee
    if not isinstance(referee, LowdownTable):
        raise PopdiceError(f"--serve is for Lowdown; {referee.game} is played at the laptop")
    address = args.address or lan_address()
    port = DEFAULT_PORT if args.port is None else args.port
    listening = listening_socket(address, port)  # refused before any token is kept
    stack.callback(listening.close)  # if what follows fails (the server closes it too)
    folder = session.journal.path.parent
    tokens = Tokens.for_game(folder, session.game_id, len(referee.players))

    def forget_when_over() -> None:
        if session.finished:
            Tokens.forget(folder, session.game_id)

    stack.callback(forget_when_over)  # before the server's exit, so it runs after it
    app = ServedTableApp(session, simulated=bool(hands), hands=hands, urls=[])
    log = folder / "phones" / "server.log"
    server = PhoneServer(app.host, tokens, address, port, listening=listening, log=log)
    app.urls = [server.url(seat) for seat in range(len(referee.players))]
    app.renew = server.renew
    stack.enter_context(server)
    session.note(f"phones served at http://{server.address}:{server.port} (F6: the QR codes)")
    return app
