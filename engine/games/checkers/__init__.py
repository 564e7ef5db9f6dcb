"""Checkers (English draughts), as GameBot plays it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, move generation, text views and the declaration :class:`Checkers`;
* :mod:`.bots` — an alpha-beta searcher with a checkers evaluation;
* :mod:`.questions` — GameBot's intermediate questions (king-making moves, worthless-die moves,
  two-for-one shots) and their exact oracles;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its analysis and answers here;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/checkers.py``.
"""

from engine.games.checkers.rules import (
    BLACK,
    DRAW_RULES,
    INITIAL_BOARD,
    PROMOTION_ROW,
    WHITE,
    Checkers,
    CheckersState,
    apply_move,
    legal_moves,
    parse_path,
    parse_paths,
    perft,
    position,
    write_path,
)

__all__ = [
    "BLACK",
    "DRAW_RULES",
    "INITIAL_BOARD",
    "PROMOTION_ROW",
    "WHITE",
    "Checkers",
    "CheckersState",
    "apply_move",
    "legal_moves",
    "parse_path",
    "parse_paths",
    "perft",
    "position",
    "write_path",
]
