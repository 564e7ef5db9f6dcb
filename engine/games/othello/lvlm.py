"""LVLM-Playground's offline tasks for Reversi: perceiving, question answering and rule following.

Pure functions over :class:`~engine.games.othello.reversi.ReversiState` (Qt-free), as the paper's
simulator generates them (§2.1-2.3 of the spec). Squares are named the LVLM way, row letter A-H (top
to bottom) then column number 1-8 (``"D3"``), as the renderer labels them.

* Perceiving and QA draw a random board as the reference's ``get_random_state`` does: a density band
  (10-25, 26-40 or 41-56 discs), a disc count in it, Black taking 30-70 % of the discs, shuffled over
  the 64 squares. Rules need not hold; Black is to move. The matrix is row A first, 0 empty, 1 black,
  2 white.
* QA asks the reference's question kinds: the symbol on a square (Black, White or empty), how many
  Black or White discs are on the board (asked in two wordings, as the reference does), empty squares,
  Black or White discs in a row or column, which row holds the most Black or White discs, which colour
  has more discs (Black, White or equal), and the discs in a row or column. Count distractors are the
  answer ± 3, never negative nor above what the board can hold; the "which row" question never offers
  another row tied for the most, so exactly one option is right.
* Rule following draws random boards until Black has a valid move (the reference's
  ``get_rule_state``); the valid moves are Black's squares that sandwich a White disc.
"""

from __future__ import annotations

import random

from engine.core import Seat, State
from engine.games._common import task_prompts
from engine.games.othello.reversi import ROWS, ReversiState, find_moves
from engine.games.othello.reversi_answers import movement_text
from engine.games.othello.rules import PASS, SIZE

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

#: The task prompts (``perceive``, ``qa`` with its ``{question}``, ``rules``), from ``tasks/*.md``.
PROMPTS: dict[str, str] = task_prompts(__file__)

#: The reference's density bands: (fewest, most) discs on a random board.
DENSITIES: tuple[tuple[int, int], ...] = ((10, 25), (26, 40), (41, 56))
_COLOURS = ("Black", "White")


def random_board(rng: random.Random) -> State:
    """A random board as the reference draws it for perceiving and QA (see the module's documentation)."""
    low, high = rng.choice(DENSITIES)
    total = rng.randint(low, high)
    blacks = rng.randint(total * 30 // 100, total * 70 // 100)
    pieces = [1] * blacks + [2] * (total - blacks) + [0] * (SIZE * SIZE - total)
    rng.shuffle(pieces)
    black = sum(1 << i for i, p in enumerate(pieces) if p == 1)
    white = sum(1 << i for i, p in enumerate(pieces) if p == 2)
    return ReversiState(black=black, white=white)


def random_legal(rng: random.Random) -> tuple[State, Seat]:
    """A random board on which Black (seat 0, to move) has at least one valid move, and Black."""
    while True:
        state = random_board(rng)
        assert isinstance(state, ReversiState)
        if state.moves_mask(0):
            return state, 0


def matrix(state: State) -> list[list[int]]:
    """The 8x8 matrix: row A first, column 1 first; 0 empty, 1 black, 2 white."""
    assert isinstance(state, ReversiState)
    codes = {"": 0, "B": 1, "W": 2}
    cells = state.cells
    return [[codes[cells[r * SIZE + c]] for c in range(SIZE)] for r in range(SIZE)]


def valid_moves(state: State, seat: Seat) -> list[str]:
    """Every square ``seat`` may play now (``"D3"`` form, reading order); a forced pass is not listed,
    since LVLM-Playground's move format has no pass."""
    assert isinstance(state, ReversiState)
    return [a for a in state.legal_actions(seat) if a != PASS]


def read_move(text: str) -> str | None:
    """A model's answer (or its ``Movement:`` text) as ``"D3"``: the square after the last
    ``Movement:`` when there is one, else the first square in the text; ``None`` when there is none.
    Reversed and lower-case forms are read (``"3d"`` -> ``"D3"``)."""
    line = movement_text(text)
    found = find_moves(text if line is None else line)
    return found[0] if found else None


# -- question answering -----------------------------------------------------------------------------


def _near(answer: int, rng: random.Random, top: int) -> list[str]:
    """Three distinct counts within 3 of ``answer``, between 0 and ``top`` (widened if the board's
    bounds leave fewer than three)."""
    reach = 3
    while True:
        pool = [n for n in range(max(0, answer - reach), min(top, answer + reach) + 1) if n != answer]
        if len(pool) >= 3 or reach > top:
            break
        reach += 1
    return [str(n) for n in rng.sample(pool, 3)]


def questions(state: State, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """One question of each of the reference's kinds about ``state``, with random squares, colours,
    rows and columns: ``(question, correct answer, distractors)``."""
    grid = matrix(state)
    asked: list[tuple[str, str, list[str]]] = []

    def count(value: int) -> int:
        return sum(row.count(value) for row in grid)

    r, c = rng.randrange(SIZE), rng.randrange(SIZE)
    symbol = ("empty", "Black", "White")[grid[r][c]]
    asked.append((
        f"What is the symbol in row {ROWS[r]}, column {c + 1}?",
        symbol,
        [s for s in ("Black", "White", "empty") if s != symbol],
    ))

    colour = rng.randrange(2)
    n = count(colour + 1)
    asked.append((f"How many '{_COLOURS[colour]}' pieces are on the board?", str(n), _near(n, rng, 64)))

    n = count(0)
    asked.append(("How many empty cells are on the board?", str(n), _near(n, rng, 64)))

    colour = rng.randrange(2)
    name = _COLOURS[colour]
    if rng.random() < 0.5:
        r = rng.randrange(SIZE)
        n = grid[r].count(colour + 1)
        asked.append((f"How many '{name}' pieces are in row {ROWS[r]}?", str(n), _near(n, rng, 8)))
    else:
        c = rng.randrange(SIZE)
        n = sum(1 for row in grid if row[c] == colour + 1)
        asked.append((f"How many '{name}' pieces are in column {c + 1}?", str(n), _near(n, rng, 8)))

    colour = rng.randrange(2)
    per_row = [row.count(colour + 1) for row in grid]
    best = max(per_row)
    most = ROWS[per_row.index(best)]
    others = [ROWS[i] for i in range(SIZE) if per_row[i] != best]
    if len(others) >= 3:
        asked.append((f"Which row has the most '{_COLOURS[colour]}' pieces?", most, rng.sample(others, 3)))

    blacks, whites = count(1), count(2)
    more = "Black" if blacks > whites else "White" if whites > blacks else "equal"
    asked.append((
        "Which player has more pieces on the board?",
        more,
        [s for s in ("Black", "White", "equal") if s != more],
    ))

    if rng.random() < 0.5:
        r = rng.randrange(SIZE)
        n = sum(1 for v in grid[r] if v)
        asked.append((f"How many pieces are in total in row {ROWS[r]}?", str(n), _near(n, rng, 8)))
    else:
        c = rng.randrange(SIZE)
        n = sum(1 for row in grid if row[c])
        asked.append((f"How many pieces are in total in column {c + 1}?", str(n), _near(n, rng, 8)))

    colour = rng.randrange(2)
    n = count(colour + 1)
    asked.append((
        f"How many '{_COLOURS[colour]}' pieces are there in total on the board?",
        str(n),
        _near(n, rng, 64),
    ))
    return asked
