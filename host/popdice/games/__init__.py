"""Rules and scoring engines of Popalotsy, Ringer and Lowdown (docs/rules.md).

One subpackage per game, after OpenSpiel's one folder per game (``lowdown/``, ``ringer/``,
``popalotsy/``), each with the same modules:

- ``rules``: the components (read and checked from ``data/<game>.json``), the
  ``<Game>Config`` settings for the rules' open questions, and the pure rule functions.
- ``state``: the engine, a ``GameState`` (see ``engine``): legal actions, apply, chance from a
  seeded generator, terminal test, scores, player views.
- ``check``: the JSON rule-check command of docs/formats.md.
- ``bot``: the game's simulation bot, ``next_<game>_move``.

A game's ``__init__`` imports none of them, so a check loads its rules without the engine.

Shared: ``engine``, ``errors`` (``InvalidMove`` with a ``Reason``; ``InputError`` and
friends), ``fields`` (JSON read field by field), ``schema``, ``data``, ``config``, ``bots``
(``BotSettings``), ``catalog``, ``simulate`` and ``cli`` (the `check`, `score` and `simulate`
subcommands). The data files and JSON Schemas are in ``data/`` and ``schemas/``.
"""
