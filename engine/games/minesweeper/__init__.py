"""Minesweeper, as LVLM-Playground plays it: everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views and the declaration :class:`Minesweeper`;
* :mod:`.bots` — the solver (sure deductions, then the least risky cell) and its analysis;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its observation, strategy and move;
* :mod:`.lvlm` — LVLM-Playground's perceiving, question-answering and rule-following tasks;
* ``prompts/`` — the end-to-end prompt; ``tasks/`` — the task prompts.

Its drawing is ``renderers/minesweeper.py``.
"""

from engine.games.minesweeper.rules import (
    LEVELS,
    MINE,
    ROW_LETTERS,
    UNREVEALED,
    WIN_BONUS,
    Minesweeper,
    MinesweeperState,
    cell_name,
    mine_counts,
    neighbours,
    parse_cell,
    place_mines,
    points,
    state_of,
)

__all__ = [
    "LEVELS",
    "MINE",
    "ROW_LETTERS",
    "UNREVEALED",
    "WIN_BONUS",
    "Minesweeper",
    "MinesweeperState",
    "cell_name",
    "mine_counts",
    "neighbours",
    "parse_cell",
    "place_mines",
    "points",
    "state_of",
]
