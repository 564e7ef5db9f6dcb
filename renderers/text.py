"""The fallback renderer: any game's text view drawn as a board, for games without a renderer.

A game registered without a ``playtrace.renderers`` entry point is still drawn, on screen and in the
image a vision model is sent: its text view (``state.text()``) in the bundled monospaced font, so
columns line up as they do in the text a model reads. Because the state it is given is a seat's view,
the picture shows nothing that seat may not see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPen

from renderers.base import THEME, Renderer, color, mono_font, text_path

__all__ = ["TextRenderer"]

#: Line height as a multiple of the font's pixel size.
_LEADING = 1.25
_PADDING = 0.06


class TextRenderer(Renderer):
    """Draws ``state.text()`` on a card, in the bundled monospaced font, scaled to fill the space."""

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
        """Draw the card and the text view, as large as fits in ``rect``."""
        lines = str(state.text()).expandtabs(4).splitlines() or [""]
        cols = max(1, max(len(line) for line in lines))
        probe = mono_font(100)
        advance = QFontMetricsF(probe).horizontalAdvance("M") / 100  # width of a column per pixel of size
        pad = min(rect.width(), rect.height()) * _PADDING
        inner = rect.adjusted(2 * pad, 2 * pad, -2 * pad, -2 * pad)
        size = min(inner.height() / (len(lines) * _LEADING), inner.width() / (cols * advance))
        f = mono_font(size)
        width, height = cols * advance * size, len(lines) * _LEADING * size
        left = inner.center().x() - width / 2
        top = inner.center().y() - height / 2
        painter.save()
        card = QRectF(left - pad, top - pad, width + 2 * pad, height + 2 * pad)
        painter.setPen(QPen(color(THEME.line), max(1.0, size * 0.05)))
        painter.setBrush(color(THEME.surface))
        painter.drawRoundedRect(card, pad / 2, pad / 2)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(THEME.ink))
        ascent = QFontMetricsF(f).ascent()
        for r, line in enumerate(lines):
            if line.strip():
                path = text_path(line, f)
                baseline = top + r * _LEADING * size + (_LEADING * size - size) / 2 + ascent * 0.9
                path.translate(QPointF(left, baseline))
                painter.drawPath(path)
        painter.restore()
