"""Push buttons to ground, debounced by polling: press, release and long-press edges.

Time only through ``ticks_diff``; ``update`` allocates nothing.
"""

from time import ticks_diff

from micropython import const

NONE = const(0)
PRESS = const(1)
RELEASE = const(2)
LONG = const(3)

_DEBOUNCE_MS = const(20)
_LONG_MS = const(800)


class Button:
    def __init__(self, name, pin, debounce_ms=_DEBOUNCE_MS, long_ms=_LONG_MS):
        self.name = name
        self.pin = pin
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.pressed = False
        self.held_ms = 0
        self._raw = False
        self._raw_since = 0
        self._pressed_at = 0
        self._long_sent = False

    def update(self, now):
        """Reads the pin at time ``now`` (ms ticks) and returns the edge it made, if any."""
        raw = self.pin.value() == 0
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now
            return NONE
        if raw != self.pressed and ticks_diff(now, self._raw_since) >= self.debounce_ms:
            self.pressed = raw
            if raw:
                self._pressed_at = now
                self._long_sent = False
                self.held_ms = 0
                return PRESS
            self.held_ms = ticks_diff(now, self._pressed_at)
            return RELEASE
        if self.pressed and not self._long_sent:
            self.held_ms = ticks_diff(now, self._pressed_at)
            if self.held_ms >= self.long_ms:
                self._long_sent = True
                return LONG
        return NONE
