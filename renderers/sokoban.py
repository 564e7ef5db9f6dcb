"""The Sokoban renderer: brick walls, a tiled warehouse floor, goal rings, wooden crates and the keeper.

PlayTrace's own art, drawn with QPainter: walls are slate bricks, the floor sand-coloured tiles, a goal
a green ring, a box a wooden crate (green with a check-like band when it sits on a goal), the player
a blue figure that looks the way it last moved. Cells outside the walls are background. A header
above the board names the level and shows the boxes on goals and the score; when a deadlock ended the
run, the boxes that caused it are marked with a red cross.

Reads only ``state.level`` (``width``, ``height``, ``walls``, ``goals``, ``inside``), ``state.boxes``,
``state.player``, ``state.last``, ``state.end``, ``state.dead_boxes()``, ``state.heading()``,
``state.on_goals`` and ``state.scores``. Highlights are directions (``"up"`` ...: an arrow beside the
player) or cells ``"(row,col)"`` (an outline). :meth:`hit_test` turns a click on a cell next to the
player into the move towards it, so the game can also be played with the mouse.

Every cell picture is drawn once per size and kept (:class:`~renderers.base.SpriteCache`), and the
fixed part of a level (walls, floor, goals) once per level and size, so a frame is a few dozen image
copies.

Run ``python -m renderers.sokoban`` to write a sample picture to the current folder.
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
from PySide6.QtGui import QImage, QPainter, QPainterPath, QPen, QPolygonF

from renderers.base import (
    MARGIN,
    THEME,
    Renderer,
    SpriteCache,
    color,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
    sprite_canvas,
    unique_items,
    write_sample,
)

__all__ = ["COLORS", "SokobanRenderer", "parse_cell"]

#: The palette: every colour of the art, by part.
COLORS: dict[str, str] = {
    "wall": "#475569",
    "mortar": "#334155",
    "wall_light": "#64748B",
    "floor": "#E8DFC9",
    "floor_line": "#D6CBB0",
    "goal": "#16A34A",
    "crate": "#C07A35",
    "crate_dark": "#8A5220",
    "crate_light": "#DDA060",
    "crate_goal": "#2F9E5B",
    "crate_goal_dark": "#1E6B3D",
    "crate_goal_light": "#6CCB8F",
    "player": "#2563EB",
    "player_dark": "#1E3A8A",
    "skin": "#F5D0A9",
    "dead": "#DC2626",
}
_CELL_RE = re.compile(r"^\s*\(?\s*(?:row\s*)?(\d{1,2})\s*,\s*(?:col\s*)?(\d{1,2})\s*\)?\s*$", re.IGNORECASE)
_DIRECTIONS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
_HEADER = 0.9  # header height, in cells
_SPRITES = SpriteCache(256)


def parse_cell(item: str) -> tuple[int, int] | None:
    """``"(2,3)"`` or ``"(row 2, col 3)"`` as ``(2, 3)``; ``None`` for anything else."""
    m = _CELL_RE.match(str(item))
    return (int(m.group(1)), int(m.group(2))) if m else None


@functools.lru_cache(maxsize=64)
def _bounds(level: Any) -> tuple[int, int, int, int]:
    """``(top row, left column, rows, columns)`` of the room: its walls and what they enclose."""
    cells = [level.coords(i) for i in level.walls | level.inside]
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    """Where the header and the cells go: the room (not the empty grid around it) centred, whole-pixel
    cells so cached pictures copy exactly. ``left``/``top`` are the pixel corner of cell (0, 0)."""

    left: int
    top: int
    cell: int
    row0: int
    col0: int
    rows: int
    cols: int
    header: QRectF

    @classmethod
    def of(cls, rect: QRectF, level: Any) -> _Layout:
        row0, col0, rows, cols = _bounds(level)
        band = min(rect.width(), rect.height()) * MARGIN
        avail_w = rect.width() - 2 * band
        avail_h = rect.height() - 2 * band
        cell = max(1, int(min(avail_w / cols, avail_h / (rows + _HEADER))))
        board_w, board_h = cell * cols, cell * rows
        total_h = board_h + cell * _HEADER
        left = int(rect.left() + (rect.width() - board_w) / 2)
        top = int(rect.top() + (rect.height() - total_h) / 2 + cell * _HEADER)
        head_w = min(avail_w, max(board_w, cell * 14))
        header = QRectF(left + board_w / 2 - head_w / 2, top - cell * _HEADER, head_w, cell * _HEADER * 0.8)
        return cls(left - col0 * cell, top - row0 * cell, cell, row0, col0, rows, cols, header)

    def contains(self, r: int, c: int) -> bool:
        return self.row0 <= r < self.row0 + self.rows and self.col0 <= c < self.col0 + self.cols

    def rect(self, r: int, c: int) -> QRectF:
        return QRectF(self.left + c * self.cell, self.top + r * self.cell, self.cell, self.cell)

    def at(self, x: float, y: float) -> tuple[int, int] | None:
        col = math.floor((x - self.left) / self.cell)
        row = math.floor((y - self.top) / self.cell)
        return (row, col) if self.contains(row, col) else None


# -- cell pictures ----------------------------------------------------------------------------------


def _sprite(kind: str, side: int) -> QImage:
    key = (kind, side)
    found = _SPRITES.get(key)
    if found is not None:
        return found
    image, painter = sprite_canvas(side)
    try:
        _DRAW[kind.split(":")[0]](painter, float(side), kind)
    finally:
        painter.end()
    return _SPRITES.keep(key, image)


def _floor(p: QPainter, s: float, kind: str) -> None:
    p.fillRect(QRectF(0, 0, s, s), color(COLORS["floor"]))
    p.setPen(QPen(color(COLORS["floor_line"]), max(1.0, s * 0.03)))
    p.drawLine(QPointF(0, s - 0.5), QPointF(s, s - 0.5))
    p.drawLine(QPointF(s - 0.5, 0), QPointF(s - 0.5, s))


def _wall(p: QPainter, s: float, kind: str) -> None:
    p.fillRect(QRectF(0, 0, s, s), color(COLORS["mortar"]))
    gap = max(1.0, s * 0.05)
    course = s / 2
    p.setPen(Qt.PenStyle.NoPen)
    for row in range(2):
        y = row * course
        offsets = (0.0, s / 2) if row == 0 else (-s / 4, s / 4, 3 * s / 4)
        width = s / 2 if row == 0 else s / 2
        for x in offsets:
            brick = QRectF(x + gap / 2, y + gap / 2, width - gap, course - gap).intersected(
                QRectF(0, 0, s, s)
            )
            p.setBrush(color(COLORS["wall"]))
            p.drawRect(brick)
            p.setBrush(color(COLORS["wall_light"]))
            p.drawRect(QRectF(brick.left(), brick.top(), brick.width(), max(1.0, brick.height() * 0.18)))


def _goal(p: QPainter, s: float, kind: str) -> None:
    _floor(p, s, kind)
    p.setPen(QPen(color(COLORS["goal"]), max(1.5, s * 0.08)))
    p.setBrush(color(COLORS["goal"], 60))
    p.drawEllipse(QPointF(s / 2, s / 2), s * 0.22, s * 0.22)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color(COLORS["goal"]))
    p.drawEllipse(QPointF(s / 2, s / 2), s * 0.07, s * 0.07)


def _crate(p: QPainter, s: float, kind: str) -> None:
    on_goal = kind.endswith("goal")
    base, dark, light = (
        (COLORS["crate_goal"], COLORS["crate_goal_dark"], COLORS["crate_goal_light"])
        if on_goal
        else (COLORS["crate"], COLORS["crate_dark"], COLORS["crate_light"])
    )
    inset = s * 0.1
    body = QRectF(inset, inset, s - 2 * inset, s - 2 * inset)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color("#000000", 45))
    p.drawRoundedRect(body.translated(s * 0.03, s * 0.04), s * 0.06, s * 0.06)
    p.setPen(QPen(color(dark), max(1.0, s * 0.05)))
    p.setBrush(color(base))
    p.drawRoundedRect(body, s * 0.06, s * 0.06)
    plank = body.adjusted(s * 0.1, s * 0.1, -s * 0.1, -s * 0.1)
    p.setPen(QPen(color(light), max(1.0, s * 0.045)))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(plank)
    p.setPen(QPen(color(dark), max(1.0, s * 0.06)))
    if on_goal:  # a tick: the box is home
        tick = QPainterPath(QPointF(plank.left() + plank.width() * 0.18, plank.center().y()))
        tick.lineTo(QPointF(plank.left() + plank.width() * 0.42, plank.bottom() - plank.height() * 0.2))
        tick.lineTo(QPointF(plank.right() - plank.width() * 0.15, plank.top() + plank.height() * 0.2))
        p.setPen(QPen(color("#FFFFFF"), max(1.5, s * 0.08), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.drawPath(tick)
    else:  # the diagonal brace of a crate
        p.drawLine(plank.topLeft(), plank.bottomRight())


def _player(p: QPainter, s: float, kind: str) -> None:
    facing = kind.split(":")[1] if ":" in kind else "down"
    dr, dc = _DIRECTIONS.get(facing, (1, 0))
    cx, cy = s / 2, s / 2
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color("#000000", 45))
    p.drawEllipse(QPointF(cx + s * 0.03, cy + s * 0.33), s * 0.26, s * 0.08)
    # body
    p.setPen(QPen(color(COLORS["player_dark"]), max(1.0, s * 0.04)))
    p.setBrush(color(COLORS["player"]))
    body = QRectF(cx - s * 0.24, cy - s * 0.02, s * 0.48, s * 0.36)
    p.drawRoundedRect(body, s * 0.14, s * 0.14)
    # head
    p.setBrush(color(COLORS["skin"]))
    head = QPointF(cx, cy - s * 0.16)
    p.drawEllipse(head, s * 0.17, s * 0.17)
    # cap
    p.setBrush(color(COLORS["player"]))
    cap = QPainterPath()
    cap.moveTo(head + QPointF(-s * 0.17, 0))
    cap.arcTo(QRectF(head.x() - s * 0.17, head.y() - s * 0.17, s * 0.34, s * 0.34), 180, -180)
    cap.closeSubpath()
    p.drawPath(cap)
    # eyes, looking the way of the last move
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color("#111827"))
    look = QPointF(dc * s * 0.05, dr * s * 0.03 + s * 0.04)
    if dr >= 0 or dc != 0:
        for side in (-1, 1):
            if dc and side == -dc:
                continue  # in profile one eye shows
            p.drawEllipse(head + look + QPointF(side * s * 0.065, 0), s * 0.028, s * 0.028)


_DRAW = {"floor": _floor, "wall": _wall, "goal": _goal, "crate": _crate, "player": _player}


@functools.lru_cache(maxsize=16)
def _static_layer(level: Any, cell: int) -> QImage:
    """Walls, floor and goals of ``level`` at ``cell`` pixels a cell (transparent outside)."""
    image = QImage(level.width * cell, level.height * cell, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        for i in level.inside:
            r, c = divmod(i, level.width)
            painter.drawImage(c * cell, r * cell, _sprite("goal" if i in level.goals else "floor", cell))
        for i in level.walls:
            r, c = divmod(i, level.width)
            painter.drawImage(c * cell, r * cell, _sprite("wall", cell))
    finally:
        painter.end()
    return image


class SokobanRenderer(Renderer):
    """Draws Sokoban levels of any size, keeping cells square."""

    game_id = "sokoban"
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
        level = state.level
        lay = _Layout.of(rect, level)
        cell = lay.cell
        painter.save()
        painter.drawImage(lay.left, lay.top, _static_layer(level, cell))
        w = level.width
        for b in state.boxes:
            r, c = divmod(b, w)
            painter.drawImage(
                lay.left + c * cell,
                lay.top + r * cell,
                _sprite("crate:goal" if b in level.goals else "crate", cell),
            )
        r, c = divmod(state.player, w)
        painter.drawImage(
            lay.left + c * cell, lay.top + r * cell, _sprite(f"player:{state.last or 'down'}", cell)
        )
        if state.end == "deadlock":
            self._mark_dead(painter, state, lay)
        self._header(painter, state, lay)
        for item in unique_items(highlight, lambda h: str(h).strip().lower() or None):
            if item in _DIRECTIONS:
                self._arrow(painter, lay, level.coords(state.player), _DIRECTIONS[item])
            else:
                cell_rc = parse_cell(item)
                if cell_rc is not None and lay.contains(*cell_rc):
                    painter.setPen(QPen(color(THEME.highlight), max(2.0, cell * 0.08)))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    inset = cell * 0.06
                    painter.drawRect(lay.rect(*cell_rc).adjusted(inset, inset, -inset, -inset))
        if grid_labels:
            f = font(max(7.0, cell * 0.32))
            ink = color(THEME.ink_muted)
            last_row, first_col = lay.row0 + lay.rows - 1, lay.col0
            for col in range(lay.col0, lay.col0 + lay.cols):
                at = lay.rect(last_row, col)
                below = QPointF(at.center().x(), at.bottom() + cell * 0.3)
                draw_text_centered(painter, str(col), f, below, ink)
            for row in range(lay.row0, lay.row0 + lay.rows):
                at = lay.rect(row, first_col)
                beside = QPointF(at.left() - cell * 0.3, at.center().y())
                draw_text_centered(painter, str(row), f, beside, ink)
        painter.restore()

    @staticmethod
    def _mark_dead(painter: QPainter, state: Any, lay: _Layout) -> None:
        pen = QPen(
            color(COLORS["dead"]), max(2.0, lay.cell * 0.09), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap
        )
        painter.setPen(pen)
        for b in state.dead_boxes():
            box = lay.rect(*state.level.coords(b))
            k = lay.cell * 0.22
            inner = box.adjusted(k, k, -k, -k)
            painter.drawLine(inner.topLeft(), inner.bottomRight())
            painter.drawLine(inner.topRight(), inner.bottomLeft())

    @staticmethod
    def _header(painter: QPainter, state: Any, lay: _Layout) -> None:
        head = lay.header
        total = len(state.level.goals)
        left = state.heading()
        right = f"Boxes {state.on_goals}/{total}   Score {int(state.scores[0])}"
        size = max(7.0, min(lay.cell * 0.42, head.height() * 0.8, head.width() / 28))
        bold = font(size, bold=True)
        regular = font(size)
        painter.setPen(color(THEME.ink))
        painter.setFont(regular)
        right_w = painter.fontMetrics().horizontalAdvance(right)
        painter.drawText(
            QRectF(head.right() - right_w - 2, head.top(), right_w + 2, head.height()),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            right,
        )
        painter.setFont(bold)
        room = max(0.0, head.width() - right_w - size)
        shown = painter.fontMetrics().elidedText(left, Qt.TextElideMode.ElideRight, int(room))
        painter.drawText(
            QRectF(head.left(), head.top(), room, head.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            shown,
        )

    @staticmethod
    def _arrow(painter: QPainter, lay: _Layout, at: tuple[int, int], d: tuple[int, int]) -> None:
        center = lay.rect(*at).center()
        cell = lay.cell
        tip = center + QPointF(d[1] * cell * 0.95, d[0] * cell * 0.95)
        base = center + QPointF(d[1] * cell * 0.55, d[0] * cell * 0.55)
        side = QPointF(-d[0] * cell * 0.2, d[1] * cell * 0.2)
        painter.setPen(QPen(color("#FFFFFF"), max(1.0, cell * 0.03)))
        painter.setBrush(color(THEME.highlight))
        painter.drawPolygon(QPolygonF([tip, base + side, base - side]))

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The move towards a clicked cell next to the player; ``None`` for any other point."""
        level = state.level
        lay = _Layout.of(QRectF(0, 0, width, height), level)
        found = lay.at(x, y)
        if found is None:
            return None
        pr, pc = level.coords(state.player)
        for name, (dr, dc) in _DIRECTIONS.items():
            if (pr + dr, pc + dc) == found:
                return name
        return None

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell ``"(row,col)"`` is drawn; a direction names the cell it walks to."""
        level = state.level
        lay = _Layout.of(QRectF(0, 0, width, height), level)
        key = str(item).strip().lower()
        if key in _DIRECTIONS:
            pr, pc = level.coords(state.player)
            found: tuple[int, int] | None = (pr + _DIRECTIONS[key][0], pc + _DIRECTIONS[key][1])
        else:
            found = parse_cell(item)
        if found is None or not lay.contains(*found):
            return None
        return lay.rect(*found)


def main(argv: Sequence[str] | None = None) -> int:
    parser = sample_parser(
        SokobanRenderer,
        "Write a picture of a Sokoban level.",
        highlight="directions (up, down, ...) or cells (2,3) to mark",
        grid_labels="write row and column numbers",
    )
    parser.add_argument("--moves", default="", help="moves to play first, e.g. 'left up up'")
    args = parser.parse_args(argv)
    state = played_state("sokoban", args.moves.split())
    return write_sample(SokobanRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
