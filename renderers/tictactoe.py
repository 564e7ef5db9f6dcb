"""The tic-tac-toe renderer: a clean 3x3 grid, X and O as strokes, the winning line drawn across.

Reads only ``state.cells`` (nine ``"X"``/``"O"``/``""`` entries, row-major), ``state.winning_line()``
and ``state.last_action``. Highlights are cell actions such as ``"(1,1)"``; :meth:`hit_test` maps a
click to the cell under it.

Run ``python -m renderers.tictactoe`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from renderers.base import (
    THEME,
    GridGeometry,
    Renderer,
    color,
    draw_grid_labels,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
    unique_items,
    write_sample,
)

__all__ = ["TicTacToeRenderer", "parse_cell"]

_CELL_RE = re.compile(r"^\s*\(\s*([0-2])\s*,\s*([0-2])\s*\)\s*$")
_MARKS = ("X", "O")

# Proportions of a cell.
_MARK_INSET = 0.25  # free space around a mark
_MARK_WIDTH = 0.10  # stroke width of X and O
_GRID_WIDTH = 0.035  # stroke width of the grid lines
_SHADE_INSET = 0.06  # gap between a shaded cell and the grid lines


def parse_cell(action: str) -> tuple[int, int] | None:
    """``"(r,c)"`` (spaces forgiven) to ``(r, c)``; ``None`` for anything that is not a cell."""
    match = _CELL_RE.match(str(action))
    return (int(match.group(1)), int(match.group(2))) if match else None


#: LVLM-Playground draws X red and O blue (its questions ask about "red" and "blue" marks).
LVLM_COLORS = ("#DC2626", "#1D4ED8")


class TicTacToeRenderer(Renderer):
    """Draws tic-tac-toe positions; X (seat 0) and O (seat 1) take the theme's player colours."""

    game_id = "tictactoe"
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
        """Draw the card, shaded cells, the last-move tint, the grid, the marks and the winning line."""
        grid = GridGeometry.of(rect, 3)
        area, cell, cell_rect = grid.area, grid.cell, grid.cell_rect
        cells: Sequence[str] = state.cells

        def cell_center(index: int) -> QPointF:
            return cell_rect(index // 3, index % 3).center()

        painter.save()
        # The card: white, with a hairline border so the board's extent (the clickable area) is clear.
        painter.setPen(QPen(color(THEME.line), max(1.0, cell * 0.012)))
        painter.setBrush(color(THEME.surface))
        radius = cell * 0.08
        painter.drawRoundedRect(area, radius, radius)

        last = parse_cell(getattr(state, "last_action", None) or "")
        if last is not None:
            # A faint wash of the mover's colour: enough to find the last move, quieter than a highlight.
            mover = cells[last[0] * 3 + last[1]]
            tint = THEME.player_colors[_MARKS.index(mover)] if mover in _MARKS else THEME.ink_muted
            self._shade(painter, cell_rect(*last), cell, color(tint, 30), None)

        for r, c in unique_items(highlight, parse_cell):
            self._shade(
                painter,
                cell_rect(r, c),
                cell,
                color(THEME.highlight, 70),
                QPen(color(THEME.highlight, 230), max(1.0, cell * 0.025)),
            )

        grid_pen = QPen(color(THEME.grid), max(1.0, cell * _GRID_WIDTH))
        grid_pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(grid_pen)
        end_inset = cell * 0.12  # lines stop short of the card's edge, like a hand-drawn grid
        for i in (1, 2):
            x = area.left() + i * cell
            y = area.top() + i * cell
            painter.drawLine(QLineF(x, area.top() + end_inset, x, area.bottom() - end_inset))
            painter.drawLine(QLineF(area.left() + end_inset, y, area.right() - end_inset, y))

        line = state.winning_line()
        segment = None
        if line:
            first, last_cell = cell_center(line[0]), cell_center(line[-1])
            direction = last_cell - first
            length = (direction.x() ** 2 + direction.y() ** 2) ** 0.5 or 1.0
            overshoot = direction * (cell * 0.38 / length)
            segment = QLineF(first - overshoot, last_cell + overshoot)
            winner = cells[line[0]]
            band_color = THEME.player_colors[_MARKS.index(winner)] if winner in _MARKS else THEME.ink
            # A soft band under the three marks ties them together without hiding any stroke.
            band_pen = QPen(color(band_color, 40), cell * 0.62)
            band_pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(band_pen)
            painter.drawLine(QLineF(first, last_cell))

        for index, mark in enumerate(cells[:9]):
            if mark in _MARKS:
                self._draw_mark(painter, mark, cell_rect(index // 3, index % 3),
                                LVLM_COLORS if getattr(state, "lvlm_style", False) else None)

        if segment is not None:
            # The line itself goes on top, narrower than a mark's stroke, so where it runs along a
            # stroke it reads as that stroke's dark core rather than a smudge.
            pen = QPen(color(THEME.ink), max(1.5, cell * 0.045))
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawLine(segment)

        rows = [area.top() + (i + 0.5) * cell for i in range(3)]
        cols = [area.left() + (i + 0.5) * cell for i in range(3)]
        if getattr(state, "lvlm_style", False):
            # LVLM-Playground's boards: rows A-C down the left and columns 1-3 on top, always.
            band = grid.band
            f, ink = font(band * 0.55, bold=True), color(THEME.ink)
            for i in range(3):
                draw_text_centered(painter, "ABC"[i], f, QPointF(area.left() - band / 2, rows[i]), ink)
                draw_text_centered(painter, str(i + 1), f, QPointF(cols[i], area.top() - band / 2), ink)
        elif grid_labels:
            draw_grid_labels(painter, area, rows, cols)
        painter.restore()

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The cell ``"(r,c)"`` under pixel (``x``, ``y``), whatever is in it; ``None`` off the board."""
        spot = GridGeometry.sized(width, height, 3).cell_at(x, y)
        return None if spot is None else f"({spot[0]},{spot[1]})"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell ``"(r,c)"`` is drawn (the inverse of :meth:`hit_test`)."""
        parsed = parse_cell(item)
        if parsed is None:
            return None
        return GridGeometry.sized(width, height, 3).cell_rect(*parsed)

    @staticmethod
    def _shade(painter: QPainter, cell: QRectF, size: float, fill: QColor, pen: QPen | None) -> None:
        inset = size * _SHADE_INSET
        painter.setPen(pen if pen is not None else Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(cell.adjusted(inset, inset, -inset, -inset), size * 0.07, size * 0.07)

    @staticmethod
    def _draw_mark(painter: QPainter, mark: str, cell: QRectF, palette: Sequence[str] | None = None) -> None:
        size = cell.width()
        seat = _MARKS.index(mark)
        pen = QPen(color((palette or THEME.player_colors)[seat]), size * _MARK_WIDTH)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = size * _MARK_INSET
        inner = cell.adjusted(inset, inset, -inset, -inset)
        if mark == "X":
            painter.drawLine(QLineF(inner.topLeft(), inner.bottomRight()))
            painter.drawLine(QLineF(inner.topRight(), inner.bottomLeft()))
        else:
            # The O is drawn a touch larger than the X's box: a circle looks smaller than a cross.
            grow = size * 0.02
            painter.drawEllipse(inner.adjusted(-grow, -grow, grow, grow))


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample tic-tac-toe picture (``tictactoe-sample.png`` by default) to the current folder."""
    parser = sample_parser(TicTacToeRenderer, main.__doc__, highlight='cells to shade, e.g. "(0,1)"')
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)"],
        help='cell actions to play from the start, e.g. "(1,1)" "(0,0)"',
    )
    args = parser.parse_args(argv)
    return write_sample(TicTacToeRenderer(), played_state("tictactoe", args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
