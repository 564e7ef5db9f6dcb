"""The built-in PlayTrace games, one package per game (``engine/games/<id>/``).

A game's package holds everything the game knows that is not drawing: rules and states, text views,
bots, intermediate questions with their oracles, the answer extractor, prompts and the simulated
model's behaviour. Its class is its declaration, registered under the ``playtrace.games`` entry-point
group in ``pyproject.toml`` (see :mod:`engine.registry`); nothing outside the package names the game.
This package imports nothing eagerly.
"""

from __future__ import annotations
