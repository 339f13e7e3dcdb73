"""When the handheld shows its secret dice, shows a hint, and puts its display to sleep.

Pure timekeeping: every method takes ``now`` (``time.ticks_ms()``), and times are compared
only with ``ticks_diff``. The app says what happened (PEEK pressed or released, any other
activity, a hint to show); ``tick`` applies the timeouts and ``ms_to_next`` says how long
until the next one can change anything.

- ``peeking``: PEEK is held, and for less than ``peek_ms``. Releasing it, or holding it
  longer, hides the dice; seeing them again takes a new press.
- ``awake``: the display is on. It goes off ``idle_ms`` after the last activity (a held
  PEEK counts as activity until it times out) and comes back on with the next.
- ``hint``: a short text (``hint_ms``), such as "hold REVEAL" after a short REVEAL press.
"""

from time import ticks_diff

from micropython import const

PEEK_MS = const(5000)
IDLE_MS = const(30000)
HINT_MS = const(1500)


class View:
    def __init__(self, now, peek_ms=PEEK_MS, idle_ms=IDLE_MS, hint_ms=HINT_MS):
        self.peek_ms = peek_ms
        self.idle_ms = idle_ms
        self.hint_ms = hint_ms
        self.peeking = False
        self.awake = True
        self.hint = None
        self._peek_at = now
        self._active_at = now
        self._hint_at = now

    def activity(self, now):
        """Something the holder or the table should see happened: the display wakes."""
        self._active_at = now
        self.awake = True

    def peek_pressed(self, now):
        self.peeking = True
        self._peek_at = now
        self.activity(now)

    def peek_released(self, now):
        self.peeking = False
        self.activity(now)

    def show_hint(self, text, now):
        self.hint = text
        self._hint_at = now
        self.activity(now)

    def tick(self, now):
        """Applies the timeouts that have run out by ``now``."""
        if self.peeking and ticks_diff(now, self._peek_at) >= self.peek_ms:
            self.peeking = False
            self.activity(now)
        if self.hint is not None and ticks_diff(now, self._hint_at) >= self.hint_ms:
            self.hint = None
        if self.awake and not self.peeking and ticks_diff(now, self._active_at) >= self.idle_ms:
            self.awake = False

    def ms_to_next(self, now):
        """Milliseconds until a timeout can change something, or None if none is running."""
        wait = None
        if self.peeking:
            wait = self.peek_ms - ticks_diff(now, self._peek_at)
        if self.hint is not None:
            left = self.hint_ms - ticks_diff(now, self._hint_at)
            wait = left if wait is None else min(wait, left)
        if self.awake and not self.peeking:
            left = self.idle_ms - ticks_diff(now, self._active_at)
            wait = left if wait is None else min(wait, left)
        return None if wait is None else max(wait, 0)
