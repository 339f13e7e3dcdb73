"""The phones as players see them (``popdice table lowdown --serve``), drawn from the real
pages:

- ``table-phones.svg``: the laptop's QR code screen (F6) for the first player, a screenshot
  of the table app under Textual's pilot, with fixed tokens at a fixed address so the code
  is the same every time;
- ``phone-board.png``: Bob's page on a phone (390 x 720), in Debian's Chromium driven by
  Playwright, from the real server, in the middle of the game ``table_screenshot.py`` plays,
  with his 4 and his green die picked and the boxes they may go in lit.

A browser's picture depends on the fonts of the machine that draws it, so the check compares
the PNG's size, not its bytes (``catalog.LOOSE``). Without Chromium this drawer says so.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from pathlib import Path

from popdice.errors import PopdiceError
from popdice.phones.app import ServedTableApp
from popdice.phones.host import TableHost
from popdice.phones.run import PhoneServer
from popdice.phones.screen import PhonesScreen
from popdice.phones.tokens import Tokens
from popdice.table.commands import parse
from popdice.table.journal import Journal
from popdice.table.session import TableSession

from .scripted import ScriptedHandheld, ScriptedPopper
from .table_screenshot import HIDDEN, PLAY, PLAYERS, POPS

QR_FILE, PHONE_FILE = "table-phones.svg", "phone-board.png"
CHROMIUM = "/usr/bin/chromium"
SIZE = (80, 30)
ADDRESS = "http://192.168.1.20:8765"
TOKENS = [f"{name}-picture-token-not-a-secret" for name in ("ann", "bob", "cy")]
PHONE_WIDTH, PHONE_HEIGHT = 390, 720
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--font-render-hinting=none"]  # fmt: skip


def _session(journal: Journal) -> TableSession:
    """The picture's game, played to Bob's choice in turn 2 (as the table's picture)."""
    session = TableSession.start(
        journal, "lowdown", PLAYERS, ScriptedPopper(POPS), ScriptedHandheld(HIDDEN)
    )
    for step in PLAY:
        if step == "f2":
            session.press_dome()
        elif step == "f3":
            session.roll_hidden()
        elif not step.startswith(("click:", "chip:")):
            session.move(parse(step, "lowdown", PLAYERS).move)
    return session


async def _qr_screen(session: TableSession) -> str:
    urls = [f"{ADDRESS}/p/{token}" for token in TOKENS]
    app = ServedTableApp(session, urls=urls)
    async with app.run_test(size=SIZE) as pilot:
        while not isinstance(app.screen, PhonesScreen):
            await pilot.pause()
        await pilot.pause()
        return app.export_screenshot(title="popdice table lowdown --players Ann,Bob,Cy --serve")


def _phone(session: TableSession, folder: Path) -> bytes:
    if shutil.which(CHROMIUM) is None:
        raise PopdiceError(f"the phone's picture needs Chromium at {CHROMIUM}: make browser")
    from playwright.sync_api import sync_playwright

    host = TableHost(session)
    with PhoneServer(host, Tokens(TOKENS), "127.0.0.1", 0) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(
            viewport={"width": PHONE_WIDTH, "height": PHONE_HEIGHT}, device_scale_factor=1
        )
        page.goto(server.url(1))
        page.get_by_role("button", name="number die 4").click()
        page.get_by_role("button", name="colour die green").click()
        page.locator("button.lit").first.wait_for()
        shot = page.screenshot(path=str(folder / PHONE_FILE), animations="disabled", caret="hide")
        browser.close()
    return shot


def pictures() -> dict[str, bytes]:
    with (
        tempfile.TemporaryDirectory(prefix="popdice-picture-") as folder,
        Journal(Path(folder) / "journal.sqlite") as journal,
    ):
        session = _session(journal)
        svg = asyncio.run(_qr_screen(session))
        phone = _phone(session, Path(folder))
    svg = re.sub(r"terminal-\d+", "popdice-phones", svg)
    return {QR_FILE: svg.encode(), PHONE_FILE: phone}
