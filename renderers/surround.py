"""The Surround renderer: a dark arena, two neon trails with bright heads, a crash burst.

Reads only ``state.rows``, ``state.cols``, ``state.trails`` (each seat's cells, oldest first),
``state.crashed``, ``state.crash_at`` and ``state.tick``. Cyan is seat 0, magenta seat 1 (the
game names its seats after these colours). A legend under the arena names both riders with their
trail lengths, the tick and the result. Highlights are cells written ``"(r,c)"``. Surround is played
with the keyboard, so :meth:`hit_test` answers ``None``; :meth:`cell_rect` places ``"(r,c)"`` cells.

Run ``python -m renderers.surround`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

from renderers.base import (
    THEME,
    Renderer,
    color,
    draw_text_centered,
    font,
    sample_parser,
    text_path,
    write_sample,
)

__all__ = ["SurroundRenderer", "parse_cell"]

_CELL_RE = re.compile(r"^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$")

ARENA = "#0B1120"  # the floor
GRID_LINE = "#172036"  # faint cell lines on the floor
WALL = "#334155"  # the border wall
WALL_EDGE = "#475569"  # its inner edge
CARD = "#111827"  # the card behind arena and legend
#: Trail, head and head-core colour per seat: neon cyan, neon magenta.
TRAILS = (("#22D3EE", "#A5F3FC", "#ECFEFF"), ("#E879F9", "#F5D0FE", "#FDF4FF"))
CRASH = "#F97316"
NAMES = ("Cyan", "Magenta")
LEGEND_TEXT = "#CBD5E1"

#: Share of the rectangle's shorter side kept free around the card.
_PAD = 0.03
#: Legend height in cells (it never gets shorter than :data:`_LEGEND_MIN_PX`).
_LEGEND_CELLS = 2.2
_LEGEND_MIN_PX = 18.0
#: Label band width in cells, and its least width in pixels.
_LABEL_CELLS = 1.6
_LABEL_MIN_PX = 14.0
#: The card's margin around the arena, in cells.
_CARD_CELLS = 0.6


def parse_cell(item: str) -> tuple[int, int] | None:
    """``"(r,c)"`` (spaces forgiven) to ``(r, c)``; ``None`` for anything that is not a cell."""
    match = _CELL_RE.match(str(item))
    return (int(match.group(1)), int(match.group(2))) if match else None


class _Layout:
    """Where the arena's cells and the legend go in a rectangle."""

    def __init__(self, rect: QRectF, rows: int, cols: int, labels: bool = False) -> None:
        pad = min(rect.width(), rect.height()) * _PAD
        inner = rect.adjusted(pad, pad, -pad, -pad)
        # Cells are square; the legend below takes about two cells' height, and labels (when shown)
        # a band left of and above the arena.
        cell = 1.0
        band = 0.0
        for _ in range(2):
            band = max(_LABEL_MIN_PX, cell * _LABEL_CELLS) if labels else 0.0
            legend = max(_LEGEND_MIN_PX, cell * _LEGEND_CELLS)
            cell = max(
                1.0,
                min(
                    (inner.width() - band) / (cols + 2 * _CARD_CELLS),
                    (inner.height() - band - legend) / (rows + _CARD_CELLS),
                ),
            )
        legend = max(_LEGEND_MIN_PX, cell * _LEGEND_CELLS)
        band = max(_LABEL_MIN_PX, cell * _LABEL_CELLS) if labels else 0.0
        self.cell = cell
        self.band = band
        self.margin = cell * _CARD_CELLS
        width, height = cell * cols, cell * rows
        left = inner.left() + band + (inner.width() - band - width) / 2
        top = inner.top() + band + self.margin + (inner.height() - band - self.margin - height - legend) / 2
        self.arena = QRectF(left, top, width, height)
        self.legend = QRectF(self.arena.left(), self.arena.bottom(), width, legend)
        self.rows, self.cols = rows, cols

    def rect(self, r: int, c: int) -> QRectF:
        return QRectF(
            self.arena.left() + c * self.cell, self.arena.top() + r * self.cell, self.cell, self.cell
        )

    def center(self, r: int, c: int) -> QPointF:
        return QPointF(self.arena.left() + (c + 0.5) * self.cell, self.arena.top() + (r + 0.5) * self.cell)


class SurroundRenderer(Renderer):
    """Draws Surround positions on any grid size."""

    game_id = "surround"
    aspect = 2.0

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw the card, the floor and its grid, the wall, both trails, the heads, crashes,
        highlighted cells, labels and the legend."""
        rows, cols = int(state.rows), int(state.cols)
        if rows < 1 or cols < 1:
            return
        lay = _Layout(rect, rows, cols, grid_labels)
        cell = lay.cell
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(CARD))
        margin = lay.margin
        painter.drawRoundedRect(
            lay.arena.united(lay.legend).adjusted(-margin - lay.band, -margin - lay.band, margin, 0),
            cell * 0.8,
            cell * 0.8,
        )
        self._floor(painter, lay)
        trails: Sequence[Sequence[Sequence[int]]] = state.trails
        crashed = tuple(getattr(state, "crashed", (False, False)))
        for seat, trail in enumerate(trails[:2]):
            self._trail(painter, lay, [(int(r), int(c)) for r, c in trail], seat, bool(crashed[seat]))
        for spot in tuple(getattr(state, "crash_at", (None, None)))[:2]:
            if spot is not None:
                self._crash(painter, lay, (int(spot[0]), int(spot[1])))
        for item in dict.fromkeys(highlight):
            found = parse_cell(item)
            if found is not None and 0 <= found[0] < rows and 0 <= found[1] < cols:
                pen = QPen(color(THEME.highlight), max(1.5, cell * 0.16))
                painter.setPen(pen)
                painter.setBrush(color(THEME.highlight, 60))
                inset = cell * 0.04
                painter.drawRoundedRect(
                    lay.rect(*found).adjusted(inset, inset, -inset, -inset), cell * 0.2, cell * 0.2
                )
        if grid_labels:
            self._labels(painter, lay)
        self._legend(painter, lay, state, trails, crashed)
        painter.restore()

    # -- parts ------------------------------------------------------------------------------------

    @staticmethod
    def _floor(painter: QPainter, lay: _Layout) -> None:
        cell = lay.cell
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(ARENA))
        painter.drawRect(lay.arena)
        if cell >= 6:
            painter.setPen(QPen(color(GRID_LINE), max(1.0, cell * 0.06)))
            left, top, right, bottom = (
                lay.arena.left(),
                lay.arena.top(),
                lay.arena.right(),
                lay.arena.bottom(),
            )
            for c in range(2, lay.cols - 1):
                x = left + c * cell
                painter.drawLine(QPointF(x, top + cell), QPointF(x, bottom - cell))
            for r in range(2, lay.rows - 1):
                y = top + r * cell
                painter.drawLine(QPointF(left + cell, y), QPointF(right - cell, y))
        # The wall: a ring one cell wide, with a lighter inner edge.
        ring = QPainterPath()
        ring.addRect(lay.arena)
        inner = lay.arena.adjusted(cell, cell, -cell, -cell)
        hole = QPainterPath()
        hole.addRect(inner)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(WALL))
        painter.drawPath(ring.subtracted(hole))
        painter.setPen(QPen(color(WALL_EDGE), max(1.0, cell * 0.12)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(inner)

    @staticmethod
    def _trail(
        painter: QPainter, lay: _Layout, trail: Sequence[tuple[int, int]], seat: int, crashed: bool
    ) -> None:
        if not trail:
            return
        cell = lay.cell
        body, bright, core = (color(c) for c in TRAILS[seat % 2])
        path = QPainterPath(lay.center(*trail[0]))
        for r, c in trail[1:]:
            path.lineTo(lay.center(r, c))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if len(trail) > 1:
            for width, alpha in ((1.05, 45), (0.62, 255)):
                glow = QColor(body)
                glow.setAlpha(alpha)
                pen = QPen(glow, cell * width)
                pen.setCapStyle(Qt.PenCapStyle.SquareCap)
                pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
                painter.setPen(pen)
                painter.drawPath(path)
            # A thin bright core runs along the trail: the light-cycle look.
            pen = QPen(bright, max(1.0, cell * 0.14))
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            painter.drawPath(path)
        head = lay.rect(*trail[-1])
        halo = QColor(body)
        halo.setAlpha(90)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(halo)
        grow = cell * 0.22
        painter.drawRoundedRect(head.adjusted(-grow, -grow, grow, grow), cell * 0.45, cell * 0.45)
        inset = cell * 0.06
        painter.setBrush(bright if not crashed else body.darker(140))
        painter.setPen(QPen(body, max(1.0, cell * 0.12)))
        painter.drawRoundedRect(head.adjusted(inset, inset, -inset, -inset), cell * 0.25, cell * 0.25)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(core)
        dot = cell * 0.2
        painter.drawEllipse(head.center(), dot, dot)

    @staticmethod
    def _crash(painter: QPainter, lay: _Layout, spot: tuple[int, int]) -> None:
        cell = lay.cell
        center = lay.center(*spot)
        spikes = QPainterPath()
        points = 8
        for i in range(points * 2):
            angle = math.pi * i / points
            radius = cell * (0.95 if i % 2 == 0 else 0.42)
            p = QPointF(center.x() + radius * math.cos(angle), center.y() + radius * math.sin(angle))
            if i == 0:
                spikes.moveTo(p)
            else:
                spikes.lineTo(p)
        spikes.closeSubpath()
        painter.setPen(QPen(color("#FED7AA"), max(1.0, cell * 0.08)))
        painter.setBrush(color(CRASH, 235))
        painter.drawPath(spikes)

    @staticmethod
    def _labels(painter: QPainter, lay: _Layout) -> None:
        """Row numbers left of the arena, column numbers above it: every one when cells are large
        enough to hold them, else every fifth (with a tick on the others)."""
        cell = lay.cell
        f = font(max(8.0, min(lay.band * 0.55, cell * 0.6)))
        # Two-digit column numbers need about 1.6 em side by side; row numbers stack and need 1.1 em.
        every_col = 1 if cell >= f.pixelSize() * 1.6 else 5
        every_row = 1 if cell >= f.pixelSize() * 1.1 else 5
        ink = color(LEGEND_TEXT)
        muted = color(LEGEND_TEXT, 90)
        top_mid = lay.arena.top() - lay.band / 2
        left_mid = lay.arena.left() - lay.band / 2
        painter.setPen(Qt.PenStyle.NoPen)
        for c in range(lay.cols):
            x = lay.center(0, c).x()
            if c % every_col == 0:
                draw_text_centered(painter, str(c), f, QPointF(x, top_mid), ink)
            else:
                painter.setBrush(muted)
                painter.drawEllipse(QPointF(x, top_mid), 1.0, 1.0)
        for r in range(lay.rows):
            y = lay.center(r, 0).y()
            if r % every_row == 0:
                draw_text_centered(painter, str(r), f, QPointF(left_mid, y), ink)
            else:
                painter.setBrush(muted)
                painter.drawEllipse(QPointF(left_mid, y), 1.0, 1.0)

    @staticmethod
    def _legend(
        painter: QPainter, lay: _Layout, state: Any, trails: Sequence[Any], crashed: Sequence[bool]
    ) -> None:
        band = lay.legend
        size = band.height() * 0.42
        f = font(size, bold=True)
        y = band.center().y()
        x = band.left() + size * 0.3
        for seat in range(min(2, len(trails))):
            body = color(TRAILS[seat][0])
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(body)
            painter.drawRoundedRect(
                QRectF(x, y - size * 0.45, size * 0.9, size * 0.9), size * 0.2, size * 0.2
            )
            x += size * 1.3
            label = f"{NAMES[seat]} {len(trails[seat])}" + (" ✕" if crashed[seat] else "")
            path = text_path(label, f)
            bounds = path.boundingRect()
            path.translate(QPointF(x - bounds.left(), y - bounds.center().y()))
            painter.setBrush(color(LEGEND_TEXT))
            painter.drawPath(path)
            x += bounds.width() + size * 1.4
        status = _status(state, crashed)
        path = text_path(status, font(size))
        bounds = path.boundingRect()
        path.translate(QPointF(band.right() - size * 0.3 - bounds.right(), y - bounds.center().y()))
        painter.setBrush(color(LEGEND_TEXT))
        if band.right() - size * 0.3 - bounds.width() > x:  # only when it fits beside the names
            painter.drawPath(path)

    # -- geometry for the app ---------------------------------------------------------------------

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the cell ``"(r,c)"`` is drawn, or for a move of ``seat`` ("Move Up", "Move Left
        Unsafe") the cell next to that seat's head it goes to; ``None`` for anything else."""
        found = parse_cell(item)
        rows, cols = int(state.rows), int(state.cols)
        step = next((d for word, d in _MOVES.items() if word in item.lower()), None)
        if found is None and step is not None and seat is not None:
            head = state.trails[seat][-1]
            found = (head[0] + step[0], head[1] + step[1])
        if found is None or not (0 <= found[0] < rows and 0 <= found[1] < cols):
            return None
        return _Layout(QRectF(0, 0, width, height), rows, cols).rect(*found)


#: The words of a move item and the step each takes (row, col).
_MOVES = {"move up": (-1, 0), "move down": (1, 0), "move left": (0, -1), "move right": (0, 1)}


def _status(state: Any, crashed: Sequence[bool]) -> str:
    tick = int(getattr(state, "tick", 0))
    if crashed[0] and crashed[1]:
        return f"tick {tick} · draw"
    for seat in (0, 1):
        if crashed[1 - seat]:
            return f"tick {tick} · {NAMES[seat]} wins"
    return f"tick {tick}"


def _played_state(moves: Sequence[str]) -> Any:
    """A real game after ``moves`` (each ``"a,b"``: seat 0's and seat 1's action)."""
    import engine

    state = engine.make("surround").initial_state(seed=0)
    for pair in moves:
        a, b = pair.split(",")
        state = state.apply({0: a.strip(), 1: b.strip()})
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Surround picture (``surround-sample.png`` by default) to the current folder."""
    parser = sample_parser(SurroundRenderer, main.__doc__, highlight='cells to mark, e.g. "(5,20)"')
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["straight,straight"] * 6 + ["up,down"] * 4 + ["left,right"] * 5,
        help='joint actions from the start, each "cyan,magenta", e.g. "up,down"',
    )
    args = parser.parse_args(argv)
    return write_sample(SurroundRenderer(), _played_state(args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
