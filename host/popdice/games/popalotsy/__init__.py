"""Popalotsy (docs/rules.md §1): ``rules`` holds the components, the ``PopalotsyConfig``
settings and the drop rules; ``state`` the engine, ``PopalotsyState``; ``check`` the
`popdice check popalotsy` command; ``bot`` the simulation bot. This file imports none of
them, so that a check loads the rules without the engine."""
