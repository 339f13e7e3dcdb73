"""Ringer (docs/rules.md §2): ``rules`` holds the cards, the ``RingerConfig`` settings and the
play rules; ``state`` the engine, ``RingerState``; ``check`` the `popdice check ringer`
command; ``bot`` the simulation bot. This file imports none of them, so that a check loads
the rules without the engine."""
