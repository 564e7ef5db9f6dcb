"""The Othello renderer: a green felt board in a dark frame, shaded discs, coordinates on every image.

Reads only ``state.cells`` (64 entries ``"B"``/``"W"``/``""`` in reading order: row 1 first, columns A
to H) and ``state.last_action`` (``"(D,3)"``, ``"pass"`` or ``None``). Column letters A-H are written
above the board and row numbers 1-8 on its left on every image, whatever ``grid_labels`` says:
LVLM-Playground's models read coordinates off the picture, and GameBot's prompts name squares the same
way. Highlights are cells such as ``"(D,3)"`` (``"D3"`` is accepted too); :meth:`hit_test` maps a click
to the square under it and :meth:`cell_rect` is its inverse.

Run ``python -m renderers.othello`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QLinearGradient, QPainter, QPen, QRadialGradient

from renderers.base import MARGIN, THEME, Renderer, board_rect, color, draw_text_centered, font, write_sample

__all__ = ["OthelloRenderer", "parse_cell"]

_SIZE = 8
_COLUMNS = "ABCDEFGH"
_CELL_RE = re.compile(r"^\s*\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])\s*\)?\s*$")

_FELT_TOP = "#2F8A57"
_FELT_BOTTOM = "#23734A"
_FRAME = "#173F2A"
_GRID = "#154A30"
_LAST_MOVE = "#E5484D"
_HIGHLIGHT_FILL = "#FCD34D"  # a pale amber: reads as "marked" on green, where the theme's amber turns olive

# Proportions of a cell.
_DISC_RADIUS = 0.41
_GRID_WIDTH = 0.028
_SHADOW_OFFSET = QPointF(0.035, 0.055)


def parse_cell(item: str) -> tuple[int, int] | None:
    """``"(D,3)"`` or ``"D3"`` (case and spaces forgiven) to ``(row, col)`` zero-based; ``None`` otherwise."""
    match = _CELL_RE.match(str(item))
    if not match:
        return None
    return int(match.group(2)) - 1, _COLUMNS.index(match.group(1).upper())


class OthelloRenderer(Renderer):
    """Draws Othello positions; Black (seat 0) and White (seat 1) discs with soft shading."""

    game_id = "othello"
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
        """Draw the frame, felt, highlights, grid, discs, the last-move dot and the coordinates."""
        area = board_rect(rect)
        cell = area.width() / _SIZE
        cells: Sequence[str] = state.cells

        def square(r: int, c: int) -> QRectF:
            return QRectF(area.left() + c * cell, area.top() + r * cell, cell, cell)

        painter.save()
        band = area.width() / (1 - 2 * MARGIN) * MARGIN
        frame = band * 0.16
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_FRAME))
        outer = area.adjusted(-frame, -frame, frame, frame)
        painter.drawRoundedRect(outer, frame * 1.2, frame * 1.2)

        felt = QLinearGradient(area.topLeft(), area.bottomLeft())
        felt.setColorAt(0.0, color(_FELT_TOP))
        felt.setColorAt(1.0, color(_FELT_BOTTOM))
        painter.setBrush(QBrush(felt))
        painter.drawRect(area)

        for r, c in _unique_cells(highlight):
            inset = cell * 0.05
            painter.setPen(QPen(color(THEME.highlight), max(1.5, cell * 0.05)))
            painter.setBrush(color(_HIGHLIGHT_FILL, 190))
            shaded = square(r, c).adjusted(inset, inset, -inset, -inset)
            painter.drawRoundedRect(shaded, cell * 0.08, cell * 0.08)

        grid = QPen(color(_GRID), max(1.0, cell * _GRID_WIDTH))
        painter.setPen(grid)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i in range(1, _SIZE):
            x = area.left() + i * cell
            y = area.top() + i * cell
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        painter.drawRect(area)
        # The four marker dots of a tournament board, at the corners of the central 4x4 square.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_GRID))
        dot = max(1.5, cell * 0.075)
        for i in (2, 6):
            for j in (2, 6):
                painter.drawEllipse(QPointF(area.left() + j * cell, area.top() + i * cell), dot, dot)

        for index, mark in enumerate(cells[: _SIZE * _SIZE]):
            if mark in ("B", "W"):
                self._draw_disc(painter, square(index // _SIZE, index % _SIZE), mark)

        last = parse_cell(getattr(state, "last_action", None) or "")
        if last is not None:
            center = square(*last).center()
            painter.setPen(QPen(color("#FFFFFF", 200), max(1.0, cell * 0.02)))
            painter.setBrush(color(_LAST_MOVE))
            r = cell * 0.085
            painter.drawEllipse(center, r, r)

        labels = font(band * 0.46, bold=True)
        ink = color(THEME.ink_muted)
        for c in range(_SIZE):
            center = QPointF(area.left() + (c + 0.5) * cell, area.top() - frame - (band - frame) / 2)
            draw_text_centered(painter, _COLUMNS[c], labels, center, ink)
        for r in range(_SIZE):
            center = QPointF(area.left() - frame - (band - frame) / 2, area.top() + (r + 0.5) * cell)
            draw_text_centered(painter, str(r + 1), labels, center, ink)
        painter.restore()

    @staticmethod
    def _draw_disc(painter: QPainter, square: QRectF, mark: str) -> None:
        """Stamp the cached sprite of a ``mark`` disc (with its shadow) on ``square``."""
        sprite = _disc_sprite(mark, round(square.width() * 4) / 4)
        painter.drawImage(QPointF(round(square.left()), round(square.top())), sprite)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The square ``"(D,3)"`` under pixel (``x``, ``y``), whatever is on it; ``None`` off the board."""
        area = board_rect(QRectF(0, 0, width, height))
        if not (area.left() <= x < area.right() and area.top() <= y < area.bottom()):
            return None
        cell = area.width() / _SIZE
        col = min(_SIZE - 1, int((x - area.left()) // cell))
        row = min(_SIZE - 1, int((y - area.top()) // cell))
        return f"({_COLUMNS[col]},{row + 1})"

    def cell_rect(self, state: Any, width: int, height: int, item: str) -> QRectF | None:
        """Where the square ``item`` (``"(D,3)"`` or ``"D3"``) is drawn; ``None`` for anything else."""
        parsed = parse_cell(item)
        if parsed is None:
            return None
        area = board_rect(QRectF(0, 0, width, height))
        cell = area.width() / _SIZE
        row, col = parsed
        return QRectF(area.left() + col * cell, area.top() + row * cell, cell, cell)


def _disc_sprite(mark: str, size: float) -> QImage:
    """A disc of colour ``mark`` on a transparent ``size``-pixel square, shadow included; cached per size,
    since painting 64 radial gradients per frame would cost most of the frame budget."""
    key = (mark, size)
    sprite = _SPRITES.get(key)
    if sprite is not None:
        return sprite
    side = int(size) + 2
    sprite = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
    sprite.fill(Qt.GlobalColor.transparent)
    painter = QPainter(sprite)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    radius = size * _DISC_RADIUS
    center = QPointF(size / 2, size / 2)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(0, 0, 0, 70))
    painter.drawEllipse(center + _SHADOW_OFFSET * size, radius, radius)
    light = center + QPointF(-0.35 * radius, -0.4 * radius)
    shade = QRadialGradient(light, radius * 1.45)
    if mark == "B":
        shade.setColorAt(0.0, QColor("#5E6166"))
        shade.setColorAt(0.45, QColor("#26282B"))
        shade.setColorAt(1.0, QColor("#08090A"))
        rim = QColor(0, 0, 0, 200)
    else:
        shade.setColorAt(0.0, QColor("#FFFFFF"))
        shade.setColorAt(0.55, QColor("#F1F2F4"))
        shade.setColorAt(1.0, QColor("#BFC4CB"))
        rim = QColor("#8D949C")
    painter.setPen(QPen(rim, max(0.8, size * 0.018)))
    painter.setBrush(QBrush(shade))
    painter.drawEllipse(center, radius, radius)
    painter.end()
    if len(_SPRITES) >= 64:
        _SPRITES.clear()  # a crude bound: a window resized many times leaves old sizes behind
    _SPRITES[key] = sprite
    return sprite


#: Disc sprites by (mark, cell size in quarter pixels).
_SPRITES: dict[tuple[str, float], QImage] = {}


def _unique_cells(items: Iterable[str]) -> list[tuple[int, int]]:
    """Cells named by ``items`` in first-seen order; entries that are not cells are ignored."""
    seen: dict[tuple[int, int], None] = {}
    for item in items:
        parsed = parse_cell(item)
        if parsed is not None:
            seen.setdefault(parsed, None)
    return list(seen)


def _played_state(moves: Sequence[str], start: str) -> Any:
    """A real game after ``moves``."""
    import engine

    state = engine.make("othello", start=start).initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Othello picture (``othello-sample.png`` by default) to the current folder."""
    parser = argparse.ArgumentParser(prog="python -m renderers.othello", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("othello-sample.png"))
    parser.add_argument("--size", type=int, default=512, help="width and height in pixels")
    parser.add_argument("--start", default="gamebot", help="start position option (gamebot or lvlm)")
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["(E,3)", "(F,3)", "(G,3)", "(F,5)"],
        help='moves to play from the start, e.g. "(E,3)" "(F,3)"',
    )
    parser.add_argument("--grid-labels", action="store_true", help="(coordinates are always drawn)")
    parser.add_argument("--highlight", nargs="*", default=(), help='squares to shade, e.g. "(D,3)"')
    args = parser.parse_args(argv)
    state = _played_state(args.moves, args.start)
    return write_sample(OthelloRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
