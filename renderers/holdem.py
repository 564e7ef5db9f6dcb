"""The hold'em renderer: a green felt table, the cards drawn by hand (rank and suit, red or black),
the pot, the stacks, the dealer button and the last action.

The state given is what the picture may show: a seat's view (its own hole cards face up, the
opponent's face down, both at a showdown) or the full state (both hands face up, for replays). The
viewer sits at the bottom; the full state puts the first seat there. Read duck-typed (renderers never
import games): ``viewer``, ``button``, ``hole(seat)``, ``board``, ``stacks``, ``bets``, ``put_in``,
``pot``, ``street_name``, ``to_act``, ``is_over``, ``showdown``, ``scores``, ``last_action``,
``hand_name(seat)`` and ``seat_names``; in a match also ``match_line`` (the hand's number and the
match's chips) and ``last_hand`` (how the previous hand went), written above the table.

Run ``python -m renderers.holdem`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QLinearGradient, QPainter, QPen

from renderers.base import (
    THEME,
    Renderer,
    centered_square,
    color,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
    write_sample,
)

__all__ = ["HoldemRenderer"]

_FELT = "#1E6B47"
_FELT_DARK = "#15543A"
_RAIL = "#4A2F1B"
_RED = "#C81E32"
_BLACK = "#111827"
_BACK = "#1E3A8A"
_GOLD = "#F5C542"
_WIN = "#86EFAC"
_LOSE = "#FCA5A5"
_SUITS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


class HoldemRenderer(Renderer):
    """Draws a hold'em hand from one seat's side of the table (or a spectator's)."""

    game_id = "holdem"
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
        """Draw the table, the two seats, the board, the pot and the last action."""
        square = centered_square(rect)
        s = square.width()
        painter.save()
        self._table(painter, square)
        viewer = getattr(state, "viewer", None)
        me = viewer if viewer in (0, 1) else 0
        names = getattr(state, "seat_names", ("Player 1", "Player 2"))
        card_w = s * 0.12
        card_h = card_w * 1.4
        for seat, bottom in ((me, True), (1 - me, False)):
            self._seat(painter, state, square, seat, bottom, names[seat], card_w, card_h)
        self._board(painter, state, square, card_w, card_h)
        match = getattr(state, "match_line", None)
        if match:
            self._fitted_line(painter, match, square, s * 0.03, s * 0.03, True, THEME.ink)
            before = getattr(state, "last_hand", None)
            if before:
                self._fitted_line(painter, before, square, s * 0.072, s * 0.024, False, THEME.ink_muted)
        last = getattr(state, "last_action", None)
        if last:
            draw_text_centered(painter, f"Last: {last}", font(s * 0.027),
                               QPointF(square.center().x(), square.top() + s * 0.965), color(THEME.ink_muted))
        painter.restore()

    # -- pieces -----------------------------------------------------------------------------------------

    @staticmethod
    def _table(painter: QPainter, square: QRectF) -> None:
        s = square.width()
        rail = square.adjusted(s * 0.02, s * 0.1, -s * 0.02, -s * 0.1)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(_RAIL))
        painter.drawRoundedRect(rail, rail.height() * 0.27, rail.height() * 0.27)
        felt = rail.adjusted(s * 0.025, s * 0.025, -s * 0.025, -s * 0.025)
        gradient = QLinearGradient(felt.topLeft(), felt.bottomLeft())
        gradient.setColorAt(0.0, color(_FELT))
        gradient.setColorAt(1.0, color(_FELT_DARK))
        painter.setBrush(gradient)
        painter.drawRoundedRect(felt, felt.height() * 0.25, felt.height() * 0.25)
        painter.setPen(QPen(color("#FFFFFF", 40), max(1.0, s * 0.004)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inner = felt.adjusted(s * 0.04, s * 0.04, -s * 0.04, -s * 0.04)
        painter.drawRoundedRect(inner, inner.height() * 0.22, inner.height() * 0.22)

    def _seat(
        self, painter: QPainter, state: Any, square: QRectF, seat: int, bottom: bool, name: str,
        card_w: float, card_h: float,
    ) -> None:
        s = square.width()
        cx = square.center().x()
        cards_top = square.top() + (s * 0.655 if bottom else s * 0.175)
        hole = state.hole(seat)
        gap = card_w * 0.12
        for i in range(2):
            r = QRectF(cx - card_w - gap / 2 + i * (card_w + gap), cards_top, card_w, card_h)
            if hole is not None:
                self._face(painter, r, hole[i])
            else:
                self._back(painter, r)
        # The name plate beside the cards: name, stack, the hand's name once known, and the result.
        plate = QRectF(cx + card_w + s * 0.035, cards_top, s * 0.24, card_h)
        acting = seat in tuple(getattr(state, "to_act", ()))
        rim = color(_GOLD, 230) if acting else color("#000000", 60)
        painter.setPen(QPen(rim, max(1.0, s * 0.005)))
        painter.setBrush(color("#0B2E1F", 200))
        painter.drawRoundedRect(plate, s * 0.015, s * 0.015)
        hand = state.hand_name(seat) if hole is not None else None
        lines: list[tuple[str, float, bool, str]] = [
            (name, 0.031, True, "#FFFFFF"),
            (f"{state.stacks[seat]} chips", 0.027, False, "#D1FAE5"),
        ]
        if hand:
            lines.append((hand, 0.027, True, "#FDE68A"))
        if state.is_over:
            won = int(state.scores[seat])
            tint = _WIN if won > 0 else _LOSE if won < 0 else "#E5E7EB"
            match = " in all" if getattr(state, "match_line", None) else ""
            lines.append((f"{won:+d}{match}" if won else "split pot", 0.031, True, tint))
        elif acting:
            lines.append(("to act", 0.026, True, _GOLD))
        step = plate.height() / (len(lines) + 0.4)
        for i, (text, size, bold, tint) in enumerate(lines):
            center = QPointF(plate.center().x(), plate.top() + step * (i + 0.7))
            draw_text_centered(painter, text, font(s * size, bold=bold), center, color(tint))
        # Left of the cards: the chips bet on this street, and the dealer button.
        left = cx - card_w - gap / 2 - s * 0.07
        bet = state.bets[seat] if not state.is_over else 0
        if bet:
            chip = QPointF(left, cards_top + card_h * 0.25)
            self._chip(painter, chip, s * 0.024, "#E11D48")
            f = font(s * 0.03, bold=True)
            draw_text_centered(painter, str(bet), f, QPointF(left - s * 0.065, chip.y()), color("#FFFFFF"))
        if seat == getattr(state, "button", -1):
            button = QPointF(left, cards_top + card_h * 0.75)
            painter.setPen(QPen(color("#9CA3AF"), max(1.0, s * 0.003)))
            painter.setBrush(color("#FFFFFF"))
            painter.drawEllipse(button, s * 0.028, s * 0.028)
            draw_text_centered(painter, "D", font(s * 0.03, bold=True), button, color(_BLACK))

    def _board(self, painter: QPainter, state: Any, square: QRectF, card_w: float, card_h: float) -> None:
        s = square.width()
        board = tuple(state.board)
        gap = card_w * 0.12
        total = 5 * card_w + 4 * gap
        left = square.center().x() - total / 2
        top = square.center().y() - card_h / 2 + s * 0.015
        for i in range(5):
            r = QRectF(left + i * (card_w + gap), top, card_w, card_h)
            if i < len(board):
                self._face(painter, r, board[i])
            else:
                painter.setPen(QPen(color("#FFFFFF", 55), max(1.0, s * 0.003), Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(r, card_w * 0.1, card_w * 0.1)
        label = f"{state.street_name} \u00b7 Pot {state.pot}"
        draw_text_centered(painter, label, font(s * 0.034, bold=True),
                           QPointF(square.center().x(), top - s * 0.035), color("#FFFFFF"))

    @staticmethod
    def _fitted_line(
        painter: QPainter, text: str, square: QRectF, y: float, size: float, bold: bool, ink: str
    ) -> None:
        """One line of text centred at ``y`` below the square's top, shrunk (and then elided) to fit."""
        width = square.width() * 0.96
        least, f = size * 0.6, font(size, bold=bold)
        while QFontMetricsF(f).horizontalAdvance(text) > width and size > least:
            size *= 0.92
            f = font(size, bold=bold)
        shown = QFontMetricsF(f).elidedText(text, Qt.TextElideMode.ElideRight, width)
        where = QPointF(square.center().x(), square.top() + y)
        draw_text_centered(painter, shown, f, where, color(ink))

    @staticmethod
    def _chip(painter: QPainter, center: QPointF, radius: float, fill: str) -> None:
        painter.setPen(QPen(color("#FFFFFF"), radius * 0.25, Qt.PenStyle.DashLine))
        painter.setBrush(color(fill))
        painter.drawEllipse(center, radius, radius)

    @staticmethod
    def _face(painter: QPainter, r: QRectF, code: str) -> None:
        w = r.width()
        painter.setPen(QPen(color("#9CA3AF"), max(1.0, w * 0.02)))
        painter.setBrush(color("#FFFFFF"))
        painter.drawRoundedRect(r, w * 0.1, w * 0.1)
        ink: QColor = color(_RED if code[1] in "hd" else _BLACK)
        rank = "10" if code[0] == "T" else code[0]
        suit = _SUITS.get(code[1], "?")
        draw_text_centered(painter, rank, font(w * (0.36 if rank == "10" else 0.42), bold=True),
                           QPointF(r.left() + w * 0.3, r.top() + w * 0.3), ink)
        draw_text_centered(painter, suit, font(w * 0.3), QPointF(r.left() + w * 0.3, r.top() + w * 0.66), ink)
        big = QPointF(r.center().x() + w * 0.1, r.bottom() - w * 0.4)
        draw_text_centered(painter, suit, font(w * 0.62), big, ink)

    @staticmethod
    def _back(painter: QPainter, r: QRectF) -> None:
        w = r.width()
        painter.setPen(QPen(color("#FFFFFF"), max(1.0, w * 0.05)))
        painter.setBrush(color(_BACK))
        painter.drawRoundedRect(r, w * 0.1, w * 0.1)
        inner = r.adjusted(w * 0.12, w * 0.12, -w * 0.12, -w * 0.12)
        painter.setPen(QPen(color("#93C5FD", 150), max(1.0, w * 0.025)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(inner, w * 0.06, w * 0.06)
        painter.drawLine(inner.topLeft(), inner.bottomRight())
        painter.drawLine(inner.topRight(), inner.bottomLeft())


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample hold'em picture (``holdem-sample.png`` by default) to the current folder."""
    parser = sample_parser(HoldemRenderer, main.__doc__)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--seat", type=int, default=0, help="whose view to draw (-1: the full state)")
    played = ["Raise Full Pot", "Check and Call", "Check and Call"]
    parser.add_argument("--actions", nargs="*", default=played,
                        help='actions to play from the start, e.g. "Check and Call"')
    args = parser.parse_args(argv)
    state = played_state("holdem", args.actions, args.seed)
    return write_sample(HoldemRenderer(), state if args.seat < 0 else state.observe(args.seat), args)


if __name__ == "__main__":
    sys.exit(main())
