"""The seven tetrominoes, their rotation states and the Super Rotation System's wall kicks.

Positions are (row, column) with row 0 at the top of the board and column 0 at the left. A piece
is placed by the top-left corner of its bounding box (3x3 for J, L, S, T and Z, 4x4 for I, 2x2 for
O); :data:`CELLS` gives the occupied offsets inside the box for each of the four rotation states
(0 = spawn, 1 = R after one clockwise turn, 2, 3 = L). SRS's states are exactly the box's quarter
turns, so the tables are computed from the spawn shapes.

The kick tables are the Tetris Guideline's SRS tables (as printed on the Tetris wiki), written there
as (x, y) with y pointing up; :data:`KICKS` stores them as (row, column) offsets, so a kick "one up"
is ``(-1, 0)``. A rotation tries each offset in order and takes the first that fits.
"""

from __future__ import annotations

__all__ = [
    "BOX",
    "CELLS",
    "KICKS",
    "KINDS",
    "SPAWN",
    "cells_at",
    "kicks",
]

#: The piece letters in the order their codes (1..7) are stored on the board; 0 is an empty cell.
KINDS = "IJLOSTZ"

_SHAPES: dict[str, tuple[str, ...]] = {
    "I": ("....", "####", "....", "...."),
    "J": ("#..", "###", "..."),
    "L": ("..#", "###", "..."),
    "O": ("##", "##"),
    "S": (".##", "##.", "..."),
    "T": (".#.", "###", "..."),
    "Z": ("##.", ".##", "..."),
}


def _turn(rows: tuple[str, ...]) -> tuple[str, ...]:
    """The box turned a quarter clockwise."""
    n = len(rows)
    return tuple("".join(rows[n - 1 - c][r] for c in range(n)) for r in range(n))


def _offsets(rows: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "#")


def _states(kind: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    rows = _SHAPES[kind]
    states = []
    for _ in range(4):
        states.append(_offsets(rows))
        rows = _turn(rows)
    return tuple(states)


#: ``CELLS[kind][rotation]``: the occupied (row, column) offsets inside the bounding box.
CELLS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {k: _states(k) for k in KINDS}
#: The side of each piece's bounding box.
BOX: dict[str, int] = {k: len(_SHAPES[k]) for k in KINDS}
#: Where each piece enters: the box's top-left (row, column). Pieces enter flat side down in the top
#: rows, centred (I and O) or rounded to the left (the 3-wide pieces), as in the Guideline.
SPAWN: dict[str, tuple[int, int]] = {
    k: ((-1, 3) if k == "I" else (0, 4) if k == "O" else (0, 3)) for k in KINDS
}

# SRS kick tests in (x, y), y up, from the Guideline tables, by (from state, to state).
_JLSTZ_XY: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
    (0, 1): ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)),
    (1, 0): ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2)),
    (1, 2): ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2)),
    (2, 1): ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)),
    (2, 3): ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2)),
    (3, 2): ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)),
    (3, 0): ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)),
    (0, 3): ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2)),
}
_I_XY: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
    (0, 1): ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)),
    (1, 0): ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)),
    (1, 2): ((0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)),
    (2, 1): ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)),
    (2, 3): ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)),
    (3, 2): ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)),
    (3, 0): ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)),
    (0, 3): ((0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)),
}


def _rows_cols(
    table: dict[tuple[int, int], tuple[tuple[int, int], ...]],
) -> dict[tuple[int, int], tuple[tuple[int, int], ...]]:
    return {turn: tuple((-y, x) for x, y in tests) for turn, tests in table.items()}


#: ``KICKS[kind][(from, to)]``: the (row, column) offsets a rotation tries, in order.
KICKS: dict[str, dict[tuple[int, int], tuple[tuple[int, int], ...]]] = {
    k: (
        _rows_cols(_I_XY)
        if k == "I"
        else {t: ((0, 0),) for t in _JLSTZ_XY}
        if k == "O"
        else _rows_cols(_JLSTZ_XY)
    )
    for k in KINDS
}


def kicks(kind: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """The offsets a turn of ``kind`` from rotation ``start`` to ``end`` tries, in order."""
    return KICKS[kind][(start, end)]


def cells_at(kind: str, rotation: int, row: int, col: int) -> tuple[tuple[int, int], ...]:
    """The board cells a piece covers with its box's top-left at (``row``, ``col``)."""
    return tuple((row + r, col + c) for r, c in CELLS[kind][rotation])
