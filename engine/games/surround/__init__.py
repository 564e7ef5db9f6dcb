"""Surround, as GameBot plays it (Atari 2600's snake/Tron duel), simulated without a ROM:
everything the game knows but its drawing.

* :mod:`.rules` — states, rules, per-seat text views and the declaration :class:`Surround`;
* :mod:`.board` — grid arithmetic: neighbour values, flood fill, distances, territory;
* :mod:`.bots` — ``survivor`` (most space) and ``hunter`` (most territory);
* :mod:`.questions` — GameBot's three intermediate questions and their oracles;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model reasons and answers here;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/surround.py``.
"""

from engine.games.surround.board import SAFE_CELLS, flood_cells, flood_count, neighbour_values
from engine.games.surround.rules import ACTIONS, NAMES, STRAIGHT, Surround, SurroundState, start_cells

__all__ = [
    "ACTIONS",
    "NAMES",
    "SAFE_CELLS",
    "STRAIGHT",
    "Surround",
    "SurroundState",
    "flood_cells",
    "flood_count",
    "neighbour_values",
    "start_cells",
]
