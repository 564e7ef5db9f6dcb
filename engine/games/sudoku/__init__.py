"""Sudoku, as LVLM-Playground plays it: everything the game knows but its drawing.

* :mod:`.generator` — reading puzzle text, the exact solver and the seeded unique-puzzle generator;
* :mod:`.rules` — states, rules, text views and the declaration :class:`Sudoku`;
* :mod:`.bots` — the solver (always right) and a naive candidate filler;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its observation, strategy and move;
* :mod:`.lvlm` — LVLM-Playground's perceiving, question-answering and rule-following tasks;
* ``prompts/`` — the end-to-end prompt; ``tasks/`` — the task prompts.

Its drawing is ``renderers/sudoku.py``.
"""

from engine.games.sudoku.generator import (
    DIFFICULTIES,
    PuzzleError,
    count_solutions,
    generate,
    parse_puzzle,
    solve,
)
from engine.games.sudoku.rules import (
    ROWS,
    WIN_BONUS,
    Sudoku,
    SudokuState,
    cell_index,
    move_text,
    parse_move,
    points,
    state_of,
)

__all__ = [
    "DIFFICULTIES",
    "ROWS",
    "WIN_BONUS",
    "PuzzleError",
    "Sudoku",
    "SudokuState",
    "cell_index",
    "count_solutions",
    "generate",
    "move_text",
    "parse_move",
    "parse_puzzle",
    "points",
    "solve",
    "state_of",
]
