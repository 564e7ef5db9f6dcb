"""The chess renderer: LVLM-Playground's board colours, pieces drawn from the bundled font, coordinates
on every image.

Squares are light #F0D9B5 and dark #B58863 (the reference UI's colours). Pieces are the chess glyphs
of the bundled DejaVu Sans (no third-party sprites): a White piece is the solid glyph filled white
under the outlined glyph in dark ink, a Black piece the solid glyph in near-black with a thin light
rim, so both read on either square colour. File letters a-h are written below and above the board,
rank numbers 1-8 on both sides (rank 8 at the top: White's view, as the paper's images).

Reads only ``state.placement`` (64 characters, rank 8 first, ``PNBRQK``/``pnbrqk``/``.``),
``state.last_move_squares`` (``("e2", "e4")`` or ``()``), ``state.check_square`` and, for highlights
that are moves rather than squares, ``state.move_squares(action)``. The last move's squares are
tinted, a king in check glows red, highlights are amber. :meth:`hit_test` returns the square under a
click (``"e2"``); :meth:`cell_rect` is its inverse (a move's rectangle is its destination square).

Run ``python -m renderers.chess`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QRadialGradient

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
    sprite_canvas,
    text_path,
    write_sample,
)

__all__ = ["ChessRenderer", "parse_square"]

LIGHT = "#F0D9B5"
DARK = "#B58863"
_LAST_MOVE = "#CDD26A"
_CHECK = "#E5484D"
_FILES = "abcdefgh"
_SQUARE_RE = re.compile(r"^\s*\(?\s*([a-hA-H])\s*,?\s*([1-8])\s*\)?\s*$")
#: The solid (Black) glyph of each piece and the outlined (White) one.
_SOLID = {"k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f"}
_OUTLINE = {"k": "\u2654", "q": "\u2655", "r": "\u2656", "b": "\u2657", "n": "\u2658", "p": "\u2659"}


def parse_square(item: str) -> tuple[int, int] | None:
    """``"e4"`` (or ``"(e,4)"``, any case) to (row from the top, column) zero-based; else ``None``."""
    match = _SQUARE_RE.match(str(item))
    if not match:
        return None
    return 8 - int(match.group(2)), _FILES.index(match.group(1).lower())


class ChessRenderer(Renderer):
    """Draws chess positions from White's side."""

    game_id = "chess"
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
        """Draw the squares, the last move, check, highlights, pieces and the coordinates."""
        grid = GridGeometry.of(rect, 8)
        area, cell, square = grid.area, grid.cell, grid.cell_rect
        placement: str = state.placement

        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color("#6B4A2E"))
        frame = cell * 0.06
        painter.drawRect(area.adjusted(-frame, -frame, frame, frame))
        light, dark = color(LIGHT), color(DARK)
        for r in range(8):
            for c in range(8):
                painter.setBrush(light if (r + c) % 2 == 0 else dark)
                painter.drawRect(square(r, c))
        for name in getattr(state, "last_move_squares", ()) or ():
            spot = parse_square(name)
            if spot is not None:
                painter.setBrush(color(_LAST_MOVE, 170))
                painter.drawRect(square(*spot))
        checked = parse_square(getattr(state, "check_square", None) or "")
        if checked is not None:
            box = square(*checked)
            glow = QRadialGradient(box.center(), cell * 0.62)
            glow.setColorAt(0.0, color(_CHECK, 235))
            glow.setColorAt(0.55, color(_CHECK, 150))
            glow.setColorAt(1.0, color(_CHECK, 0))
            painter.setBrush(glow)
            painter.drawRect(box)
        for spot in self._highlighted(state, highlight):
            inset = cell * 0.05
            painter.setPen(QPen(color(THEME.highlight), max(1.5, cell * 0.07)))
            painter.setBrush(color(THEME.highlight, 70))
            painter.drawRect(square(*spot).adjusted(inset, inset, -inset, -inset))
        painter.setPen(Qt.PenStyle.NoPen)
        for index, symbol in enumerate(placement[:64]):
            if symbol != ".":
                box = square(index // 8, index % 8)
                sprite = _piece_sprite(symbol, round(cell * 4) / 4)
                painter.drawImage(QPointF(round(box.left()), round(box.top())), sprite)

        band = grid.band
        labels = font(band * 0.42, bold=True)
        ink = color(THEME.ink_muted)
        offset = frame + (band - frame) / 2
        for c in range(8):
            x = area.left() + (c + 0.5) * cell
            draw_text_centered(painter, _FILES[c], labels, QPointF(x, area.bottom() + offset), ink)
            draw_text_centered(painter, _FILES[c], labels, QPointF(x, area.top() - offset), ink)
        for r in range(8):
            y = area.top() + (r + 0.5) * cell
            draw_text_centered(painter, str(8 - r), labels, QPointF(area.left() - offset, y), ink)
            draw_text_centered(painter, str(8 - r), labels, QPointF(area.right() + offset, y), ink)
        painter.restore()

    @staticmethod
    def _highlighted(state: Any, items: Sequence[str]) -> list[tuple[int, int]]:
        """Squares named by ``items``: a square itself, or a move's two squares (from the state)."""
        found: dict[tuple[int, int], None] = {}
        resolve = getattr(state, "move_squares", None)
        for item in items:
            spot = parse_square(item)
            if spot is not None:
                found.setdefault(spot, None)
                continue
            squares = resolve(item) if callable(resolve) else None
            for name in squares or ():
                parsed = parse_square(name)
                if parsed is not None:
                    found.setdefault(parsed, None)
        return list(found)

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The square (``"e2"``) under pixel (``x``, ``y``); ``None`` off the board."""
        spot = GridGeometry.sized(width, height, 8).cell_at(x, y)
        return None if spot is None else f"{_FILES[spot[1]]}{8 - spot[0]}"

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where the square ``item`` is drawn; a move (SAN) gives its destination square."""
        spot = parse_square(item)
        if spot is None:
            resolve = getattr(state, "move_squares", None)
            squares = resolve(item) if callable(resolve) else None
            spot = parse_square(squares[1]) if squares else None
        if spot is None:
            return None
        return GridGeometry.sized(width, height, 8).cell_rect(*spot)


def _glyph(symbol: str, size: float, outline: bool) -> QPainterPath:
    """The glyph of ``symbol`` scaled to ``size`` and centred in a ``size`` square."""
    kind = symbol.lower()
    path = text_path((_OUTLINE if outline else _SOLID)[kind], font(size * 0.9))
    solid = text_path(_SOLID[kind], font(size * 0.9)).boundingRect()  # both glyphs share one frame
    path.translate(QPointF(size / 2, size * 0.53) - solid.center())
    return path


def _piece_sprite(symbol: str, size: float) -> QImage:
    """A piece on a transparent ``size``-pixel square; cached per size (text outlines are the costly
    part of a frame)."""
    key = (symbol, size)
    sprite = _SPRITES.get(key)
    if sprite is not None:
        return sprite
    sprite, painter = sprite_canvas(int(size) + 2)
    solid = _glyph(symbol, size, outline=False)
    white = symbol.isupper()
    body, rim = (QColor("#FFFFFF"), QColor("#1B1B1B")) if white else (QColor("#161514"), QColor("#F4F1EA"))
    # The rim is a stroke drawn under the body, so only its outer half shows: a stroke on top would
    # paint over the glyph's thin parts and small inner shapes.
    painter.setPen(
        QPen(
            rim,
            max(1.5, size * 0.05),
            Qt.PenStyle.SolidLine,
            Qt.PenCapStyle.RoundCap,
            Qt.PenJoinStyle.RoundJoin,
        )
    )
    painter.setBrush(body)
    painter.drawPath(solid)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawPath(solid)
    if white:
        painter.setBrush(rim)
        painter.drawPath(_glyph(symbol, size, outline=True))
    painter.end()
    return _SPRITES.keep(key, sprite)


#: Piece sprites by (symbol, cell size in quarter pixels).
_SPRITES = SpriteCache(240)


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample chess picture (``chess-sample.png`` by default) to the current folder."""
    parser = sample_parser(
        ChessRenderer,
        main.__doc__,
        highlight="squares or moves to mark, e.g. e4 Nf3",
        grid_labels="(coordinates are always drawn)",
    )
    parser.add_argument(
        "--moves",
        nargs="*",
        default=["e4", "e5", "Nf3", "Nc6", "Bb5"],
        help="SAN moves to play from the start",
    )
    args = parser.parse_args(argv)
    return write_sample(ChessRenderer(), played_state("chess", args.moves), args)


if __name__ == "__main__":
    sys.exit(main())
