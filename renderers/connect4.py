"""The Connect Four renderer: a blue frame with round holes, red (X) and yellow (O) discs, the rows
numbered from the bottom (row 0) and the columns from the left, the winning four joined by a line.

Reads only ``state.cells`` (42 ``"X"``/``"O"``/``""`` entries, row-major from the bottom row:
index = 7 * row + col), ``state.winning_line()`` and ``state.last_action``. Highlights are cells such
as ``"(0,3)"``. A click anywhere in a column means the cell a disc dropped there lands in
(:meth:`ConnectFourRenderer.hit_test`), as on a real board.

Run ``python -m renderers.connect4`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPen, QTransform

from renderers.base import (
    MARGIN,
    THEME,
    Renderer,
    SpriteCache,
    board_rect,
    centered_square,
    color,
    draw_text_centered,
    font,
    sample_parser,
    unique_items,
    write_sample,
)

__all__ = ["ConnectFourRenderer", "parse_cell"]

ROWS = 6
COLS = 7
_CELL_RE = re.compile(r"^\s*\(\s*(\d)\s*,\s*(\d)\s*\)\s*$")
_MARKS = ("X", "O")

FRAME = "#1D4ED8"  # the board's blue
FRAME_EDGE = "#1E3A8A"  # its darker rim and the holes' inner shadow
DISC = {"X": ("#DC2626", "#991B1B"), "O": ("#FACC15", "#B45309")}  # fill, rim

# Proportions of a cell.
_HOLE = 0.78  # hole diameter
_RIM = 0.06  # a disc's darker rim
_RING = 0.62  # the inner ring that gives a disc some depth


def parse_cell(action: str) -> tuple[int, int] | None:
    """``"(r,c)"`` (spaces forgiven) to ``(r, c)`` on the 6x7 board; ``None`` for anything else."""
    match = _CELL_RE.match(str(action))
    if not match:
        return None
    r, c = int(match.group(1)), int(match.group(2))
    return (r, c) if r < ROWS and c < COLS else None


class _Layout:
    """Where everything goes in a rectangle: the frame (7 x 6 cells) centred in the board square."""

    def __init__(self, rect: QRectF) -> None:
        area = board_rect(rect)
        self.cell = area.width() / COLS
        self.square = centered_square(rect)
        self.band = area.width() / (1 - 2 * MARGIN) * MARGIN
        top = area.top() + (area.height() - ROWS * self.cell) / 2
        self.frame = QRectF(area.left(), top, area.width(), ROWS * self.cell)

    def cell_rect(self, r: int, c: int) -> QRectF:
        """The square of cell (r, c); row 0 is the bottom row."""
        x = self.frame.left() + c * self.cell
        y = self.frame.top() + (ROWS - 1 - r) * self.cell
        return QRectF(x, y, self.cell, self.cell)

    def hole(self, r: int, c: int) -> QRectF:
        box = self.cell_rect(r, c)
        d = self.cell * _HOLE
        return QRectF(box.center().x() - d / 2, box.center().y() - d / 2, d, d)


class ConnectFourRenderer(Renderer):
    """Draws Connect Four positions; X (seat 0) plays red discs, O (seat 1) yellow ones.

    What never changes at a size is drawn once per size: pictures of the whole board (frame and
    numbers included) with every hole empty (with and without the holes' labels), every hole holding
    a red disc and every hole holding a yellow one. A frame is the empty board with each occupied
    cell's square copied from the board of its colour (a hole, its disc and its label stay inside
    their cell, so the copy is what drawing there makes); what depends on the moment (the last-move
    dot, highlights, the winning line) is drawn on top. Through a scaling or rotating painter, or at
    a fractional position, the board is drawn shape by shape instead.
    """

    game_id = "connect4"
    aspect = 1.0
    #: Whether to compose frames from the boards drawn once per size (``False``: draw every shape).
    layered: bool = True

    def __init__(self) -> None:
        super().__init__()
        self._layers = SpriteCache(limit=16)  # (width, height, fill, labels) -> board picture

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw the frame, holes, discs, the last-move marker, highlights, the winning line and the
        row and column numbers (always: row 0 at the bottom is not what people expect). With
        ``grid_labels`` every empty hole also shows its ``(r,c)``."""
        lay = _Layout(rect)
        cell = lay.cell
        cells: Sequence[str] = state.cells
        painter.save()

        if self.layered and self._composable(painter, rect):
            self._compose(painter, rect, cells, grid_labels)
        else:
            self._board(painter, lay, lambda r, c: cells[r * COLS + c] if r * COLS + c < len(cells) else "")
            self._numbers(painter, lay)
            if grid_labels:
                self._labels(
                    painter, lay, lambda r, c: cells[r * COLS + c] if r * COLS + c < len(cells) else ""
                )

        last = parse_cell(getattr(state, "last_action", None) or "")
        if last is not None and cells[last[0] * COLS + last[1]] in DISC:
            # A small dot in the middle of the last disc (pale on red, dark on yellow): easy to find,
            # quieter than a highlight.
            centre = lay.hole(*last).center()
            mark = cells[last[0] * COLS + last[1]]
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color("#FFFFFF", 210) if mark == "X" else color(DISC["O"][1], 230))
            painter.drawEllipse(centre, cell * 0.09, cell * 0.09)

        for r, c in unique_items(highlight, parse_cell):
            hole = lay.hole(r, c)
            grow = cell * 0.05
            painter.setPen(QPen(color(THEME.highlight, 240), max(1.5, cell * 0.07)))
            painter.setBrush(color(THEME.highlight, 60))
            painter.drawEllipse(hole.adjusted(-grow, -grow, grow, grow))

        line = state.winning_line()
        if line:
            first = lay.hole(line[0] // COLS, line[0] % COLS).center()
            end = lay.hole(line[-1] // COLS, line[-1] % COLS).center()
            for width, ink in ((0.16, color("#FFFFFF", 230)), (0.08, color(THEME.ink))):
                pen = QPen(ink, cell * width)
                pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                painter.setPen(pen)
                painter.drawLine(QLineF(first, end))

        painter.restore()

    def _board(self, painter: QPainter, lay: _Layout, mark_at: Callable[[int, int], str]) -> None:
        """The frame with its holes, each empty or holding the disc ``mark_at(r, c)`` names."""
        cell = lay.cell
        # The frame: one rounded blue card, with the holes drawn on top in the canvas colour.
        painter.setPen(QPen(color(FRAME_EDGE), max(1.0, cell * 0.04)))
        painter.setBrush(color(FRAME))
        pad = cell * 0.08
        radius = cell * 0.22
        painter.drawRoundedRect(lay.frame.adjusted(-pad, -pad, pad, pad), radius, radius)
        hole_pen = QPen(color(FRAME_EDGE), max(1.0, cell * 0.035))
        for r in range(ROWS):
            for c in range(COLS):
                mark = mark_at(r, c)
                hole = lay.hole(r, c)
                if mark in DISC:
                    self._disc(painter, hole, mark, cell)
                else:
                    painter.setPen(hole_pen)
                    painter.setBrush(color(THEME.background))
                    painter.drawEllipse(hole)

    @staticmethod
    def _labels(painter: QPainter, lay: _Layout, mark_at: Callable[[int, int], str]) -> None:
        """Each empty hole's ``(r,c)``."""
        label_font = font(lay.cell * 0.17)
        ink = color(THEME.ink_muted, 200)
        for r in range(ROWS):
            for c in range(COLS):
                if mark_at(r, c) not in DISC:
                    draw_text_centered(painter, f"({r},{c})", label_font, lay.hole(r, c).center(), ink)

    @staticmethod
    def _composable(painter: QPainter, rect: QRectF) -> bool:
        """Whether pictures drawn once land pixel for pixel: an unscaled painter at whole pixels."""
        transform = painter.transform()
        device = painter.device()
        return (
            transform.type().value <= QTransform.TransformationType.TxTranslate.value
            and float(transform.dx()).is_integer()
            and float(transform.dy()).is_integer()
            and float(rect.x()).is_integer()
            and float(rect.y()).is_integer()
            and float(rect.width()).is_integer()
            and float(rect.height()).is_integer()
            and (device is None or device.devicePixelRatioF() == 1.0)
        )

    def _layer(self, width: int, height: int, fill: str, labels: bool = False) -> QImage:
        """The whole board at ``width`` x ``height`` with every hole ``fill`` (``""``, X or O), empty
        holes with their ``(r,c)`` when ``labels``."""
        key = (width, height, fill, labels)
        layer = self._layers.get(key)
        if layer is None:
            layer = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
            layer.fill(Qt.GlobalColor.transparent)
            painter = QPainter(layer)
            painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
            lay = _Layout(QRectF(0, 0, width, height))
            self._board(painter, lay, lambda r, c: fill)
            if not fill:
                self._numbers(painter, lay)
            if labels:
                self._labels(painter, lay, lambda r, c: fill)
            painter.end()
            layer = self._layers.keep(key, layer)
        return layer

    def _compose(self, painter: QPainter, rect: QRectF, cells: Sequence[str], labels: bool) -> None:
        """The board from the pictures drawn once: the empty board (with the holes' labels when
        ``labels``), then each disc's cell square."""
        width, height = int(rect.width()), int(rect.height())
        left, top = int(rect.x()), int(rect.y())
        painter.drawImage(left, top, self._layer(width, height, "", labels))
        local = _Layout(QRectF(0, 0, width, height))
        for index, mark in enumerate(cells[: ROWS * COLS]):
            if mark not in DISC:
                continue
            box = local.cell_rect(index // COLS, index % COLS)
            x0, y0, x1, y1 = round(box.left()), round(box.top()), round(box.right()), round(box.bottom())
            source = QRect(x0, y0, x1 - x0, y1 - y0)
            painter.drawImage(
                QRect(left + x0, top + y0, x1 - x0, y1 - y0), self._layer(width, height, mark), source
            )

    @staticmethod
    def _disc(painter: QPainter, hole: QRectF, mark: str, cell: float) -> None:
        fill, rim = DISC[mark]
        painter.setPen(QPen(color(rim), max(1.0, cell * _RIM)))
        painter.setBrush(color(fill))
        painter.drawEllipse(hole)
        inner = hole.width() * (1 - _RING) / 2
        painter.setPen(QPen(color(rim, 120), max(1.0, cell * 0.025)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawEllipse(hole.adjusted(inner, inner, -inner, -inner))

    @staticmethod
    def _numbers(painter: QPainter, lay: _Layout) -> None:
        """Column numbers above the frame, row numbers (0 at the bottom) left of it."""
        f = font(min(lay.band, lay.cell) * 0.5)
        ink = color(THEME.ink_muted)
        above = lay.frame.top() - lay.cell * 0.08 - lay.band / 2
        for c in range(COLS):
            draw_text_centered(painter, str(c), f, QPointF(lay.cell_rect(0, c).center().x(), above), ink)
        left = lay.frame.left() - lay.cell * 0.08 - lay.band / 2
        for r in range(ROWS):
            draw_text_centered(painter, str(r), f, QPointF(left, lay.cell_rect(r, 0).center().y()), ink)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The cell a disc dropped in the column under pixel (``x``, ``y``) lands in (the top cell when
        the column is full); ``None`` outside the columns."""
        lay = _Layout(QRectF(0, 0, width, height))
        square = lay.square
        if not (lay.frame.left() <= x < lay.frame.right() and square.top() <= y < square.bottom()):
            return None
        col = min(COLS - 1, int((x - lay.frame.left()) // lay.cell))
        cells: Sequence[str] = state.cells
        for r in range(ROWS):
            if not cells[r * COLS + col]:
                return f"({r},{col})"
        return f"({ROWS - 1},{col})"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """The square of the hole ``item`` names (``"(r,c)"``, row 0 at the bottom), or ``None``."""
        cell = parse_cell(item)
        if cell is None:
            return None
        return _Layout(QRectF(0, 0, width, height)).cell_rect(*cell)


def _played_state(columns: Sequence[int]) -> Any:
    """A real game after dropping discs into ``columns`` from the start."""
    import engine

    state = engine.make("connect4").initial_state(seed=0)
    for col in columns:
        # The legal moves are the playable holes "(r,c)", one per column that is not full.
        cells = [a for a in state.legal_actions() if (parse_cell(a) or (-1, -1))[1] == col]
        if not cells:
            raise SystemExit(f"column {col} is full or out of the board")
        state = state.apply(cells[0])
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Connect Four picture (``connect4-sample.png`` by default) to the current folder."""
    parser = sample_parser(ConnectFourRenderer, main.__doc__, highlight='cells to mark, e.g. "(0,1)"')
    parser.add_argument(
        "--columns",
        nargs="*",
        type=int,
        default=[3, 3, 2, 4, 1, 2, 0],
        help="columns to drop discs into from the start, e.g. 3 3 2",
    )
    args = parser.parse_args(argv)
    return write_sample(ConnectFourRenderer(), _played_state(args.columns), args)


if __name__ == "__main__":
    sys.exit(main())
