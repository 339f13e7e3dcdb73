"""The phones' web server (Starlette): each player's page, and one websocket a page for its
updates and its moves.

- ``GET /p/TOKEN``: the page (plain HTML, CSS and a small script from ``page/``, nothing
  fetched from elsewhere); a token that is no player's gets 403, and its websocket is
  closed with 4403 (accepted first, so that the page's script sees the code); so is a
  page open under a token renewed at the table since.
- ``/ws/TOKEN``: the server sends the player's page as JSON at once and after every change
  of the game; the page sends moves, each at most ``Limits.message`` bytes and at most
  ``Limits.per_second`` a second on average (a burst of ``Limits.burst``), counted for the
  player however many times their pages connect; a page that sends more is told why and
  closed. At most ``Limits.pages_per_player`` pages a player and ``Limits.pages`` in all
  are open at once (4429). A move plays for the token's player only; one that fails in the
  server is logged and answered as an internal error, the page and the table going on.
Every response forbids caching and referrers (the token is in the address) and limits the
page to its own server (``served_at``: its websocket too, for Safari before 16).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import PopdiceError
from .host import TableHost
from .tokens import Tokens

HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'{sockets}; "
    "img-src 'self'; base-uri 'none'; form-action 'none'"
)
FILES = {"app.js": "text/javascript", "app.css": "text/css"}
FORBIDDEN = "this page is not yours: ask for your own QR code"
RENEWED = "this page's code was replaced at the table: scan the new one"
INTERNAL_ERROR = {"accepted": False, "text": "the table could not take that (internal error)"}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    message: int = 4096
    per_second: float = 5.0
    burst: int = 20
    pages_per_player: int = 3
    pages: int = 24


def _file(name: str) -> bytes:
    return resources.files("popdice.phones").joinpath("page").joinpath(name).read_bytes()


class Allowance:
    """The messages a player may send now: ``limits.burst`` at most, ``limits.per_second``
    more every second."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.left = float(limits.burst)
        self.last = time.monotonic()

    def take(self) -> bool:
        """Counts one message; False if there is no allowance left for it."""
        now = time.monotonic()
        self.left = min(self.limits.burst, self.left + (now - self.last) * self.limits.per_second)
        self.last = now
        if self.left < 1:
            return False
        self.left -= 1
        return True


class Hub:
    """The open pages, and word to each when the game changes (from any thread, to the loop
    each page is served on); and each player's allowance of messages, kept while their pages
    come and go."""

    def __init__(self, limits: Limits) -> None:
        self.pages: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        self.limits = limits
        self.allowances: dict[int, Allowance] = {}

    def allowance(self, seat: int) -> Allowance:
        return self.allowances.setdefault(seat, Allowance(self.limits))

    def count(self, seat: int | None = None) -> int:
        if seat is None:
            return sum(len(pages) for pages in self.pages.values())
        return len(self.pages.get(seat, ()))

    def changed(self, seat: int | None = None) -> None:
        """Wakes every page, or ``seat``'s pages only."""
        woken = list(self.pages.values()) if seat is None else [self.pages.get(seat, set())]
        for pages in woken:
            for loop, event in list(pages):
                with contextlib.suppress(RuntimeError):  # its loop closed: the page is gone
                    loop.call_soon_threadsafe(event.set)


def make_app(
    host: TableHost, tokens: Tokens, limits: Limits | None = None, served_at: str | None = None
) -> Starlette:
    """The server's app for ``host``'s game, its pages bound to ``tokens``; ``served_at``
    is the server's own ``host:port``, where the pages' websockets go."""
    limits = limits or Limits()
    hub = Hub(limits)
    host.listeners.append(hub.changed)
    sockets = "" if served_at is None else f" ws://{served_at}"
    headers = {**HEADERS, "Content-Security-Policy": POLICY.format(sockets=sockets)}

    async def page(request: Request) -> Response:
        if tokens.seat_of(str(request.path_params["token"])) is None:
            return PlainTextResponse(FORBIDDEN + "\n", status_code=403, headers=headers)
        return Response(_file("index.html"), media_type="text/html", headers=headers)

    async def static(request: Request) -> Response:
        name = str(request.path_params["name"])
        if name not in FILES:
            return PlainTextResponse("no such file\n", status_code=404, headers=headers)
        return Response(_file(name), media_type=FILES[name], headers=headers)

    async def socket(websocket: WebSocket) -> None:
        token = str(websocket.path_params["token"])
        seat = tokens.seat_of(token)
        await websocket.accept()  # refused after, else a browser sees no close code
        if seat is None:
            await websocket.close(code=4403, reason=FORBIDDEN)
            return
        if hub.count(seat) >= limits.pages_per_player or hub.count() >= limits.pages:
            await websocket.close(code=4429, reason="too many pages open: close one and reload")
            return

        def yours() -> bool:  # until the seat's token is renewed
            return tokens.seat_of(token) == seat

        event = asyncio.Event()
        entry = (asyncio.get_running_loop(), event)
        hub.pages.setdefault(seat, set()).add(entry)
        try:
            await _serve(websocket, host, seat, event, limits, hub.allowance(seat), yours)
        except WebSocketDisconnect:
            pass
        except PopdiceError as error:  # the table has closed under the page
            await _close(websocket, 1011, str(error))
        finally:
            hub.pages[seat].discard(entry)

    app = Starlette(
        routes=[
            Route("/p/{token}", page),
            Route("/static/{name}", static),
            WebSocketRoute("/ws/{token}", socket),
        ],
        middleware=[Middleware(EveryResponse, headers=headers)],
    )
    app.router.redirect_slashes = False  # its redirect would put a token in a Location
    return app


class EveryResponse:
    """``headers`` on every HTTP response, Starlette's own (404, 405) too, unless the
    response sets them itself."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.headers = [(name.lower().encode(), value.encode()) for name, value in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, sending)


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    """Closes ``websocket`` with ``code``, unless it is closed already (its updates or its
    moves got there first: a second close would raise)."""
    with contextlib.suppress(RuntimeError):  # Starlette's "once a close message has been sent"
        await websocket.close(code=code, reason=reason)


async def _send_page(
    websocket: WebSocket, host: TableHost, seat: int, sending: asyncio.Lock
) -> None:
    shown = await anyio.to_thread.run_sync(host.page, seat)
    async with sending:
        await websocket.send_text(json.dumps({"page": shown}))


async def _serve(
    websocket: WebSocket,
    host: TableHost,
    seat: int,
    event: asyncio.Event,
    limits: Limits,
    allowance: Allowance,
    yours: Callable[[], bool],
) -> None:
    """One page: its updates and its moves (each taken from the player's ``allowance``),
    until it goes, breaks a limit or its token is renewed at the table (``yours`` says
    whether it still opens the seat). Its replies and its updates are sent one at a time (a
    websocket takes one message at once)."""
    sending = asyncio.Lock()
    await _send_page(websocket, host, seat, sending)

    async def updates() -> None:
        try:
            while True:
                await event.wait()
                event.clear()
                if not yours():
                    await _close(websocket, 4403, RENEWED)
                    return
                await _send_page(websocket, host, seat, sending)
        except Exception:  # a page must not go on without its updates: it connects again
            with contextlib.suppress(Exception):
                await websocket.close(code=1011, reason="updates stopped")

    sender = asyncio.create_task(updates())

    async def renewed() -> None:
        """The seat's token was renewed: the page closes with 4403, by its updates (woken
        here) unless they have stopped; never by both at once."""
        if sender.done():
            await _close(websocket, 4403, RENEWED)
        else:
            event.set()
            await sender

    try:
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(received.get("code", 1000))
            text = received.get("text")
            if not isinstance(text, str):
                await _close(websocket, 4400, "moves are JSON text")
                return
            if not allowance.take():
                await _close(websocket, 4429, "too many messages: reload the page")
                return
            if len(text.encode()) > limits.message:
                await _close(websocket, 4413, "a message too large")
                return
            try:
                message = json.loads(text)
            except (ValueError, RecursionError):  # RecursionError: nested too deep
                message = None
            try:  # ``yours`` is asked where the move is played
                reply = await anyio.to_thread.run_sync(host.play, seat, message, yours)
            except PopdiceError:  # the table has closed
                raise
            except Exception:
                log.exception("a move from seat %d's page failed: %.200r", seat, message)
                reply = INTERNAL_ERROR
            if not yours():  # renewed while the move was on its way: it was not played
                await renewed()
                return
            if sender.done():  # its updates stopped: let the page connect again for them
                await _close(websocket, 1011, "updates stopped")
                return
            async with sending:
                await websocket.send_text(json.dumps({"reply": reply}))
    finally:
        sender.cancel()
