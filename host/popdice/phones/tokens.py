"""Each player's token for a game: 192 random bits, the only key to their page.

The tokens are kept beside the journal (``phones/GAME.json``, readable by its owner only),
so a game resumed with ``--resume`` keeps them and the phones reconnect by themselves; the
table removes them when it closes on a game that is over. A token is compared in constant
time. A seat's token can be replaced (``renew``): a phone that was lost, or a page opened
by someone else, stops working, and the player scans the new code.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path

from ..errors import PopdiceError
from ..files import read_limited, write_replacing

TOKEN_BYTES = 24
TOKENS_LIMIT = 64 * 1024


class Tokens:
    """The tokens of one game's seats, made once and kept."""

    def __init__(self, by_seat: list[str], path: Path | None = None) -> None:
        """``path``: where they are kept (none: only here)."""
        self.by_seat = list(by_seat)
        self.path = path

    @classmethod
    def for_game(cls, folder: Path, game_id: int, seats: int) -> Tokens:
        """The game's tokens from ``folder``, made (and kept there) the first time."""
        path = folder / "phones" / f"{game_id}.json"
        if path.is_file():
            try:
                kept = json.loads(read_limited(str(path), TOKENS_LIMIT, "phone tokens"))
            except (OSError, ValueError) as error:
                raise PopdiceError(
                    f"the phones' tokens in {path} cannot be read: {error}"
                ) from None
            if (
                isinstance(kept, list)
                and len(kept) == seats
                and all(isinstance(t, str) and len(t) >= 22 for t in kept)
            ):
                return cls(kept, path)
            raise PopdiceError(f"the phones' tokens in {path} are not this game's")
        made = cls([secrets.token_urlsafe(TOKEN_BYTES) for _ in range(seats)], path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(made.by_seat, out)
        return made

    @staticmethod
    def forget(folder: Path, game_id: int) -> None:
        """Removes the game's tokens (once it is over, no page of it is served again)."""
        (folder / "phones" / f"{game_id}.json").unlink(missing_ok=True)

    def renew(self, seat: int) -> str:
        """Gives ``seat`` a new token, kept before it is used; its old one opens nothing."""
        renewed = list(self.by_seat)
        renewed[seat] = secrets.token_urlsafe(TOKEN_BYTES)
        if self.path is not None:
            write_replacing(self.path, json.dumps(renewed), PopdiceError)
            os.chmod(self.path, 0o600)
        self.by_seat = renewed
        return renewed[seat]

    def seat_of(self, token: str) -> int | None:
        """The seat whose token ``token`` is, or None."""
        found = None
        for seat, known in enumerate(self.by_seat):
            if hmac.compare_digest(known.encode(), token.encode()):
                found = seat
        return found
