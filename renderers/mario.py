"""The Super Mario Bros renderer: the emulator's own picture, scaled up with nearest-neighbour sampling
so every NES pixel stays a sharp square, above a small band with the run's figures (distance, lives,
obstacles passed, step).

Reads only ``state.screen()`` (the emulator's 240 x 256 RGB picture of the state), ``state.facts``
(``distance``, ``lives``, ``passed``, ``world``, ``stage``, ``over``), ``state.step`` and
``state.frames``. The game is played with the keyboard, so :meth:`hit_test` answers ``None`` and
highlights are ignored.

Run ``python -m renderers.mario`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter

from renderers.base import THEME, Renderer, color, font, sample_parser, write_sample

__all__ = ["MarioRenderer"]

NES_WIDTH = 256
NES_HEIGHT = 240
#: The figures band under the picture, in NES pixels.
HUD_HEIGHT = 20
_BAND = "#111827"
_INK = "#F9FAFB"
_MUTED = "#9CA3AF"


def frame_image(screen: np.ndarray) -> QImage:
    """A ``QImage`` holding a copy of a ``height x width x 3`` RGB array."""
    rgb = np.ascontiguousarray(screen, dtype=np.uint8)
    height, width = rgb.shape[:2]
    return QImage(rgb.data, width, height, width * 3, QImage.Format.Format_RGB888).copy()


class MarioRenderer(Renderer):
    """Draws Super Mario Bros states."""

    game_id = "mario"
    aspect = NES_WIDTH / (NES_HEIGHT + HUD_HEIGHT)

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        scale = min(rect.width() / NES_WIDTH, rect.height() / (NES_HEIGHT + HUD_HEIGHT))
        width, height = NES_WIDTH * scale, (NES_HEIGHT + HUD_HEIGHT) * scale
        left = rect.x() + (rect.width() - width) / 2
        top = rect.y() + (rect.height() - height) / 2
        picture = QRectF(left, top, width, NES_HEIGHT * scale)
        band = QRectF(left, picture.bottom(), width, HUD_HEIGHT * scale)
        painter.save()
        try:
            # Nearest neighbour: the NES pixels stay crisp squares at any size.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(picture, frame_image(state.screen()))
            painter.fillRect(band, color(_BAND))
            self._figures(painter, state, band)
            if state.facts.over:
                self._over(painter, state, picture)
        finally:
            painter.restore()

    @staticmethod
    def _figures(painter: QPainter, state: Any, band: QRectF) -> None:
        facts = state.facts
        pad = band.height() * 0.4
        inner = band.adjusted(pad, 0, -pad, 0)
        left = f"Distance {facts.distance}   Lives {facts.lives}/3   Obstacles {facts.passed}"
        right = f"{facts.world}-{facts.stage} · step {state.step}"
        size = band.height() * 0.48
        bold, plain = font(size, bold=True), font(size)
        needed = QFontMetricsF(bold).horizontalAdvance(left) + QFontMetricsF(plain).horizontalAdvance(right)
        room = inner.width() - band.height()
        if needed > room > 0:  # a narrow picture: the same words, smaller
            size *= room / needed
            bold, plain = font(size, bold=True), font(size)
        painter.setFont(bold)
        painter.setPen(color(_INK))
        painter.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, left)
        painter.setFont(plain)
        painter.setPen(color(_MUTED))
        painter.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, right)

    @staticmethod
    def _over(painter: QPainter, state: Any, picture: QRectF) -> None:
        facts = state.facts
        painter.fillRect(picture, color("#000000", 150))
        painter.setPen(color(THEME.highlight))
        painter.setFont(font(picture.height() * 0.07, bold=True))
        words = f"RUN OVER\ndistance {facts.distance}"
        painter.drawText(picture, Qt.AlignmentFlag.AlignCenter, words)


def _played_state(seed: int, steps: int) -> Any:
    """A real run after ``steps`` actions of the built-in runner."""
    import asyncio

    import engine
    from engine.players import Observation

    game = engine.make("mario")
    bot = game.make_bot("runner", seed)
    state = game.initial_state(seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        obs = Observation(game, state, 0, tuple(state.legal_actions(0)))
        state = state.apply(asyncio.run(bot.act(obs)).action)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Super Mario Bros picture (``mario-sample.png`` by default) to the current folder."""
    parser = sample_parser(MarioRenderer, main.__doc__, board=False)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=240, help="actions played before the picture")
    args = parser.parse_args(argv)
    return write_sample(MarioRenderer(), _played_state(args.seed, args.steps), args)


if __name__ == "__main__":
    sys.exit(main())
