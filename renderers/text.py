"""The fallback renderer: any game's text view drawn as a board, for games without a renderer.

A game registered without a ``playtrace.renderers`` entry point is still drawn, on screen and in the
image a vision model is sent: its text view (``state.text()``), one character per cell of a fixed
grid, so columns line up whatever the font. Because the state it is given is a seat's view, the
picture shows nothing that seat may not see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter, QPen

from renderers.base import THEME, Renderer, color, draw_text_centered, font

__all__ = ["TextRenderer"]

#: Width / height of one character cell.
_CELL_ASPECT = 0.62
_PADDING = 0.05


class TextRenderer(Renderer):
    """Draws ``state.text()`` on a card, in a grid of equal character cells."""

    game_id = "*"
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
        """Draw the card and the text view, scaled to fill ``rect``."""
        lines = str(state.text()).expandtabs(4).splitlines() or [""]
        rows = len(lines)
        cols = max(1, max(len(line) for line in lines))
        pad = min(rect.width(), rect.height()) * _PADDING
        inner = rect.adjusted(pad, pad, -pad, -pad)
        cell_h = min(inner.height() / rows, inner.width() / (cols * _CELL_ASPECT))
        cell_w = cell_h * _CELL_ASPECT
        width, height = cell_w * cols, cell_h * rows
        left = inner.center().x() - width / 2
        top = inner.center().y() - height / 2
        painter.save()
        card = QRectF(left - pad / 2, top - pad / 2, width + pad, height + pad)
        painter.setPen(QPen(color(THEME.line), max(1.0, cell_h * 0.04)))
        painter.setBrush(color(THEME.surface))
        painter.drawRoundedRect(card, pad / 3, pad / 3)
        f = font(cell_h * 0.72)
        ink = color(THEME.ink)
        for r, line in enumerate(lines):
            y = top + (r + 0.5) * cell_h
            for c, ch in enumerate(line):
                if not ch.isspace():
                    draw_text_centered(painter, ch, f, QPointF(left + (c + 0.5) * cell_w, y), ink)
        painter.restore()
