"""The Pong renderer: the classic look, drawn crisp: a black court, white paddles and ball, thin walls,
a dashed centre line and the scores at the top.

Reads only ``state.ball`` (x, y), ``state.paddles`` (the low ends of the right and the left paddle),
``state.points`` (right, left), ``state.frame``, ``state.max_frames``, ``state.is_over`` and
``state.winner``. Coordinates are GameBot's: x from 0 to 160, y from the lower wall (16) to the upper
wall (176), a larger y higher up; the right paddle's face is at x = 140, the left one's at x = 20.
The picture is the true court, never a seat's mirrored view. Pong is played with the keyboard, so
:meth:`hit_test` and :meth:`cell_rect` answer ``None`` and highlights are ignored.

Run ``python -m renderers.pong`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from renderers.base import (
    THEME,
    Renderer,
    centered_square,
    color,
    draw_text_centered,
    font,
    sample_parser,
    write_sample,
)

__all__ = ["PongRenderer"]

COURT_WIDTH = 160
LOWER_WALL = 16
UPPER_WALL = 176
RIGHT_X = 140
LEFT_X = 20
PADDLE_LENGTH = 16
PADDLE_THICKNESS = 4  # court units, behind each paddle's face
BALL_SIZE = 4  # court units

_COURT = "#000000"
_INK = "#FFFFFF"
_NET = "#5B6270"
_LABEL = "#9AA3B2"

# Proportions of the square.
_PAD = 0.035  # free space left, right and below the court
_BAND = 0.15  # the score band at the top


class PongRenderer(Renderer):
    """Draws Pong courts."""

    game_id = "pong"
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
        """Draw the court, the walls, the centre line, the paddles, the ball and the scores."""
        square = centered_square(rect)
        side = square.width()
        if side <= 0:
            return
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_COURT))
        painter.drawRect(square)
        pad = side * _PAD
        court = QRectF(
            square.left() + pad, square.top() + side * _BAND, side - 2 * pad, side * (1 - _BAND) - pad
        )
        sx = court.width() / COURT_WIDTH
        sy = court.height() / (UPPER_WALL - LOWER_WALL)

        def at(x: float, y: float) -> QPointF:
            return QPointF(court.left() + x * sx, court.top() + (UPPER_WALL - y) * sy)

        def box(x0: float, y0: float, x1: float, y1: float) -> QRectF:
            """A court rectangle snapped to whole pixels, so edges stay sharp."""
            a, b = at(x0, y1), at(x1, y0)
            return QRectF(QPointF(round(a.x()), round(a.y())), QPointF(round(b.x()), round(b.y())))

        self._walls_and_net(painter, court, side, at)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_INK))
        right, left = (int(v) for v in state.paddles)
        painter.drawRect(box(RIGHT_X, right, RIGHT_X + PADDLE_THICKNESS, right + PADDLE_LENGTH))
        painter.drawRect(box(LEFT_X - PADDLE_THICKNESS, left, LEFT_X, left + PADDLE_LENGTH))
        # The ball is a square in pixels however the court is stretched; a ball that left the court
        # (the point's last frame) is drawn in the margin beside it.
        x, y = state.ball
        size = max(3, round(BALL_SIZE * min(sx, sy)))
        centre = at(x, y)
        left_edge, top_edge = round(centre.x() - size / 2), round(centre.y() - size / 2)
        painter.save()
        painter.setClipRect(square)
        painter.drawRect(QRectF(left_edge, top_edge, size, size))
        painter.restore()
        self._scores(painter, state, square, court, sx)
        painter.restore()

    @staticmethod
    def _walls_and_net(painter: QPainter, court: QRectF, side: float, at: Any) -> None:
        wall = QPen(color(_INK), max(1.0, round(side * 0.006)))
        wall.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(wall)
        for y in (UPPER_WALL, LOWER_WALL):
            level = round(at(0, y).y())
            painter.drawLine(QLineF(court.left(), level, court.right(), level))
        net = QPen(color(_NET), max(1.0, round(side * 0.005)))
        net.setCapStyle(Qt.PenCapStyle.FlatCap)
        net.setDashPattern([2.0, 2.0])
        painter.setPen(net)
        mid = round(at(COURT_WIDTH / 2, 0).x())
        painter.drawLine(
            QLineF(mid, at(0, UPPER_WALL).y() + side * 0.012, mid, at(0, LOWER_WALL).y() - side * 0.012)
        )

    @staticmethod
    def _scores(painter: QPainter, state: Any, square: QRectF, court: QRectF, sx: float) -> None:
        band = court.top() - square.top()
        digits = font(band * 0.5, bold=True)
        small = font(max(8.0, band * 0.17))
        right, left = (int(v) for v in state.points)
        for x, value, name in ((LEFT_X * 2, left, "LEFT"), (COURT_WIDTH - LEFT_X * 2, right, "RIGHT")):
            cx = court.left() + x * sx
            draw_text_centered(
                painter, str(value), digits, QPointF(cx, square.top() + band * 0.42), color(_INK)
            )
            draw_text_centered(painter, name, small, QPointF(cx, square.top() + band * 0.82), color(_LABEL))
        centre = QPointF(court.center().x(), square.top() + band * 0.5)
        if bool(state.is_over):
            winner = state.winner
            words = "DRAW" if winner is None else ("RIGHT WINS" if winner == 0 else "LEFT WINS")
            draw_text_centered(painter, words, font(band * 0.2, bold=True), centre, color(THEME.highlight))
        else:
            words = f"frame {int(state.frame)} / {int(state.max_frames)}"
            draw_text_centered(painter, words, small, centre, color(_LABEL))


def _played_state(seed: int, steps: int) -> Any:
    """A real match after ``steps`` decisions of two predictor-like paddles (both follow the ball)."""
    import engine

    # A renderer reaches its game only through the registry (the import contract); the sample reads
    # the state's fields as the game defines them.
    state: Any = engine.make("pong").initial_state(seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        moves = {}
        for seat in (0, 1):
            centre = state.paddles[seat] + PADDLE_LENGTH / 2
            moves[seat] = (
                "up" if state.ball[1] > centre + 4 else "down" if state.ball[1] < centre - 4 else "stay"
            )
        state = state.apply(moves)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample Pong picture (``pong-sample.png`` by default) to the current folder."""
    parser = sample_parser(PongRenderer, main.__doc__, board=False)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=30, help="decisions played before the picture")
    args = parser.parse_args(argv)
    return write_sample(PongRenderer(), _played_state(args.seed, args.steps), args)


if __name__ == "__main__":
    sys.exit(main())
