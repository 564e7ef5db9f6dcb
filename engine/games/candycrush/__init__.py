"""Candy Crush, as LMGame-Bench plays it: everything the game knows but its drawing.

* :mod:`.board` — the board's mechanics (swaps, lines, falls, refills, reshuffles) as pure functions;
* :mod:`.rules` — states, rules, text views and the declaration :class:`CandyCrush`;
* :mod:`.bots` — the greedy bot;
* :mod:`.answers` — reading a swap out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* :mod:`.gym` — the board as a Gymnasium observation;
* ``prompts/`` — the prompt templates.

Its drawing is ``renderers/candycrush.py``.
"""

from engine.games.candycrush.board import COLOUR_NAMES, COLOURS, COLS, ROWS, SWAPS, parse_swap
from engine.games.candycrush.rules import (
    ACTIONS,
    DEFAULT_COLOURS,
    DEFAULT_MOVES,
    CandyCrush,
    CandyState,
    read_swap,
)

__all__ = [
    "ACTIONS",
    "COLOURS",
    "COLOUR_NAMES",
    "COLS",
    "DEFAULT_COLOURS",
    "DEFAULT_MOVES",
    "ROWS",
    "SWAPS",
    "CandyCrush",
    "CandyState",
    "parse_swap",
    "read_swap",
]
