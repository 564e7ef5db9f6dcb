"""The Candy Crush renderer: PlayTrace's own candies on a checked board, each colour its own shape.

Colour is never the only cue: green candies are triangles, cyan ones round, purple ones stars, red
ones rounded squares, yellow ones diamonds and blue ones hexagons, so people who do not tell the
colours apart (and vision models that blur them) can still read the board. A header above the board
gives the candies cleared, the moves left and what the last move cleared.

Reads only ``state.board`` (colour letters row by row), ``state.score``, ``state.moves_left``,
``state.max_moves``, ``state.waves``, ``state.shuffled`` and ``state.last``. Highlights are cells
``"(row,col)"`` (a ring) and swaps ``"((r1,c1),(r2,c2))"`` (a ring round both cells and a double
arrow between them). :meth:`hit_test` answers the cell ``"(row,col)"`` under a click: a person clicks a
candy, then the neighbour to swap it with (the game's ``State.path_actions``).

Every candy is drawn once per size and kept (:class:`~renderers.base.SpriteCache`), and the board
with its checked cells once per size, so a frame is the header's text and 64 image copies.

Run ``python -m renderers.candycrush`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QPolygonF, QTransform

from renderers.base import (
    THEME,
    GridGeometry,
    Renderer,
    SpriteCache,
    board_rect,
    color,
    draw_grid_labels,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
    sprite_canvas,
    unique_items,
    write_sample,
)

__all__ = ["CANDIES", "CandyCrushRenderer", "parse_cell", "parse_swap_item"]

ROWS = COLS = 8
#: Each colour letter's fill, its dark outline and its shape.
CANDIES: dict[str, tuple[str, str, str]] = {
    "G": ("#3FB950", "#1A6B2A", "triangle"),
    "C": ("#22B8CF", "#0B6677", "circle"),
    "P": ("#A855F7", "#5B1F99", "star"),
    "R": ("#EF4444", "#8F1515", "square"),
    "Y": ("#FACC15", "#8A6A00", "diamond"),
    "B": ("#3B6FF0", "#1B3A8F", "hexagon"),
}
_BOARD = "#3B2F5C"
_CELL_LIGHT = "#F4EEFB"
_CELL_DARK = "#E6DCF4"
_HEADER = 0.11  # the header's height, as a share of the board's square
_SPRITES = SpriteCache(128)
_CELL_RE = re.compile(r"^\s*\(?\s*(?:row\s*)?(\d{1,2})\s*,\s*(?:col\s*)?(\d{1,2})\s*\)?\s*$", re.IGNORECASE)
_PAIR = r"\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)"
_SWAP_RE = re.compile(rf"^\s*\(\s*{_PAIR}\s*,\s*{_PAIR}\s*\)\s*$")


def parse_cell(item: str) -> tuple[int, int] | None:
    """``"(2,3)"`` or ``"(row 2, col 3)"`` as ``(2, 3)``; ``None`` for anything else."""
    m = _CELL_RE.match(str(item))
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_swap_item(item: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """``"((2,3),(2,4))"`` as ``((2, 3), (2, 4))``; ``None`` for anything else."""
    m = _SWAP_RE.match(str(item))
    if not m:
        return None
    r1, c1, r2, c2 = (int(g) for g in m.groups())
    return (r1, c1), (r2, c2)


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    """Where the header and the board go in a drawing: a square board under a header band."""

    header: QRectF
    square: QRectF
    grid: GridGeometry

    @classmethod
    def of(cls, rect: QRectF) -> _Layout:
        side = min(rect.width(), rect.height() / (1 + _HEADER))
        left = rect.left() + (rect.width() - side) / 2
        top = rect.top() + (rect.height() - side * (1 + _HEADER)) / 2
        header = QRectF(left, top, side, side * _HEADER)
        square = QRectF(left, top + side * _HEADER, side, side)
        return cls(header, square, GridGeometry(board_rect(square), ROWS, COLS))

    @property
    def cell(self) -> int:
        """A candy sprite's side in whole pixels."""
        return max(1, math.floor(self.grid.cell))


# -- candy pictures --------------------------------------------------------------------------------


def _polygon(points: Sequence[tuple[float, float]], s: float) -> QPainterPath:
    path = QPainterPath()
    path.addPolygon(QPolygonF([QPointF(x * s, y * s) for x, y in points]))
    path.closeSubpath()
    return path


def _regular(n: int, radius: float, turn: float, inner: float | None = None) -> list[tuple[float, float]]:
    """A regular polygon (or a star with ``inner`` radius) round (0.5, 0.5), in unit coordinates."""
    points = []
    steps = n * 2 if inner is not None else n
    for k in range(steps):
        r = radius if inner is None or k % 2 == 0 else inner
        angle = turn + 2 * math.pi * k / steps
        points.append((0.5 + r * math.cos(angle), 0.52 + r * math.sin(angle)))
    return points


def _shape(kind: str, s: float) -> QPainterPath:
    """The candy's outline in an ``s`` pixel square."""
    if kind == "circle":
        path = QPainterPath()
        path.addEllipse(QPointF(0.5 * s, 0.5 * s), 0.36 * s, 0.36 * s)
        return path
    if kind == "square":
        path = QPainterPath()
        path.addRoundedRect(QRectF(0.17 * s, 0.17 * s, 0.66 * s, 0.66 * s), 0.14 * s, 0.14 * s)
        return path
    if kind == "triangle":
        return _polygon(_regular(3, 0.42, -math.pi / 2), s)
    if kind == "diamond":
        return _polygon([(0.5, 0.1), (0.88, 0.5), (0.5, 0.9), (0.12, 0.5)], s)
    if kind == "star":
        return _polygon(_regular(5, 0.42, -math.pi / 2, inner=0.2), s)
    return _polygon(_regular(6, 0.38, 0.0), s)  # hexagon


def _candy(letter: str, side: int) -> QImage:
    """One candy on a transparent ``side`` square: a soft shadow, the shape filled with its colour,
    a dark rim, and a gloss in the upper left."""
    key = (letter, side)
    found = _SPRITES.get(key)
    if found is not None:
        return found
    fill, rim, kind = CANDIES.get(letter, ("#9CA3AF", "#374151", "circle"))
    image, painter = sprite_canvas(side)
    try:
        s = float(side)
        path = _shape(kind, s)
        shadow = QPainterPath(path)
        shadow.translate(0.03 * s, 0.045 * s)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 60))
        painter.drawPath(shadow)
        pen = QPen(color(rim), max(1.0, 0.05 * s))
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(color(fill))
        painter.drawPath(path)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 255, 255, 120))
        painter.setClipPath(path)
        painter.drawEllipse(QPointF(0.4 * s, 0.36 * s), 0.14 * s, 0.09 * s)
    finally:
        painter.end()
    return _SPRITES.keep(key, image)


@functools.lru_cache(maxsize=8)
def _board_layer(side: float, fx: float, fy: float) -> QImage:
    """The board panel with its checked cells for a square of ``side`` pixels whose corner sits at
    (``fx``, ``fy``) within its first pixel."""
    image = QImage(math.ceil(fx + side), math.ceil(fy + side), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        square = QRectF(fx, fy, side, side)
        grid = GridGeometry(board_rect(square), ROWS, COLS)
        pad = grid.cell * 0.12
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_BOARD))
        frame = grid.area.adjusted(-pad, -pad, pad, pad)
        painter.drawRoundedRect(frame, pad * 1.5, pad * 1.5)
        for r in range(ROWS):
            for c in range(COLS):
                painter.fillRect(grid.cell_rect(r, c), color(_CELL_LIGHT if (r + c) % 2 == 0 else _CELL_DARK))
    finally:
        painter.end()
    return image


def _header_lines(state: Any) -> tuple[str, str, str]:
    """The header's three texts: the candies cleared, the moves left, and what the last swap did."""
    moves = "Game over" if state.moves_left == 0 else f"Moves left {state.moves_left} / {state.max_moves}"
    last = ""
    waves = tuple(getattr(state, "waves", ()) or ())
    if waves:
        first, *cascade = waves
        last = f"Last swap {state.last}: {first} cleared"
        if cascade:
            last += f", cascade +{sum(cascade)}"
        if getattr(state, "shuffled", False):
            last += "; reshuffled"
    return f"Candies cleared {state.score}", moves, last


def _paint_header(painter: QPainter, band: QRectF, lines: tuple[str, str, str]) -> None:
    size = band.height() * 0.34
    ink = color(THEME.ink)
    score, moves, last = lines
    left = QPointF(band.left() + band.width() * 0.27, band.center().y() - size * 0.2)
    right = QPointF(band.left() + band.width() * 0.73, band.center().y() - size * 0.2)
    draw_text_centered(painter, score, font(size, bold=True), left, ink)
    draw_text_centered(painter, moves, font(size, bold=True), right, ink)
    if last:
        below = QPointF(band.center().x(), band.bottom() - size * 0.25)
        draw_text_centered(painter, last, font(size * 0.72), below, color(THEME.ink_muted))


@functools.lru_cache(maxsize=64)
def _header_layer(lines: tuple[str, str, str], width: float, height: float, fx: float, fy: float) -> QImage:
    """The header on a transparent picture whose (0, 0) is the band's whole-pixel corner."""
    image = QImage(math.ceil(fx + width), math.ceil(fy + height), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        _paint_header(painter, QRectF(fx, fy, width, height), lines)
    finally:
        painter.end()
    return image


def _blits_exactly(painter: QPainter) -> bool:
    """Whether a picture drawn at whole coordinates lands on whole device pixels, unscaled."""
    t = painter.deviceTransform()
    if t.type().value > QTransform.TransformationType.TxTranslate.value:
        return False
    return float(t.dx()).is_integer() and float(t.dy()).is_integer()


class CandyCrushRenderer(Renderer):
    """Draws Candy Crush boards (8x8) with a header of the score and the moves left."""

    game_id = "candycrush"
    aspect = 1 / (1 + _HEADER)

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        lay = _Layout.of(rect)
        grid = lay.grid
        painter.save()
        square = lay.square
        left, top = math.floor(square.left()), math.floor(square.top())
        painter.drawImage(left, top, _board_layer(square.width(), square.left() - left, square.top() - top))
        side = lay.cell
        board: str = state.board
        for i, letter in enumerate(board):
            cell = grid.cell_rect(i // COLS, i % COLS)
            painter.drawImage(round(cell.left()), round(cell.top()), _candy(letter, side))
        self._header(painter, state, lay)
        for item in unique_items(highlight, lambda h: str(h).strip() or None):
            swap = parse_swap_item(item)
            if swap is not None:
                self._mark_swap(painter, grid, swap)
                continue
            spot = parse_cell(item)
            if spot is not None and 0 <= spot[0] < ROWS and 0 <= spot[1] < COLS:
                self._ring(painter, grid, spot)
        if grid_labels:
            draw_grid_labels(
                painter,
                grid.area,
                [grid.center(r, 0).y() for r in range(ROWS)],
                [grid.center(0, c).x() for c in range(COLS)],
            )
        painter.restore()

    @staticmethod
    def _header(painter: QPainter, state: Any, lay: _Layout) -> None:
        """The header's lines: copied from a picture kept per text and size (text outlines are the
        costly part of a frame), or drawn directly on a painter that scales."""
        band = lay.header
        lines = _header_lines(state)
        if not _blits_exactly(painter):
            _paint_header(painter, band, lines)
            return
        left, top = math.floor(band.left()), math.floor(band.top())
        image = _header_layer(lines, band.width(), band.height(), band.left() - left, band.top() - top)
        painter.drawImage(left, top, image)

    @staticmethod
    def _ring(painter: QPainter, grid: GridGeometry, spot: tuple[int, int]) -> None:
        cell = grid.cell
        painter.setPen(QPen(color(THEME.highlight), max(2.0, cell * 0.09)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = cell * 0.05
        rect = grid.cell_rect(*spot).adjusted(inset, inset, -inset, -inset)
        painter.drawRoundedRect(rect, cell * 0.15, cell * 0.15)

    @classmethod
    def _mark_swap(
        cls, painter: QPainter, grid: GridGeometry, swap: tuple[tuple[int, int], tuple[int, int]]
    ) -> None:
        a, b = swap
        if not all(0 <= v < ROWS for v in (*a, *b)) or abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            return
        cls._ring(painter, grid, a)
        cls._ring(painter, grid, b)
        start, end = grid.center(*a), grid.center(*b)
        cell = grid.cell
        dx, dy = (end.x() - start.x()) / cell, (end.y() - start.y()) / cell
        px, py = -dy, dx
        head, half, reach = cell * 0.16, cell * 0.13, cell * 0.3
        mid = (start + end) / 2
        tip1 = mid + QPointF(dx, dy) * reach
        tip2 = mid - QPointF(dx, dy) * reach
        arrow = QPolygonF(
            [
                tip1,
                tip1 - QPointF(dx, dy) * head + QPointF(px, py) * half,
                tip1 - QPointF(dx, dy) * head + QPointF(px, py) * half * 0.4,
                tip2 + QPointF(dx, dy) * head + QPointF(px, py) * half * 0.4,
                tip2 + QPointF(dx, dy) * head + QPointF(px, py) * half,
                tip2,
                tip2 + QPointF(dx, dy) * head - QPointF(px, py) * half,
                tip2 + QPointF(dx, dy) * head - QPointF(px, py) * half * 0.4,
                tip1 - QPointF(dx, dy) * head - QPointF(px, py) * half * 0.4,
                tip1 - QPointF(dx, dy) * head - QPointF(px, py) * half,
            ]
        )
        pen = QPen(color("#FFFFFF", 235), max(1.0, cell * 0.03))
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(color(THEME.highlight, 235))
        painter.drawPolygon(arrow)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The cell ``"(row,col)"`` under pixel (``x``, ``y``); ``None`` off the board."""
        spot = _Layout.of(QRectF(0, 0, width, height)).grid.cell_at(x, y)
        return None if spot is None else f"({spot[0]},{spot[1]})"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell ``"(row,col)"`` is drawn; a swap gives the rectangle round both its cells."""
        grid = _Layout.of(QRectF(0, 0, width, height)).grid
        swap = parse_swap_item(item)
        if swap is not None:
            (r1, c1), (r2, c2) = swap
            if all(0 <= v < ROWS for v in (r1, c1, r2, c2)):
                return grid.cell_rect(r1, c1).united(grid.cell_rect(r2, c2))
            return None
        spot = parse_cell(item)
        if spot is None or not (0 <= spot[0] < ROWS and 0 <= spot[1] < COLS):
            return None
        return grid.cell_rect(*spot)


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Candy Crush picture (``candycrush-sample.png`` by default) to the current folder."""
    parser = sample_parser(
        CandyCrushRenderer,
        main.__doc__,
        highlight="cells (row,col) or swaps ((r1,c1),(r2,c2)) to mark",
        grid_labels="write row and column numbers beside the board",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", type=int, default=3, help="greedy swaps played before the picture")
    args = parser.parse_args(argv)
    state = played_state("candycrush", (), seed=args.seed)
    for _ in range(args.moves):
        legal = state.legal_actions()
        if not legal:
            break
        state = state.apply(legal[-1])
    return write_sample(CandyCrushRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
