"""The Minesweeper renderer: the classic grey window, raised unrevealed cells, flat revealed ones.

Drawn in the style of LVLM-Playground's board (and the desktop game it imitates): a header with the
mines-left counter, the status face and the moves counter; unrevealed cells raised and grey; revealed
cells flat and lighter, numbers bold in the paper's colours (1 #F44336, 2 #9C27B0, 3 #3F51B5,
4 #03A9F4, 5 #00BCD4, 6 #4CAF50, 7 #E91E63, 8 #FF9800); mines as a drawn bomb, the one that was hit
on red; flags as a red pennant. Row letters (A at the top) and column numbers (1 at the left) are
drawn on every image, because prompts and moves name cells by them.

Reads only ``state.rows``, ``state.cols``, ``state.mine_count``, ``state.shown`` (reading order; -1
unrevealed, 0-8 counts, 9 a revealed mine), ``state.mines`` (the layout or ``None`` in a player's
view), ``state.flags``, ``state.moves`` and ``state.won`` / ``state.lost``. Once a game is lost the
layout (when the state holds it) is shown: every mine, and a cross on any flag without one.
Highlights and :meth:`hit_test` use cell names such as ``"B3"`` (``"flag B3"`` and ``"(B,3)"`` are
read too).

Run ``python -m renderers.minesweeper`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen, QPolygonF

from renderers.base import (
    THEME,
    Renderer,
    centered_square,
    color,
    draw_text_centered,
    font,
    mono_font,
    played_state,
    sample_parser,
    unique_items,
    write_sample,
)

__all__ = ["NUMBER_COLORS", "MinesweeperRenderer", "parse_cell"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The paper's number colours.
NUMBER_COLORS: dict[int, str] = {
    1: "#F44336",
    2: "#9C27B0",
    3: "#3F51B5",
    4: "#03A9F4",
    5: "#00BCD4",
    6: "#4CAF50",
    7: "#E91E63",
    8: "#FF9800",
}
_WINDOW = "#C6C6C6"
_RAISED = "#BDBDBD"
_LIGHT = "#F7F7F7"
_SHADOW = "#7B7B7B"
_OPEN = "#E6E6E6"
_OPEN_LINE = "#A3A3A3"
_EXPLODED = "#F23B2F"
_LCD = "#1B1B1B"
_LCD_TEXT = "#FF3B30"

_CELL_RE = re.compile(r"^\s*(?:flag\s+)?\(?\s*([A-Za-z])\s*,?\s*(\d{1,2})\s*\)?\s*$", re.IGNORECASE)

# The layout in cell units.
_PAD = 0.35  # window border
_HEADER = 1.6  # the counters and the face
_GAP = 0.35  # between the header and the column numbers
_LABEL_W = 0.9  # the row letters
_LABEL_H = 0.85  # the column numbers
_BEVEL = 0.13  # raised edge of an unrevealed cell


def parse_cell(item: str) -> tuple[int, int] | None:
    """``"B3"`` (also ``"flag B3"``, ``"(B,3)"``) to zero-based ``(row, col)``; ``None`` otherwise."""
    match = _CELL_RE.match(str(item))
    if not match:
        return None
    return _LETTERS.index(match.group(1).upper()), int(match.group(2)) - 1


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    """Where everything goes for one board size in one rectangle."""

    window: QRectF
    header: QRectF
    grid: QRectF
    cell: float


def _layout(rows: int, cols: int, rect: QRectF) -> _Layout:
    square = centered_square(rect)
    inset = square.width() * 0.03
    area = square.adjusted(inset, inset, -inset, -inset)
    width_units = 2 * _PAD + _LABEL_W + cols + 2 * _BEVEL
    height_units = 2 * _PAD + _HEADER + _GAP + _LABEL_H + rows + 2 * _BEVEL
    cell = min(area.width() / width_units, area.height() / height_units)
    w, h = width_units * cell, height_units * cell
    window = QRectF(area.center().x() - w / 2, area.center().y() - h / 2, w, h)
    header = QRectF(
        window.left() + _PAD * cell, window.top() + _PAD * cell, w - 2 * _PAD * cell, _HEADER * cell
    )
    grid = QRectF(
        window.left() + (_PAD + _LABEL_W + _BEVEL) * cell,
        header.bottom() + (_GAP + _LABEL_H + _BEVEL) * cell,
        cols * cell,
        rows * cell,
    )
    return _Layout(window, header, grid, cell)


class MinesweeperRenderer(Renderer):
    """Draws Minesweeper boards of any size, in a square."""

    game_id = "minesweeper"
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
        """Draw the window, the header, the labels, the cells and the highlights (the coordinates are
        always drawn, so ``grid_labels`` changes nothing)."""
        rows, cols = int(state.rows), int(state.cols)
        shown: Sequence[int] = state.shown
        mines: frozenset[int] | None = getattr(state, "mines", None)
        flags: frozenset[int] = getattr(state, "flags", frozenset())
        lost, won = bool(getattr(state, "lost", False)), bool(getattr(state, "won", False))
        lay = _layout(rows, cols, rect)
        cell = lay.cell
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self._bevel(painter, lay.window, cell * 0.08, _WINDOW, raised=True)
        self._header(painter, state, lay, flags, lost, won)
        frame = lay.grid.adjusted(-_BEVEL * cell, -_BEVEL * cell, _BEVEL * cell, _BEVEL * cell)
        self._bevel(painter, frame, _BEVEL * cell, _OPEN, raised=False)
        self._labels(painter, lay, rows, cols)

        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        show_layout = lost and mines is not None
        opened: list[QRectF] = []
        raised: list[QRectF] = []
        for index, value in enumerate(shown[: rows * cols]):
            box = QRectF(
                lay.grid.left() + (index % cols) * cell, lay.grid.top() + (index // cols) * cell, cell, cell
            )
            flat_mine = show_layout and mines is not None and index in mines and index not in flags
            (raised if value == -1 and not flat_mine else opened).append(box)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_OPEN))
        painter.drawRects(opened)
        self._raised_cells(painter, raised, cell)
        # Hairlines between the flat cells (the raised ones carry their own edges).
        painter.setPen(QPen(color(_OPEN_LINE), max(1.0, cell * 0.03)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRects(opened)

        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        number_font = font(cell * 0.62, bold=True)
        for index, value in enumerate(shown[: rows * cols]):
            box = QRectF(
                lay.grid.left() + (index % cols) * cell, lay.grid.top() + (index // cols) * cell, cell, cell
            )
            if 1 <= value <= 8:
                draw_text_centered(
                    painter, str(value), number_font, box.center(), color(NUMBER_COLORS[value])
                )
            elif value == 9:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(color(_EXPLODED))
                painter.drawRect(box.adjusted(1, 1, -1, -1))
                _bomb(painter, box)
            elif value == -1:
                is_mine = mines is not None and index in mines
                if show_layout and is_mine and index not in flags:
                    _bomb(painter, box)
                elif index in flags or won:
                    _flag(painter, box)
                    if show_layout and not is_mine:
                        _cross(painter, box)

        for r, c in unique_items(highlight, parse_cell):
            if 0 <= r < rows and 0 <= c < cols:
                box = QRectF(lay.grid.left() + c * cell, lay.grid.top() + r * cell, cell, cell)
                inset = cell * 0.06
                painter.setPen(QPen(color(THEME.highlight, 235), max(1.5, cell * 0.09)))
                painter.setBrush(color(THEME.highlight, 60))
                painter.drawRect(box.adjusted(inset, inset, -inset, -inset))
        painter.restore()

    # -- parts ------------------------------------------------------------------------------------

    @staticmethod
    def _bevel(painter: QPainter, box: QRectF, width: float, face: str, *, raised: bool) -> None:
        """A box with a light and a dark edge: raised (light top-left) or sunken (dark top-left)."""
        top_left, bottom_right = (_LIGHT, _SHADOW) if raised else (_SHADOW, _LIGHT)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(top_left))
        painter.drawRect(box)
        painter.setBrush(color(bottom_right))
        painter.drawPolygon(QPolygonF([
            box.topRight(), box.bottomRight(), box.bottomLeft(),
            QPointF(box.left() + width, box.bottom() - width),
            QPointF(box.right() - width, box.top() + width),
        ]))  # fmt: skip
        painter.setBrush(color(face))
        painter.drawRect(box.adjusted(width, width, -width, -width))

    @staticmethod
    def _raised_cells(painter: QPainter, boxes: list[QRectF], cell: float) -> None:
        """Every unrevealed cell as a raised grey button, drawn in three batched passes."""
        if not boxes:
            return
        width = max(1.0, cell * _BEVEL)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_LIGHT))
        painter.drawRects(boxes)
        painter.setBrush(color(_SHADOW))
        for box in boxes:
            painter.drawPolygon(QPolygonF([
                box.topRight(), box.bottomRight(), box.bottomLeft(),
                QPointF(box.left() + width, box.bottom() - width),
            QPointF(box.right() - width, box.top() + width),
            ]))  # fmt: skip
        painter.setBrush(color(_RAISED))
        painter.drawRects([b.adjusted(width, width, -width, -width) for b in boxes])

    def _header(
        self, painter: QPainter, state: Any, lay: _Layout, flags: frozenset[int], lost: bool, won: bool
    ) -> None:
        cell = lay.cell
        header = lay.header
        self._bevel(painter, header, cell * 0.08, _WINDOW, raised=False)
        height = header.height() * 0.66
        width = height * 1.75
        top = header.center().y() - height / 2
        left_box = QRectF(header.left() + cell * 0.35, top, width, height)
        right_box = QRectF(header.right() - cell * 0.35 - width, top, width, height)
        digits = mono_font(height * 0.78)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        left = int(state.mine_count) - len(flags) if not won else 0
        for box, value in ((left_box, left), (right_box, int(getattr(state, "moves", 0)))):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color(_LCD))
            painter.drawRect(box)
            text = f"{value:03d}" if value >= 0 else f"-{-value:02d}"
            draw_text_centered(painter, text[-3:], digits, box.center(), color(_LCD_TEXT))
        face = QRectF(0, 0, height * 1.08, height * 1.08)
        face.moveCenter(header.center())
        self._bevel(painter, face, cell * 0.08, _WINDOW, raised=True)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        _face(
            painter,
            face.adjusted(
                face.width() * 0.14, face.width() * 0.14, -face.width() * 0.14, -face.width() * 0.14
            ),
            lost,
            won,
        )
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    @staticmethod
    def _labels(painter: QPainter, lay: _Layout, rows: int, cols: int) -> None:
        cell = lay.cell
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        f = font(cell * (0.5 if cols < 10 else 0.42), bold=True)
        ink = color(THEME.ink)
        y = lay.grid.top() - (_BEVEL + _LABEL_H / 2) * cell
        for c in range(cols):
            draw_text_centered(painter, str(c + 1), f, QPointF(lay.grid.left() + (c + 0.5) * cell, y), ink)
        x = lay.grid.left() - (_BEVEL + _LABEL_W / 2) * cell
        for r in range(rows):
            draw_text_centered(painter, _LETTERS[r], f, QPointF(x, lay.grid.top() + (r + 0.5) * cell), ink)

    # -- people and models ------------------------------------------------------------------------

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The cell ``"B3"`` under pixel (``x``, ``y``), whatever it shows; ``None`` off the grid."""
        rows, cols = int(state.rows), int(state.cols)
        lay = _layout(rows, cols, QRectF(0, 0, width, height))
        grid = lay.grid
        if not (grid.left() <= x < grid.right() and grid.top() <= y < grid.bottom()):
            return None
        col = min(cols - 1, int((x - grid.left()) // lay.cell))
        row = min(rows - 1, int((y - grid.top()) // lay.cell))
        return f"{_LETTERS[row]}{col + 1}"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell ``"B3"`` (or ``"flag B3"``, ``"(B,3)"``) is drawn: the inverse of
        :meth:`hit_test`."""
        parsed = parse_cell(item)
        rows, cols = int(state.rows), int(state.cols)
        if parsed is None or not (0 <= parsed[0] < rows and 0 <= parsed[1] < cols):
            return None
        lay = _layout(rows, cols, QRectF(0, 0, width, height))
        return QRectF(
            lay.grid.left() + parsed[1] * lay.cell, lay.grid.top() + parsed[0] * lay.cell, lay.cell, lay.cell
        )


def _bomb(painter: QPainter, box: QRectF) -> None:
    """A round black mine with eight spikes and a white glint."""
    size = box.width()
    center = box.center()
    radius = size * 0.24
    painter.setPen(
        QPen(color("#111111"), max(1.0, size * 0.07), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    )
    for k in range(8):
        angle = k * math.pi / 4
        reach = radius * (1.5 if k % 2 == 0 else 1.3)
        painter.drawLine(
            QLineF(
                center, QPointF(center.x() + reach * math.cos(angle), center.y() + reach * math.sin(angle))
            )
        )
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color("#111111"))
    painter.drawEllipse(center, radius, radius)
    painter.setBrush(color("#FFFFFF"))
    glint = radius * 0.32
    painter.drawEllipse(QPointF(center.x() - radius * 0.38, center.y() - radius * 0.38), glint, glint)


def _flag(painter: QPainter, box: QRectF) -> None:
    """A red pennant on a black pole with a stepped base."""
    s = box.width()
    x0, y0 = box.left(), box.top()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color("#111111"))
    painter.drawRect(QRectF(x0 + s * 0.52, y0 + s * 0.2, s * 0.07, s * 0.52))
    painter.drawRect(QRectF(x0 + s * 0.36, y0 + s * 0.68, s * 0.38, s * 0.07))
    painter.drawRect(QRectF(x0 + s * 0.27, y0 + s * 0.74, s * 0.56, s * 0.08))
    painter.setBrush(color("#E53935"))
    painter.drawPolygon(QPolygonF([
        QPointF(x0 + s * 0.59, y0 + s * 0.17),
        QPointF(x0 + s * 0.59, y0 + s * 0.5),
        QPointF(x0 + s * 0.24, y0 + s * 0.335),
    ]))  # fmt: skip


def _cross(painter: QPainter, box: QRectF) -> None:
    """A red cross over a flag that marked no mine."""
    inset = box.width() * 0.18
    inner = box.adjusted(inset, inset, -inset, -inset)
    painter.setPen(
        QPen(color("#C62828"), max(1.5, box.width() * 0.08), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    )
    painter.drawLine(QLineF(inner.topLeft(), inner.bottomRight()))
    painter.drawLine(QLineF(inner.topRight(), inner.bottomLeft()))


def _face(painter: QPainter, box: QRectF, lost: bool, won: bool) -> None:
    """The status face: smiling while playing, sunglasses after a win, crossed eyes after a loss."""
    s = box.width()
    c = box.center()
    ink = color("#111111")
    painter.setPen(QPen(ink, max(1.0, s * 0.05)))
    painter.setBrush(color("#FFD93B"))
    painter.drawEllipse(box)
    eye_y = c.y() - s * 0.1
    eyes = (c.x() - s * 0.17, c.x() + s * 0.17)
    if lost:
        painter.setPen(QPen(ink, max(1.0, s * 0.05)))
        d = s * 0.07
        for x in eyes:
            painter.drawLine(QLineF(x - d, eye_y - d, x + d, eye_y + d))
            painter.drawLine(QLineF(x - d, eye_y + d, x + d, eye_y - d))
    elif won:
        painter.setPen(QPen(ink, max(1.0, s * 0.04)))
        painter.setBrush(ink)
        for x in eyes:
            painter.drawRoundedRect(
                QRectF(x - s * 0.12, eye_y - s * 0.07, s * 0.24, s * 0.14), s * 0.04, s * 0.04
            )
        painter.drawLine(QLineF(eyes[0], eye_y - s * 0.03, eyes[1], eye_y - s * 0.03))
    else:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        for x in eyes:
            painter.drawEllipse(QPointF(x, eye_y), s * 0.055, s * 0.055)
    painter.setPen(QPen(ink, max(1.0, s * 0.05), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    mouth = QRectF(c.x() - s * 0.2, c.y() - s * 0.02, s * 0.4, s * 0.26)
    if lost:
        painter.drawArc(mouth.translated(0, s * 0.14), 30 * 16, 120 * 16)
    else:
        painter.drawArc(mouth.translated(0, -s * 0.06), 200 * 16, 140 * 16)


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Minesweeper picture (``minesweeper-sample.png`` by default) to the current folder."""
    parser = sample_parser(MinesweeperRenderer, main.__doc__, highlight="cells to mark, e.g. C4")
    parser.add_argument("--seed", type=int, default=2, help="the game's seed (the mine layout)")
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["A1", "A3", "flag A6", "flag B3"],
        help="actions such as A1 or 'flag B2'",
    )
    args = parser.parse_args(argv)
    return write_sample(MinesweeperRenderer(), played_state("minesweeper", args.moves, args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
