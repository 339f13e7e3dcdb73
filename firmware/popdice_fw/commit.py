"""The commitment to a secret roll (docs/handheld.md), one module for the firmware and the host.

``commitment`` is SHA-256 of the UTF-8 text ``device_id|roll_id|nonce|colour|number`` as 64
lowercase hex digits: ``device_id`` as in the link's hello, ``nonce`` as 32 lowercase hex
digits (16 bytes of ``os.urandom``), ``colour`` a name of ``COLOURS``, ``number`` 1-6 in
decimal. No field can hold a ``|``, so the text is unambiguous.
"""

import hashlib
from binascii import hexlify

NONCE_BYTES = 16
COLOURS = ("red", "orange", "purple", "blue", "green", "yellow")
NUMBERS = (1, 2, 3, 4, 5, 6)


def committed_text(device_id, roll_id, nonce, colour, number):
    """The bytes that are hashed."""
    return ("%s|%s|%s|%s|%d" % (device_id, roll_id, nonce, colour, number)).encode()


def commitment(device_id, roll_id, nonce, colour, number):
    digest = hashlib.sha256(committed_text(device_id, roll_id, nonce, colour, number)).digest()
    return hexlify(digest).decode()
