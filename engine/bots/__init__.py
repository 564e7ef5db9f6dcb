"""What built-in bots share: :class:`~engine.bots.base.SearchBot` (seeded tie-breaks, timed and
explained decisions) and generic searches over the game contract (:mod:`engine.bots.search`).

A game's own bots live in its package (``engine/games/<id>/bots.py``) and are named by its
declaration (``Game.bots``); nothing here names a game.
"""

from __future__ import annotations
