"""LVLM-Playground's offline tasks for Sudoku: perceiving, question answering and rule following.

Pure functions over :class:`~engine.games.sudoku.rules.SudokuState` (Qt-free), as the paper's
simulator generates them (§2.1-2.3 of the spec):

* perceiving and QA draw a freshly generated puzzle (the reference's ``get_random_state``), encoded
  as a 9x9 matrix with 0 for a blank and the digit otherwise;
* QA asks the reference's nine question kinds (a cell's number, how many of a digit on the board, in
  a row or column, in a box, blank cells on the board and in a box, the sum of a row, column or box,
  whether a row or column holds a digit). Rows are named by their letters and columns by their
  numbers, as drawn on the image; a box by its top-left cell. Count distractors are the answer ± 3
  (never negative), sum distractors ± 5 and yes/no questions offer the reference's four options
  (yes, no, maybe, unknown);
* rule following shows the generated puzzle; every (blank cell, digit) pair with no repeat in the
  cell's row, column or box is a valid move.
"""

from __future__ import annotations

import random

from engine.agent.parse import movement_or_text
from engine.core import Seat, State
from engine.games._common import task_prompts
from engine.games.sudoku.answers import find_move
from engine.games.sudoku.generator import generate
from engine.games.sudoku.rules import ROWS, SudokuState, move_text

__all__ = [
    "MATRIX_RANGE",
    "MATRIX_SHAPE",
    "PROMPTS",
    "matrix",
    "questions",
    "random_board",
    "random_legal",
    "read_move",
    "valid_moves",
]

MATRIX_SHAPE: tuple[int, int] = (9, 9)
MATRIX_RANGE: tuple[int, int] = (0, 9)

#: The task prompts (``perceive``, ``qa`` with its ``{question}``, ``rules``), from ``tasks/*.md``.
PROMPTS: dict[str, str] = task_prompts(__file__)



def _puzzle(rng: random.Random) -> SudokuState:
    givens, solution = generate(rng, "medium")
    return SudokuState(givens=givens, solution=solution, cells=givens)


def random_board(rng: random.Random) -> State:
    """A freshly generated puzzle (LVLM-Playground's difficulty), as the reference draws for
    perceiving and QA."""
    return _puzzle(rng)


def random_legal(rng: random.Random) -> tuple[State, Seat]:
    """A freshly generated puzzle and the one seat; every blank has at least its solution digit."""
    return _puzzle(rng), 0


def matrix(state: State) -> list[list[int]]:
    """The 9x9 matrix: row A first, column 1 first; 0 for a blank, else the digit (clue or placed)."""
    assert isinstance(state, SudokuState)
    return [list(state.cells[r * 9 : r * 9 + 9]) for r in range(9)]


def valid_moves(state: State, seat: Seat) -> list[str]:
    """Every placement ``"A1 5"`` that repeats no digit in its row, column or box."""
    assert isinstance(state, SudokuState)
    if seat != 0:
        return []
    return [move_text(i, d) for i in state.blanks() for d in state.candidates(i)]


def read_move(text: str) -> str | None:
    """A model's answer (or its ``Movement:`` text) as ``"A1 5"``: the move after the last
    ``Movement:`` when there is one, else the first move in the text; ``None`` when there is none."""
    return find_move(movement_or_text(text))


# -- question answering -----------------------------------------------------------------------------


def _box_name(box: int) -> str:
    r, c = (box // 3) * 3, (box % 3) * 3
    rows, cols = f"rows {ROWS[r]}-{ROWS[r + 2]}", f"columns {c + 1}-{c + 3}"
    return f"the 3x3 box whose top-left cell is {ROWS[r]}{c + 1} ({rows}, {cols})"


def _box_cells(box: int) -> list[int]:
    r, c = (box // 3) * 3, (box % 3) * 3
    return [(r + i) * 9 + c + j for i in range(3) for j in range(3)]


def _near(answer: int, spread: int, rng: random.Random, top: int) -> list[str]:
    """Three distinct non-negative numbers within ``spread`` of ``answer`` (widened if needed)."""
    reach = spread
    while True:
        pool = [n for n in range(max(0, answer - reach), min(top, answer + reach) + 1) if n != answer]
        if len(pool) >= 3 or reach > top:
            break
        reach += 1
    return [str(n) for n in rng.sample(pool, 3)]


def questions(state: State, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """One question of each of the reference's nine kinds about ``state``, with random cells,
    digits, rows, columns and boxes: ``(question, correct answer, distractors)``."""
    assert isinstance(state, SudokuState)
    grid = state.cells
    asked: list[tuple[str, str, list[str]]] = []

    index = rng.randrange(81)
    name = f"{ROWS[index // 9]}{index % 9 + 1}"
    truth = str(grid[index]) if grid[index] else "empty"
    pool = [str(d) for d in range(1, 10)] + ["empty"]
    asked.append((
        f"What is the number in cell {name} (row {ROWS[index // 9]}, column {index % 9 + 1})?",
        truth,
        rng.sample([p for p in pool if p != truth], 3),
    ))

    digit = rng.randint(1, 9)
    count = grid.count(digit)
    asked.append((f"How many {digit}s are on the board?", str(count), _near(count, 3, rng, 9)))

    blanks = grid.count(0)
    asked.append(("How many empty cells are on the board?", str(blanks), _near(blanks, 3, rng, 81)))

    digit = rng.randint(1, 9)
    if rng.random() < 0.5:
        row = rng.randrange(9)
        count = grid[row * 9 : row * 9 + 9].count(digit)
        asked.append((f"How many {digit}s are in row {ROWS[row]}?", str(count), _near(count, 3, rng, 9)))
    else:
        col = rng.randrange(9)
        count = sum(1 for r in range(9) if grid[r * 9 + col] == digit)
        asked.append((f"How many {digit}s are in column {col + 1}?", str(count), _near(count, 3, rng, 9)))

    digit, box = rng.randint(1, 9), rng.randrange(9)
    count = sum(1 for i in _box_cells(box) if grid[i] == digit)
    asked.append((f"How many {digit}s are in {_box_name(box)}?", str(count), _near(count, 3, rng, 9)))

    if rng.random() < 0.5:
        row = rng.randrange(9)
        total = sum(grid[row * 9 : row * 9 + 9])
        text = f"What is the sum of the numbers in row {ROWS[row]}?"
        asked.append((text, str(total), _near(total, 5, rng, 45)))
    else:
        col = rng.randrange(9)
        total = sum(grid[r * 9 + col] for r in range(9))
        text = f"What is the sum of the numbers in column {col + 1}?"
        asked.append((text, str(total), _near(total, 5, rng, 45)))

    box = rng.randrange(9)
    total = sum(grid[i] for i in _box_cells(box))
    text = f"What is the sum of the numbers in {_box_name(box)}?"
    asked.append((text, str(total), _near(total, 5, rng, 45)))

    digit = rng.randint(1, 9)
    if rng.random() < 0.5:
        row = rng.randrange(9)
        holds = digit in grid[row * 9 : row * 9 + 9]
        text = f"Does row {ROWS[row]} contain the number {digit}?"
    else:
        col = rng.randrange(9)
        holds = any(grid[r * 9 + col] == digit for r in range(9))
        text = f"Does column {col + 1} contain the number {digit}?"
    truth = "yes" if holds else "no"
    asked.append((text, truth, [o for o in ("yes", "no", "maybe", "unknown") if o != truth]))

    box = rng.randrange(9)
    count = sum(1 for i in _box_cells(box) if not grid[i])
    asked.append((f"How many empty cells are in {_box_name(box)}?", str(count), _near(count, 3, rng, 9)))
    return asked
