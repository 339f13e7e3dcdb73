"""The press detector's settings in the popper's flash: ``detector.json``, written by
``popdice calibrate`` and checked at boot.

The file holds ``{"settings": {...}}`` (what ``popdice tune`` writes; anything else in it is
kept for people and ignored here). A missing file means the defaults; a file that
cannot be read, is not JSON or holds a bad setting means the defaults too, and ``load`` says
why, so ``status`` can tell the host. Writing goes to a temporary file renamed over the old
one, so a reset in the middle leaves the old settings or the new, never half of either.
"""

import json
import os

from popdice_fw.press import check_settings, defaults

PATH = "detector.json"
_TEMPORARY = ".tmp"
_MAX_BYTES = 4096


def load(path=PATH):
    """(settings, source): the checked settings and where they came from: ``"file"``,
    ``"defaults"`` (no file), or ``"defaults (detector.json: REASON)"``."""
    try:
        size = os.stat(path)[6]
    except OSError:
        return defaults(), "defaults"
    try:
        if size > _MAX_BYTES:
            raise ValueError("over %d bytes" % _MAX_BYTES)
        with open(path) as stream:
            text = stream.read()  # the file's size: a boot's heap may have no 4 KB in one piece
        document = json.loads(text)
        if not isinstance(document, dict) or "settings" not in document:
            raise ValueError('no "settings"')
        return check_settings(document["settings"]), "file"
    # RuntimeError: JSON nested too deeply
    except (OSError, ValueError, TypeError, MemoryError, RuntimeError) as error:
        return defaults(), "defaults (%s: %s)" % (path, str(error)[:80] or "not JSON")


def save(settings, path=PATH):
    """Checks ``settings`` (ValueError if bad) and writes them for the next boot."""
    checked = check_settings(settings)
    temporary = path + _TEMPORARY
    with open(temporary, "w") as stream:
        stream.write(json.dumps({"settings": checked}))
    os.rename(temporary, path)
    return checked


def remove(path=PATH):
    """Deletes the file (the defaults at the next boot); no error if there is none."""
    try:
        os.remove(path)
    except OSError:
        pass
