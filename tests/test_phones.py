"""Phones as private boards (``popdice table lowdown --serve``), below the browser: each
player's page and websocket bound to a random token of theirs (kept for a resumed game), a
wrong token refused with 403, a move playing for the token's player only, through the same
referee and journal; the hidden pair in no page before its reveal; every limit: a message's
size, the messages a second, the pages open at once, the time to send a request; crafted
or failing moves answered without dropping the page; and the server's log kept off the
terminal the table is drawn on."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import socket
import stat
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the phones extra is not installed")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_support import FakeHandheld, FakePopper
from test_table_lowdown import TURNS, game_handheld, game_popper, play, start, table
from textual.widgets import Static

from popdice.errors import PopdiceError
from popdice.phones.cli import served_app
from popdice.phones.host import TableHost
from popdice.phones.run import PhoneServer
from popdice.phones.server import INTERNAL_ERROR, Hub, Limits, make_app
from popdice.phones.tokens import Tokens
from popdice.table.journal import Journal
from popdice.table.session import TableSession


def served(
    journal: Journal, session: TableSession, limits: Limits | None = None
) -> tuple[TestClient, Tokens, TableHost]:
    tokens = Tokens.for_game(journal.path.parent, session.game_id, len(session.referee.players))
    host = TableHost(session)
    return TestClient(make_app(host, tokens, limits)), tokens, host


def test_tokens_are_random_kept_for_the_game_and_private(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    assert len(set(tokens.by_seat)) == 2
    assert all(len(token) * 6 >= 128 for token in tokens.by_seat)  # base64: 6 bits a character
    kept = journal.path.parent / "phones" / f"{session.game_id}.json"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    again = Tokens.for_game(journal.path.parent, session.game_id, 2)  # the game resumed
    assert again.by_seat == tokens.by_seat
    assert tokens.seat_of(tokens.by_seat[1]) == 1 and tokens.seat_of("guess") is None
    kept.write_text("[1]")
    with pytest.raises(PopdiceError, match="are not this game's"):
        Tokens.for_game(journal.path.parent, session.game_id, 2)


def test_a_games_tokens_go_when_the_table_closes_on_it_over(journal: Journal) -> None:
    args = argparse.Namespace(address="127.0.0.1", port=0)
    session = start(journal, game_popper(), game_handheld())
    kept = journal.path.parent / "phones" / f"{session.game_id}.json"
    with ExitStack() as stack:
        served_app(stack, session, args, {})
    assert kept.is_file()  # a game to resume: its phones reconnect
    with ExitStack() as stack:
        served_app(stack, session, args, {})
        for turn in TURNS:
            session.press_dome()
            session.roll_hidden()
            for text in turn:
                assert play(session, text).accepted
        assert session.finished and kept.is_file()
    assert not kept.exists()


def test_a_wrong_token_gets_403_and_no_socket(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, _ = served(journal, session)
    page = client.get(f"/p/{tokens.by_seat[0]}")
    assert page.status_code == 200 and "<title>PopDice" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../tokens.py").status_code == 404
    for answer in (
        client.get("/nowhere"),
        client.post(f"/p/{tokens.by_seat[0]}"),
        client.get(f"/p/{tokens.by_seat[0]}/", follow_redirects=False),
    ):
        assert answer.status_code in (404, 405), answer.status_code  # no redirect to a token
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["cache-control"] == "no-store"
        assert tokens.by_seat[0] not in answer.headers.get("location", "")
    wrong = tokens.by_seat[0][:-1] + ("A" if tokens.by_seat[0][-1] != "A" else "B")
    refused = client.get(f"/p/{wrong}")
    assert refused.status_code == 403 and tokens.by_seat[0] not in refused.text
    assert close_code(client, wrong) == 4403


def close_code(client: TestClient, token: str) -> int:
    """The code the server closes a page's websocket with, before its first message."""
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(f"/ws/{token}") as ws,
    ):
        ws.receive_json()
    return closed.value.code


def receive_page(ws: Any) -> dict[str, Any]:
    while True:
        message = ws.receive_json()
        if "page" in message:
            return message["page"]


def closed_with(ws: Any) -> int:
    """The code the server closes ``ws`` with, whatever it sends before."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            ws.receive_json()
    return closed.value.code


def reply_to(ws: Any, move: dict[str, Any]) -> dict[str, Any]:
    ws.send_json(move)
    while True:
        message = ws.receive_json()
        if "reply" in message and "page" not in message:
            return message["reply"]


def test_two_phones_play_a_turn_each_for_their_own_player_only(journal: Journal) -> None:
    handheld = game_handheld()
    session = start(journal, game_popper(), handheld)
    client, tokens, host = served(journal, session)
    session.press_dome()
    session.roll_hidden()
    secret = handheld.current
    assert secret is not None
    with (
        client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ann,
        client.websocket_connect(f"/ws/{tokens.by_seat[1]}") as bob,
    ):
        pages = [receive_page(ann), receive_page(bob)]
        for page in pages:  # before the reveal: nothing of the hidden pair anywhere
            text = json.dumps(page)
            assert page["dice"]["hidden"] is None and page["dice"]["hidden_rolled"]
            assert secret.nonce not in text
        assert pages[0]["mine"]["numbers"] == [1, 6] and pages[1]["mine"]["numbers"] == []
        grid = pages[0]["grids"][0]["name"]
        assert [grid, 0, 0] in pages[0]["mine"]["pairs"]["0,0"]  # the 1 with red: box 1,1
        early = reply_to(bob, {"kind": "action", "action": "done", "seat": 0})
        assert early == {"accepted": False, "text": NOT_YET}  # named, not seat 1
        wrote = reply_to(ann, {"kind": "box", "mode": "write", "number": 0, "colour": 0,
                               "box": [grid, 0, 0]})  # fmt: skip
        assert wrote["accepted"], wrote
        bobs = receive_page(bob)
        while bobs["dice"]["hidden"] is None:
            bobs = receive_page(bob)
        assert bobs["dice"]["hidden"] == ["red", 1]  # public once revealed
        assert bobs["mine"]["numbers"]  # the dice Ann left
        wrote = reply_to(bob, {"kind": "box", "mode": "write", "number": 1, "colour": 1,
                               "box": [grid, 0, 0]})  # fmt: skip
        assert wrote["accepted"], wrote
    referee = table(session)
    assert referee.state.turns == 2
    moves = [e.data["move"] for e in journal.entries(session.game_id) if e.kind == "move"]
    assert [(m["type"], m["seat"]) for m in moves] == [("write", 0), ("write", 1)]
    assert host.table is referee


NOT_YET = "refused: Bob cannot act yet: Ann chooses first (not_your_turn)"


def test_a_move_the_rules_refuse_is_answered_to_its_page_only(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, host = served(journal, session)
    session.press_dome()
    session.roll_hidden()
    woken: list[Any] = []
    host.listeners.append(lambda *seat: woken.append(seat))
    log, entries = list(session.log), journal.entries(session.game_id)
    with client.websocket_connect(f"/ws/{tokens.by_seat[1]}") as bob:
        receive_page(bob)
        for _ in range(3):  # Ann chooses first: Bob may not be done yet
            refused = reply_to(bob, {"kind": "action", "action": "done"})
            assert refused == {"accepted": False, "text": NOT_YET}
    assert woken == []  # no page, the laptop's neither, is told of it
    assert session.log == log and journal.entries(session.game_id) == entries


def test_a_renewed_token_closes_its_seats_pages_and_the_new_one_opens_it(
    journal: Journal,
) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, host = served(journal, session)
    old = tokens.by_seat[0]
    with (
        client.websocket_connect(f"/ws/{old}") as ann,
        client.websocket_connect(f"/ws/{tokens.by_seat[1]}") as bob,
    ):
        receive_page(ann)
        receive_page(bob)
        new = tokens.renew(0)
        host.changed(0)  # as the table's server does after a renewal
        with pytest.raises(WebSocketDisconnect) as closed:
            receive_page(ann)
        assert closed.value.code == 4403 and "replaced at the table" in str(closed.value.reason)
        assert "(bad_message)" in reply_to(bob, {"kind": "jump"})["text"]  # the other stays
    assert new != old and tokens.seat_of(new) == 0 and tokens.seat_of(old) is None
    assert client.get(f"/p/{old}").status_code == 403 and close_code(client, old) == 4403
    session.press_dome()
    with client.websocket_connect(f"/ws/{new}") as again:
        assert receive_page(again)["dice"]["numbers"] == [1, 6]
    kept = journal.path.parent / "phones" / f"{session.game_id}.json"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    resumed = Tokens.for_game(journal.path.parent, session.game_id, 2)
    assert resumed.by_seat == [new, tokens.by_seat[1]]  # a resumed game keeps the new one


def test_a_renewal_wakes_the_renewed_seats_pages_only(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    with PhoneServer(TableHost(session), tokens, "127.0.0.1", 0) as server:
        woken: list[Any] = []
        server.host.listeners.append(lambda *seat: woken.append(seat))
        server.renew(0)  # F6, R on the laptop
        assert woken == [(0,)]
    hub, loop = Hub(Limits()), asyncio.new_event_loop()
    pages = [asyncio.Event(), asyncio.Event()]
    hub.pages = {seat: {(loop, page)} for seat, page in enumerate(pages)}
    hub.changed(0)

    async def woken_pages() -> list[bool]:  # runs after the callbacks hub.changed queued
        return [page.is_set() for page in pages]

    with closing(loop):
        assert loop.run_until_complete(woken_pages()) == [True, False]


def test_the_served_tables_renewal_gives_a_new_address_the_server_knows(
    journal: Journal,
) -> None:
    session = start(journal, game_popper(), game_handheld())
    with ExitStack() as stack:
        app = served_app(stack, session, argparse.Namespace(address="127.0.0.1", port=0), {})
        assert app.renew is not None
        before = app.urls[1]
        after = app.renew(1)
        assert after != before and after.rsplit("/", 1)[0] == before.rsplit("/", 1)[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(before, timeout=10)
        assert refused.value.code == 403
        with urllib.request.urlopen(after, timeout=10) as page:
            assert page.status == 200


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame of ``payload`` (under 126 bytes), masked with zeros: sent as is."""
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + bytes(4) + payload


PING = client_frame(0x9, b"P" * 125)


def raw_websocket(server: PhoneServer, token: str, receive_buffer: int = 0) -> socket.socket:
    """A websocket to ``token``'s page opened by hand, its frames to be written as bytes
    (every client library sends only what a client should); its answer's status read."""
    raw = socket.socket()
    if receive_buffer:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    raw.settimeout(10)
    raw.connect((server.address, server.port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    raw.sendall(
        f"GET /ws/{token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert raw.recv(12) == b"HTTP/1.1 101"
    return raw


def close_frame_code(raw: socket.socket) -> int:
    """The code of the close frame the server sends ``raw``, after the frames before it."""
    with raw.makefile("rb") as stream:
        while stream.readline() not in (b"\r\n", b""):  # the rest of the answer's head
            pass
        while True:
            head = stream.read(2)
            assert len(head) == 2, "closed without a close frame"
            size = head[1] & 0x7F
            if size >= 126:
                size = int.from_bytes(stream.read(2 if size == 126 else 8), "big")
            payload = stream.read(size)
            if head[0] & 0x0F == 0x8:
                return int.from_bytes(payload[:2], "big")


def test_a_client_sending_pings_and_reading_nothing_holds_little_of_the_server(
    journal: Journal,
) -> None:
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    with PhoneServer(TableHost(session), tokens, "127.0.0.1", 0) as server:
        flooder = raw_websocket(server, tokens.by_seat[0], 4096)  # the pongs wait there
        flooder.settimeout(0.5)
        sent, until = 0, time.monotonic() + 3.0
        with contextlib.suppress(TimeoutError):  # the server stopped reading: so must we
            while time.monotonic() < until:
                flooder.sendall(PING * 8000)
                sent += len(PING) * 8000
        held = [
            c.transport.get_write_buffer_size()
            for c in list(server.server.server_state.connections)
            if getattr(c, "transport", None) is not None
        ]
        flooder.close()
    assert held and max(held) < 1_000_000, (held, sent)


def test_a_page_renewed_while_it_sends_a_move_has_it_refused(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, _host = served(journal, session)
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ann:
        receive_page(ann)
        tokens.renew(0)  # no change told to the pages: the move itself finds it out
        ann.send_json({"kind": "action", "action": "done"})
        assert closed_with(ann) == 4403
    assert not [e for e in journal.entries(session.game_id) if e.kind == "move"]


def test_a_page_renewed_on_the_tables_thread_just_before_its_move_has_it_refused(
    journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, host = served(journal, session)
    here = host._run

    def renewed_first(function: Any) -> Any:  # F6, R on the table's thread, the move queued
        tokens.renew(0)
        host.changed(0)
        return here(function)

    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ann:
        receive_page(ann)
        host._run = renewed_first
        ann.send_json({"kind": "action", "action": "done"})
        assert closed_with(ann) == 4403
    assert not [e for e in journal.entries(session.game_id) if e.kind == "move"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_move_from_a_page_the_game_has_moved_on_from_is_refused(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, host = served(journal, session)
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ann:
        before = receive_page(ann)  # no dice yet
        session.press_dome()
        session.roll_hidden()
        grid = before["grids"][0]["name"]
        move = {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": [grid, 0, 0]}
        stale = reply_to(ann, {**move, "choices": before["choices"]})
        assert not stale["accepted"] and stale["text"].endswith("choose again (stale)")
        now = host.page(0)  # what the page is sent once told of the change
        assert now["choices"] != before["choices"]
        assert reply_to(ann, {**move, "choices": now["choices"]})["accepted"]


def test_a_page_opened_again_mid_turn_shows_the_game_as_it_is(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, _ = served(journal, session)
    session.press_dome()
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as first:
        assert receive_page(first)["dice"]["numbers"] == [1, 6]
    session.roll_hidden()
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as again:  # the phone reloads
        page = receive_page(again)
        assert page["dice"]["hidden_rolled"] and page["mine"]["numbers"] == [1, 6]


def test_bad_messages_are_answered_and_limits_close_the_page(journal: Journal) -> None:
    session = start(journal, FakePopper([4, 2], colours=["red", "blue"]), FakeHandheld())
    limits = Limits(message=512, per_second=1.0, burst=4, pages_per_player=2, pages=3)
    client, tokens, _ = served(journal, session, limits)
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ws:
        receive_page(ws)
        assert "(bad_message)" in reply_to(ws, {"kind": "jump"})["text"]
        ws.send_text("not json")
        assert "(bad_message)" in ws.receive_json()["reply"]["text"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.send_text("x" * 600)
            ws.receive_json()
        assert closed.value.code == 4413
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ws:
        receive_page(ws)
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(10):
                ws.send_json({"kind": "jump"})
            while True:
                ws.receive_json()
        assert closed.value.code == 4429
    with (
        client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as one,
        client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as two,
    ):
        receive_page(one)
        receive_page(two)
        assert close_code(client, tokens.by_seat[0]) == 4429  # a third page


def test_crafted_moves_are_refused_and_a_failing_move_leaves_the_page_playing(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, _ = served(journal, session)
    session.press_dome()
    session.roll_hidden()
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ws:
        grid = receive_page(ws)["grids"][0]["name"]
        for crafted in (
            {"kind": "cross", "grid": grid, "line": ""},
            {"kind": "cross", "grid": grid, "line": "rx"},
            {"kind": "cross", "grid": "nowhere", "line": "r0"},
            {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": ["nowhere", 0, 0]},
            {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": [grid, 10**4000, 0]},
            {"kind": "box", "mode": "blackout", "box": [grid, -1, 0]},
            {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": [grid, 0, 3]},
            {"kind": "box", "mode": "write", "box": [grid, 0, 0]},
        ):
            assert "(bad_message)" in reply_to(ws, crafted)["text"], crafted
        refused = [e for e in journal.entries(session.game_id) if e.kind == "refused"]
        assert refused == []  # a message that is no move is answered, not journaled
        ws.send_text("[" * 2000 + "]" * 2000)  # deeper than Python's recursion limit
        assert "(bad_message)" in ws.receive_json()["reply"]["text"]

        def broken(move: Any, **options: Any) -> Any:
            raise RuntimeError("a bug")

        monkeypatch.setattr(session, "move", broken)
        move = {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": [grid, 0, 0]}
        assert reply_to(ws, move) == INTERNAL_ERROR
        monkeypatch.undo()
        assert reply_to(ws, move)["accepted"]  # the same page, and the table, play on


def test_a_page_connecting_again_gets_no_new_allowance_of_messages(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    client, tokens, _ = served(journal, session, Limits(per_second=0.001, burst=2))
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as ws:
        receive_page(ws)
        for _ in range(2):
            assert "(bad_message)" in reply_to(ws, {"kind": "jump"})["text"]
    with client.websocket_connect(f"/ws/{tokens.by_seat[0]}") as again:
        receive_page(again)
        with pytest.raises(WebSocketDisconnect) as closed:
            again.send_json({"kind": "jump"})
            again.receive_json()
        assert closed.value.code == 4429


def test_only_lowdown_is_served(journal: Journal) -> None:
    session = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    with pytest.raises(Exception, match="Lowdown only"):
        TableHost(session)


def test_the_page_is_plain_files_with_nothing_from_elsewhere() -> None:
    page = Path(__file__).resolve().parent.parent / "host/popdice/phones/page"
    for name in ("index.html", "app.js", "app.css"):
        text = (page / name).read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text


def test_serve_refuses_other_games_and_a_port_in_use_in_one_line(
    journal: Journal, tmp_path: Path
) -> None:
    import argparse
    import socket
    from contextlib import ExitStack

    from popdice.cli.table import serve_phones
    from popdice.phones.run import PhoneServer

    ringer = TableSession.start(journal, "ringer", ["Ann", "Bob"], FakePopper([4]))
    args = argparse.Namespace(address="127.0.0.1", port=8765)
    with ExitStack() as stack, pytest.raises(PopdiceError, match="--serve is for Lowdown"):
        serve_phones(stack, ringer, args, {})
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PopdiceError) as refused:
            PhoneServer(TableHost(session), tokens, "127.0.0.1", port)
    assert str(refused.value).startswith(f"cannot serve the phones at 127.0.0.1:{port}: ")
    assert "\n" not in str(refused.value)


def table_command(*argv: str) -> int:
    from popdice.cli.table import add_table_arguments

    parser = argparse.ArgumentParser(prog="popdice")
    add_table_arguments(parser.add_subparsers(dest="command").add_parser("table"))
    args = parser.parse_args(["table", *argv])
    return args.run(args)


def test_a_table_that_cannot_serve_keeps_no_game_and_no_tokens(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from table_support import quiet_table

    tables = quiet_table(monkeypatch)
    resumable = start(journal, game_popper(), game_handheld()).game_id
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        where = ["--serve", "--address", "127.0.0.1", "--port", str(taken.getsockname()[1])]
        with pytest.raises(PopdiceError, match="cannot serve the phones at "):
            table_command("lowdown", "--players", "Cy,Di", *where)
        assert journal.game_ids() == [resumable]  # the new game is not kept
        with pytest.raises(PopdiceError, match="cannot serve the phones at "):
            table_command("--resume", *where)
    assert tables == [] and not (journal.path.parent / "phones").exists()
    last = journal.last_unfinished()  # a resumed game is kept, as it was
    assert last is not None and last.id == resumable and journal.game_ids() == [resumable]


def claimed(system: str, exclusive: int | None) -> list[tuple[int, int, int]]:
    """The socket options ``claim_port`` sets on ``system`` (``os.name``), whose socket
    module has ``SO_EXCLUSIVEADDRUSE`` = ``exclusive`` (None: has none)."""
    import socket

    from popdice.phones.run import claim_port

    class Recording:
        def __init__(self) -> None:
            self.set: list[tuple[int, int, int]] = []

        def setsockopt(self, level: int, option: int, value: int) -> None:
            self.set.append((level, option, value))

    listening = Recording()
    with pytest.MonkeyPatch.context() as patch:
        if exclusive is None:
            patch.delattr(socket, "SO_EXCLUSIVEADDRUSE", raising=False)
        else:
            patch.setattr(socket, "SO_EXCLUSIVEADDRUSE", exclusive, raising=False)
        patch.setattr(os, "name", system)
        claim_port(listening)  # type: ignore[arg-type]
    return listening.set


def test_the_servers_port_is_its_alone_on_windows_too() -> None:
    """SO_REUSEADDR on Windows would let a second table bind a port in use and share it."""
    import socket

    assert claimed("posix", None) == [(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)]
    assert claimed("nt", -5) == [(socket.SOL_SOCKET, -5, 1)]  # SO_EXCLUSIVEADDRUSE
    assert claimed("nt", None) == []  # not SO_REUSEADDR, at least


def test_the_laptop_shows_each_players_qr_code_of_their_page() -> None:
    import segno  # noqa: F401 - the extra is there

    from popdice.phones.qr import qr_text

    url = "http://192.168.1.20:8765/p/" + "x" * 32
    text = qr_text(url)
    lines = text.plain.splitlines()
    assert len(lines) >= 15 and all(set(line) == {"▀"} for line in lines)
    assert len({len(line) for line in lines}) == 1  # square: every line as wide


def test_the_served_table_shows_the_qr_codes_and_plays_a_phones_move_on_its_thread(
    journal: Journal,
) -> None:
    import asyncio
    import gc
    import threading
    import warnings

    from test_table_app import SIZE, wait_until

    from popdice.phones.app import ServedTableApp
    from popdice.phones.screen import PhonesScreen
    from popdice.table import lowdown_pick
    from popdice.table.lowdown_pick import Pick

    session = start(journal, game_popper(), game_handheld())
    urls = ["http://192.0.2.7:8765/p/" + "a" * 32, "http://192.0.2.7:8765/p/" + "b" * 32]
    heard: list[int] = []

    async def play() -> ServedTableApp:
        app = ServedTableApp(session, urls=urls)
        app.host.listeners.append(lambda seat: heard.append(1))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, PhonesScreen)
            assert urls[0] in str(app.screen.query_one("#url").render())
            code = app.screen.query_one("#code").region  # drawn whole, on the screen
            assert code.height >= 15 and code.width >= 29 and code.right <= SIZE[0]
            assert code.bottom <= SIZE[1]
            await pilot.press("right")
            assert urls[1] in str(app.screen.query_one("#url").render())
            await pilot.press("r")  # no renewal given: the codes stay
            assert urls[1] in str(app.screen.query_one("#url").render())
            await pilot.press("escape")
            await pilot.press("f2", "f3")
            referee = table(session)
            await wait_until(pilot, lambda: referee.dice_in and referee.commitment is not None)
            box = sorted(lowdown_pick.boxes(referee, Pick(0, 0, 0)))[0]
            message = {"kind": "box", "mode": "write", "number": 0, "colour": 0, "box": list(box)}
            reply: dict[str, Any] = {}
            phone = threading.Thread(target=lambda: reply.update(app.host.play(0, message)))
            phone.start()  # as the server's thread does: the move waits for the app's thread
            await wait_until(pilot, lambda: bool(reply))
            phone.join()
            assert reply["accepted"], reply
            assert "Ann writes 1 (red)" in "\n".join(session.log)
            assert heard  # the phones were told
            await pilot.press("f6")
            assert isinstance(app.screen, PhonesScreen)
        return app

    app = asyncio.run(play())
    refused: list[str] = []

    def late() -> None:
        try:
            app.host.play(0, {"kind": "action", "action": "done"})
        except PopdiceError as error:
            refused.append(str(error))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        phone = threading.Thread(target=late)
        phone.start()  # a phone's move after the table has closed
        phone.join()
        gc.collect()
    assert refused == ["the table has closed"]
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_r_on_the_qr_codes_gives_the_shown_player_a_new_code(journal: Journal) -> None:
    import asyncio

    from test_table_app import SIZE

    from popdice.phones.app import ServedTableApp
    from popdice.phones.screen import PhonesScreen

    session = start(journal, game_popper(), game_handheld())
    urls = ["http://192.0.2.7:8765/p/" + "a" * 32, "http://192.0.2.7:8765/p/" + "b" * 32]
    renewed: list[int] = []

    failing: list[bool] = []

    def renew(seat: int) -> str:
        if failing:
            raise PopdiceError("cannot write phones/1.json: No space left on device")
        renewed.append(seat)
        return "http://192.0.2.7:8765/p/" + "c" * 32

    async def play() -> None:
        app = ServedTableApp(session, urls=list(urls), renew=renew)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, PhonesScreen)
            assert "R: a new code" in str(app.screen.query(Static).last().render())
            await pilot.press("right", "r")
            assert renewed == [1]
            assert "c" * 32 in str(app.screen.query_one("#url").render())
            await pilot.press("left")
            assert urls[0] in str(app.screen.query_one("#url").render())
            await pilot.press("right")  # the new code is the one shown again
            assert "c" * 32 in str(app.screen.query_one("#url").render())
            assert app.urls[1].endswith("c" * 32)
            failing.append(True)
            await pilot.press("r")  # the new token cannot be kept: the old code stays
            await pilot.pause()
            assert "c" * 32 in str(app.screen.query_one("#url").render())
            assert any("cannot write" in str(n.message) for n in app._notifications)

    asyncio.run(play())


def test_a_page_of_a_table_that_has_closed_is_told_so(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)

    def closed(function: Any) -> Any:
        raise PopdiceError("the table has closed")

    client = TestClient(make_app(TableHost(session, run=closed), tokens))
    assert close_code(client, tokens.by_seat[0]) == 1011


def test_a_phone_that_connects_before_the_server_runs_is_answered(journal: Journal) -> None:
    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    server = PhoneServer(TableHost(session), tokens, "127.0.0.1", 0)
    try:
        early = socket.create_connection((server.address, server.port), timeout=5)  # queued
        with early:
            server.start()
            early.sendall(f"GET /p/{tokens.by_seat[0]} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert early.recv(64).startswith(b"HTTP/1.1 200")
    finally:
        server.stop()


@contextmanager
def serving(
    journal: Journal, limits: Limits | None = None, log: Path | None = None
) -> Iterator[tuple[PhoneServer, TableSession]]:
    """A real server on this machine of a Lowdown game whose turn has begun."""
    session = start(journal, game_popper(), game_handheld())
    session.press_dome()
    session.roll_hidden()
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    with PhoneServer(TableHost(session), tokens, "127.0.0.1", 0, limits, log=log) as server:
        yield server, session


def socket_url(server: PhoneServer, token: str) -> str:
    return f"ws://{server.netloc}/ws/{token}"


def refusal(url: str) -> tuple[int, str]:
    """The code and reason the server closes the websocket at ``url`` with, before its
    first message."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(url, open_timeout=5) as ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=5)
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_a_refused_pages_script_hears_why_and_may_open_its_websocket(journal: Journal) -> None:
    """A websocket refused before its handshake reaches a browser's script as code 1006,
    never why; and Safari before 16 takes 'self' not to cover ws:."""
    from websockets.sync.client import connect

    with serving(journal, Limits(pages_per_player=1)) as (server, _):
        with urllib.request.urlopen(server.url(0), timeout=5) as page:
            policy = page.headers["Content-Security-Policy"]
        assert f"connect-src 'self' ws://127.0.0.1:{server.port};" in policy
        code, reason = refusal(socket_url(server, "x" * 32))
        assert code == 4403 and "this page is not yours" in reason
        with connect(socket_url(server, server.tokens.by_seat[0]), open_timeout=5) as first:
            assert "page" in json.loads(first.recv(timeout=5))
            code, reason = refusal(socket_url(server, server.tokens.by_seat[0]))
            assert code == 4429 and "too many pages open" in reason


def test_the_servers_log_goes_to_its_file_never_to_the_tables_terminal(
    journal: Journal, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Anyone on the network can make the server log: the table is drawn on stderr."""
    from websockets.sync.client import connect

    log = tmp_path / "server.log"
    with serving(journal, log=log) as (server, session):
        with socket.create_connection((server.address, server.port), timeout=5) as garbage:
            garbage.sendall(b"\x00\x01garbage\r\n\r\n")
            assert garbage.recv(64).startswith(b"HTTP/1.1 400")

        def broken(move: Any, **options: Any) -> Any:
            raise RuntimeError("a bug")

        with (
            pytest.MonkeyPatch.context() as patch,
            connect(socket_url(server, server.tokens.by_seat[0]), open_timeout=5) as ws,
        ):
            patch.setattr(session, "move", broken)
            assert "page" in json.loads(ws.recv(timeout=5))
            ws.send(json.dumps({"kind": "action", "action": "done"}))
            assert json.loads(ws.recv(timeout=5)) == {"reply": INTERNAL_ERROR}
    assert capfd.readouterr().err == ""
    kept = log.read_text()
    assert "Invalid HTTP request received." in kept and "RuntimeError: a bug" in kept


def test_text_that_is_not_utf8_closes_its_websocket_with_1007_and_one_log_line(
    journal: Journal, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with (
        serving(journal, log=log) as (server, _),
        raw_websocket(server, server.tokens.by_seat[0]) as raw,
    ):
        raw.sendall(client_frame(0x1, b"\xff\xfe not UTF-8"))
        assert close_frame_code(raw) == 1007
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and "not UTF-8" in lines[0], lines


def test_a_connection_that_sends_no_request_in_time_is_closed(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idle connections held by anyone on the network would take every place the server
    has (``Limits.pages`` times four), and its phones would get 503."""
    import http.client

    from popdice.phones import run

    monkeypatch.setattr(run, "REQUEST_DEADLINE", 0.5)
    with serving(journal, Limits(pages=2)) as (server, _):
        answered = http.client.HTTPConnection(server.address, server.port, timeout=5)
        answered.request("GET", "/static/app.css")
        assert answered.getresponse().read()
        assert answered.sock is not None
        answered.sock.sendall(b"GET /p/")  # and no more of its next request
        idle = [socket.create_connection((server.address, server.port)) for _ in range(10)]
        try:
            for held in [answered.sock, *idle]:
                held.settimeout(5)
                assert held.recv(1) == b"", "the server has closed it"
            with urllib.request.urlopen(server.url(0), timeout=5) as page:
                assert page.status == 200  # while the idle ones are still held at their end
        finally:
            answered.close()
            for held in idle:
                held.close()
