"""The handheld's secret rolls: one colour die and one number die, a nonce and a commitment.

Until ``reveal`` the values stay here: ``public()`` is what may cross the link before it.
``wipe`` forgets an unrevealed roll for good (before the REPL is handed over).
Roll ids are ``<boot session>-<count>``, unique across boots without any storage. A roll
made while the last one is unrevealed replaces it, and says so (``replaces``). A roll
remembers the host's link session it was made in (``holder``): only that one may have it
revealed by command.
"""

import os
from binascii import hexlify

from popdice_fw.commit import COLOURS, NONCE_BYTES, commitment
from popdice_fw.dice import Dice


class SecretRoll:
    def __init__(self, roll_id, colour, number, nonce, commitment_, replaces, holder=0):
        self.roll_id = roll_id
        self.colour = colour
        self.number = number
        self.nonce = nonce
        self.commitment = commitment_
        self.replaces = replaces
        self.revealed = False
        self.holder = holder  # the host's link session the roll was made in

    def public(self):
        """What the host may know before the reveal."""
        return {"roll_id": self.roll_id, "commitment": self.commitment, "replaces": self.replaces}

    def wipe(self):
        """Forgets the dice and the nonce, overwriting the fields that held them: the roll can
        no longer be revealed. The nonce's text is freed; ``scrub.free_heap`` overwrites it."""
        self.colour = None
        self.number = 0
        self.nonce = None

    def opened(self):
        """The reveal: everything needed to check the commitment."""
        return {
            "roll_id": self.roll_id,
            "nonce": self.nonce,
            "colour": self.colour,
            "number": self.number,
        }


class Roller:
    def __init__(self, device_id, session, dice=None, entropy=None):
        self.device_id = device_id
        self.session = session
        self.dice = dice or Dice()
        self._entropy = entropy or os.urandom
        self.count = 0
        self.current = None

    def roll(self, holder=0):
        """A new secret roll, which becomes the current one, held by the host's link
        session ``holder``."""
        before = self.current
        replaces = before.roll_id if before is not None and not before.revealed else None
        self.count += 1
        roll_id = "%s-%d" % (self.session, self.count)
        colour = COLOURS[self.dice.roll(len(COLOURS)) - 1]
        number = self.dice.roll(6)
        raw = self._entropy(NONCE_BYTES)
        if len(raw) != NONCE_BYTES:
            raise OSError("the entropy source gave too few bytes for a nonce")
        nonce = hexlify(raw).decode()
        self.current = SecretRoll(
            roll_id,
            colour,
            number,
            nonce,
            commitment(self.device_id, roll_id, nonce, colour, number),
            replaces,
            holder,
        )
        return self.current

    def wipe(self):
        """Wipes the current roll if it is unrevealed, which leaves no current roll; returns
        its id, or None."""
        roll = self.current
        if roll is None or roll.revealed:
            return None
        roll.wipe()
        self.current = None
        return roll.roll_id

    def reveal(self):
        """Marks the current roll revealed (it may already be) and returns it, or None."""
        roll = self.current
        if roll is not None:
            roll.revealed = True
        return roll
