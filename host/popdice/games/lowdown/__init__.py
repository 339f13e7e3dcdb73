"""Lowdown (docs/rules.md §3): ``rules`` holds the boards, the ``LowdownConfig`` settings and
the pure rule functions; ``state`` the engine, ``LowdownState``; ``check`` the `popdice score
lowdown` and `popdice check lowdown-move` commands; ``bot`` the simulation bot. This file
imports none of them, so that a check loads the rules without the engine."""
