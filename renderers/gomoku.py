"""The Gomoku renderer: a wooden 15x15 board with star points, shaded stones and coordinates on every image.

Reads only ``state.cells`` (225 entries ``"B"``/``"W"``/``""`` in reading order: row 1 first, columns A
to O), ``state.last_action`` (``"H8"`` or ``None``) and, when the state has it, ``state.winning_line()``
(the cell indices of a completed five). Column letters A-O are written above and below the board and
row numbers 1-15 on both sides on every image, whatever ``grid_labels`` says: LVLM-Playground's models
read the coordinates off the picture, and on a 15x15 board the far side's labels save counting.
Highlights are intersections such as ``"H8"`` (``"(H,8)"`` is accepted too); :meth:`hit_test` maps a
click to the nearest intersection and :meth:`cell_rect` is its inverse.

The wood, grid, star points and labels do not depend on the stones, so they are drawn once per size
and reused; stones are cached sprites. A full board draws in a few milliseconds.

Run ``python -m renderers.gomoku`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
)

from renderers.base import (
    THEME,
    GridGeometry,
    Renderer,
    SpriteCache,
    color,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
    shaded_disc,
    sprite_canvas,
    unique_items,
    write_sample,
)

__all__ = ["GomokuRenderer", "parse_point"]

_SIZE = 15
_COLUMNS = "ABCDEFGHIJKLMNO"
_POINT_RE = re.compile(r"^\s*\(?\s*([A-Oa-o])\s*[,\s]?\s*(1[0-5]|[1-9])\s*\)?\s*$")
#: The five star points of a 15x15 board: D4, L4, H8, D12, L12 (zero-based row, column).
_STARS = ((3, 3), (3, 11), (7, 7), (11, 3), (11, 11))

_WOOD_LIGHT = "#E8C07D"
_WOOD_DARK = "#D6A45C"
_WOOD_EDGE = "#8C5A24"
_GRAIN = "#9A6326"
_LINE = "#3A2612"
_LAST_MOVE = "#E5484D"
_WIN_LINE = "#E5484D"

# Proportions of the spacing between two lines.
_STONE_RADIUS = 0.46
_LINE_WIDTH = 0.035
_STAR_RADIUS = 0.12
_SHADOW_OFFSET = QPointF(0.04, 0.06)


def parse_point(item: str) -> tuple[int, int] | None:
    """``"H8"`` or ``"(H,8)"`` (case and spaces forgiven) to ``(row, col)`` zero-based; ``None`` otherwise."""
    match = _POINT_RE.match(str(item))
    if not match:
        return None
    return int(match.group(2)) - 1, _COLUMNS.index(match.group(1).upper())


class GomokuRenderer(Renderer):
    """Draws Gomoku positions: Black (seat 0) and White (seat 1) stones on a wooden board."""

    game_id = "gomoku"
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
        """Draw the board and coordinates (cached), the stones, the winning line, highlights and the
        last-move dot."""
        grid = GridGeometry.of(rect, _SIZE)
        cell, center = grid.cell, grid.center
        cells: Sequence[str] = state.cells

        painter.save()
        board = _board_image(rect.width(), rect.height())
        painter.drawImage(QPointF(rect.left(), rect.top()), board)

        for index, stone in enumerate(cells[: _SIZE * _SIZE]):
            if stone in ("B", "W"):
                sprite = _stone_sprite(stone, round(cell * 4) / 4)
                at = center(index // _SIZE, index % _SIZE)
                half = sprite.width() / 2
                painter.drawImage(QPointF(round(at.x() - half), round(at.y() - half)), sprite)

        line = _winning_line(state)
        if line:
            first, final = line[0], line[-1]
            pen = QPen(color(_WIN_LINE, 210), max(2.0, cell * 0.14))
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawLine(center(*divmod(first, _SIZE)), center(*divmod(final, _SIZE)))

        # Highlights go over the stones, so a marked point shows whether it is empty or not.
        for r, c in unique_items(highlight, parse_point):
            occupied = cells[r * _SIZE + c] in ("B", "W")
            painter.setPen(QPen(color(THEME.highlight), max(1.5, cell * 0.09)))
            painter.setBrush(Qt.BrushStyle.NoBrush if occupied else QBrush(color("#FDE68A", 170)))
            radius = cell * (0.44 if occupied else 0.36)
            painter.drawEllipse(center(r, c), radius, radius)

        last = parse_point(getattr(state, "last_action", None) or "")
        if last is not None and cells[last[0] * _SIZE + last[1]] in ("B", "W"):
            painter.setPen(QPen(color("#FFFFFF", 220), max(1.0, cell * 0.03)))
            painter.setBrush(color(_LAST_MOVE))
            radius = cell * 0.13
            painter.drawEllipse(center(*last), radius, radius)
        painter.restore()

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The intersection ``"H8"`` nearest pixel (``x``, ``y``), whatever is on it; ``None`` off the
        board."""
        spot = GridGeometry.sized(width, height, _SIZE).cell_at(x, y)
        return None if spot is None else f"{_COLUMNS[spot[1]]}{spot[0] + 1}"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """The square around the intersection ``item`` (``"H8"`` or ``"(H,8)"``); ``None`` for anything
        else."""
        parsed = parse_point(item)
        if parsed is None:
            return None
        return GridGeometry.sized(width, height, _SIZE).cell_rect(*parsed)


def _winning_line(state: Any) -> tuple[int, ...] | None:
    finder = getattr(state, "winning_line", None)
    line = finder() if callable(finder) else None
    return tuple(line) if line else None


def _board_image(width: float, height: float) -> QImage:
    """The wood, grid, star points and coordinates for a ``width`` x ``height`` drawing (transparent
    around the board); cached per size, since they never change with the position."""
    key = (round(width, 2), round(height, 2))
    cached = _BOARDS.get(key)
    if cached is not None:
        return cached
    size = (max(1, round(width)), max(1, round(height)))
    image = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    _draw_board(painter, QRectF(0, 0, width, height))
    painter.end()
    if len(_BOARDS) >= 16:
        _BOARDS.clear()  # a crude bound: a window resized many times leaves old sizes behind
    _BOARDS[key] = image
    return image


def _draw_board(painter: QPainter, rect: QRectF) -> None:
    grid = GridGeometry.of(rect, _SIZE)
    area, cell, band = grid.area, grid.cell, grid.band
    frame = cell * 0.12

    # A soft shadow under the board, then the wood with its darker edge.
    outer = area.adjusted(-frame, -frame, frame, frame)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(0, 0, 0, 40))
    painter.drawRoundedRect(outer.translated(cell * 0.06, cell * 0.1), frame * 1.5, frame * 1.5)
    painter.setBrush(color(_WOOD_EDGE))
    painter.drawRoundedRect(outer, frame * 1.5, frame * 1.5)
    wood = QLinearGradient(area.topLeft(), area.bottomRight())
    wood.setColorAt(0.0, color(_WOOD_LIGHT))
    wood.setColorAt(1.0, color(_WOOD_DARK))
    painter.setBrush(QBrush(wood))
    painter.drawRect(area)

    # Grain: gently waving strands across the board, from a fixed seed so every image is the same.
    grain = random.Random(15)
    painter.save()
    painter.setClipRect(area)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for _ in range(34):
        y = area.top() + grain.random() * area.height()
        amp = cell * (0.15 + grain.random() * 0.5)
        path = QPainterPath(QPointF(area.left() - cell, y))
        steps = 4
        for k in range(steps):
            x0 = area.left() - cell + (area.width() + 2 * cell) * k / steps
            x1 = area.left() - cell + (area.width() + 2 * cell) * (k + 1) / steps
            sign = 1 if k % 2 == 0 else -1
            path.cubicTo(
                QPointF(x0 + (x1 - x0) / 3, y + sign * amp),
                QPointF(x0 + 2 * (x1 - x0) / 3, y + sign * amp),
                QPointF(x1, y + grain.uniform(-0.2, 0.2) * cell),
            )
        strand = color(_GRAIN, 18 + grain.randrange(22))
        painter.setPen(QPen(strand, max(0.6, cell * (0.03 + grain.random() * 0.08))))
        painter.drawPath(path)
    painter.restore()

    # The grid: 15 lines each way through the intersections, the border a little heavier.
    first, last = area.left() + cell / 2, area.left() + (_SIZE - 0.5) * cell
    top, bottom = area.top() + cell / 2, area.top() + (_SIZE - 0.5) * cell
    painter.setPen(QPen(color(_LINE), max(1.0, cell * _LINE_WIDTH)))
    for i in range(_SIZE):
        x = area.left() + (i + 0.5) * cell
        y = area.top() + (i + 0.5) * cell
        painter.drawLine(QPointF(x, top), QPointF(x, bottom))
        painter.drawLine(QPointF(first, y), QPointF(last, y))
    painter.setPen(QPen(color(_LINE), max(1.5, cell * _LINE_WIDTH * 2)))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(QRectF(QPointF(first, top), QPointF(last, bottom)))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color(_LINE))
    for r, c in _STARS:
        painter.drawEllipse(QPointF(area.left() + (c + 0.5) * cell, area.top() + (r + 0.5) * cell),
                            max(1.5, cell * _STAR_RADIUS), max(1.5, cell * _STAR_RADIUS))

    # Coordinates on all four sides, in the margin outside the wood.
    labels = font(min(band * 0.42, cell * 0.62), bold=True)
    ink = color(THEME.ink_muted)
    gap = (band - frame) / 2 + frame
    for c in range(_SIZE):
        x = area.left() + (c + 0.5) * cell
        draw_text_centered(painter, _COLUMNS[c], labels, QPointF(x, area.top() - gap), ink)
        draw_text_centered(painter, _COLUMNS[c], labels, QPointF(x, area.bottom() + gap), ink)
    for r in range(_SIZE):
        y = area.top() + (r + 0.5) * cell
        draw_text_centered(painter, str(r + 1), labels, QPointF(area.left() - gap, y), ink)
        draw_text_centered(painter, str(r + 1), labels, QPointF(area.right() + gap, y), ink)


def _stone_sprite(stone: str, size: float) -> QImage:
    """A ``stone`` (``"B"``/``"W"``) for a line spacing of ``size`` pixels, with its shadow, on a
    transparent square centred on the intersection; cached per size."""
    key = (stone, size)
    sprite = _SPRITES.get(key)
    if sprite is not None:
        return sprite
    side = int(size) + 4
    sprite, painter = sprite_canvas(side)
    if stone == "B":
        stops, rim = [(0.0, "#6A6D72"), (0.4, "#2A2C2F"), (1.0, "#060708")], QColor(0, 0, 0, 220)
    else:
        stops, rim = [(0.0, "#FFFFFF"), (0.55, "#F2F1EC"), (1.0, "#C3C1BA")], QColor("#85827A")
    shaded_disc(
        painter,
        QPointF(side / 2, side / 2),
        size * _STONE_RADIUS,
        stops,
        rim,
        max(0.8, size * 0.025),
        shadow=_SHADOW_OFFSET * size,
        shadow_alpha=60,
        spread=1.5,
    )
    painter.end()
    return _SPRITES.keep(key, sprite)


#: Stone sprites by (stone, line spacing in quarter pixels); boards by drawing size.
_SPRITES = SpriteCache(64)
_BOARDS: dict[tuple[float, float], QImage] = {}


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Gomoku picture (``gomoku-sample.png`` by default) to the current folder."""
    parser = sample_parser(
        GomokuRenderer,
        main.__doc__,
        highlight="intersections to mark, e.g. H10",
        grid_labels="(coordinates are always drawn)",
    )
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["H8", "I9", "I8", "G8", "J8", "K8", "H9", "G10", "H7", "H6"],
        help="moves to play from the start, e.g. H8 I9",
    )
    args = parser.parse_args(argv)
    return write_sample(GomokuRenderer(), played_state("gomoku", args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
