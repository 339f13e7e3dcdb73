"""Rules and scoring engines of Popalotsy, Ringer and Lowdown (docs/rules.md).

Per game, three modules:

- ``<game>_rules``: the components (read and checked from ``data/<game>.json``), the
  ``<Game>Config`` settings for the rules' open questions, and the pure rule functions.
- ``<game>``: the engine, a ``GameState`` (see ``engine``): legal actions, apply, chance from a
  seeded generator, terminal test, scores, player views.
- ``<game>_check``: the JSON rule-check command of docs/formats.md.

Shared: ``errors`` (``InvalidMove`` with a ``Reason``; ``InputError`` and friends), ``fields``
(JSON read field by field), ``data``, ``config``, ``bots``, ``catalog``, ``simulate`` and
``cli`` (the `check`, `score` and `simulate` subcommands).
"""
