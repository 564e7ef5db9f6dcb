"""The Sudoku renderer: LVLM-Playground's white grid, clues in black and the player's digits in blue.

Reads only ``state.givens`` and ``state.cells`` (81 digits each in reading order, 0 for a blank) and
``state.last_action`` (``"E5 7"`` or ``None``). Thin lines separate the cells and thick lines the
3x3 boxes. Row letters A-I are written left of the grid and column numbers 1-9 above it on every
image, whatever ``grid_labels`` says: the models read coordinates off the picture. A digit that repeats
in its row, column or box (never the result of legal play, but a hand-built state may hold one) is
drawn in red on a pink cell.

Highlights are cells (``"E5"``) or moves (``"E5 7"``): the cell is shaded amber and a move's digit is
pencilled in, faint, in a blank cell. :meth:`hit_test` maps a click to the cell under it (``"E5"``);
:meth:`cell_rect` is its inverse.

Run ``python -m renderers.sudoku`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from renderers.base import (
    THEME,
    GridGeometry,
    Renderer,
    color,
    draw_text_centered,
    font,
    sample_parser,
    write_sample,
)

__all__ = ["SudokuRenderer", "parse_item"]

_ROWS = "ABCDEFGHI"
_ITEM_RE = re.compile(r"^\s*\(?\s*([A-Ia-i])\s*,?\s*([1-9])\s*\)?\s*(?:(?:->|[\s:=])\s*([0-9]))?\s*$")

_CELL = "#FFFFFF"
_CLUE = "#111111"  # black, as the paper's clues
_PLACED = "#1D4ED8"  # blue, as the paper's player digits
_CONFLICT = "#DC2626"
_CONFLICT_FILL = "#FDE2E2"
_THIN = "#9CA3AF"
_THICK = "#111111"
_LAST_FILL = "#DBEAFE"
_HIGHLIGHT_FILL = "#FDE68A"
_PENCIL = "#B45309"  # a highlighted move's digit: dark amber, readable on the amber cell
_SOLVED = "#16A34A"

# Proportions of a cell.
_DIGIT = 0.62
_THIN_WIDTH = 0.022
_THICK_WIDTH = 0.065


def parse_item(item: str) -> tuple[int, int | None] | None:
    """``"E5"``, ``"(E,5)"`` or a move ``"E5 7"`` to ``(cell index, digit or None)``; ``None`` for
    anything else."""
    match = _ITEM_RE.match(str(item))
    if not match:
        return None
    index = _ROWS.index(match.group(1).upper()) * 9 + int(match.group(2)) - 1
    return index, (int(match.group(3)) if match.group(3) else None)


def _conflicts(cells: Sequence[int]) -> set[int]:
    """Cells whose digit repeats in a row, column or box."""
    found: set[int] = set()
    units = [[r * 9 + c for c in range(9)] for r in range(9)]
    units += [[r * 9 + c for r in range(9)] for c in range(9)]
    units += [[(b // 3 * 3 + i) * 9 + b % 3 * 3 + j for i in range(3) for j in range(3)] for b in range(9)]
    for unit in units:
        seen: dict[int, int] = {}
        for i in unit:
            v = cells[i]
            if not v:
                continue
            if v in seen:
                found.update((i, seen[v]))
            seen[v] = i
    return found


class SudokuRenderer(Renderer):
    """Draws Sudoku grids in LVLM-Playground's style, with coordinates on every image."""

    game_id = "sudoku"
    aspect = 1.0

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw the cells and their tints, the grid, the digits and the coordinates."""
        grid = GridGeometry.of(rect, 9)
        area, cell = grid.area, grid.cell
        cells: Sequence[int] = tuple(state.cells)
        givens: Sequence[int] = tuple(state.givens)

        def square(index: int) -> QRectF:
            return grid.cell_rect(index // 9, index % 9)

        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_CELL))
        painter.drawRect(area)

        conflicts = _conflicts(cells)
        last = parse_item(getattr(state, "last_action", None) or "")
        if last is not None:
            painter.fillRect(square(last[0]), color(_LAST_FILL))
        for index in conflicts:
            painter.fillRect(square(index), color(_CONFLICT_FILL))
        pencilled: list[tuple[int, int]] = []
        for index, digit in _unique_items(highlight):
            painter.fillRect(square(index), color(_HIGHLIGHT_FILL))
            if digit and not cells[index]:
                pencilled.append((index, digit))

        # Thin lines between cells, then thick lines around the boxes and the grid.
        painter.setPen(QPen(color(_THIN), max(1.0, cell * _THIN_WIDTH)))
        for k in range(1, 9):
            if k % 3:
                x, y = area.left() + k * cell, area.top() + k * cell
                painter.drawLine(QLineF(x, area.top(), x, area.bottom()))
                painter.drawLine(QLineF(area.left(), y, area.right(), y))
        thick = QPen(color(_THICK), max(2.0, cell * _THICK_WIDTH))
        thick.setCapStyle(Qt.PenCapStyle.SquareCap)
        painter.setPen(thick)
        for k in (1, 2):
            x, y = area.left() + 3 * k * cell, area.top() + 3 * k * cell
            painter.drawLine(QLineF(x, area.top(), x, area.bottom()))
            painter.drawLine(QLineF(area.left(), y, area.right(), y))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(area)

        digits = font(cell * _DIGIT)
        for index, value in enumerate(cells[:81]):
            if not value:
                continue
            digit_ink = _CONFLICT if index in conflicts else _CLUE if givens[index] else _PLACED
            draw_text_centered(painter, str(value), digits, square(index).center(), color(digit_ink))
        for index, digit in pencilled:
            draw_text_centered(painter, str(digit), digits, square(index).center(), color(_PENCIL, 200))

        if all(cells[:81]) and not conflicts:
            # A full grid without repeats is solved: a green frame says so.
            painter.setPen(QPen(color(_SOLVED), max(2.0, cell * 0.09)))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            grow = cell * 0.08
            painter.drawRect(area.adjusted(-grow, -grow, grow, grow))

        band = grid.band
        labels = font(band * 0.5, bold=True)
        ink = color(THEME.ink_muted)
        for k in range(9):
            center = area.left() + (k + 0.5) * cell
            draw_text_centered(painter, str(k + 1), labels, QPointF(center, area.top() - band * 0.52), ink)
            middle = area.top() + (k + 0.5) * cell
            draw_text_centered(painter, _ROWS[k], labels, QPointF(area.left() - band * 0.52, middle), ink)
        painter.restore()

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The cell ``"E5"`` under pixel (``x``, ``y``), whatever it holds; ``None`` off the grid."""
        spot = GridGeometry.sized(width, height, 9).cell_at(x, y)
        return None if spot is None else f"{_ROWS[spot[0]]}{spot[1] + 1}"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell of ``item`` (``"E5"`` or a move ``"E5 7"``) is drawn."""
        parsed = parse_item(item)
        if parsed is None:
            return None
        return GridGeometry.sized(width, height, 9).cell_rect(*divmod(parsed[0], 9))


def _unique_items(items: Iterable[str]) -> list[tuple[int, int | None]]:
    """Cells (with a move's digit) named by ``items`` in first-seen order; other entries ignored."""
    seen: dict[int, int | None] = {}
    for item in items:
        parsed = parse_item(item)
        if parsed is not None and parsed[0] not in seen:
            seen[parsed[0]] = parsed[1]
    return list(seen.items())


def _played_state(seed: int, moves: int) -> Any:
    """A generated puzzle after the solver's first ``moves`` moves (the solution's digits)."""
    import engine

    # A renderer reaches its game only through the registry (the import contract).
    state: Any = engine.make("sudoku").initial_state(seed=seed)
    for index in [i for i, v in enumerate(state.cells) if not v][:moves]:
        state = state.apply(f"{_ROWS[index // 9]}{index % 9 + 1} {state.solution[index]}")
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Sudoku picture (``sudoku-sample.png`` by default) to the current folder."""
    parser = sample_parser(
        SudokuRenderer,
        main.__doc__,
        highlight='cells or moves to shade, e.g. "E5 7"',
        grid_labels="(coordinates are always drawn)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the generated puzzle's seed")
    parser.add_argument("--moves", type=int, default=8, help="how many blanks to fill with the solution")
    args = parser.parse_args(argv)
    return write_sample(SudokuRenderer(), _played_state(args.seed, args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
