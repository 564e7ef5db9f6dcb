"""Tetris, as LMGame-Bench plays it: everything the game knows but its drawing.

* :mod:`.pieces` — the seven tetrominoes, their rotation states and SRS's wall kicks;
* :mod:`.rules` — states, rules, text views and the declaration :class:`Tetris`;
* :mod:`.bots` — a placement bot that scores every landing spot with Dellacherie's features;
* :mod:`.words` — reading actions out of free text, and the rules in words;
* :mod:`.answers` — reading an action out of a model's reply;
* :mod:`.sim` — how the simulated model reasons and answers here;
* :mod:`.gym` — the board, the queue and the held piece as a Gymnasium observation;
* ``prompts/`` — the prompt templates.

Its drawing is ``renderers/tetris.py``.
"""

from engine.games.tetris.pieces import BOX, CELLS, KICKS, KINDS, SPAWN, cells_at, kicks
from engine.games.tetris.rules import (
    ACTIONS,
    HEIGHT,
    STUCK_LIMIT,
    WIDTH,
    Tetris,
    TetrisState,
    apply_all,
    drop_row,
    fits,
    lock_piece,
    read_actions,
)

__all__ = [
    "ACTIONS",
    "BOX",
    "CELLS",
    "HEIGHT",
    "KICKS",
    "KINDS",
    "SPAWN",
    "STUCK_LIMIT",
    "WIDTH",
    "Tetris",
    "TetrisState",
    "apply_all",
    "cells_at",
    "drop_row",
    "fits",
    "kicks",
    "lock_piece",
    "read_actions",
]
