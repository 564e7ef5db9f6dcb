"""The VGDL renderer: any VGDL game's grid drawn from its own colour and shape hints.

Each sprite type is drawn in its VGDL ``color`` (GVGAI's palette), scaled by its ``shrinkfactor``, as
one of PlayTrace's own simple shapes chosen from its ``img`` name and class (walls as bricks, boxes as
crates, gems, keys, doors, holes, rocks, portals, missiles, blades, creatures and the avatar, which
shows the way it faces). No third-party sprite sheet is used. Background sprites colour the floor;
``invisible`` sprites are not drawn.

When the drawing is wide enough, the ASCII map a text-only model reads, with its legend, the score
and the step, is written beside the picture (what the human sees is what the model gets).

Reads ``state.compiled`` (the game's sprite types), ``state.sprites``, ``state.height``,
``state.width``, ``state.ascii_rows``, ``state.legend``, ``state.game_score``, ``state.tick``,
``state.max_steps`` and ``state.won``. Highlights are cells ``"(row,col)"`` (an outline).

Each sprite picture is drawn once per type, size and facing and kept (:class:`SpriteCache`), so a
frame is one fill and a few hundred image copies.

Run ``python -m renderers.vgdl`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QPolygonF

from renderers.base import (
    THEME,
    Renderer,
    SpriteCache,
    color,
    draw_text_centered,
    font,
    mono_font,
    played_state,
    sample_parser,
    sprite_canvas,
    unique_items,
    write_sample,
)

__all__ = ["VgdlRenderer", "layout"]

_CELL = re.compile(r"^\(?\s*(\d+)\s*,\s*(\d+)\s*\)?$")
#: Share of the width the ASCII panel may take when drawn beside the picture.
_PANEL_SHARE = 0.36
_BOARD_EDGE = "#1F2937"
#: The floor when the game's background sprite has no colour of its own: light, so dark walls stand out.
_FLOOR_DEFAULT = (222, 216, 200)


def _is_floor(t: Any) -> bool:
    return t.kind == "static" and (
        t.name in ("background", "floor", "ground") or bool(t.params.get("hidden"))
    )


def _parse_cell(item: str) -> tuple[int, int] | None:
    m = _CELL.match(item.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def layout(rows: int, cols: int, rect: QRectF) -> tuple[QRectF, QRectF | None, float]:
    """Where the grid goes, where the ASCII panel goes (``None`` when there is no room) and the cell
    size, for a ``rows`` x ``cols`` level drawn in ``rect``."""
    pad = max(4.0, min(rect.width(), rect.height()) * 0.03)
    inner = rect.adjusted(pad, pad, -pad, -pad)
    full = min(inner.width() / cols, inner.height() / rows)
    spare = inner.width() - full * cols
    if spare >= inner.width() * 0.3 or inner.width() / max(1.0, inner.height()) > 1.45:
        board_w = inner.width() * (1 - _PANEL_SHARE) - pad
        cell = float(max(1, int(min(board_w / cols, inner.height() / rows))))
        if cell >= 6:
            grid_w = cell * cols
            panel = QRectF(
                inner.left() + grid_w + pad, inner.top(), inner.width() - grid_w - pad, inner.height()
            )
            top = float(int(inner.top() + (inner.height() - cell * rows) / 2))
            grid = QRectF(float(int(inner.left())), top, grid_w, cell * rows)
            return grid, panel, cell
    # Whole pixels per cell: every sprite picture is copied unscaled.
    cell = float(max(1, int(full)))
    grid = QRectF(
        float(int(inner.left() + (inner.width() - cell * cols) / 2)),
        float(int(inner.top() + (inner.height() - cell * rows) / 2)),
        cell * cols,
        cell * rows,
    )
    return grid, None, cell


def _qcolor(rgb: tuple[int, int, int], alpha: int = 255) -> QColor:
    return QColor(rgb[0], rgb[1], rgb[2], alpha)


def _shade(rgb: tuple[int, int, int], factor: float) -> QColor:
    if factor >= 1:
        return QColor(*(min(255, int(v + (255 - v) * (factor - 1))) for v in rgb))
    return QColor(*(int(v * factor) for v in rgb))


_ANGLES = {0: 0.0, 1: -90.0, 2: 180.0, 3: 90.0, 4: 0.0}


def _draw_shape(p: QPainter, shape: str, rgb: tuple[int, int, int], side: float, facing: int) -> None:
    """One sprite picture on a ``side`` x ``side`` canvas (already scaled by the shrink factor)."""
    c = side / 2
    fill, dark, light = _qcolor(rgb), _shade(rgb, 0.55), _shade(rgb, 1.35)
    outline = QPen(dark, max(1.0, side * 0.06))
    if shape == "wall":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(fill)
        p.drawRect(QRectF(0, 0, side, side))
        p.setPen(QPen(dark, max(1.0, side * 0.05)))
        for i in (1, 2):
            y = side * i / 3
            p.drawLine(QPointF(0, y), QPointF(side, y))
        for row in range(3):
            off = side * (0.5 if row % 2 else 0.0)
            x = (off + side * 0.25) % side
            p.drawLine(QPointF(x, side * row / 3), QPointF(x, side * (row + 1) / 3))
            x2 = (x + side / 2) % side
            p.drawLine(QPointF(x2, side * row / 3), QPointF(x2, side * (row + 1) / 3))
        return
    p.setPen(outline)
    p.setBrush(fill)
    m = side * 0.08
    if shape == "box":
        r = QRectF(m, m, side - 2 * m, side - 2 * m)
        p.drawRoundedRect(r, side * 0.08, side * 0.08)
        p.setPen(QPen(dark, max(1.0, side * 0.05)))
        p.drawLine(r.topLeft() + QPointF(m, m), r.bottomRight() - QPointF(m, m))
        p.drawLine(r.topRight() + QPointF(-m, m), r.bottomLeft() + QPointF(m, -m))
    elif shape == "gem":
        poly = QPolygonF(
            [QPointF(c, m), QPointF(side - m, c * 0.8), QPointF(c, side - m), QPointF(m, c * 0.8)]
        )
        p.drawPolygon(poly)
        p.setPen(QPen(light, max(1.0, side * 0.04)))
        p.drawLine(QPointF(m * 2, c * 0.8), QPointF(side - m * 2, c * 0.8))
    elif shape == "key":
        p.drawEllipse(QPointF(side * 0.32, c), side * 0.2, side * 0.2)
        p.drawRect(QRectF(side * 0.48, c - side * 0.06, side * 0.44, side * 0.12))
        p.drawRect(QRectF(side * 0.74, c, side * 0.08, side * 0.2))
    elif shape == "door":
        path = QPainterPath()
        path.moveTo(m * 1.5, side - m)
        path.lineTo(m * 1.5, side * 0.4)
        path.arcTo(QRectF(m * 1.5, m, side - 3 * m, side * 0.6), 180, -180)
        path.lineTo(side - m * 1.5, side - m)
        path.closeSubpath()
        p.drawPath(path)
        p.setBrush(dark)
        p.drawEllipse(QPointF(side * 0.66, side * 0.62), side * 0.05, side * 0.05)
    elif shape == "hole":
        p.setBrush(_shade(rgb, 0.6))
        p.drawEllipse(QPointF(c, c), c - m, (c - m) * 0.8)
        p.setBrush(QColor(0, 0, 0, 140))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawEllipse(QPointF(c, c + side * 0.05), (c - m) * 0.7, (c - m) * 0.5)
    elif shape == "rock":
        p.drawEllipse(QPointF(c, c), c - m, c - m)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(light)
        p.drawEllipse(QPointF(c * 0.75, c * 0.7), side * 0.1, side * 0.08)
    elif shape == "portal":
        p.setBrush(Qt.BrushStyle.NoBrush)
        for k in (0.42, 0.28, 0.14):
            p.setPen(QPen(fill if k != 0.28 else light, max(1.0, side * 0.07)))
            p.drawEllipse(QPointF(c, c), side * k, side * k)
    elif shape in ("bullet", "blade"):
        p.save()
        p.translate(c, c)
        p.rotate(_ANGLES.get(facing, 0.0) if facing else (-90.0 if shape == "bullet" else 0.0))
        if shape == "bullet":
            p.drawEllipse(QPointF(0, 0), side * 0.28, side * 0.14)
        else:
            poly = QPolygonF(
                [
                    QPointF(side * 0.42, 0),
                    QPointF(-side * 0.3, -side * 0.12),
                    QPointF(-side * 0.3, side * 0.12),
                ]
            )
            p.drawPolygon(poly)
        p.restore()
    elif shape in ("creature", "avatar"):
        body = c - m
        if shape == "creature":
            path = QPainterPath()
            path.moveTo(m, side - m)
            path.lineTo(m, c)
            path.arcTo(QRectF(m, m, side - 2 * m, side - 2 * m), 180, -180)
            path.lineTo(side - m, side - m)
            for i in range(3):
                x0 = side - m - (side - 2 * m) * i / 3
                path.lineTo(x0 - (side - 2 * m) / 6, side - m * 2.2)
                path.lineTo(x0 - (side - 2 * m) / 3, side - m)
            path.closeSubpath()
            p.drawPath(path)
        else:
            p.drawEllipse(QPointF(c, c), body, body)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(255, 255, 255))
        eye = side * 0.11
        ex = {2: -0.12, 4: 0.12}.get(facing, 0.0) * side
        ey = {1: -0.1, 3: 0.08}.get(facing, 0.0) * side
        for dx in (-0.17, 0.17):
            p.drawEllipse(QPointF(c + dx * side + ex * 0.4, c - side * 0.08 + ey * 0.4), eye, eye)
        p.setBrush(QColor(17, 24, 39))
        for dx in (-0.17, 0.17):
            p.drawEllipse(QPointF(c + dx * side + ex * 0.7, c - side * 0.08 + ey * 0.7), eye * 0.5, eye * 0.5)
        if shape == "avatar" and facing:
            p.save()
            p.translate(c, c)
            p.rotate(_ANGLES[facing])
            p.setBrush(light)
            p.setPen(QPen(dark, max(1.0, side * 0.03)))
            p.drawPolygon(
                QPolygonF(
                    [
                        QPointF(body + m * 0.9, 0),
                        QPointF(body - m * 0.6, -m * 1.2),
                        QPointF(body - m * 0.6, m * 1.2),
                    ]
                )
            )
            p.restore()
    else:
        p.drawRoundedRect(QRectF(m, m, side - 2 * m, side - 2 * m), side * 0.15, side * 0.15)


class VgdlRenderer(Renderer):
    """Draws any VGDL game's state (see the module docstring)."""

    game_id = "vgdl"
    #: A landscape drawing, so wide levels and the ASCII panel both fit.
    aspect = 1.6

    def __init__(self) -> None:
        self._sprites = SpriteCache(limit=512)

    def _picture(self, stype: Any, side: int, facing: int) -> QImage:
        key = (id(stype), stype.name, side, facing)
        found = self._sprites.get(key)
        if found is not None:
            return found
        image, p = sprite_canvas(side)
        try:
            inner = max(2.0, side * stype.shrink)
            off = (side - inner) / 2
            p.translate(off, off)
            shown_facing = facing if stype.oriented else 0
            _draw_shape(p, stype.shape, stype.color, inner, shown_facing)
        finally:
            p.end()
        return self._sprites.keep(key, image)

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        game = state.compiled
        rows, cols = int(state.height), int(state.width)
        # Row and column numbers get a band of their own left of and above the grid.
        band = max(12.0, min(rect.width(), rect.height()) * 0.05) if grid_labels else 0.0
        grid, panel, cell = layout(rows, cols, rect.adjusted(band, band, 0, 0))
        painter.save()
        try:
            floor = next(
                (t.color for t in game.types if t.params.get("color") and _is_floor(t)), _FLOOR_DEFAULT
            )
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_qcolor(floor))
            painter.drawRect(grid)
            side = int(cell)
            left, top = grid.left(), grid.top()
            types = game.types
            order = sorted(
                (s for s in state.sprites if 0 <= s[2] < rows and 0 <= s[3] < cols),
                key=lambda s: (types[s[1]].is_avatar, s[1], s[0]),
            )
            for s in order:
                t = types[s[1]]
                if t.invisible or _is_floor(t):
                    continue
                painter.drawImage(
                    QPointF(left + s[3] * side, top + s[2] * side), self._picture(t, side, s[4])
                )
            painter.setPen(QPen(color(_BOARD_EDGE), max(1.0, cell * 0.05)))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(grid)
            if grid_labels and cell >= 8:
                label_font = font(max(7.0, min(cell * 0.4, band * 0.55)))
                ink = color(THEME.ink_muted)
                for c in range(cols):
                    if cols <= 30 or c % 5 == 0:
                        draw_text_centered(
                            painter,
                            str(c),
                            label_font,
                            QPointF(grid.left() + (c + 0.5) * cell, grid.top() - band * 0.45),
                            ink,
                        )
                for r in range(rows):
                    draw_text_centered(
                        painter,
                        str(r),
                        label_font,
                        QPointF(grid.left() - band * 0.5, grid.top() + (r + 0.5) * cell),
                        ink,
                    )
            cells = unique_items(highlight, _parse_cell)
            if cells:
                painter.setPen(QPen(color(THEME.highlight), max(2.0, cell * 0.1)))
                for r, c in cells:
                    if 0 <= r < rows and 0 <= c < cols:
                        painter.drawRect(QRectF(grid.left() + c * cell, grid.top() + r * cell, cell, cell))
            if state.won is not None:
                self._banner(painter, grid, "You won" if state.won else "Game over")
            if panel is not None:
                self._panel(painter, state, panel)
        finally:
            painter.restore()

    def _banner(self, painter: QPainter, grid: QRectF, text: str) -> None:
        h = min(grid.height() * 0.22, 80.0)
        band = QRectF(grid.left(), grid.center().y() - h / 2, grid.width(), h)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(17, 24, 39, 190))
        painter.drawRect(band)
        draw_text_centered(painter, text, font(h * 0.45, bold=True), band.center(), QColor(255, 255, 255))

    def _panel(self, painter: QPainter, state: Any, panel: QRectF) -> None:
        rows = list(state.ascii_rows)
        legend = [f"{ch}  {name}" for ch, name in state.legend.items()]
        status = [f"Score {state.game_score:g}", f"Step {state.tick} of {state.max_steps}"]
        pos = state.avatar_pos
        if pos is not None:
            status.append(f"Avatar at row {pos[0]}, col {pos[1]}")
        lines = [*rows, "", *legend, "", *status]
        widest = max(len(line) for line in lines)
        # A monospaced glyph is about 0.6 of its pixel size wide; lines are 1.25 sizes apart.
        size = min(panel.width() / (0.61 * max(1, widest)), panel.height() / (1.25 * len(lines)), 22.0)
        size = max(5.0, size)
        f = mono_font(size)
        painter.setFont(f)
        painter.setPen(color(THEME.ink))
        step = size * 1.25
        top = panel.top() + max(0.0, (panel.height() - step * len(lines)) / 2)
        for i, line in enumerate(lines):
            painter.drawText(QPointF(panel.left(), top + step * (i + 0.8)), line)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = sample_parser(
        VgdlRenderer,
        "Write a sample picture of a VGDL game.",
        highlight="cells to outline, e.g. (2,3)",
        grid_labels="write row and column numbers",
    )
    parser.add_argument("--game", default="vgdl-keyhunt", help="a VGDL game id")
    args = parser.parse_args(argv)
    state = played_state(args.game, ["ACTION_RIGHT", "ACTION_DOWN"], seed=1)
    return write_sample(VgdlRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
