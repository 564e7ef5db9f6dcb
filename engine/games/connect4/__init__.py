"""Connect Four, as GameBot plays it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views and the declaration :class:`ConnectFour`;
* :mod:`.bots` — negamax with alpha-beta pruning on bitboards;
* :mod:`.questions` — GameBot's intermediate questions and their oracles;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* :mod:`.gym` — the board as a Gymnasium / PettingZoo observation;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/connect4.py``.
"""

from engine.games.connect4.rules import (
    ACTIONS,
    COLS,
    LINES,
    MARKS,
    ROWS,
    ConnectFour,
    ConnectFourState,
    action_of,
    cell_of,
    playable,
    winning_moves,
)

__all__ = [
    "ACTIONS",
    "COLS",
    "LINES",
    "MARKS",
    "ROWS",
    "ConnectFour",
    "ConnectFourState",
    "action_of",
    "cell_of",
    "playable",
    "winning_moves",
]
