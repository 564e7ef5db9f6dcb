"""The 2048 renderer: the classic rounded tiles on a board, numbers sized to fit any value.

Reads only ``state.board`` (rows of tile values, 0 = empty) and ``state.spawned`` (the cell of the
tile the last move added). Highlights are directions (``"up"`` ...) drawn as arrows; 2048 is played
with the keyboard, so :meth:`hit_test` always answers ``None``.

Run ``python -m renderers.g2048`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QPolygonF, QTransform

from renderers.base import (
    THEME,
    Renderer,
    board_rect,
    color,
    draw_grid_labels,
    draw_text_centered,
    font,
    sample_parser,
    text_path,
    write_sample,
)

__all__ = ["BOARD_COLOR", "EMPTY_COLOR", "G2048Renderer", "tile_colors"]

BOARD_COLOR = "#BBADA0"
EMPTY_COLOR = "#CDC1B4"
_DARK_TEXT = "#3E3730"
_LIGHT_TEXT = "#FFFFFF"

# The classic palette, adjusted for legibility (people and vision models read these numbers): the
# oranges are deeper so white digits keep their contrast, and the golds carry dark digits, because white
# on the classic golds falls below 2:1.
_TILES: dict[int, tuple[str, str]] = {
    2: ("#EEE4DA", _DARK_TEXT),
    4: ("#EDE0C8", _DARK_TEXT),
    8: ("#E3934F", _LIGHT_TEXT),
    16: ("#DE7639", _LIGHT_TEXT),
    32: ("#D95F35", _LIGHT_TEXT),
    64: ("#C8421F", _LIGHT_TEXT),
    128: ("#EDCF72", _DARK_TEXT),
    256: ("#EDCC61", _DARK_TEXT),
    512: ("#EDC850", _DARK_TEXT),
    1024: ("#EDC53F", _DARK_TEXT),
    2048: ("#EDC22E", _DARK_TEXT),
}
_SUPER_TILE = ("#3C3A32", _LIGHT_TEXT)

_DIRECTIONS: dict[str, tuple[float, float]] = {
    "up": (0.0, -1.0),
    "down": (0.0, 1.0),
    "left": (-1.0, 0.0),
    "right": (1.0, 0.0),
}

# Proportions of the classic game (a 500 px board with 15 px gaps and 106 px tiles).
_GAP = 0.03
_TILE_RADIUS = 0.06
_TEXT_WIDTH = 0.80  # widest share of a tile a number may take
_TEXT_HEIGHT = 0.42  # tallest share of a tile a number may take (1- and 2-digit values)


def tile_colors(value: int) -> tuple[str, str]:
    """Background and text colour (``#RRGGBB``) of a tile; values above 2048 share one dark colour."""
    if value <= 0:
        return EMPTY_COLOR, _DARK_TEXT
    return _TILES.get(value, _SUPER_TILE)


#: Tiles are copied from cached images only when the gap between them is at least this many pixels,
#: so a tile's image (its cell plus a pixel of board around it) never reaches a neighbour.
_MIN_CACHED_GAP = 2.5
#: How many cached tiles to keep: every value at every sub-pixel position of two sizes (the window's
#: board and the model's image), a few tens of MB at most; boards and rings are fewer and larger.
_TILE_CACHE = 512
_BOARD_CACHE = 8
_RING_CACHE = 64
#: How far the spawned-tile ring reaches beyond its cell, in gaps (its offset plus half its pen).
_RING_REACH = 0.42 + 0.36 / 2
_ALPHA = QImage.Format.Format_ARGB32_Premultiplied


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    """Where the board and its cells go in a drawing."""

    area: QRectF
    rows: int
    cols: int
    gap: float
    tile_w: float
    tile_h: float
    radius: float

    @classmethod
    def of(cls, area: QRectF, rows: int, cols: int) -> _Layout:
        side = area.width()
        gap = side * _GAP
        tile_w = (side - gap * (cols + 1)) / cols
        tile_h = (side - gap * (rows + 1)) / rows
        return cls(area, rows, cols, gap, tile_w, tile_h, min(tile_w, tile_h) * _TILE_RADIUS)

    def tile_rect(self, r: int, c: int) -> QRectF:
        left = self.area.left() + self.gap + c * (self.tile_w + self.gap)
        top = self.area.top() + self.gap + r * (self.tile_h + self.gap)
        return QRectF(left, top, self.tile_w, self.tile_h)


def _frac(rect: QRectF) -> tuple[float, float]:
    """The sub-pixel offset of ``rect``'s top-left corner (what a cached image must reproduce)."""
    return rect.left() - math.floor(rect.left()), rect.top() - math.floor(rect.top())


def _blits_exactly(painter: QPainter) -> bool:
    """Whether an image drawn at whole coordinates lands on whole device pixels, unscaled."""
    t = painter.deviceTransform()
    if t.type().value > QTransform.TransformationType.TxTranslate.value:
        return False
    return float(t.dx()).is_integer() and float(t.dy()).is_integer()


def _new_layer(width: float, height: float, fmt: QImage.Format) -> tuple[QImage, QPainter]:
    image = QImage(math.ceil(width), math.ceil(height), fmt)
    image.fill(Qt.GlobalColor.transparent if fmt != QImage.Format.Format_RGB32 else color(BOARD_COLOR))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    return image, painter


@functools.lru_cache(maxsize=_BOARD_CACHE)
def _board_layer(rows: int, cols: int, side: float, fx: float, fy: float) -> QImage:
    """The board with its empty cells, on a transparent image whose (0, 0) is the board's whole-pixel
    corner; ``fx``, ``fy`` place the board within that pixel, as in the drawing it is copied into."""
    image, painter = _new_layer(fx + side, fy + side, _ALPHA)
    try:
        layout = _Layout.of(QRectF(fx, fy, side, side), rows, cols)
        _paint_board(painter, layout)
    finally:
        painter.end()
    return image


@functools.lru_cache(maxsize=_TILE_CACHE)
def _tile_layer(value: int, width: float, height: float, radius: float, fx: float, fy: float) -> QImage:
    """One tile with its number on the board's colour, with one pixel of board around the cell's
    whole-pixel bounds (copied opaque, it leaves exactly what drawing the tile on the board leaves)."""
    image, painter = _new_layer(fx + width + 2, fy + height + 2, QImage.Format.Format_RGB32)
    try:
        _paint_tile(painter, value, QRectF(fx + 1, fy + 1, width, height), radius)
    finally:
        painter.end()
    return image


def _paint_board(painter: QPainter, layout: _Layout, board: Sequence[Sequence[int]] | None = None) -> None:
    """The board's rounded rectangle and its empty cells (every cell when ``board`` is ``None``)."""
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color(BOARD_COLOR))
    painter.drawRoundedRect(layout.area, layout.radius * 1.2, layout.radius * 1.2)
    painter.setBrush(color(EMPTY_COLOR))
    for r in range(layout.rows):
        for c in range(layout.cols):
            if board is None or not board[r][c]:
                painter.drawRoundedRect(layout.tile_rect(r, c), layout.radius, layout.radius)


@functools.lru_cache(maxsize=_RING_CACHE)
def _ring_layer(width: float, height: float, radius: float, gap: float, x: float, y: float) -> QImage:
    """The spawned-tile ring of a ``width`` x ``height`` cell at (``x``, ``y``), on a transparent image."""
    margin = math.ceil(gap * _RING_REACH) + 1
    image, painter = _new_layer(x + width + margin + 1, y + height + margin + 1, _ALPHA)
    try:
        _paint_ring(painter, QRectF(x, y, width, height), radius, gap)
    finally:
        painter.end()
    return image


def _paint_ring(painter: QPainter, cell: QRectF, radius: float, gap: float) -> None:
    """A thin ring in the gap around a new tile: visible, but it never covers the number."""
    ring = cell.adjusted(-gap * 0.42, -gap * 0.42, gap * 0.42, gap * 0.42)
    painter.setPen(QPen(color(THEME.accent, 230), gap * 0.36))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(ring, radius + gap * 0.42, radius + gap * 0.42)


def _paint_tile(painter: QPainter, value: int, cell: QRectF, radius: float) -> None:
    """A tile of ``value`` (its background and its number) in ``cell``."""
    background, foreground = tile_colors(value)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color(background))
    painter.drawRoundedRect(cell, radius, radius)
    G2048Renderer._draw_value(painter, value, cell, color(foreground))


@functools.lru_cache(maxsize=256)
def _probe_size(text: str) -> tuple[float, float]:
    """Width and height of ``text``'s ink in the bold font at 100 px (numbers are scaled from it)."""
    bounds = text_path(text, font(100, bold=True)).boundingRect()
    return bounds.width(), bounds.height()


class G2048Renderer(Renderer):
    """Draws 2048 boards of any size (the game's ``size`` option) with the classic look."""

    game_id = "2048"
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
        """Draw the board, its tiles, the spawned-tile marker, direction arrows and labels.

        What does not change between states is drawn once and kept (see :func:`_board_layer` and
        :func:`_tile_layer`): the board with its empty cells per layout, and each tile per value and
        layout. A frame is then a few image copies, which leave the same pixels as drawing the shapes
        would. Painters that scale or rotate (a high-dpi widget) get the shapes drawn directly.
        """
        board: Sequence[Sequence[int]] = state.board
        rows = len(board)
        cols = len(board[0]) if rows else 0
        if rows == 0 or cols == 0:
            return
        layout = _Layout.of(board_rect(rect), rows, cols)

        painter.save()
        cached = _blits_exactly(painter) and layout.gap >= _MIN_CACHED_GAP
        if cached:
            self._paint_cached(painter, board, layout)
        else:
            _paint_board(painter, layout, board)
            for r, row in enumerate(board):
                for c, value in enumerate(row):
                    if value:
                        _paint_tile(painter, int(value), layout.tile_rect(r, c), layout.radius)

        spawned = getattr(state, "spawned", None)
        if spawned is not None:
            r, c = spawned
            if 0 <= r < rows and 0 <= c < cols:
                cell = layout.tile_rect(r, c)
                if cached:
                    margin = math.ceil(layout.gap * _RING_REACH) + 1
                    left, top = math.floor(cell.left()) - margin, math.floor(cell.top()) - margin
                    x, y = cell.left() - left, cell.top() - top
                    ring = _ring_layer(cell.width(), cell.height(), layout.radius, layout.gap, x, y)
                    painter.drawImage(left, top, ring)
                else:
                    _paint_ring(painter, cell, layout.radius, layout.gap)

        for action in dict.fromkeys(highlight):
            direction = _DIRECTIONS.get(str(action).strip().lower())
            if direction is not None:
                self._draw_arrow(painter, layout.area, direction)

        if grid_labels:
            draw_grid_labels(
                painter,
                layout.area,
                [layout.tile_rect(r, 0).center().y() for r in range(rows)],
                [layout.tile_rect(0, c).center().x() for c in range(cols)],
            )
        painter.restore()

    @staticmethod
    def _paint_cached(painter: QPainter, board: Sequence[Sequence[int]], layout: _Layout) -> None:
        area = layout.area
        left, top = math.floor(area.left()), math.floor(area.top())
        painter.drawImage(left, top, _board_layer(layout.rows, layout.cols, area.width(), *_frac(area)))
        for r, row in enumerate(board):
            for c, value in enumerate(row):
                if not value:
                    continue
                cell = layout.tile_rect(r, c)
                tile = _tile_layer(int(value), cell.width(), cell.height(), layout.radius, *_frac(cell))
                painter.drawImage(math.floor(cell.left()) - 1, math.floor(cell.top()) - 1, tile)

    @staticmethod
    def _draw_value(painter: QPainter, value: int, cell: QRectF, ink: QColor) -> None:
        text = str(value)
        width, height = _probe_size(text)
        # Scale the 100 px probe so the number fits both the tile's width and the height cap.
        size = 100 * min(
            cell.width() * _TEXT_WIDTH / max(width, 1e-6),
            cell.height() * _TEXT_HEIGHT / max(height, 1e-6),
        )
        draw_text_centered(painter, text, font(size, bold=True), cell.center(), ink)

    @staticmethod
    def _draw_arrow(painter: QPainter, area: QRectF, direction: tuple[float, float]) -> None:
        """A translucent arrow from the board's centre towards the edge the move pushes tiles to."""
        dx, dy = direction
        side = area.width()
        center = area.center()
        start = center + QPointF(dx, dy) * side * 0.06
        tip = center + QPointF(dx, dy) * side * 0.36
        shaft = side * 0.055
        head_len = side * 0.12
        head_half = side * 0.09
        px, py = -dy, dx  # perpendicular
        neck = tip - QPointF(dx, dy) * head_len
        polygon = QPolygonF(
            [
                start + QPointF(px, py) * shaft / 2,
                neck + QPointF(px, py) * shaft / 2,
                neck + QPointF(px, py) * head_half,
                tip,
                neck - QPointF(px, py) * head_half,
                neck - QPointF(px, py) * shaft / 2,
                start - QPointF(px, py) * shaft / 2,
            ]
        )
        path = QPainterPath()
        path.addPolygon(polygon)
        path.closeSubpath()
        painter.save()
        pen = QPen(color("#FFFFFF", 230), max(1.0, side * 0.008))
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(color(THEME.accent, 200))
        painter.drawPath(path)
        painter.restore()


def _showcase_state() -> Any:
    """A board holding every tile colour, for checking the palette by eye."""
    from types import SimpleNamespace

    board = ((2, 4, 8, 16), (32, 64, 128, 256), (512, 1024, 2048, 4096), (8192, 16384, 65536, 0))
    return SimpleNamespace(board=board, spawned=(3, 3), last_action=None)


def _played_state(seed: int, moves: int) -> Any:
    """A real game after ``moves`` moves that cycle through the legal directions."""
    import engine

    state = engine.make("2048").initial_state(seed=seed)
    order = ("left", "down", "right", "down")
    for i in range(moves):
        legal = state.legal_actions()
        if not legal:
            break
        preferred = [a for a in order[i % len(order) :] + order[: i % len(order)] if a in legal]
        state = state.apply(preferred[0] if preferred else legal[0])
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample 2048 picture (``2048-sample.png`` by default) to the current folder."""
    parser = sample_parser(G2048Renderer, main.__doc__, highlight="directions to draw as arrows")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--showcase", action="store_true", help="draw every tile colour instead of a game")
    args = parser.parse_args(argv)
    state = _showcase_state() if args.showcase else _played_state(args.seed, args.moves)
    return write_sample(G2048Renderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
