"""LVLM-Playground's offline tasks for Gomoku: perceiving, question answering and rule following.

Pure functions (no Qt): the task generator draws boards with them, the renderer draws the boards, and
the evaluator scores the answers against :func:`matrix`, :func:`questions` and :func:`valid_moves`.

* **Perceiving** (:func:`random_board`): as the paper's reference generator, 30–70 % of the 225
  intersections hold a stone and Black has 30–70 % of them, placed uniformly at random; rules need
  not hold (a five may appear).
* **Rule following** (:func:`random_legal`): a random fill whose every five (or longer) line is broken
  up by removing one of its stones, then thinned so both colours have as many stones, so the
  position could occur in play, is not over, and Black is to move.
* **Question answering** (:func:`questions`): the paper's Gomoku question pool — the stone at an
  intersection, stone counts on the board, in a row or in a column, "is there a winning line?", stones
  adjacent to an intersection, empty intersections, the longest unbroken line of a colour in a row, a
  column or on any diagonal, and stones on the edge — each with plausible distractors.

Coordinates are the game's: a column letter A–O from left to right and a row number 1–15 from top to
bottom (``H8``). The matrix's first row is row 1 (the top of the picture); 0 empty, 1 Black, 2 White.
"""

from __future__ import annotations

import random

from engine.core import Seat, State
from engine.games._common import task_prompts
from engine.games.gomoku.answers import movement_text
from engine.games.gomoku.rules import (
    ACTIONS,
    CELLS,
    COLUMNS,
    DIRECTIONS,
    SIZE,
    GomokuState,
    find_moves,
    fives,
    run_through,
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

MATRIX_SHAPE: tuple[int, int] = (SIZE, SIZE)
MATRIX_RANGE: tuple[int, int] = (0, 2)
_CODE = {"": 0, "B": 1, "W": 2}
_STONE = {"Black": "B", "White": "W"}


def _gomoku(state: State) -> GomokuState:
    if not isinstance(state, GomokuState):
        raise TypeError(f"not a Gomoku state: {type(state).__name__}")
    return state


def _fill(rng: random.Random) -> list[str]:
    """The reference generator's board: 30–70 % of the cells hold stones, Black 30–70 % of those."""
    total = rng.randint(CELLS * 30 // 100, CELLS * 70 // 100)
    black = rng.randint(total * 30 // 100, total * 70 // 100)
    cells = ["B"] * black + ["W"] * (total - black) + [""] * (CELLS - total)
    rng.shuffle(cells)
    return cells


def random_board(rng: random.Random) -> GomokuState:
    """A random board for the perceiving and question-answering tasks (rules need not hold)."""
    return GomokuState(cells=tuple(_fill(rng)))


def random_legal(rng: random.Random) -> tuple[GomokuState, Seat]:
    """A position that could occur in play, not over, with Black (seat 0, the model's seat) to move.

    Every five or longer line of the random fill loses one of its stones (chosen by ``rng``); then
    stones of the colour with more are turned to the other colour at random until both have as many
    (one stone is removed when the total is odd), which makes Black the side to move; both steps repeat
    until no line of five is left. Turning stones rather than removing them keeps the fill's share of
    occupied points (30-70 %, half on average): a random point is then empty about half the time, as
    in the paper's random row for rule following (0.508), where removing the surplus left 0.62.
    """
    cells = _fill(rng)
    while True:
        found = fives(cells)
        if found:
            _stone, line = found[0]
            cells[rng.choice(line)] = ""
            continue
        black = [i for i in range(CELLS) if cells[i] == "B"]
        white = [i for i in range(CELLS) if cells[i] == "W"]
        if len(black) == len(white):
            break
        more, other = ("B", "W") if len(black) > len(white) else ("W", "B")
        extra = black if more == "B" else white
        gap = len(extra) - min(len(black), len(white))
        chosen = rng.sample(extra, (gap + 1) // 2)
        if gap % 2:
            cells[chosen.pop()] = ""
        for i in chosen:
            cells[i] = other
    state = GomokuState(cells=tuple(cells))
    return state, 0


def matrix(state: State) -> list[list[int]]:
    """The paper's 15x15 encoding, row 1 (the top) first: 0 empty, 1 Black, 2 White."""
    cells = _gomoku(state).cells
    return [[_CODE[cells[r * SIZE + c]] for c in range(SIZE)] for r in range(SIZE)]


def valid_moves(state: State, seat: Seat) -> list[str]:
    """Every empty intersection (``"H8"``) when ``seat`` is to move; none otherwise."""
    return _gomoku(state).legal_actions(seat)


def read_move(text: str) -> str | None:
    """A model's move normalised to ``"H8"`` (``"h8"``, ``"8H"``, ``"Movement: 8 h"``): the first
    intersection after the last ``Movement:`` when there is one, else the first in ``text``."""
    line = movement_text(text)
    moves = find_moves(text if line is None else line)
    return moves[0] if moves else None


# -- question answering --------------------------------------------------------------------------


def _counts(answer: int, rng: random.Random) -> list[str]:
    """Three distinct count distractors within ±3 of ``answer`` and not negative."""
    pool = [n for n in range(max(0, answer - 3), answer + 4) if n != answer]
    return [str(n) for n in rng.sample(pool, 3)]


def _cell_name(index: int) -> str:
    return f"{ACTIONS[index]} (column {COLUMNS[index % SIZE]}, row {index // SIZE + 1})"


def longest(
    cells: tuple[str, ...], stone: str, indices: list[int], directions: tuple[tuple[int, int], ...]
) -> int:
    """The longest unbroken line of ``stone`` through ``indices`` along ``directions``."""
    best = 0
    for i in indices:
        if cells[i] != stone:
            continue
        for dr, dc in directions:
            best = max(best, len(run_through(cells, i, stone, dr, dc)))
    return best


def edge_cells() -> list[int]:
    """The 56 intersections on the border of the board."""
    return [i for i in range(CELLS) if i // SIZE in (0, SIZE - 1) or i % SIZE in (0, SIZE - 1)]


def adjacent(index: int) -> list[int]:
    """The up to eight intersections around ``index``."""
    r0, c0 = divmod(index, SIZE)
    return [
        r * SIZE + c
        for r in range(r0 - 1, r0 + 2)
        for c in range(c0 - 1, c0 + 2)
        if (r, c) != (r0, c0) and 0 <= r < SIZE and 0 <= c < SIZE
    ]


def questions(state: State, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """One question of every kind in the paper's Gomoku pool, asked of ``state``, with its correct
    answer and distractors (counts: three numbers within ±3; the stone at a point: the two other
    contents; yes/no: the other word). Parameters (colours, rows, points) are drawn from ``rng``."""
    cells = _gomoku(state).cells
    out: list[tuple[str, str, list[str]]] = []

    point = rng.randrange(CELLS)
    held = {"B": "Black", "W": "White", "": "empty"}[cells[point]]
    out.append((
        f"What is at intersection {_cell_name(point)}: a Black stone, a White stone, or is it empty?",
        held,
        [x for x in ("Black", "White", "empty") if x != held],
    ))

    colour = rng.choice(("Black", "White"))
    n = cells.count(_STONE[colour])
    out.append((f"How many {colour} stones are on the board?", str(n), _counts(n, rng)))

    colour = rng.choice(("Black", "White"))
    if rng.random() < 0.5:
        row = rng.randrange(SIZE)
        n = sum(1 for c in range(SIZE) if cells[row * SIZE + c] == _STONE[colour])
        out.append((f"How many {colour} stones are in row {row + 1}?", str(n), _counts(n, rng)))
    else:
        col = rng.randrange(SIZE)
        n = sum(1 for r in range(SIZE) if cells[r * SIZE + col] == _STONE[colour])
        out.append((f"How many {colour} stones are in column {COLUMNS[col]}?", str(n), _counts(n, rng)))

    won = "yes" if fives(cells) else "no"
    out.append((
        "Is there a winning line on the board (five or more stones of one colour in an unbroken row, "
        "column or diagonal)?",
        won,
        ["no" if won == "yes" else "yes"],
    ))

    point = rng.randrange(CELLS)
    n = sum(1 for j in adjacent(point) if cells[j])
    out.append((
        f"How many stones (of either colour) are on the intersections adjacent to {_cell_name(point)}, "
        "diagonals included?",
        str(n),
        _counts(n, rng),
    ))

    n = cells.count("")
    out.append(("How many empty intersections are there on the board?", str(n), _counts(n, rng)))

    colour = rng.choice(("Black", "White"))
    axis = rng.choice(("row", "column", "diagonal"))
    if axis == "row":
        row = rng.randrange(SIZE)
        n = longest(cells, _STONE[colour], [row * SIZE + c for c in range(SIZE)], ((0, 1),))
        where = f"in row {row + 1}"
    elif axis == "column":
        col = rng.randrange(SIZE)
        n = longest(cells, _STONE[colour], [r * SIZE + col for r in range(SIZE)], ((1, 0),))
        where = f"in column {COLUMNS[col]}"
    else:
        n = longest(cells, _STONE[colour], list(range(CELLS)), DIRECTIONS[2:])
        where = "on any diagonal"
    out.append((
        f"What is the largest number of consecutive {colour} stones {where}?", str(n), _counts(n, rng)
    ))

    colour = rng.choice(("Black", "White"))
    n = sum(1 for i in edge_cells() if cells[i] == _STONE[colour])
    out.append((
        f"How many {colour} stones are on the edge of the board (the outermost rows and columns)?",
        str(n),
        _counts(n, rng),
    ))
    return out


# -- prompts -------------------------------------------------------------------------------------


#: The offline tasks' prompts (``tasks/<task>.md``), paraphrasing the paper's; ``qa`` has a
#: ``{question}`` placeholder. Each names its output key: ``Game State:``, ``Answer:``, ``Movement:``.
PROMPTS: dict[str, str] = task_prompts(__file__)
