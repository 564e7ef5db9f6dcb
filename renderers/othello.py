"""The Othello and Reversi renderers: an 8x8 board of discs with coordinates on every image.

:class:`OthelloRenderer` draws a green felt board in a dark frame with shaded discs. It reads only
``state.cells`` (64 entries ``"B"``/``"W"``/``""`` in reading order: row 1 first, columns A to H) and
``state.last_action`` (``"(D,3)"``, ``"pass"`` or ``None``). Column letters A-H are written above the
board and row numbers 1-8 on its left on every image, whatever ``grid_labels`` says: GameBot's prompts
name squares that way. Highlights are cells such as ``"(D,3)"`` (``"D3"`` is accepted too);
:meth:`~OthelloRenderer.hit_test` maps a click to the square under it and
:meth:`~OthelloRenderer.cell_rect` is its inverse.

:class:`ReversiRenderer` is the same drawing in LVLM-Playground's screenshot style, which its models
read: flat green (0,128,0) squares with black borders, flat black and white discs two thirds of a
square wide, and its labels, row letters A-H down the left and column numbers 1-8 on top, in bold
black. Its squares are named the LVLM way, ``"D3"`` = row D, column 3 (``"3D"`` is accepted too); the
cells are the same 64 entries in the same reading order (row A = the top row).

Run ``python -m renderers.othello`` (``--reversi`` for Reversi) to write a sample picture.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QLinearGradient, QPainter, QPen

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

__all__ = ["OthelloRenderer", "ReversiRenderer", "parse_cell", "parse_lvlm_cell"]

_SIZE = 8
_COLUMNS = "ABCDEFGH"
_CELL_RE = re.compile(r"^\s*\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])\s*\)?\s*$")
_LVLM_CELL_RE = re.compile(r"^\s*(?:([A-Ha-h])\s*([1-8])|([1-8])\s*([A-Ha-h]))\s*$")

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


def parse_lvlm_cell(item: str) -> tuple[int, int] | None:
    """``"D3"`` or ``"3d"`` (row letter, column number) to ``(row, col)`` zero-based; ``None`` otherwise."""
    match = _LVLM_CELL_RE.match(str(item))
    if not match:
        return None
    letter, digit = (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
    return _COLUMNS.index(letter.upper()), int(digit) - 1


class OthelloRenderer(Renderer):
    """Draws Othello positions; Black (seat 0) and White (seat 1) discs with soft shading."""

    game_id = "othello"
    aspect = 1.0

    # The style, which :class:`ReversiRenderer` changes.
    #: Felt colours at the top and the bottom of the board.
    felt: tuple[str, str] = (_FELT_TOP, _FELT_BOTTOM)
    #: The frame around the board (``None``: no frame) and the grid lines' colour and width (per cell).
    frame: str | None = _FRAME
    grid: str = _GRID
    grid_width: float = _GRID_WIDTH
    #: Whether the four marker dots of a tournament board are drawn.
    dots: bool = True
    #: ``"shaded"`` (radial shading and a shadow) or ``"flat"`` (one colour and a black outline) discs.
    discs: str = "shaded"
    #: Labels above the columns and left of the rows, their colour (``None``: the theme's) and size.
    column_labels: str = _COLUMNS
    row_labels: str = "12345678"
    label_ink: str | None = None
    label_size: float = 0.46

    @staticmethod
    def name(row: int, col: int) -> str:
        """The name of the square at ``(row, col)`` (zero-based): ``"(D,3)"``."""
        return f"({_COLUMNS[col]},{row + 1})"

    @staticmethod
    def parse(item: str) -> tuple[int, int] | None:
        """``(row, col)`` of a square named ``item``; ``None`` for anything else."""
        return parse_cell(item)

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
        geo = GridGeometry.of(rect, _SIZE)
        area, cell, square, band = geo.area, geo.cell, geo.cell_rect, geo.band
        cells: Sequence[str] = state.cells

        painter.save()
        frame = band * 0.16 if self.frame else 0.0
        painter.setPen(Qt.PenStyle.NoPen)
        if self.frame:
            painter.setBrush(color(self.frame))
            outer = area.adjusted(-frame, -frame, frame, frame)
            painter.drawRoundedRect(outer, frame * 1.2, frame * 1.2)

        top, bottom = self.felt
        if top == bottom:
            painter.setBrush(color(top))
        else:
            felt = QLinearGradient(area.topLeft(), area.bottomLeft())
            felt.setColorAt(0.0, color(top))
            felt.setColorAt(1.0, color(bottom))
            painter.setBrush(QBrush(felt))
        painter.drawRect(area)

        for r, c in unique_items(highlight, self.parse):
            inset = cell * 0.05
            painter.setPen(QPen(color(THEME.highlight), max(1.5, cell * 0.05)))
            painter.setBrush(color(_HIGHLIGHT_FILL, 190))
            shaded = square(r, c).adjusted(inset, inset, -inset, -inset)
            painter.drawRoundedRect(shaded, cell * 0.08, cell * 0.08)

        grid = QPen(color(self.grid), max(1.0, cell * self.grid_width))
        painter.setPen(grid)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i in range(1, _SIZE):
            x = area.left() + i * cell
            y = area.top() + i * cell
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        painter.drawRect(area)
        if self.dots:
            # The four marker dots of a tournament board, at the corners of the central 4x4 square.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color(self.grid))
            dot = max(1.5, cell * 0.075)
            for i in (2, 6):
                for j in (2, 6):
                    painter.drawEllipse(QPointF(area.left() + j * cell, area.top() + i * cell), dot, dot)

        for index, mark in enumerate(cells[: _SIZE * _SIZE]):
            if mark in ("B", "W"):
                self._draw_disc(painter, square(index // _SIZE, index % _SIZE), mark, self.discs)

        last = self.parse(getattr(state, "last_action", None) or "")
        if last is not None:
            center = square(*last).center()
            painter.setPen(QPen(color("#FFFFFF", 200), max(1.0, cell * 0.02)))
            painter.setBrush(color(_LAST_MOVE))
            dot = cell * 0.085
            painter.drawEllipse(center, dot, dot)

        labels = font(band * self.label_size, bold=True)
        ink = color(self.label_ink or THEME.ink_muted)
        for c in range(_SIZE):
            center = QPointF(area.left() + (c + 0.5) * cell, area.top() - frame - (band - frame) / 2)
            draw_text_centered(painter, self.column_labels[c], labels, center, ink)
        for r in range(_SIZE):
            center = QPointF(area.left() - frame - (band - frame) / 2, area.top() + (r + 0.5) * cell)
            draw_text_centered(painter, self.row_labels[r], labels, center, ink)
        painter.restore()

    @staticmethod
    def _draw_disc(painter: QPainter, square: QRectF, mark: str, style: str = "shaded") -> None:
        """Stamp the cached sprite of a ``mark`` disc in ``style`` on ``square``."""
        sprite = _disc_sprite(mark, round(square.width() * 4) / 4, style)
        painter.drawImage(QPointF(round(square.left()), round(square.top())), sprite)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The square (``"(D,3)"``; Reversi ``"C4"``) under pixel (``x``, ``y``), whatever is on it;
        ``None`` off the board."""
        spot = GridGeometry.sized(width, height, _SIZE).cell_at(x, y)
        return None if spot is None else self.name(*spot)

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the square ``item`` (``"(D,3)"`` or ``"D3"``; Reversi ``"C4"`` or ``"4C"``) is drawn;
        ``None`` for anything else."""
        parsed = self.parse(item)
        if parsed is None:
            return None
        return GridGeometry.sized(width, height, _SIZE).cell_rect(*parsed)


class ReversiRenderer(OthelloRenderer):
    """Draws Reversi positions in LVLM-Playground's screenshot style (see the module's documentation)."""

    game_id = "reversi"

    felt = ("#008000", "#008000")
    frame = None
    grid = "#000000"
    grid_width = 0.022
    dots = False
    discs = "flat"
    column_labels = "12345678"
    row_labels = _COLUMNS
    label_ink = "#000000"
    label_size = 0.5

    @staticmethod
    def name(row: int, col: int) -> str:
        """The name of the square at ``(row, col)`` (zero-based): ``"D3"`` = row D, column 3."""
        return f"{_COLUMNS[row]}{col + 1}"

    @staticmethod
    def parse(item: str) -> tuple[int, int] | None:
        return parse_lvlm_cell(item)


def _disc_sprite(mark: str, size: float, style: str = "shaded") -> QImage:
    """A disc of colour ``mark`` on a transparent ``size``-pixel square, shadow included; cached per size,
    since painting 64 radial gradients per frame would cost most of the frame budget. ``style="flat"``
    is LVLM-Playground's disc: one colour, a black outline, two thirds of the square wide."""
    key = (mark, size, style)
    sprite = _SPRITES.get(key)
    if sprite is not None:
        return sprite
    sprite, painter = sprite_canvas(int(size) + 2)
    center = QPointF(size / 2, size / 2)
    if style == "flat":
        radius = size / 3
        painter.setPen(QPen(QColor("#000000"), max(1.0, size * 0.02)))
        painter.setBrush(QColor("#000000" if mark == "B" else "#FFFFFF"))
        painter.drawEllipse(center, radius, radius)
    else:
        if mark == "B":
            stops, rim = [(0.0, "#5E6166"), (0.45, "#26282B"), (1.0, "#08090A")], QColor(0, 0, 0, 200)
        else:
            stops, rim = [(0.0, "#FFFFFF"), (0.55, "#F1F2F4"), (1.0, "#BFC4CB")], QColor("#8D949C")
        shaded_disc(
            painter,
            center,
            size * _DISC_RADIUS,
            stops,
            rim,
            max(0.8, size * 0.018),
            shadow=_SHADOW_OFFSET * size,
            shadow_alpha=70,
            spread=1.45,
        )
    painter.end()
    return _SPRITES.keep(key, sprite)


#: Disc sprites by (mark, cell size in quarter pixels, style).
_SPRITES = SpriteCache(64)


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Othello (or Reversi) picture (``othello-sample.png`` by default) to the current
    folder."""
    parser = sample_parser(
        OthelloRenderer,
        main.__doc__,
        highlight='squares to shade: "(D,3)"; Reversi C4',
        grid_labels="(coordinates are always drawn)",
    )
    parser.set_defaults(out=None)
    parser.add_argument("--reversi", action="store_true", help="draw Reversi (LVLM-Playground's style)")
    parser.add_argument("--start", default="gamebot", help="Othello's start option (gamebot or lvlm)")
    parser.add_argument(
        "--moves",
        nargs="*",
        default=None,
        help='moves to play from the start, e.g. "(E,3)" "(F,3)" (Reversi: C4 C3)',
    )
    args = parser.parse_args(argv)
    renderer = ReversiRenderer() if args.reversi else OthelloRenderer()
    if args.out is None:
        args.out = Path(f"{renderer.game_id}-sample.png")
    if args.moves is None:
        args.moves = ["C4", "C3", "C2", "E3"] if args.reversi else ["(E,3)", "(F,3)", "(G,3)", "(F,5)"]
    options = {} if args.reversi else {"start": args.start}
    return write_sample(renderer, played_state(renderer.game_id, args.moves, **options), args)


if __name__ == "__main__":
    sys.exit(main())
