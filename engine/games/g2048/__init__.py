"""2048, as LMGame-Bench plays it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views and the declaration :class:`Game2048`;
* :mod:`.bots` — expectimax and greedy;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* :mod:`.gym` — the board as a Gymnasium observation;
* ``prompts/`` — the prompt templates.

The package is ``g2048`` because a Python name cannot start with a digit; the game id is ``2048``.
Its drawing is ``renderers/g2048.py``.
"""

from engine.games.g2048.rules import (
    ACTIONS,
    DEFAULT_SIZE,
    FOUR_PROBABILITY,
    STAGNATION_LIMIT,
    Board,
    Game2048,
    State2048,
    can_move,
    empty_cells,
    move_board,
    place,
    score_2048,
    slide_row_left,
    spawn,
    transpose,
)

__all__ = [
    "ACTIONS",
    "DEFAULT_SIZE",
    "FOUR_PROBABILITY",
    "STAGNATION_LIMIT",
    "Board",
    "Game2048",
    "State2048",
    "can_move",
    "empty_cells",
    "move_board",
    "place",
    "score_2048",
    "slide_row_left",
    "spawn",
    "transpose",
]
