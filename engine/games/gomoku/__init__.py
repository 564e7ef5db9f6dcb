"""Gomoku, as LVLM-Playground plays it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views and the declaration :class:`Gomoku`;
* :mod:`.bots` — the paper's opponent, a two-ply search over a contiguous-stone pattern evaluation;
* :mod:`.answers` — reading a move out of a model's ``Observation / Strategy / Movement`` reply;
* :mod:`.sim` — how the simulated model observes, plans and moves here;
* :mod:`.lvlm` — LVLM-Playground's offline tasks (perceive, question answering, rule following);
* :mod:`.gym` — the board as a Gymnasium / PettingZoo observation;
* ``prompts/`` — the end-to-end prompt; ``tasks/`` — the offline tasks' prompts.

Its drawing is ``renderers/gomoku.py``.
"""

from engine.games.gomoku.rules import (
    ACTIONS,
    COLUMNS,
    SIZE,
    STONES,
    Gomoku,
    GomokuState,
    board_state,
    find_moves,
    five_moves,
    five_through,
    fives,
    index_of,
)

__all__ = [
    "ACTIONS",
    "COLUMNS",
    "SIZE",
    "STONES",
    "Gomoku",
    "GomokuState",
    "board_state",
    "find_moves",
    "five_moves",
    "five_through",
    "fives",
    "index_of",
]
