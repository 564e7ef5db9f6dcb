"""Tic-tac-toe, as GameBot and LVLM-Playground play it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views and the declaration :class:`TicTacToe`;
* :mod:`.bots` — perfect play by minimax;
* :mod:`.questions` — GameBot's intermediate questions and their oracles;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* ``prompts/`` — the prompt templates.

Its drawing is ``renderers/tictactoe.py``.
"""

from engine.games.tictactoe.rules import (
    ACTIONS,
    LINES,
    MARKS,
    TicTacToe,
    TicTacToeState,
    action_of,
    index_of,
    line_winner,
    winning_moves,
)

__all__ = [
    "ACTIONS",
    "LINES",
    "MARKS",
    "TicTacToe",
    "TicTacToeState",
    "action_of",
    "index_of",
    "line_winner",
    "winning_moves",
]
