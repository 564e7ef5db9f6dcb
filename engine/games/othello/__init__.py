"""Othello (Reversi), as GameBot and LVLM-Playground play it: everything the game knows but its drawing.

* :mod:`.rules` — bit-board states, rules, text views and the declaration :class:`Othello`;
* :mod:`.bots` — greedy (most flips) and alpha-beta with GameBot's positional heuristic;
* :mod:`.questions` — GameBot's intermediate questions (corner available, wedge moves) and oracles;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* :mod:`.gym` — the board as a Gymnasium observation;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/othello.py``.
"""

from engine.games.othello.rules import (
    ACTIONS,
    COLUMNS,
    CORNERS,
    PASS,
    SYMBOLS,
    Othello,
    OthelloState,
    action_of,
    bits_of,
    cell_of,
    flips,
    legal_mask,
    parse_cell,
    wedge_moves,
)

__all__ = [
    "ACTIONS",
    "COLUMNS",
    "CORNERS",
    "PASS",
    "SYMBOLS",
    "Othello",
    "OthelloState",
    "action_of",
    "bits_of",
    "cell_of",
    "flips",
    "legal_mask",
    "parse_cell",
    "wedge_moves",
]
