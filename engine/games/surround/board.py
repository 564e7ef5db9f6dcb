"""Surround's grid arithmetic: pure functions of a value matrix, shared by the rules, the
intermediate-question oracles, the bots and the simulated model.

A matrix is a list of rows of cell values as one seat sees them (:data:`EMPTY` 0, :data:`WALL` 1,
2/3 the seat's own last/current position, 4/5 the opponent's). Cells are ``(row, col)`` with
``(0, 0)`` at the top-left. Only value 0 can be entered; everything else is a wall for moving.

The flood fill here is written out rather than taken from a library (``scipy.ndimage.label`` would
do it) because PlayTrace's engine depends on numpy only, and a grid of 800 cells fills in well under
a millisecond in plain Python.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

__all__ = [
    "DIRECTIONS",
    "EMPTY",
    "MOVES",
    "OPPONENT_CURRENT",
    "OPPONENT_LAST",
    "OUTSIDE",
    "SAFE_CELLS",
    "WALL",
    "YOUR_CURRENT",
    "YOUR_LAST",
    "Cell",
    "Matrix",
    "distances",
    "flood_cells",
    "flood_count",
    "neighbour",
    "neighbour_values",
    "territory",
    "value_at",
]

Cell = tuple[int, int]
Matrix = Sequence[Sequence[int]]

EMPTY = 0
WALL = 1
YOUR_LAST = 2
YOUR_CURRENT = 3
OPPONENT_LAST = 4
OPPONENT_CURRENT = 5
#: The value GameBot gives a neighbour outside the grid.
OUTSIDE = -1
#: A move is "Safe" when the empty region it enters holds at least this many cells (GameBot's rule).
SAFE_CELLS = 10

#: The four moves, in the order GameBot lists neighbours: Up, Down, Left, Right.
MOVES: tuple[str, ...] = ("up", "down", "left", "right")
#: Row and column change of each move.
DIRECTIONS: dict[str, Cell] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


#: The order the flood fill looks around a cell: Up, Right, Left, Down, as in GameBot's worked example
#: (so the cells it lists come in the example's order).
_FILL_ORDER: tuple[Cell, ...] = ((-1, 0), (0, 1), (0, -1), (1, 0))


def neighbour(cell: Cell, move: str) -> Cell:
    """The cell one step from ``cell`` in direction ``move``."""
    dr, dc = DIRECTIONS[move]
    return cell[0] + dr, cell[1] + dc


def value_at(matrix: Matrix, cell: Cell) -> int:
    """The value of ``cell``, or :data:`OUTSIDE` (−1) when it is off the grid."""
    r, c = cell
    if 0 <= r < len(matrix) and 0 <= c < len(matrix[r]):
        return int(matrix[r][c])
    return OUTSIDE


def neighbour_values(matrix: Matrix, cell: Cell) -> dict[str, int]:
    """The values of the four neighbours of ``cell``, by move (−1 outside the grid)."""
    return {move: value_at(matrix, neighbour(cell, move)) for move in MOVES}


def flood_cells(matrix: Matrix, start: Cell, limit: int | None = None) -> list[Cell]:
    """The empty cells 4-connected to ``start``, ``start`` included, in breadth-first order.

    Empty when ``start`` is not an empty cell. With ``limit`` the search stops once that many cells
    are found (GameBot lets a model stop counting at 10).
    """
    if value_at(matrix, start) != EMPTY:
        return []
    seen = {start}
    order = [start]
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in _FILL_ORDER:
            nxt = (r + dr, c + dc)
            if nxt in seen or value_at(matrix, nxt) != EMPTY:
                continue
            seen.add(nxt)
            order.append(nxt)
            if limit is not None and len(order) >= limit:
                return order
            queue.append(nxt)
    return order


def flood_count(matrix: Matrix, start: Cell, limit: int | None = None) -> int:
    """How many empty cells the region entered at ``start`` holds (0 when ``start`` is not empty)."""
    return len(flood_cells(matrix, start, limit))


def distances(matrix: Matrix, starts: Iterable[Cell]) -> dict[Cell, int]:
    """Steps from the nearest of ``starts`` to every empty cell reachable through empty cells.

    The starts themselves are at distance 0 whatever their value (a head stands on a non-empty cell).
    """
    dist: dict[Cell, int] = {}
    queue: deque[Cell] = deque()
    for s in starts:
        if s not in dist:
            dist[s] = 0
            queue.append(s)
    while queue:
        cell = queue.popleft()
        d = dist[cell] + 1
        r, c = cell
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt not in dist and value_at(matrix, nxt) == EMPTY:
                dist[nxt] = d
                queue.append(nxt)
    return dist


def territory(matrix: Matrix, mine: Iterable[Cell], theirs: Iterable[Cell]) -> tuple[int, int]:
    """A Voronoi split of the empty cells: how many each side reaches strictly first.

    ``mine`` and ``theirs`` are where each side stands after the move being judged (cells reached at
    distance 0). Cells both reach at the same time count for neither.
    """
    a = distances(matrix, mine)
    b = distances(matrix, theirs)
    first_a = sum(1 for cell, d in a.items() if d > 0 and d < b.get(cell, 1 << 30))
    first_b = sum(1 for cell, d in b.items() if d > 0 and d < a.get(cell, 1 << 30))
    return first_a, first_b
