"""LVLM-Playground's offline tasks for tic-tac-toe: perceiving, question answering and rule following.

Pure functions over :class:`~engine.games.tictactoe.rules.TicTacToeState` (Qt-free), as the paper's
simulator generates them (§2.1-2.3 of the spec). LVLM-Playground names a cell by its row letter A-C
(top to bottom) and column number 1-3 (left to right): ``"B2"`` is the centre, which this game's
actions write ``"(1,1)"``.

* Perceiving and QA draw a random board as the reference's ``get_random_state`` does: the nine values
  {X, O, empty} three times each, shuffled (so every board has three X's, three O's and three empty
  cells; it may hold a line for both sides). The matrix is row A first, **-1 empty, 1 X, 0 O**.
* QA asks the reference's question kinds: the symbol in a cell (X, O or empty), how many X's or O's,
  empty cells, X's, O's or empty cells in a row or column, red or blue marks on the board, in a row or
  in a column (LVLM-Playground draws X in red and O in blue), and "Did X or O win the game?" when
  exactly one side has three in a row (options X, O and "No winner yet."). Count distractors are the
  answer ± 3, never negative nor above what the board or the line can hold.
* Rule following draws three X's, three O's and three empty cells, shuffled, until no side has won:
  the random board's make-up, kept legal (X, who moves first, is to move; the valid moves are the
  three empty cells). The paper's random row (0.342, Table 4) is what a random cell scores on boards
  with three empty cells (1/3, within one standard error of 2,000 items); the reference code's
  ``get_rule_state`` (1-5 X's with as many O's or one fewer) leaves 4.5 cells empty on average, on
  which a random cell is valid about half the time (0.51), far from the paper's row. The reference's
  draw stays available as :func:`reference_legal`.
"""

from __future__ import annotations

import random
import re

from engine.agent.parse import movement_or_text
from engine.core import Seat, State
from engine.games.tictactoe.rules import LINES, LvlmBoard, TicTacToeState, index_of

__all__ = [
    "MATRIX_RANGE",
    "MATRIX_SHAPE",
    "PROMPTS",
    "cell_name",
    "matrix",
    "questions",
    "random_board",
    "random_legal",
    "reference_legal",
    "read_move",
    "valid_moves",
    "winners",
]

MATRIX_SHAPE: tuple[int, int] = (3, 3)
MATRIX_RANGE: tuple[int, int] = (-1, 1)

ROWS = "ABC"
#: The mark each colour is drawn in, as LVLM-Playground draws them.
COLOURS: dict[str, str] = {"red": "X", "blue": "O"}
NO_WINNER = "No winner yet."

_INTRO = "Tic-tac-toe is played on a 3x3 grid where two players take turns placing X or O in the cells."
_GRID = "Rows are labelled A to C from top to bottom and columns 1 to 3 from left to right."

#: The task prompts (``perceive``, ``qa`` with its ``{question}``, ``rules``), paraphrasing the paper's.
PROMPTS: dict[str, str] = {
    "perceive": (
        f"{_INTRO} {_GRID}\n"
        "Given the screenshot of the board, write the current state of the game as a 3x3 matrix: one "
        "list per row from A to C, each holding the three cells from column 1 to column 3. Write -1 for "
        "an empty cell, 1 for X and 0 for O.\n"
        "Please strictly follow the format:\n"
        "Game State: <boardmatrix>\n"
        "where <boardmatrix> is a 3x3 matrix. For example,\n"
        "Game State: [[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]\n"
        "represents an empty board."
    ),
    "qa": (
        f"{_INTRO} The goal is to make a horizontal, vertical or diagonal line of three of your own "
        f"marks. {_GRID} Please answer the following question based on the screenshot of the current "
        "game state:\n"
        "{question}\n"
        "Please strictly follow the format:\n"
        "Answer: <answer>\n"
        "where <answer> is one of A, B, C or D."
    ),
    "rules": (
        f"{_INTRO} The game starts with an empty board. {_GRID} A cell can hold only one mark. Based "
        "on the board in the screenshot, find an empty cell where you can place your next mark.\n"
        "Please strictly follow the format:\n"
        "Movement: <position>\n"
        "where the position is a row letter from A to C followed by a column number from 1 to 3, for "
        "example A1, B2 or C3."
    ),
}

_CELL = re.compile(r"(?<![A-Za-z0-9])(?:([A-Ca-c])\s?([1-3])|([1-3])\s?([A-Ca-c]))(?![A-Za-z0-9])")
_CODES = {"": -1, "X": 1, "O": 0}


def cell_name(index: int) -> str:
    """LVLM-Playground's name of cell ``index`` (0..8, row-major): ``4 -> "B2"``."""
    return f"{ROWS[index // 3]}{index % 3 + 1}"


def random_board(rng: random.Random) -> State:
    """Three X's, three O's and three empty cells, shuffled (the reference's random board)."""
    cells = ["X", "O", ""] * 3
    rng.shuffle(cells)
    return LvlmBoard(cells=tuple(cells))


def random_legal(rng: random.Random) -> tuple[State, Seat]:
    """A position nobody has won with three X's, three O's and three empty cells (X to move)."""
    while True:
        cells = ["X", "O", ""] * 3
        rng.shuffle(cells)
        state = LvlmBoard(cells=tuple(cells))
        if not state.is_over:
            return state, state.mover


def reference_legal(rng: random.Random) -> tuple[State, Seat]:
    """The reference code's rule-following draw: a position nobody has won, 1-5 X's and as many O's or
    one fewer, and the seat to move."""
    while True:
        x = rng.randint(1, 5)
        o = x if rng.random() < 0.5 else x - 1
        if x + o >= 9:
            continue
        cells = ["X"] * x + ["O"] * o + [""] * (9 - x - o)
        rng.shuffle(cells)
        state = LvlmBoard(cells=tuple(cells))
        if not state.is_over:
            return state, state.mover


def matrix(state: State) -> list[list[int]]:
    """The 3x3 matrix: row A first; -1 empty, 1 X, 0 O."""
    assert isinstance(state, TicTacToeState)
    return [[_CODES[state.cells[3 * r + c]] for c in range(3)] for r in range(3)]


def valid_moves(state: State, seat: Seat) -> list[str]:
    """The empty cells ``seat`` may mark now, as ``"B2"`` (reading order)."""
    return [cell_name(index_of(a)) for a in state.legal_actions(seat)]


def read_move(text: str) -> str | None:
    """A model's answer (or its ``Movement:`` text) as ``"B2"``: the cell after the last
    ``Movement:`` when there is one, else the first cell in the text; ``None`` when there is none.
    Reversed and lower-case forms are read (``"2b"`` -> ``"B2"``)."""
    match = _CELL.search(movement_or_text(text))
    if match is None:
        return None
    letter, digit = (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
    return f"{letter.upper()}{digit}"


# -- question answering -----------------------------------------------------------------------------


def _near(answer: int, rng: random.Random, top: int) -> list[str]:
    """Three distinct counts within 3 of ``answer``, between 0 and ``top`` (widened if needed)."""
    reach = 3
    while True:
        pool = [n for n in range(max(0, answer - reach), min(top, answer + reach) + 1) if n != answer]
        if len(pool) >= 3 or reach > top:
            break
        reach += 1
    return [str(n) for n in rng.sample(pool, 3)]


def winners(state: State) -> set[str]:
    """The marks that have three in a row on the board (both, on an unreachable random board)."""
    assert isinstance(state, TicTacToeState)
    cells = state.cells
    return {cells[a] for a, b, c in LINES if cells[a] and cells[a] == cells[b] == cells[c]}


def _line(state: TicTacToeState, rng: random.Random) -> tuple[str, list[str]]:
    """A random row (``"row B"``) or column (``"column 2"``) and its three cells."""
    if rng.random() < 0.5:
        r = rng.randrange(3)
        return f"row {ROWS[r]}", [state.cells[3 * r + c] for c in range(3)]
    c = rng.randrange(3)
    return f"column {c + 1}", [state.cells[3 * r + c] for r in range(3)]


def questions(state: State, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """One question of each of the reference's kinds about ``state`` (the winner question only when
    exactly one side has won), with random cells, marks, colours and lines:
    ``(question, correct answer, distractors)``."""
    assert isinstance(state, TicTacToeState)
    cells = state.cells
    asked: list[tuple[str, str, list[str]]] = []

    index = rng.randrange(9)
    symbol = cells[index] or "empty"
    asked.append((
        f"What is the symbol in row {ROWS[index // 3]}, column {index % 3 + 1}?",
        symbol,
        [s for s in ("X", "O", "empty") if s != symbol],
    ))

    mark = rng.choice("XO")
    n = cells.count(mark)
    asked.append((f"How many '{mark}'s are present on the board?", str(n), _near(n, rng, 9)))

    n = cells.count("")
    asked.append(("How many empty cells are there?", str(n), _near(n, rng, 9)))

    element = rng.choice(("X", "O", "empty"))
    where, line = _line(state, rng)
    n = line.count("" if element == "empty" else element)
    asked.append((f"How many '{element}'s are there in {where}?", str(n), _near(n, rng, 3)))

    colour = rng.choice(sorted(COLOURS))
    n = cells.count(COLOURS[colour])
    asked.append((f"How many {colour} marks are present on the board?", str(n), _near(n, rng, 9)))
    colour = rng.choice(sorted(COLOURS))
    where, line = _line(state, rng)
    n = line.count(COLOURS[colour])
    asked.append((f"How many {colour} marks are there in {where}?", str(n), _near(n, rng, 3)))

    won = winners(state)
    if len(won) == 1:
        (winner,) = won
        asked.append((
            "Did X or O win the game?",
            winner,
            [s for s in ("X", "O", NO_WINNER) if s != winner],
        ))
    return asked
