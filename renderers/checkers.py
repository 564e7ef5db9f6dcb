"""The checkers renderer: a wooden board, ivory and ebony pieces with rims, crowned kings, and
row and column numbers 0-7 always written in the margin (checkers moves are read by coordinates).

Reads only ``state.board`` (64 characters row-major, or 8 strings of 8: ``_`` empty, ``w``/``b`` men,
``W``/``B`` kings) and ``state.last_move`` (``"(r,c)->(r,c)..."`` or ``None``), duck-typed, so it
never imports the game. Highlights are squares ``"(r,c)"`` (shaded) or moves ``"(r,c)->(r,c)"`` and
multi-jumps ``"(r,c)->(r,c)->(r,c)"`` (every square shaded and an arrow drawn along the path).
:meth:`hit_test` gives the square ``"(r,c)"`` under a click; :meth:`cell_rect` the rectangle of a
square, or of a move's destination square.

Run ``python -m renderers.checkers`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen, QPolygonF, QRadialGradient

from renderers.base import (
    THEME,
    GridGeometry,
    Renderer,
    color,
    draw_grid_labels,
    played_state,
    sample_parser,
    write_sample,
)

__all__ = ["CheckersRenderer", "parse_squares"]

_SQUARE = re.compile(r"\(\s*([0-7])\s*,\s*([0-7])\s*\)")
_ITEM = re.compile(r"^\s*\(\s*[0-7]\s*,\s*[0-7]\s*\)(\s*(->|→)\s*\(\s*[0-7]\s*,\s*[0-7]\s*\))*\s*$")

LIGHT_SQUARE = "#EFDDBA"
DARK_SQUARE = "#9B6B46"
FRAME = "#5B3A24"
#: Per side: body, rim and inner ring of a piece (White ivory, Black ebony), and the crown's gold.
PIECES = {
    "w": ("#FBF7EE", "#A79C88", "#E4DCCB"),
    "b": ("#2B2F36", "#0B0C0F", "#474D57"),
}
CROWN = "#E3A82B"
CROWN_EDGE = "#8A5A0E"
_LAST_MOVE = "#B9C94A"


def parse_squares(item: str) -> list[tuple[int, int]] | None:
    """The squares of a cell ``"(r,c)"`` or a move ``"(r,c)->(r,c)->..."``; ``None`` for anything else."""
    text = str(item)
    if not _ITEM.match(text):
        return None
    return [(int(m.group(1)), int(m.group(2))) for m in _SQUARE.finditer(text)]


def _board(state: Any) -> str:
    board = getattr(state, "board", None)
    if board is None:
        board = state.to_json().get("board", "")
    if not isinstance(board, str):
        board = "".join(board)
    return board if len(board) == 64 else "_" * 64


@functools.cache
def _crown() -> QPainterPath:
    """A crown in a unit box centred on (0, 0): a band with three points and a jewel on each."""
    path = QPainterPath()
    pts = [(-0.5, 0.32), (-0.5, -0.18), (-0.25, 0.06), (0.0, -0.34), (0.25, 0.06), (0.5, -0.18), (0.5, 0.32)]
    path.moveTo(*pts[0])
    for x, y in pts[1:]:
        path.lineTo(x, y)
    path.closeSubpath()
    for x, y in ((-0.5, -0.24), (0.0, -0.42), (0.5, -0.24)):
        path.addEllipse(QPointF(x, y), 0.09, 0.09)
    return path.simplified()


class CheckersRenderer(Renderer):
    """Draws checkers positions; White pieces are ivory, Black pieces ebony, kings wear a gold crown."""

    game_id = "checkers"
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
        """Draw the frame, the squares, the last move, highlights, the pieces and the coordinates."""
        grid = GridGeometry.of(rect, 8)
        area, cell, square = grid.area, grid.cell, grid.cell_rect
        board = _board(state)

        painter.save()
        frame = cell * 0.12
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(FRAME))
        painter.drawRoundedRect(area.adjusted(-frame, -frame, frame, frame), frame, frame)
        painter.setBrush(color(LIGHT_SQUARE))
        painter.drawRect(area)
        painter.setBrush(color(DARK_SQUARE))
        for r in range(8):
            for c in range(8):
                if (r + c) % 2:
                    painter.drawRect(square(r, c))

        last = parse_squares(getattr(state, "last_move", None) or "")
        if last:
            painter.setBrush(color(_LAST_MOVE, 150))
            for r, c in last:
                painter.drawRect(square(r, c))

        moves = []
        for item in highlight:
            squares = parse_squares(item)
            if not squares:
                continue
            painter.setBrush(color(THEME.highlight, 95))
            painter.setPen(QPen(color(THEME.highlight, 235), max(1.0, cell * 0.05)))
            inset = cell * 0.04
            for r, c in squares:
                painter.drawRect(square(r, c).adjusted(inset, inset, -inset, -inset))
            if len(squares) > 1:
                moves.append(squares)
        painter.setPen(Qt.PenStyle.NoPen)

        for index, piece in enumerate(board):
            if piece in "wWbB":
                self._piece(painter, piece, square(index // 8, index % 8))

        for squares in moves:
            self._arrow(painter, [square(r, c).center() for r, c in squares], cell)

        centers = [area.top() + (i + 0.5) * cell for i in range(8)]
        draw_grid_labels(painter, area, centers, [area.left() + (i + 0.5) * cell for i in range(8)])
        painter.restore()

    @staticmethod
    def _piece(painter: QPainter, piece: str, box: QRectF) -> None:
        size = box.width()
        body, rim, ring = PIECES[piece.lower()]
        centre = box.center()
        radius = size * 0.39
        painter.setPen(Qt.PenStyle.NoPen)
        # A soft shadow below and to the right lifts the piece off the board.
        painter.setBrush(color("#000000", 70))
        painter.drawEllipse(centre + QPointF(size * 0.03, size * 0.05), radius, radius)
        painter.setBrush(color(rim))
        painter.drawEllipse(centre, radius, radius)
        gradient = QRadialGradient(centre - QPointF(radius * 0.35, radius * 0.4), radius * 1.25)
        gradient.setColorAt(0.0, color(body).lighter(112))
        gradient.setColorAt(1.0, color(body).darker(108))
        painter.setBrush(QBrush(gradient))
        painter.drawEllipse(centre, radius * 0.88, radius * 0.88)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(color(ring), max(1.0, size * 0.03)))
        painter.drawEllipse(centre, radius * 0.62, radius * 0.62)
        if piece.isupper():
            painter.save()
            painter.translate(centre)
            painter.scale(radius * 1.1, radius * 1.1)
            painter.setPen(QPen(color(CROWN_EDGE), 0.07))
            painter.setBrush(color(CROWN))
            painter.drawPath(_crown())
            painter.restore()
        painter.setPen(Qt.PenStyle.NoPen)

    @staticmethod
    def _arrow(painter: QPainter, points: list[QPointF], cell: float) -> None:
        """A line through ``points`` ending in an arrowhead short of the last centre."""
        if len(points) < 2:
            return
        width = max(2.0, cell * 0.1)
        head = cell * 0.32
        a, b = points[-2], points[-1]
        dx, dy = b.x() - a.x(), b.y() - a.y()
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        tip = QPointF(b.x() - ux * cell * 0.12, b.y() - uy * cell * 0.12)
        base = QPointF(tip.x() - ux * head, tip.y() - uy * head)
        path = QPainterPath(points[0])
        for p in points[1:-1]:
            path.lineTo(p)
        path.lineTo(base)
        for pen_color, grow in ((color("#FFFFFF", 200), width * 0.7), (color(THEME.accent, 235), 0.0)):
            pen = QPen(pen_color, width + grow)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
        painter.setPen(QPen(color("#FFFFFF", 200), width * 0.35))
        painter.setBrush(color(THEME.accent, 245))
        side = head * 0.62
        painter.drawPolygon(
            QPolygonF(
                [
                    tip,
                    QPointF(base.x() - uy * side, base.y() + ux * side),
                    QPointF(base.x() + uy * side, base.y() - ux * side),
                ]
            )
        )
        painter.setBrush(color(THEME.accent, 245))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(points[0], width * 0.9, width * 0.9)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The square ``"(r,c)"`` under pixel (``x``, ``y``), light or dark; ``None`` off the board."""
        spot = GridGeometry.sized(width, height, 8).cell_at(x, y)
        return None if spot is None else f"({spot[0]},{spot[1]})"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """The square ``"(r,c)"``, or the destination square of a move ``"(r,c)->...->(r,c)"``."""
        squares = parse_squares(item)
        if not squares:
            return None
        return GridGeometry.sized(width, height, 8).cell_rect(*squares[-1])


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample checkers picture (``checkers-sample.png`` by default) to the current folder."""
    parser = sample_parser(
        CheckersRenderer,
        main.__doc__,
        highlight='squares or moves, e.g. "(3,2)->(5,4)"',
        grid_labels="(always drawn for checkers)",
    )
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["(2,1)->(3,2)", "(5,4)->(4,3)"],
        help='moves to play from the start, e.g. "(2,1)->(3,2)"',
    )
    args = parser.parse_args(argv)
    return write_sample(CheckersRenderer(), played_state("checkers", args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
