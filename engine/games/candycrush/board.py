"""Candy Crush board mechanics: pure functions on a board held as a string of colour letters.

A board is ``ROWS * COLS`` characters, row by row from the top, each the letter of a candy's colour
(:data:`COLOURS`). Swaps, matches, gravity and refills are functions from boards to boards, so the
states built on them stay immutable values and the bots can try every swap cheaply.

* a *line* is three or more candies of one colour in a row or a column;
* a swap of two neighbours is *effective* when it makes a line through one of the two cells;
* :func:`settle` clears every line at once, lets the candies above fall, refills the top from a
  random source, and repeats while the refill makes new lines (a cascade), counting each candy
  cleared once per wave.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Iterator

import numpy as np

__all__ = [
    "COLOURS",
    "COLOUR_NAMES",
    "COLS",
    "ROWS",
    "SWAPS",
    "SWAP_NAMES",
    "Cell",
    "Swap",
    "effective",
    "effective_indices",
    "effective_swaps",
    "fall",
    "format_swap",
    "lines_at",
    "matched",
    "new_board",
    "parse_swap",
    "reshuffle",
    "settle",
    "swap_board",
]

ROWS = 8
COLS = 8
#: Candy colours by letter, in the order LMGame-Bench's text board numbers them (1 = G ... 6 = B).
COLOURS = "GCPRYB"
COLOUR_NAMES = {"G": "green", "C": "cyan", "P": "purple", "R": "red", "Y": "yellow", "B": "blue"}
#: The empty cell while a wave is being resolved (never in a settled board).
EMPTY = "."

Cell = tuple[int, int]
Swap = tuple[Cell, Cell]


def _all_swaps() -> tuple[Swap, ...]:
    """Every adjacent pair, in tile-match-gym's action order: the vertical swaps row by row, then
    the horizontal ones (so an action's index is the same in both environments)."""
    down = [((r, c), (r + 1, c)) for r in range(ROWS - 1) for c in range(COLS)]
    right = [((r, c), (r, c + 1)) for r in range(ROWS) for c in range(COLS - 1)]
    return tuple(down + right)


#: The 112 adjacent swaps of an 8x8 board.
SWAPS: tuple[Swap, ...] = _all_swaps()


def format_swap(swap: Swap) -> str:
    """The canonical action ``((r1,c1),(r2,c2))``, the upper or left cell first."""
    (a, b), (c, d) = sorted(swap)
    return f"(({a},{b}),({c},{d}))"


_PAIR = r"[\(\[\{]?\s*(?:r(?:ow)?\s*)?(\d+)\s*(?:,|;|\s)\s*(?:c(?:ol(?:umn)?)?\s*)?(\d+)\s*[\)\]\}]?"
_TWO_CELLS = re.compile(_PAIR + r"\s*(?:,|;|<?-+>|<?=+>|→|↔|\bwith\b|\band\b|\bto\b|\s|-)*\s*" + _PAIR)
_ONE_CELL = re.compile(_PAIR + r"\s*(?:,|-|\s)*\s*(up|down|left|right)\b")
_STEP = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def parse_swap(text: str) -> Swap | None:
    """Read a swap from text: ``((1,2),(1,3))``, ``(1,2),(1,3)``, ``(1, 2) -> (1, 3)``,
    ``swap (1,2) with (1,3)``, ``[[1,2],[1,3]]``, ``row 1 col 2 and row 1 col 3``, ``1,2 1,3`` or a cell
    and a direction (``(1,2) right``). Returns the two cells in the order written, or ``None``
    (the cells may be off the board or not neighbours: the caller says why)."""
    lowered = text.lower()
    two = _TWO_CELLS.search(lowered)
    if two is not None:
        r1, c1, r2, c2 = (int(g) for g in two.groups())
        return (r1, c1), (r2, c2)
    one = _ONE_CELL.search(lowered)
    if one is not None:
        r, c = int(one.group(1)), int(one.group(2))
        dr, dc = _STEP[one.group(3)]
        return (r, c), (r + dr, c + dc)
    return None


def swap_board(board: str, swap: Swap) -> str:
    """``board`` with the candies of the two cells exchanged."""
    (r1, c1), (r2, c2) = swap
    i, j = r1 * COLS + c1, r2 * COLS + c2
    if i > j:
        i, j = j, i
    return board[:i] + board[j] + board[i + 1 : j] + board[i] + board[j + 1 :]


def lines_at(board: str, r: int, c: int) -> int:
    """How many candies the longest line through (``r``, ``c``) holds when it is a line (3 or more)
    counting both directions, else 0."""
    colour = board[r * COLS + c]
    total = 0
    left = c
    while left > 0 and board[r * COLS + left - 1] == colour:
        left -= 1
    right = c
    while right < COLS - 1 and board[r * COLS + right + 1] == colour:
        right += 1
    if right - left >= 2:
        total += right - left + 1
    up = r
    while up > 0 and board[(up - 1) * COLS + c] == colour:
        up -= 1
    down = r
    while down < ROWS - 1 and board[(down + 1) * COLS + c] == colour:
        down += 1
    if down - up >= 2:
        total += down - up + 1
    return total


def effective(board: str, swap: Swap) -> bool:
    """Whether the swap makes a line (the only swaps the game accepts)."""
    (r1, c1), (r2, c2) = swap
    if board[r1 * COLS + c1] == board[r2 * COLS + c2]:
        return False
    swapped = swap_board(board, swap)
    return bool(lines_at(swapped, r1, c1) or lines_at(swapped, r2, c2))


def _pair_tables() -> tuple[np.ndarray, ...]:
    """For every swap and each of its two cells: the six pairs of cells that would complete a line
    through the cell (two left, one each side, two right; the same vertically). A pair that leaves the
    board or holds the swap's other cell points at the padding cell (index ``ROWS * COLS``), which no
    colour equals."""
    pad = ROWS * COLS
    shapes = (((0, -2), (0, -1)), ((0, -1), (0, 1)), ((0, 1), (0, 2)),
              ((-2, 0), (-1, 0)), ((-1, 0), (1, 0)), ((1, 0), (2, 0)))  # fmt: skip

    def pairs(cell: Cell, other: Cell) -> list[list[int]]:
        out = []
        for shape in shapes:
            found = []
            for dr, dc in shape:
                r, c = cell[0] + dr, cell[1] + dc
                inside = 0 <= r < ROWS and 0 <= c < COLS and (r, c) != other
                found.append(r * COLS + c if inside else pad)
            out.append(found)
        return out

    first = np.array([pairs(a, b) for a, b in SWAPS], dtype=np.intp)
    second = np.array([pairs(b, a) for a, b in SWAPS], dtype=np.intp)
    near = np.stack([first[..., 0], second[..., 0]])
    far = np.stack([first[..., 1], second[..., 1]])
    a_index = [a[0] * COLS + a[1] for a, _ in SWAPS]
    b_index = [b[0] * COLS + b[1] for _, b in SWAPS]
    # What lands on each cell: the first cell gets the second's candy and the other way round.
    landing = np.array([b_index, a_index], dtype=np.intp)[..., None]
    return near, far, landing


_NEAR, _FAR, _LANDING = _pair_tables()
#: Every swap's canonical action text, in :data:`SWAPS` order.
SWAP_NAMES: tuple[str, ...] = tuple(format_swap(s) for s in SWAPS)


@functools.lru_cache(maxsize=8192)
def effective_indices(board: str) -> tuple[int, ...]:
    """The :data:`SWAPS` indices of the swaps that make a line on a settled ``board``.

    All 112 swaps are tested at once with array lookups (testing each swap in Python costs several times
    as much, and every state needs the list); cached per board.
    """
    cells = np.frombuffer(board.encode("ascii") + b"#", dtype=np.uint8)
    landing = cells[_LANDING]
    hit = ((cells[_NEAR] == landing) & (cells[_FAR] == landing)).any(axis=(0, 2))
    hit &= landing[0, :, 0] != landing[1, :, 0]
    return tuple(np.flatnonzero(hit).tolist())


def effective_swaps(board: str) -> list[Swap]:
    """The swaps that make a line, in :data:`SWAPS` order."""
    return [SWAPS[i] for i in effective_indices(board)]


def _triples() -> tuple[tuple[int, int, int], ...]:
    across = [(i, i + 1, i + 2) for r in range(ROWS) for i in range(r * COLS, r * COLS + COLS - 2)]
    down = [(i, i + COLS, i + 2 * COLS) for i in range((ROWS - 2) * COLS)]
    return tuple(across + down)


#: Every three cells in a row or a column: a line is a run of such triples of one colour.
_TRIPLES = _triples()


def matched(board: str) -> set[int]:
    """The indices of every candy in a line (rows and columns, all at once)."""
    found: set[int] = set()
    for i, j, k in _TRIPLES:
        colour = board[i]
        if colour == board[j] == board[k] and colour != EMPTY:
            found.update((i, j, k))
    return found


def fall(board: str, cleared: set[int]) -> str:
    """Remove ``cleared`` and let the candies above fall; the cells left at the top are empty."""
    cells = list(board)
    for i in cleared:
        cells[i] = EMPTY
    flat = "".join(cells)
    columns = []
    for c in range(COLS):
        kept = flat[c::COLS].replace(EMPTY, "")
        columns.append(EMPTY * (ROWS - len(kept)) + kept)
    return "".join("".join(row) for row in zip(*columns, strict=True))


Draw = Callable[[], str]


def refill(board: str, draw: Draw) -> str:
    """Fill the empty cells in reading order, each with ``draw()``."""
    return "".join(draw() if ch == EMPTY else ch for ch in board)


def settle(board: str, draw: Draw) -> tuple[str, list[int]]:
    """Clear lines, fall and refill until no line is left; returns the board and the candies cleared
    in each wave (the first wave is the swap's own line)."""
    waves: list[int] = []
    while True:
        found = matched(board)
        if not found:
            return board, waves
        waves.append(len(found))
        board = refill(fall(board, found), draw)


def drawer(rng: random.Random, colours: str) -> Draw:
    """A draw of uniformly random colours from ``rng``."""
    return lambda: colours[rng.randrange(len(colours))]


def new_board(rng: random.Random, colours: str) -> str:
    """A board without lines and with at least one effective swap.

    Each cell is drawn uniformly but redrawn while it would complete a line with the two cells left
    of it or above it; a board with no effective swap (rare) is drawn again.
    """
    while True:
        cells: list[str] = []
        for r in range(ROWS):
            for c in range(COLS):
                while True:
                    colour = colours[rng.randrange(len(colours))]
                    row_line = c >= 2 and cells[-1] == colour and cells[-2] == colour
                    col_line = r >= 2 and cells[-COLS] == colour and cells[-2 * COLS] == colour
                    if not (row_line or col_line):
                        break
                cells.append(colour)
        board = "".join(cells)
        if effective_indices(board):
            return board


def reshuffle(board: str, rng: random.Random, colours: str) -> str:
    """The same candies in a new order with no line and an effective swap (what the game does when no
    swap is left); after many tries without one, a fresh board."""
    cells = list(board)
    for _ in range(200):
        rng.shuffle(cells)
        shuffled = "".join(cells)
        if not matched(shuffled) and effective_indices(shuffled):
            return shuffled
    return new_board(rng, colours)


def cells_of(board: str) -> Iterator[tuple[int, int, str]]:
    """Every cell as ``(row, col, colour letter)`` in reading order."""
    for i, ch in enumerate(board):
        yield i // COLS, i % COLS, ch
