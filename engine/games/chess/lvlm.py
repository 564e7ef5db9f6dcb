"""LVLM-Playground's offline tasks for chess: perceiving, question answering and rule following.

Pure functions over :class:`~engine.games.chess.rules.ChessState` (no Qt), as the reference
generator draws them:

* perceiving and QA boards are 5-55 random legal plies from the initial position
  (:func:`random_board`); the matrix's first row is rank 8, its columns files a-h, with 0 empty,
  White pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6 and Black the negatives (:func:`matrix`);
* QA asks the reference pool (:func:`questions`): the colour or the piece on a square ("column e,
  row 4"), how many pieces of a colour and kind, the pieces in a row or a column, which colour has
  more pieces, which of two kinds is more numerous, the pieces on the edge, which half of the board
  (top: ranks 8-5; bottom: ranks 4-1) has more empty squares;
* rule following plays 5-55 random plies, then more until White is to move (redrawn if the game
  ended), and every legal SAN move of White is valid (:func:`valid_moves`). Valid moves and
  :func:`read_move` drop check and mate marks, so ``Nf3`` matches whether or not it gives check.
"""

from __future__ import annotations

import random
import re

import chess

from engine.core import Seat
from engine.games._common import task_prompts
from engine.games.chess.answers import find_move
from engine.games.chess.rules import WHITE, ChessState, position, strip_san

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

MATRIX_SHAPE: tuple[int, int] = (8, 8)
MATRIX_RANGE: tuple[int, int] = (-6, 6)
_CODES = {chess.PAWN: 1, chess.KNIGHT: 2, chess.BISHOP: 3, chess.ROOK: 4, chess.QUEEN: 5, chess.KING: 6}
_FILES = "abcdefgh"
_KINDS = ("pawn", "knight", "bishop", "rook", "queen", "king")


def _random_plies(rng: random.Random, state: ChessState, plies: int) -> ChessState:
    for _ in range(plies):
        moves = list(state.board.generate_legal_moves())
        if not moves or state.is_over:
            break
        state = state.after(rng.choice(moves))
    return state


def random_board(rng: random.Random) -> ChessState:
    """A board for perceiving and QA: 5-55 random legal plies from the initial position."""
    return _random_plies(rng, position(), rng.randint(5, 55))


def random_legal(rng: random.Random) -> tuple[ChessState, Seat]:
    """A position for rule following: 5-55 random plies, then on until White is to move; never over."""
    while True:
        state = _random_plies(rng, position(), rng.randint(5, 55))
        while not state.is_over and state.mover != WHITE:
            state = _random_plies(rng, state, 1)
        if not state.is_over:
            return state, WHITE


def matrix(state: ChessState) -> list[list[int]]:
    """The paper's encoding: 8 rows from rank 8 down to rank 1, files a-h; 0 empty, White P1 N2 B3
    R4 Q5 K6, Black the negatives."""
    rows = []
    for rank in range(7, -1, -1):
        row = []
        for file in range(8):
            piece = state.board.piece_at(chess.square(file, rank))
            row.append(0 if piece is None else _CODES[piece.piece_type] * (1 if piece.color else -1))
        rows.append(row)
    return rows


def _counts(correct: int, rng: random.Random) -> list[str]:
    """Three distinct non-negative distractors within 3 of ``correct``."""
    near = [n for n in range(max(0, correct - 3), correct + 4) if n != correct]
    rng.shuffle(near)
    return [str(n) for n in near[:3]]


def _pick(pool: list[str], correct: str, rng: random.Random) -> list[str]:
    others = [p for p in pool if p != correct]
    rng.shuffle(others)
    return others[:3]


def questions(state: ChessState, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """The reference pool asked of ``state``: (question, correct answer, three distractors)."""
    grid = matrix(state)
    out: list[tuple[str, str, list[str]]] = []
    r, c = rng.randrange(8), rng.randrange(8)
    value = grid[r][c]
    where = f"column {_FILES[c]}, row {8 - r}"
    colour = "empty" if value == 0 else "white" if value > 0 else "black"
    out.append(
        (
            f"What is the color of the piece at {where}?",
            colour,
            _pick(["white", "black", "empty"], colour, rng),
        )
    )
    r, c = rng.randrange(8), rng.randrange(8)
    value = grid[r][c]
    name = "empty" if value == 0 else _KINDS[abs(value) - 1]
    out.append(
        (f"What is the piece at column {_FILES[c]}, row {8 - r}?", name, _pick([*_KINDS, "empty"], name, rng))
    )
    code = rng.choice([1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6])
    count = sum(row.count(code) for row in grid)
    side = "white" if code > 0 else "black"
    out.append(
        (f"How many {side} {_KINDS[abs(code) - 1]}s are on the board?", str(count), _counts(count, rng))
    )
    r = rng.randrange(8)
    count = sum(1 for v in grid[r] if v)
    out.append((f"How many pieces are in row {8 - r}?", str(count), _counts(count, rng)))
    c = rng.randrange(8)
    count = sum(1 for row in grid if row[c])
    out.append((f"How many pieces are in column {_FILES[c]}?", str(count), _counts(count, rng)))
    white = sum(1 for row in grid for v in row if v > 0)
    black = sum(1 for row in grid for v in row if v < 0)
    more = "white" if white > black else "black" if black > white else "equal"
    out.append(
        ("Which color has more pieces on the board?", more, _pick(["white", "black", "equal"], more, rng))
    )
    a, b = rng.sample([1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6], 2)
    na, nb = (f"{'white' if x > 0 else 'black'} {_KINDS[abs(x) - 1]}" for x in (a, b))
    ca, cb = (sum(row.count(x) for row in grid) for x in (a, b))
    most = na if ca > cb else nb if cb > ca else "equal"
    others = [f"{side} {kind}" for side in ("white", "black") for kind in _KINDS]
    rng.shuffle(others)
    pool = [na, nb, "equal", *(o for o in others if o not in (na, nb))]
    out.append((f"Which has more, {na}s or {nb}s?", most, _pick(pool[:4], most, rng)))
    edge = sum(1 for i in range(8) for j in range(8) if grid[i][j] and (i in (0, 7) or j in (0, 7)))
    out.append(("How many pieces are on the edge of the board?", str(edge), _counts(edge, rng)))
    top = sum(row.count(0) for row in grid[:4])
    bottom = sum(row.count(0) for row in grid[4:])
    half = "top" if top > bottom else "bottom" if bottom > top else "equal"
    out.append(
        ("Which half of the board has more empty cells?", half, _pick(["top", "bottom", "equal"], half, rng))
    )
    return out


def valid_moves(state: ChessState, seat: Seat) -> list[str]:
    """Every legal move of ``seat`` in SAN without check marks (``"Nf3"``, ``"O-O"``, ``"e8=Q"``)."""
    return [strip_san(a) for a in state.legal_actions(seat)]


def read_move(text: str) -> str | None:
    """The move of a model's ``Movement:`` text as SAN without check marks (``"0-0"`` → ``"O-O"``,
    ``"nf3"`` → ``"Nf3"``); a square pair stays as written (``"e2e4"``: SAN needs the board). ``None``
    when there is no move."""
    marker = list(re.finditer(r"movement\s*[*_`]*\s*[:：]", text, re.IGNORECASE))
    part = text[marker[-1].end() :].lstrip(" \t*_`") if marker else text
    part = part.split("\n", 1)[0] if marker and part.strip() else part
    move = find_move(part)
    if move is None:
        return None
    move = strip_san(move)
    if len(move) > 2 and move[0] in "nrqk" and not re.fullmatch(r"[a-h][1-8].*", move):
        move = move[0].upper() + move[1:]
    return move


#: Task → prompt text ("perceive", "qa" with a ``{question}`` placeholder, "rules").
PROMPTS: dict[str, str] = task_prompts(__file__)
