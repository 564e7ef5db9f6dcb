"""The 2048 renderer: the classic rounded tiles on a board, numbers sized to fit any value.

Reads only ``state.board`` (rows of tile values, 0 = empty) and ``state.spawned`` (the cell of the
tile the last move added). Highlights are directions (``"up"`` ...) drawn as arrows; 2048 is played
with the keyboard, so :meth:`hit_test` always answers ``None``.

Run ``python -m renderers.g2048`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF

from renderers.base import (
    THEME,
    Renderer,
    board_rect,
    color,
    draw_grid_labels,
    draw_text_centered,
    font,
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
        """Draw the board, its tiles, the spawned-tile marker, direction arrows and labels."""
        board: Sequence[Sequence[int]] = state.board
        rows = len(board)
        cols = len(board[0]) if rows else 0
        if rows == 0 or cols == 0:
            return
        area = board_rect(rect)
        side = area.width()
        gap = side * _GAP
        tile_w = (side - gap * (cols + 1)) / cols
        tile_h = (side - gap * (rows + 1)) / rows
        radius = min(tile_w, tile_h) * _TILE_RADIUS

        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(BOARD_COLOR))
        painter.drawRoundedRect(area, radius * 1.2, radius * 1.2)

        def tile_rect(r: int, c: int) -> QRectF:
            left = area.left() + gap + c * (tile_w + gap)
            return QRectF(left, area.top() + gap + r * (tile_h + gap), tile_w, tile_h)

        for r, row in enumerate(board):
            for c, value in enumerate(row):
                background, foreground = tile_colors(int(value))
                cell = tile_rect(r, c)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(color(background))
                painter.drawRoundedRect(cell, radius, radius)
                if value:
                    self._draw_value(painter, int(value), cell, color(foreground))

        spawned = getattr(state, "spawned", None)
        if spawned is not None:
            r, c = spawned
            if 0 <= r < rows and 0 <= c < cols:
                # A thin ring in the gap around the new tile: visible, but it never covers the number.
                ring = tile_rect(r, c).adjusted(-gap * 0.42, -gap * 0.42, gap * 0.42, gap * 0.42)
                pen = QPen(color(THEME.accent, 230), gap * 0.36)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(ring, radius + gap * 0.42, radius + gap * 0.42)

        for action in dict.fromkeys(highlight):
            direction = _DIRECTIONS.get(str(action).strip().lower())
            if direction is not None:
                self._draw_arrow(painter, area, direction)

        if grid_labels:
            draw_grid_labels(
                painter,
                area,
                [tile_rect(r, 0).center().y() for r in range(rows)],
                [tile_rect(0, c).center().x() for c in range(cols)],
            )
        painter.restore()

    @staticmethod
    def _draw_value(painter: QPainter, value: int, cell: QRectF, ink: QColor) -> None:
        text = str(value)
        probe = font(100, bold=True)
        bounds = text_path(text, probe).boundingRect()
        # Scale the 100 px probe so the number fits both the tile's width and the height cap.
        size = 100 * min(
            cell.width() * _TEXT_WIDTH / max(bounds.width(), 1e-6),
            cell.height() * _TEXT_HEIGHT / max(bounds.height(), 1e-6),
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
    parser = argparse.ArgumentParser(prog="python -m renderers.g2048", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("2048-sample.png"))
    parser.add_argument("--size", type=int, default=512, help="width and height in pixels")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--grid-labels", action="store_true")
    parser.add_argument("--showcase", action="store_true", help="draw every tile colour instead of a game")
    parser.add_argument("--highlight", nargs="*", default=(), help="directions to draw as arrows")
    args = parser.parse_args(argv)
    state = _showcase_state() if args.showcase else _played_state(args.seed, args.moves)
    return write_sample(G2048Renderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
