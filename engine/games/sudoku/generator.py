"""Sudoku grids: reading puzzle text, a fast exact solver, and a seeded generator of unique puzzles.

A grid is a tuple of 81 digits in reading order (row A first, columns 1 to 9), ``0`` for a blank.

The solver is backtracking over bitmasks of the digits each row, column and box already holds,
choosing at every step the blank with the fewest candidates (the "minimum remaining values" rule), so
a hard puzzle (AI Escargot, say) is solved or proven ambiguous in a few milliseconds. It counts
solutions up to a limit: two is enough to tell a proper puzzle (exactly one solution) from an
ambiguous one. No maintained Python library offers a seeded generator with LVLM-Playground's removal
procedure and this counting limit, so PlayTrace keeps its own (about a hundred lines).

The generator fills a complete grid by randomised backtracking, then removes clues while the solution
stays unique, as the paper's reference does. Difficulty is how far the removal goes
(:data:`DIFFICULTIES`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

__all__ = [
    "BOX_OF",
    "DIFFICULTIES",
    "PEERS",
    "Grid",
    "PuzzleError",
    "candidates",
    "count_solutions",
    "generate",
    "parse_puzzle",
    "solve",
]

Grid = tuple[int, ...]

#: The box (0..8, reading order) of every cell.
BOX_OF: tuple[int, ...] = tuple((i // 27) * 3 + (i % 9) // 3 for i in range(81))
#: The 20 other cells sharing a row, a column or a box with each cell.
PEERS: tuple[frozenset[int], ...] = tuple(
    frozenset(
        j
        for j in range(81)
        if j != i and (j // 9 == i // 9 or j % 9 == i % 9 or BOX_OF[j] == BOX_OF[i])
    )
    for i in range(81)
)
_ALL = 0b1111111110  # bits 1..9: the digits 1..9

#: How far the clue removal goes, by difficulty:
#:
#: * ``easy``: random removals while the solution stays unique; stops after 5 failed removals or
#:   when 45 clues are left, whichever comes first (so nearly always 45 clues);
#: * ``medium``: LVLM-Playground's reference procedure: random removals while the solution stays
#:   unique, stopping after 5 failed removals (26-42 clues, most often 30-36);
#: * ``hard``: every clue is tried once in random order and removed when the solution stays unique,
#:   so the puzzle is minimal: no clue can be taken away (usually 22-26 clues).
DIFFICULTIES: dict[str, tuple[int | None, int]] = {
    # difficulty: (failed removals allowed, or None for "try every clue"; fewest clues kept)
    "easy": (5, 45),
    "medium": (5, 17),
    "hard": (None, 17),
}


class PuzzleError(ValueError):
    """A puzzle's text is malformed, its clues conflict, or it has no solution or several."""


def parse_puzzle(text: str) -> Grid:
    """Read 81 characters (digits, ``0`` or ``.`` for blanks; whitespace and ``|``, ``-``, ``+``
    separators ignored) into a grid that has exactly one solution.

    Raises:
        PuzzleError: the message names what is wrong: the length, a character, two clues that
            conflict, no solution, or several.
    """
    if not isinstance(text, str):
        raise PuzzleError(f"a puzzle is text, not {type(text).__name__}")
    kept = [ch for ch in text if not (ch.isspace() or ch in "|-+")]
    bad = sorted({ch for ch in kept if ch not in "0123456789."})
    if bad:
        shown = ", ".join(repr(ch) for ch in bad[:5])
        raise PuzzleError(f"the puzzle may hold only digits and '.' or '0' for blanks, not {shown}")
    if len(kept) != 81:
        raise PuzzleError(f"the puzzle must have 81 cells (9 rows of 9), not {len(kept)}")
    grid: Grid = tuple(0 if ch == "." else int(ch) for ch in kept)
    clash = conflict(grid)
    if clash is not None:
        a, b = clash
        raise PuzzleError(
            f"the clues conflict: {cell_name(a)} and {cell_name(b)} both hold {grid[a]} in the same "
            f"{_shared_unit(a, b)}"
        )
    found = count_solutions(grid, 2)
    if found == 0:
        raise PuzzleError("the puzzle has no solution")
    if found > 1:
        raise PuzzleError(
            f"the puzzle has several solutions ({sum(1 for v in grid if v)} clues); a Sudoku has exactly one"
        )
    return grid


def cell_name(index: int) -> str:
    """``0 -> "A1"``, ``80 -> "I9"`` (row letter A-I top to bottom, column 1-9 left to right)."""
    return f"{'ABCDEFGHI'[index // 9]}{index % 9 + 1}"


def _shared_unit(a: int, b: int) -> str:
    if a // 9 == b // 9:
        return "row"
    if a % 9 == b % 9:
        return "column"
    return "3x3 box"


def conflict(grid: Grid) -> tuple[int, int] | None:
    """The first two cells (in reading order) holding the same digit in one row, column or box."""
    for i, v in enumerate(grid):
        if v:
            for j in sorted(PEERS[i]):
                if j > i and grid[j] == v:
                    return i, j
    return None


def _masks(grid: Grid) -> tuple[list[int], list[int], list[int]] | None:
    """Digits used per row, column and box as bitmasks; ``None`` when two clues clash."""
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9
    for i, v in enumerate(grid):
        if not v:
            continue
        bit = 1 << v
        r, c, b = i // 9, i % 9, BOX_OF[i]
        if (rows[r] | cols[c] | boxes[b]) & bit:
            return None
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
    return rows, cols, boxes


def candidates(grid: Grid, index: int) -> list[int]:
    """The digits that can go in blank ``index`` without repeating in its row, column or box
    (empty for a filled cell)."""
    if grid[index]:
        return []
    used = 0
    for j in PEERS[index]:
        used |= 1 << grid[j]
    return [d for d in range(1, 10) if not used & (1 << d)]


def _search(grid: Grid, limit: int, rng: random.Random | None) -> Iterator[Grid]:
    """Solutions of ``grid`` (at most ``limit``), found by bitmask backtracking with MRV."""
    masks = _masks(grid)
    if masks is None:
        return
    rows, cols, boxes = masks
    cells = list(grid)
    blanks = [i for i, v in enumerate(cells) if not v]
    found = 0

    def recurse() -> Iterator[Grid]:
        nonlocal found
        best, best_free, best_count = -1, 0, 10
        for i in blanks:
            if cells[i]:
                continue
            free = _ALL & ~(rows[i // 9] | cols[i % 9] | boxes[BOX_OF[i]])
            count = free.bit_count()
            if count < best_count:
                best, best_free, best_count = i, free, count
                if count <= 1:
                    break
        if best < 0:
            found += 1
            yield tuple(cells)
            return
        if best_count == 0:
            return
        digits = [d for d in range(1, 10) if best_free & (1 << d)]
        if rng is not None:
            rng.shuffle(digits)
        r, c, b = best // 9, best % 9, BOX_OF[best]
        for d in digits:
            bit = 1 << d
            cells[best] = d
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
            yield from recurse()
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[b] ^= bit
            cells[best] = 0
            if found >= limit:
                return

    yield from recurse()


def count_solutions(grid: Grid, limit: int = 2) -> int:
    """How many solutions ``grid`` has, counting no further than ``limit``."""
    return sum(1 for _ in _search(grid, limit, None))


def solve(grid: Grid) -> Grid | None:
    """The first solution of ``grid`` in digit order, or ``None`` when it has none."""
    return next(_search(grid, 1, None), None)


def full_grid(rng: random.Random) -> Grid:
    """A complete, valid grid drawn by randomised backtracking."""
    solution = next(_search((0,) * 81, 1, rng), None)
    assert solution is not None  # an empty grid always has a solution
    return solution


def generate(rng: random.Random, difficulty: str = "medium") -> tuple[Grid, Grid]:
    """A puzzle with exactly one solution, and that solution.

    Args:
        rng: The source of randomness (a seeded one gives the same puzzle every time).
        difficulty: One of :data:`DIFFICULTIES`.

    Raises:
        ValueError: an unknown difficulty.
    """
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    failures_allowed, floor = DIFFICULTIES[difficulty]
    solution = full_grid(rng)
    puzzle = list(solution)

    def removable(index: int) -> bool:
        kept = puzzle[index]
        puzzle[index] = 0
        if count_solutions(tuple(puzzle), 2) == 1:
            return True
        puzzle[index] = kept
        return False

    if failures_allowed is None:
        order = list(range(81))
        rng.shuffle(order)
        clues = 81
        for index in order:
            if clues > floor and removable(index):
                clues -= 1
    else:
        failures, clues = 0, 81
        while failures < failures_allowed and clues > floor:
            index = rng.choice([i for i, v in enumerate(puzzle) if v])
            if removable(index):
                clues -= 1
            else:
                failures += 1
    return tuple(puzzle), solution
