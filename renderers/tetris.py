"""The Tetris renderer: the well with its settled blocks, the falling piece and its ghost (where a hard
drop would land it), the hold box and the score on the left, the next pieces on the right.

Reads only a state's ``board`` (bytes, row by row from the top, 0 empty, code k the piece
``kinds[k - 1]``), ``kinds``, ``width``, ``height``, ``piece``, ``cells()``, ``ghost_cells()``,
``shape(kind)``, ``queue``, ``hold``, ``held``, ``raw_score``, ``lines``, ``pieces``, ``step``,
``max_steps``, ``is_over``, ``topped`` and ``ending``. Tetris is played with the keyboard, so
:meth:`hit_test` answers ``None``.

Speed: the parts that do not change from frame to frame (canvas, panels, headings, the empty well)
are drawn once per picture size, the well with its settled blocks once per board (it changes only
when a piece locks), and blocks, preview pieces, numbers and the step counter's glyphs are small
cached pictures. A frame is then a few blits.

Run ``python -m renderers.tetris`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QLinearGradient, QPainter, QPen

from renderers.base import (
    THEME,
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

__all__ = ["TetrisRenderer"]

#: Our own palette, one colour per piece letter.
PIECE_COLORS: dict[str, str] = {
    "I": "#1FB5CF",
    "J": "#3867D6",
    "L": "#EE8A2C",
    "O": "#EDC233",
    "S": "#34B36B",
    "T": "#9A5BD6",
    "Z": "#E0474C",
}
_WELL = "#16202F"
_WELL_LINE = "#223047"
_PANEL = "#FFFFFF"
_PANEL_EDGE = "#CBD2DB"
_LABEL = "#64748B"

# Layout in units of one well cell: [hold/score panel] gap [well 10 x 20] gap [next panel].
_SIDE = 5.0
_GAP = 0.8
_PAD = 0.6
_COLS_TOTAL = _SIDE + _GAP + 10 + _GAP + _SIDE + 2 * _PAD
_ROWS_TOTAL = 20 + 2 * _PAD
_ARGB = QImage.Format.Format_ARGB32_Premultiplied
#: The heights of the first (larger) and the other slots of the next-piece column.
_FIRST_SLOT = 3.2
_SLOT = 2.45


def _shade(hex_rgb: str, factor: float) -> QColor:
    """``hex_rgb`` lightened (factor > 1) or darkened (factor < 1)."""
    c = QColor(hex_rgb)
    return c.lighter(round(factor * 100)) if factor >= 1 else c.darker(round(100 / factor))


class _Layout:
    """Where everything goes in a ``width`` x ``height`` picture (whole pixels, so edges are crisp)."""

    def __init__(self, rect: QRectF, cols: int, rows: int, preview: int) -> None:
        unit = min(rect.width() / (_COLS_TOTAL - 10 + cols), rect.height() / (_ROWS_TOTAL - 20 + rows))
        self.cell = max(2, int(unit))
        cell = self.cell
        total_w = cell * (_COLS_TOTAL - 10 + cols)
        total_h = cell * (_ROWS_TOTAL - 20 + rows)
        left = round(rect.left() + (rect.width() - total_w) / 2 + _PAD * cell)
        top = round(rect.top() + (rect.height() - total_h) / 2 + _PAD * cell)
        side = round(_SIDE * cell)
        gap = round(_GAP * cell)
        self.cols, self.rows, self.preview = cols, rows, preview
        self.left_panel = QRectF(left, top, side, rows * cell)
        self.well = QRectF(left + side + gap, top, cols * cell, rows * cell)
        self.right_panel = QRectF(self.well.right() + gap, top, side, rows * cell)
        self.hold_box = QRectF(left, top + round(1.3 * cell), side, round(3.6 * cell))
        slots = _FIRST_SLOT + _SLOT * max(0, preview - 1) + 0.9
        self.next_box = QRectF(self.right_panel.left(), top + round(1.3 * cell), side, round(slots * cell))

        #: The well's cells in whole pixels.
        self.well_px = QRect(int(self.well.left()), int(self.well.top()), cols * cell, rows * cell)
        #: The left edge of each column's cells and the top edge of each row's, in pixels.
        self.xs = [int(self.well.left()) + c * cell for c in range(cols)]
        self.ys = [int(self.well.top()) + r * cell for r in range(rows)]


class TetrisRenderer(Renderer):
    """Draws Tetris positions."""

    game_id = "tetris"
    aspect = 1.25

    def __init__(self) -> None:
        self._sprites = SpriteCache(512)
        self._statics = SpriteCache(8)
        #: The well with its settled blocks (see :meth:`_settled`), by board and size.
        self._layers = SpriteCache(8)
        self._layouts: dict[tuple[int, int, int, int, int], _Layout] = {}
        self._fonts: dict[tuple[int, bool], Any] = {}

    # -- cached pictures -----------------------------------------------------------------------------

    def _block(self, kind: str, side: int, ghost: bool = False) -> QImage:
        key = (kind, side, ghost)
        sprite = self._sprites.get(key)
        if sprite is not None:
            return sprite
        sprite, painter = sprite_canvas(side)
        base = PIECE_COLORS.get(kind, "#94A3B8")
        inset = max(1.0, side * 0.06)
        body = QRectF(inset / 2, inset / 2, side - inset, side - inset)
        radius = side * 0.14
        if ghost:
            painter.setBrush(color(base, 60))
            painter.setPen(QPen(color(base, 210), max(1.0, side * 0.08)))
            painter.drawRoundedRect(body.adjusted(inset, inset, -inset, -inset), radius, radius)
        else:
            gradient = QLinearGradient(body.topLeft(), body.bottomRight())
            gradient.setColorAt(0.0, _shade(base, 1.25))
            gradient.setColorAt(1.0, _shade(base, 0.8))
            painter.setPen(QPen(_shade(base, 0.62), max(1.0, side * 0.05)))
            painter.setBrush(gradient)
            painter.drawRoundedRect(body, radius, radius)
            # A soft highlight along the top-left: our block's "glint".
            glint = QRectF(body.left() + side * 0.18, body.top() + side * 0.16, side * 0.42, side * 0.14)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 110))
            painter.drawRoundedRect(glint, side * 0.07, side * 0.07)
        painter.end()
        return self._sprites.keep(key, sprite)

    def _static(self, width: int, height: int, layout: _Layout) -> QImage:
        key = (width, height, layout.cols, layout.rows, layout.preview)
        image = self._statics.get(key)
        if image is not None:
            return image
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(color(THEME.background))
        painter = QPainter(image)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        cell = layout.cell
        # The well: a dark, slightly rounded tray with a faint grid.
        frame = layout.well.adjusted(-cell * 0.18, -cell * 0.18, cell * 0.18, cell * 0.18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_WELL))
        painter.drawRoundedRect(frame, cell * 0.25, cell * 0.25)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(QPen(color(_WELL_LINE), 1))
        left, top = int(layout.well.left()), int(layout.well.top())
        right, bottom = left + layout.cols * cell, top + layout.rows * cell
        for c in range(1, layout.cols):
            painter.drawLine(left + c * cell, top, left + c * cell, bottom - 1)
        for r in range(1, layout.rows):
            painter.drawLine(left, top + r * cell, right - 1, top + r * cell)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # The side panels: white cards with their headings.
        painter.setPen(QPen(color(_PANEL_EDGE), max(1.0, cell * 0.05)))
        painter.setBrush(color(_PANEL))
        for box in (layout.hold_box, layout.next_box, self._score_box(layout)):
            painter.drawRoundedRect(box, cell * 0.3, cell * 0.3)
        heading = font(cell * 0.62, bold=True)
        for text, box in (("HOLD", layout.hold_box), ("NEXT", layout.next_box)):
            draw_text_centered(
                painter, text, heading, QPointF(box.center().x(), box.top() - cell * 0.6), color(_LABEL)
            )
        small = font(cell * 0.5, bold=True)
        for i, label in enumerate(("SCORE", "LINES", "PIECES")):
            y = self._score_box(layout).top() + cell * (0.75 + 2.4 * i)
            draw_text_centered(
                painter, label, small, QPointF(layout.left_panel.center().x(), y), color(_LABEL)
            )
        painter.end()
        return self._statics.keep(key, image)

    @staticmethod
    def _score_box(layout: _Layout) -> QRectF:
        cell = layout.cell
        return QRectF(
            layout.left_panel.left(),
            layout.hold_box.bottom() + cell * 0.9,
            layout.hold_box.width(),
            round(7.4 * cell),
        )

    # -- painting -------------------------------------------------------------------------------------

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw the well, the blocks, the ghost and the falling piece, hold, score and the next pieces."""
        width, height = int(rect.width()), int(rect.height())
        if width < 8 or height < 8:
            return
        cols, rows = int(state.width), int(state.height)
        layout = self._layout(width, height, cols, rows, len(state.queue))
        painter.save()
        painter.translate(round(rect.left()), round(rect.top()))  # whole pixels keep blocks sharp
        painter.drawImage(0, 0, self._static(width, height, layout))
        painter.drawImage(layout.xs[0], layout.ys[0], self._settled(state, width, height, layout))
        self._hold(painter, state, layout)
        self._next(painter, state, layout)
        self._scores(painter, state, layout)
        cell = layout.cell
        xs, ys = layout.xs, layout.ys
        if not state.is_over:
            ghost = self._block(state.piece, cell, ghost=True)
            falling = set(state.cells())
            for r, c in state.ghost_cells():
                if (r, c) not in falling:
                    painter.drawImage(xs[c], ys[r], ghost)
        # A piece that found no room to enter is drawn as an outline over the blocks in its way.
        piece = self._block(state.piece, cell, ghost=bool(state.topped))
        for r, c in state.cells():
            if 0 <= r < rows and 0 <= c < cols:
                painter.drawImage(xs[c], ys[r], piece)
        steps = f"step {int(state.step)} / {int(state.max_steps)}"
        box = self._score_box(layout)
        self._counter(
            painter, steps, cell * 0.42, QPointF(layout.left_panel.center().x(), box.bottom() + cell * 0.75)
        )
        if state.is_over:
            self._game_over(painter, state, layout)
        painter.restore()

    def _counter(self, painter: QPainter, text: str, size: float, center: QPointF) -> None:
        """``text`` centred on ``center``, one cached glyph picture a character: the step counter
        changes every frame, and blitting a dozen glyphs costs far less than filling its outline."""
        px = max(1, round(size))
        glyphs = []
        for ch in text:
            key = ("glyph", ch, px)
            glyph = self._sprites.get(key)
            if glyph is None:
                f = font(px)
                metrics = QFontMetricsF(f)
                advance = max(1, math.ceil(metrics.horizontalAdvance(ch)))
                glyph = QImage(advance, math.ceil(metrics.ascent() + metrics.descent()), _ARGB)
                glyph.fill(Qt.GlobalColor.transparent)
                p = QPainter(glyph)
                p.setRenderHint(QPainter.RenderHint.Antialiasing)
                path = text_path(ch, f)
                path.translate(0, metrics.ascent())
                p.fillPath(path, color(_LABEL))
                p.end()
                glyph = self._sprites.keep(key, glyph)
            glyphs.append(glyph)
        total = sum(g.width() for g in glyphs)
        x = round(center.x() - total / 2)
        y = round(center.y() - glyphs[0].height() / 2) if glyphs else 0
        for glyph in glyphs:
            painter.drawImage(x, y, glyph)
            x += glyph.width()

    def _font(self, size: float, *, bold: bool = False) -> Any:
        key = (max(1, round(size)), bold)
        f = self._fonts.get(key)
        if f is None:
            f = self._fonts[key] = font(key[0], bold=bold)
        return f

    def _layout(self, width: int, height: int, cols: int, rows: int, preview: int) -> _Layout:
        key = (width, height, cols, rows, preview)
        layout = self._layouts.get(key)
        if layout is None:
            if len(self._layouts) >= 32:
                self._layouts.clear()
            layout = self._layouts[key] = _Layout(QRectF(0, 0, width, height), cols, rows, preview)
        return layout

    def _settled(self, state: Any, width: int, height: int, layout: _Layout) -> QImage:
        """The well with its settled blocks (without the falling piece), as an opaque picture of the
        well's size. It changes only when a piece locks, so it is drawn once and reused while a piece
        falls."""
        key = (width, height, layout.cols, layout.rows, bytes(state.board))
        image = self._layers.get(key)
        if image is not None:
            return image
        image = self._static(width, height, layout).copy(layout.well_px)
        painter = QPainter(image)
        kinds, board, cols, cell = state.kinds, state.board, layout.cols, layout.cell
        blocks = {k: self._block(k, cell) for k in kinds}
        for r in range(layout.rows):
            line = board[r * cols : (r + 1) * cols]
            if not any(line):
                continue
            for c, code in enumerate(line):
                if code:
                    painter.drawImage(c * cell, r * cell, blocks[kinds[code - 1]])
        painter.end()
        return self._layers.keep(key, image)

    def _mini(
        self, painter: QPainter, state: Any, kind: str, box: QRectF, side: int, dim: bool = False
    ) -> None:
        """``kind`` as it enters, centred in ``box`` with cells of ``side`` pixels."""
        key = ("mini", kind, side, dim)
        sprite = self._sprites.get(key)
        if sprite is None:
            cells = state.shape(kind)
            w = (max(c for _, c in cells) + 1) * side
            h = (max(r for r, _ in cells) + 1) * side
            sprite = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
            sprite.fill(Qt.GlobalColor.transparent)
            p = QPainter(sprite)
            p.setOpacity(0.35 if dim else 1.0)
            block = self._block(kind, side)
            for r, c in cells:
                p.drawImage(c * side, r * side, block)
            p.end()
            sprite = self._sprites.keep(key, sprite)
        x0 = round(box.center().x() - sprite.width() / 2)
        y0 = round(box.center().y() - sprite.height() / 2)
        painter.drawImage(x0, y0, sprite)

    def _hold(self, painter: QPainter, state: Any, layout: _Layout) -> None:
        if state.hold:
            side = max(2, int(layout.cell * 0.8))
            self._mini(painter, state, state.hold, layout.hold_box, side, dim=bool(state.held))

    def _next(self, painter: QPainter, state: Any, layout: _Layout) -> None:
        cell = layout.cell
        box = layout.next_box
        y = box.top() + cell * 0.4
        for i, kind in enumerate(state.queue):
            scale = 0.8 if i == 0 else 0.62
            slot = round(cell * (_FIRST_SLOT if i == 0 else _SLOT))
            if y + slot > box.bottom():
                break
            self._mini(
                painter, state, kind, QRectF(box.left(), y, box.width(), slot), max(2, int(cell * scale))
            )
            y += slot

    def _scores(self, painter: QPainter, state: Any, layout: _Layout) -> None:
        cell = layout.cell
        box = self._score_box(layout)
        big = self._font(cell * 1.0, bold=True)
        x = layout.left_panel.center().x()
        values = (state.raw_score, state.lines, state.pieces)
        for i, value in enumerate(values):
            y = box.top() + cell * (1.75 + 2.4 * i)
            sprite = self._text(str(int(value)), big, THEME.ink)
            painter.drawImage(round(x - sprite.width() / 2), round(y - sprite.height() / 2), sprite)

    def _text(self, text: str, f: Any, ink: str) -> QImage:
        """``text`` in font ``f`` as a cached picture just large enough for its ink (drawn centred, it
        puts the ink's centre where :func:`draw_text_centered` would)."""
        key = ("text", text, f.pixelSize(), f.bold(), ink)
        sprite = self._sprites.get(key)
        if sprite is not None:
            return sprite
        path = text_path(text, f)
        bounds = path.boundingRect()
        sprite = QImage(math.ceil(bounds.width()) + 2, math.ceil(bounds.height()) + 2, _ARGB)
        sprite.fill(Qt.GlobalColor.transparent)
        path.translate(1 - bounds.left(), 1 - bounds.top())
        p = QPainter(sprite)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillPath(path, color(ink))
        p.end()
        return self._sprites.keep(key, sprite)

    def _game_over(self, painter: QPainter, state: Any, layout: _Layout) -> None:
        cell = layout.cell
        well = layout.well
        band = QRectF(well.left(), well.center().y() - cell * 1.9, well.width(), cell * 3.8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(10, 14, 22, 215))
        painter.drawRect(band)
        draw_text_centered(
            painter,
            "GAME OVER",
            font(cell * 1.05, bold=True),
            QPointF(band.center().x(), band.top() + cell * 1.3),
            color("#FFFFFF"),
        )
        reason = str(state.ending)
        size = cell * 0.42
        f = font(size)
        while size > 6 and _too_wide(reason, f, well.width()):
            size -= 1
            f = font(size)
        draw_text_centered(
            painter, reason, f, QPointF(band.center().x(), band.top() + cell * 2.75), color("#CBD5E1")
        )


def _too_wide(text: str, f: Any, width: float) -> bool:
    return text_path(text, f).boundingRect().width() > width * 0.94


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Tetris picture (``tetris-sample.png`` by default) to the current folder."""
    parser = sample_parser(TetrisRenderer, main.__doc__, board=False)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40, help="random actions played before the picture")
    args = parser.parse_args(argv)
    state = played_state("tetris", (), seed=args.seed)
    rng = random.Random(args.seed)
    for _ in range(args.steps):
        if state.is_over:
            break
        state = state.apply(rng.choice(("left", "right", "rotate_right", "hard_drop", "no_op")))
    return write_sample(TetrisRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
