"""The phones' pages in a real headless Chromium (Debian's, driven by Playwright), against
the real server: two phones and the laptop play a Lowdown turn at once and the journal has
each move; a wrong token's page says so, and so do a page too many and a page whose code
was renewed at the table; a phone that reloads mid-turn plays on; and nothing of the hidden
pair is in another player's page or websocket traffic before its reveal.

Skipped, saying why, where no browser can be had (``make browser`` installs Debian's
chromium); ``POPDICE_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from popdice.table.journal import Journal
from popdice.table.session import TableSession

CHROMIUM = os.environ.get("POPDICE_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("POPDICE_REQUIRE_BROWSER") == "1"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
        import starlette  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (make test installs it)"
    if shutil.which(CHROMIUM) is None:
        return f"no Chromium at {CHROMIUM}: `make browser` installs Debian's (or $POPDICE_CHROMIUM)"
    return None


MISSING = _missing()
if MISSING is not None:
    if REQUIRED:
        raise RuntimeError(f"POPDICE_REQUIRE_BROWSER=1 but {MISSING}")
    pytest.skip(MISSING, allow_module_level=True)

from playwright.sync_api import Browser, Page, WebSocket, sync_playwright  # noqa: E402
from table_support import FakeHandheld, FakePopper  # noqa: E402

from popdice.phones.host import TableHost  # noqa: E402
from popdice.phones.run import PhoneServer  # noqa: E402
from popdice.phones.tokens import Tokens  # noqa: E402
from popdice.table import lowdown_pick  # noqa: E402
from popdice.table.lowdown_pick import Pick  # noqa: E402
from popdice.table.lowdown_table import grid_short  # noqa: E402

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PLAYERS = ["Ann", "Bob", "Cy"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


class Game:
    """A Lowdown game of three, its phones' server on this machine, and its host."""

    def __init__(self, journal: Journal) -> None:
        self.popper = FakePopper([4, 2], colours=["red", "blue"])
        self.handheld = FakeHandheld([("purple", 3)])
        self.session = TableSession.start(journal, "lowdown", PLAYERS, self.popper, self.handheld)
        self.tokens = Tokens.for_game(journal.path.parent, self.session.game_id, 3)
        self.host = TableHost(self.session)
        self.server = PhoneServer(self.host, self.tokens, "127.0.0.1", 0).start()

    def laptop(self, act: Any) -> Any:
        """``act(session)`` as the laptop does it, then word to the phones."""
        result = self.host._run(lambda: act(self.session))
        self.host.changed()
        return result

    def a_pair_with_a_box(self, seat: int) -> tuple[int, int, tuple[str, int, int]]:
        def find() -> tuple[int, int, tuple[str, int, int]]:
            table = self.host.table
            numbers, colours = lowdown_pick.offered(table, seat)
            for n in range(len(numbers)):
                for c in range(len(colours)):
                    boxes = sorted(lowdown_pick.boxes(table, Pick(seat, n, c)))
                    if boxes:
                        return n, c, boxes[0]
            raise AssertionError(f"seat {seat} has no box for any pair")

        return self.host._run(find)


@pytest.fixture
def game(journal: Journal) -> Iterator[Game]:
    made = Game(journal)
    yield made
    made.server.stop()


def open_phone(browser: Browser, game: Game, seat: int, frames: list[str]) -> Page:
    page = browser.new_page()

    def listen(socket: WebSocket) -> None:
        socket.on("framereceived", lambda payload: frames.append(str(payload)))

    page.on("websocket", listen)
    page.goto(game.server.url(seat))
    return page


def play_by_tapping(page: Page, game: Game, seat: int) -> None:
    """``seat``'s phone taps a number die, a colour die and one of the boxes they light."""
    n, c, (grid, row, col) = game.a_pair_with_a_box(seat)
    numbers, colours = game.host._run(lambda: lowdown_pick.offered(game.host.table, seat))
    same = [i for i, value in enumerate(numbers) if value == numbers[n]]
    page.get_by_role("button", name=f"number die {numbers[n]}").nth(same.index(n)).click()
    page.get_by_role("button", name=f"colour die {colours[c]}").first.click()
    where = f"{grid_short(grid)} row {row + 1} column {col + 1}:"
    page.locator(f'button.lit[aria-label^="{where}"]').click()


def test_two_phones_and_the_laptop_play_a_turn_at_once(browser: Browser, game: Game) -> None:
    frames: dict[int, list[str]] = {0: [], 1: []}
    ann = open_phone(browser, game, 0, frames[0])
    bob = open_phone(browser, game, 1, frames[1])
    ann.get_by_text("press the dome").first.wait_for()
    game.laptop(lambda s: s.press_dome())
    game.laptop(lambda s: s.roll_hidden())
    ann.get_by_role("button", name="number die 4").wait_for()
    bob.get_by_text("nothing to do now").wait_for()
    pages = [json.loads(f)["page"] for f in frames[0] + frames[1] if '"page"' in f]
    assert pages and all(page["dice"]["hidden"] is None for page in pages)
    shown = bob.content() + ann.content() + "".join(frames[0] + frames[1])
    assert "purple 3" not in shown and "3 purple" not in shown  # the hidden pair, unrevealed
    play_by_tapping(ann, game, 0)  # shares the hidden pair: the handheld reveals it
    bob.get_by_text("hidden: 3 purple").wait_for()
    bob.reload()  # Bob's phone reloads mid-turn
    bob.get_by_text("hidden: 3 purple").wait_for()
    play_by_tapping(bob, game, 1)
    n, c, box = game.a_pair_with_a_box(2)  # Cy writes at the laptop meanwhile

    def cy_writes(session: TableSession) -> Any:
        return session.move(lowdown_pick.box_move(game.host.table, Pick(2, n, c), box))

    assert game.laptop(cy_writes).accepted
    bob.get_by_text("Bob writes").first.wait_for()
    entries = game.session.journal.entries(game.session.game_id)
    moves = [e.data["move"] for e in entries if e.kind == "move"]
    assert sorted(m["seat"] for m in moves if m["type"] == "write") == [0, 1, 2]
    assert not [e for e in entries if e.kind == "refused"]


def test_a_wrong_token_is_refused_in_the_browser(browser: Browser, game: Game) -> None:
    page = browser.new_page()
    response = page.goto(game.server.url(0)[:-4] + "AAAA")
    assert response is not None and response.status == 403
    assert "this page is not yours" in page.content()


def test_a_page_too_many_says_so_and_does_not_try_again(browser: Browser, game: Game) -> None:
    for _ in range(3):  # Limits.pages_per_player
        open_phone(browser, game, 0, []).get_by_text("press the dome").first.wait_for()
    extra = open_phone(browser, game, 0, [])
    extra.get_by_text("too many pages open: close one and reload").wait_for(timeout=10_000)


def test_a_page_whose_code_is_renewed_says_so_and_the_new_code_plays(
    browser: Browser, game: Game
) -> None:
    old = open_phone(browser, game, 0, [])
    old.get_by_text("press the dome").first.wait_for()
    game.server.renew(0)  # F6, R at the laptop
    old.get_by_text("this page's code was replaced at the table").wait_for(timeout=10_000)
    new = open_phone(browser, game, 0, [])
    new.get_by_text("press the dome").first.wait_for()
    old.reload()  # the old address opens nothing any more
    assert "this page is not yours" in old.content()


def tap(page: Page, move: dict[str, Any]) -> None:
    """Plays a typed command's ``move`` on its player's phone, by taps alone."""
    kind = move["type"]
    if kind in ("reveal", "done", "skip"):
        page.get_by_role("button", name=f"{kind}:").click()
        return
    if kind == "cross":
        label = f"{grid_short(move['grid'])} {move['line'][0]}{int(move['line'][1:]) + 1}"
        page.get_by_role("button", name=f"cross out {label}").click()
        return
    if kind == "wild":
        page.get_by_role("button", name="wild:").click()
    page.get_by_role("button", name=f"number die {move['number']}").first.click()
    if move.get("color") is not None:
        page.get_by_role("button", name=f"colour die {move['color']}").first.click()
    where = f"{grid_short(move['grid'])} row {move['row'] + 1} column {move['col'] + 1}:"
    page.locator(f'button.lit[aria-label^="{where}"]').click()


def test_a_whole_game_played_on_the_phones(browser: Browser, journal: Journal) -> None:
    from test_table_lowdown import PLAYERS as TWO
    from test_table_lowdown import TURNS, game_handheld, game_popper, start

    from popdice.table.commands import parse

    session = start(journal, game_popper(), game_handheld())
    tokens = Tokens.for_game(journal.path.parent, session.game_id, 2)
    host = TableHost(session)
    with PhoneServer(host, tokens, "127.0.0.1", 0) as server:
        phones = [browser.new_page() for _ in TWO]
        for seat, phone in enumerate(phones):
            phone.goto(server.url(seat))
        for turn in TURNS:
            rolled = host._run(lambda: (session.press_dome(), session.roll_hidden()))
            assert all(outcome is not None and outcome.accepted for outcome in rolled), rolled
            host.changed()
            for text in turn:
                move = parse(text, "lowdown", TWO).move
                # read under the table's lock: a move that reveals logs two lines
                active, number, before = host._run(
                    lambda: (
                        table_of(session).state.active,
                        table_of(session).state.turns,
                        len(session.log),
                    )
                )
                seat = move.get("seat", active)
                phones[seat].get_by_text(f"turn {number} ·").first.wait_for()
                tap(phones[seat], move)
                wait_for(lambda before=before: host._run(lambda: len(session.log)) > before)
                assert not session.log[-1].startswith("refused"), session.log[-1]
        phones[0].get_by_text("game over").first.wait_for()
    assert table_of(session).over and journal.game(session.game_id).winners == ("Ann",)


def table_of(session: TableSession) -> Any:
    return session.referee


def wait_for(ready: Any, timeout: float = 10) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, "the phone's move did not arrive"
        time.sleep(0.02)
