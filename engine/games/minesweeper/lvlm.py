"""LVLM-Playground's offline tasks for Minesweeper: perceiving, question answering and rule following.

Pure functions over :class:`~engine.games.minesweeper.rules.MinesweeperState` (Qt-free), as the
paper's simulator generates them (§2.1-2.3 of the spec), on its 8x8 board with 10 mines:

* perceiving and QA draw the reference's ``get_random_state``: 10 mines placed at random and 33 cells
  (half the board plus one) revealed at random, a revealed mine showing as 9 and any other revealed
  cell as its count. Such boards need not be reachable in play (several revealed mines, a 0 whose
  neighbours are still grey); they render and have a matrix all the same;
* QA asks the reference's seven question kinds: the symbol in a revealed cell, revealed mines on the
  board, revealed cells on the board and in a row or column, revealed mines around a revealed cell,
  all mines around it (revealed or not: the number it shows), and whether a cell holds a revealed
  mine. Rows are named by the letters drawn on the image (the reference's lower-case letters are
  written upper-case here, as drawn). Count distractors are the answer ± 3 (never negative), symbol
  distractors other symbols, yes/no questions offer the reference's four options;
* rule following shows a position reached by play (random safe reveals, each flood-filling as in the
  game) with about half the board revealed and no mine hit; every unrevealed cell is a valid move.
"""

from __future__ import annotations

import random

from engine.agent.parse import movement_or_text
from engine.core import Seat, State
from engine.games._common import task_prompts
from engine.games.minesweeper.answers import find_move
from engine.games.minesweeper.rules import (
    LEVELS,
    MINE,
    ROW_LETTERS,
    UNREVEALED,
    MinesweeperState,
    mine_counts,
    place_mines,
)

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

_ROWS, _COLS, _MINES = LEVELS["easy"]
MATRIX_SHAPE: tuple[int, int] = (_ROWS, _COLS)
#: -1 unrevealed, 0-8 counts, 9 a revealed mine; the reference's checker also accepts 10 (an exploded
#: mine), which no board here shows, so a model writing it loses that cell rather than the sample.
MATRIX_RANGE: tuple[int, int] = (-1, 10)

#: The task prompts (``perceive``, ``qa`` with its ``{question}``, ``rules``), from ``tasks/*.md``.
PROMPTS: dict[str, str] = task_prompts(__file__)



def random_board(rng: random.Random) -> State:
    """The reference's random board: 10 mines, 33 cells revealed at random (mines show 9); the
    unrevealed cells keep their secret (the state holds no layout)."""
    size = _ROWS * _COLS
    mines = place_mines(rng, _ROWS, _COLS, _MINES)
    counts = mine_counts(mines, _ROWS, _COLS)
    revealed = set(rng.sample(range(size), size // 2 + 1))
    shown = tuple((MINE if i in mines else counts[i]) if i in revealed else UNREVEALED for i in range(size))
    # The layout stays out of the state (as in a player's view): the image then shows exactly what the
    # matrix encodes, and no unrevealed mine is drawn.
    return MinesweeperState(
        rows=_ROWS, cols=_COLS, mine_count=_MINES, shown=shown, mines=None, hidden=True, flagging=False
    )


def random_legal(rng: random.Random) -> tuple[State, Seat]:
    """A position reached by revealing random safe cells until about half the board is open (the
    game still on), and the one seat."""
    size = _ROWS * _COLS
    mines = place_mines(rng, _ROWS, _COLS, _MINES)
    state = MinesweeperState(
        rows=_ROWS, cols=_COLS, mine_count=_MINES, shown=(UNREVEALED,) * size, mines=mines, flagging=False
    )
    target = size // 2
    while state.revealed_safe() < target:
        closed = [i for i in state.unrevealed() if i not in mines]
        after = state.apply(state.name(rng.choice(closed)))
        if after.is_over:  # the last safe cell would win: stop one short
            break
        state = after
    return state, 0


def matrix(state: State) -> list[list[int]]:
    """The paper's matrix: row A first, column 1 first; -1 unrevealed, 0-8 counts, 9 a revealed mine."""
    assert isinstance(state, MinesweeperState)
    return [list(state.shown[r * state.cols : (r + 1) * state.cols]) for r in range(state.rows)]


def valid_moves(state: State, seat: Seat) -> list[str]:
    """Every unrevealed (unflagged) cell, ``"B3"``, while the game is on."""
    assert isinstance(state, MinesweeperState)
    if seat != 0 or state.is_over:
        return []
    return [state.name(i) for i in state.unrevealed() if i not in state.flags]


def read_move(text: str) -> str | None:
    """A model's answer (or its ``Movement:`` text) as ``"B3"``: the cell after the last
    ``Movement:`` when there is one, else the first cell in the text; ``None`` when there is none.
    A flag (``"flag B3"``) is read as its cell, as the reference's pattern reads it."""
    move = find_move(movement_or_text(text))
    return move.removeprefix("flag ") if move else None


# -- question answering -----------------------------------------------------------------------------


def _near(answer: int, spread: int, rng: random.Random, top: int) -> list[str]:
    """Three distinct non-negative numbers within ``spread`` of ``answer`` (widened if needed)."""
    reach = spread
    while True:
        pool = [n for n in range(max(0, answer - reach), min(top, answer + reach) + 1) if n != answer]
        if len(pool) >= 3 or reach > top:
            break
        reach += 1
    return [str(n) for n in rng.sample(pool, 3)]


def _where(state: MinesweeperState, index: int) -> str:
    return f"row {ROW_LETTERS[index // state.cols]}, column {index % state.cols + 1}"


def questions(state: State, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """One question of each of the reference's seven kinds about ``state`` (the kinds about a revealed
    cell are left out when nothing is revealed): ``(question, correct answer, distractors)``."""
    assert isinstance(state, MinesweeperState)
    shown = state.shown
    size = state.size
    revealed = [i for i, v in enumerate(shown) if v != UNREVEALED]
    numbers = [i for i, v in enumerate(shown) if 0 <= v <= 8]
    asked: list[tuple[str, str, list[str]]] = []

    if revealed:
        index = rng.choice(revealed)
        truth = "mine" if shown[index] == MINE else str(shown[index])
        pool = ["mine", *map(str, range(9))]
        asked.append(
            (
                f"What is the revealed symbol in {_where(state, index)}?",
                truth,
                rng.sample([p for p in pool if p != truth], 3),
            )
        )

    count = shown.count(MINE)
    asked.append(("How many revealed mines are there on the board?", str(count), _near(count, 3, rng, size)))

    count = len(revealed)
    asked.append(("How many revealed cells are there on the board?", str(count), _near(count, 3, rng, size)))

    if rng.random() < 0.5:
        row = rng.randrange(state.rows)
        count = sum(1 for c in range(state.cols) if shown[row * state.cols + c] != UNREVEALED)
        text = f"How many revealed cells are there in row {ROW_LETTERS[row]}?"
        top = state.cols
    else:
        col = rng.randrange(state.cols)
        count = sum(1 for r in range(state.rows) if shown[r * state.cols + col] != UNREVEALED)
        text = f"How many revealed cells are there in column {col + 1}?"
        top = state.rows
    asked.append((text, str(count), _near(count, 3, rng, top)))

    if numbers:
        index = rng.choice(numbers)
        count = sum(1 for j in state.around(index) if shown[j] == MINE)
        asked.append(
            (
                f"How many revealed mines are adjacent to {_where(state, index)}?",
                str(count),
                _near(count, 3, rng, 8),
            )
        )
        index = rng.choice(numbers)
        count = shown[index]  # a revealed count is the number of mines around it, revealed or not
        asked.append(
            (
                f"How many total mines (revealed or not) are adjacent to {_where(state, index)}?",
                str(count),
                _near(count, 3, rng, 8),
            )
        )

    if revealed:
        index = rng.choice(revealed)
        truth = "yes" if shown[index] == MINE else "no"
        asked.append(
            (
                f"Is there a revealed mine at {_where(state, index)}?",
                truth,
                [o for o in ("yes", "no", "maybe", "unknown") if o != truth],
            )
        )
    return asked
