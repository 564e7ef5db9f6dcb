"""The bargaining renderer: a table of the pool, one row per item type drawn as icons (books, hats
and balls, as in Deal or No Deal), the values the state knows, the latest proposal split across each
row, the round counter and the history of proposals.

Renderers cannot import the game, so this one reads the state's public attributes duck-typed:
``pool`` (three counts), ``values`` (a value triple per seat, ``None`` where the state is a seat's
view that does not know them), ``offers`` (Player1's share in every proposal, in order), ``end``
(``""``, ``"agreed"``, ``"stopped"`` or ``"max_rounds"``), ``to_act``, ``round``, ``scores``,
``rounds_before_stop`` and ``stop_probability``. The state passed is whatever the caller may show: a
seat's view shows only that seat's values, so a vision model's image never shows the opponent's.

Highlights: a division (``"P1: (a, b, c), P2: (d, e, f)"``) is drawn as the split instead of the
latest proposal (a model's chosen proposal), and ``"Agree"`` frames the latest proposal. Bargaining is
played from the panel under the board, so :meth:`hit_test` answers ``None``.

Run ``python -m renderers.bargaining`` to write a sample picture to the current folder.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen

from renderers.base import (
    THEME,
    Renderer,
    centered_square,
    color,
    font,
    played_state,
    sample_parser,
    write_sample,
)

__all__ = ["ITEM_COLORS", "BargainingRenderer", "parse_division"]

_ITEMS = ("books", "hats", "balls")
#: Ink of each item type's icon: distinct from each other and from the two seats' colours.
ITEM_COLORS = ("#B45309", "#0F766E", "#7C3AED")
_SEAT_NAMES = ("Player1", "Player2")
_HISTORY_LINES = 5
_DIVISION = re.compile(
    r"P1:\s*\((\d+),\s*(\d+),\s*(\d+)\),\s*P2:\s*\((\d+),\s*(\d+),\s*(\d+)\)", re.IGNORECASE
)


def parse_division(action: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``"P1: (3, 3, 2), P2: (2, 1, 1)"`` to both shares; ``None`` for anything else."""
    match = _DIVISION.search(str(action))
    if match is None:
        return None
    numbers = tuple(int(g) for g in match.groups())
    return numbers[:3], numbers[3:]


def _tuple(numbers: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, numbers)) + ")"


@functools.cache
def _icon(kind: int) -> tuple[QPainterPath, QPainterPath]:
    """Item ``kind`` in a unit box (0..1): its filled silhouette and its detail lines, which are
    stroked in the card's colour over the fill (a book, a top hat, a ball)."""
    body = QPainterPath()
    lines = QPainterPath()
    if kind == 0:  # a closed book standing up: the cover, the spine's crease, a title plate
        body.addRoundedRect(QRectF(0.2, 0.08, 0.6, 0.84), 0.07, 0.07)
        lines.moveTo(0.33, 0.1)
        lines.lineTo(0.33, 0.9)
        lines.moveTo(0.45, 0.3)
        lines.lineTo(0.7, 0.3)
        lines.moveTo(0.45, 0.42)
        lines.lineTo(0.64, 0.42)
    elif kind == 1:  # a top hat: the crown, its band and the brim
        body.addRoundedRect(QRectF(0.27, 0.1, 0.46, 0.66), 0.06, 0.06)
        body.addRoundedRect(QRectF(0.06, 0.7, 0.88, 0.15), 0.075, 0.075)
        lines.moveTo(0.28, 0.58)
        lines.lineTo(0.72, 0.58)
    else:  # a ball with two curved seams
        body.addEllipse(QRectF(0.08, 0.08, 0.84, 0.84))
        lines.moveTo(0.36, 0.12)
        lines.cubicTo(0.56, 0.36, 0.56, 0.64, 0.36, 0.88)
        lines.moveTo(0.64, 0.12)
        lines.cubicTo(0.44, 0.36, 0.44, 0.64, 0.64, 0.88)
    body.setFillRule(Qt.FillRule.WindingFill)
    return body, lines


class BargainingRenderer(Renderer):
    """Draws bargaining states: Player1 blue, Player2 rose, the items in their own colours."""

    game_id = "bargaining"
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
        """Draw the header, the item table with the split, and the history."""
        area = centered_square(rect)
        u = area.width() / 100.0
        x0, y0 = area.left(), area.top()
        pool: Sequence[int] = tuple(state.pool)
        values: Sequence[Any] = tuple(state.values)
        offers: Sequence[Sequence[int]] = [tuple(o) for o in state.offers]
        end: str = getattr(state, "end", "") or ""
        known = [s for s in (0, 1) if values[s] is not None]
        viewer = known[0] if len(known) == 1 else None

        split, framed, label = self._split(state, pool, offers, highlight)

        painter.save()
        self._header(painter, state, QRectF(x0 + 4 * u, y0 + 3 * u, 92 * u, 13 * u), u, end)
        table = QRectF(x0 + 4 * u, y0 + 17 * u, 92 * u, 52 * u)
        self._table(painter, table, u, pool, values, known, split, framed, label)
        history = QRectF(x0 + 4 * u, y0 + 71 * u, 92 * u, 27 * u)
        self._history(painter, history, u, state, pool, values, offers, viewer, end)
        painter.restore()

    # -- parts ----------------------------------------------------------------------------------------

    @staticmethod
    def _split(
        state: Any, pool: Sequence[int], offers: Sequence[Sequence[int]], highlight: Sequence[str]
    ) -> tuple[tuple[Sequence[int], Sequence[int]] | None, bool, str]:
        """The split to draw across the rows, whether to frame it, and its caption."""
        for item in highlight:
            shares = parse_division(item)
            if shares is not None:
                return shares, True, "Highlighted"
        if not offers:
            return None, False, "No proposal yet"
        first = offers[-1]
        second = tuple(n - x for n, x in zip(pool, first, strict=False))
        index = len(offers) - 1
        end = getattr(state, "end", "")
        caption = f"Agreed (round {index + 1})" if end == "agreed" else f"Round {index + 1} proposal"
        return (first, second), "Agree" in highlight, caption

    @staticmethod
    def _text(
        painter: QPainter, box: QRectF, text: str, f: QFont, ink: QColor, align: Qt.AlignmentFlag
    ) -> None:
        painter.setFont(f)
        painter.setPen(ink)
        painter.drawText(box, int(align | Qt.AlignmentFlag.AlignVCenter), text)

    def _header(self, painter: QPainter, state: Any, box: QRectF, u: float, end: str) -> None:
        left = Qt.AlignmentFlag.AlignLeft
        top = QRectF(box.left(), box.top(), box.width(), 7 * u)
        rounds = getattr(state, "round", len(state.offers) + 1)
        self._text(painter, top, f"Round {rounds}", font(5.2 * u, bold=True), color(THEME.ink), left)
        to_act = tuple(getattr(state, "to_act", ()))
        if end == "agreed":
            status, tint = "Deal", THEME.ink
        elif end:
            status, tint = "No deal · 0 for both", THEME.player_colors[1]
        elif to_act:
            status, tint = f"{_SEAT_NAMES[to_act[0]]} to act", THEME.player_colors[to_act[0]]
        else:
            status, tint = "", THEME.ink
        f = font(4 * u, bold=True)
        width = QFontMetricsF(f).horizontalAdvance(status) + 6 * u
        chip = QRectF(box.right() - width, top.top() + 0.6 * u, width, 6 * u)
        if status:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color(tint, 28))
            painter.drawRoundedRect(chip, 3 * u, 3 * u)
            self._text(painter, chip, status, f, color(tint), Qt.AlignmentFlag.AlignHCenter)
        p = float(getattr(state, "stop_probability", 0.2))
        safe = int(getattr(state, "rounds_before_stop", 8))
        if end == "stopped":
            note = f"The game stopped after round {len(state.offers)}: no agreement."
        elif end == "max_rounds":
            note = f"The round limit was reached after round {len(state.offers)}: no agreement."
        elif end == "agreed":
            note = "The latest proposal was accepted."
        elif p <= 0:
            note = "No random stop in this game."
        elif rounds <= safe:
            note = f"Rounds 1–{safe} safe, then {p:.0%} stop chance per round"
        else:
            note = f"Every round may now end the game ({p:.0%} chance): no deal, 0 for both."
        sub = QRectF(box.left(), top.bottom() + 0.5 * u, box.width(), 5 * u)
        f = font(3.3 * u)
        note = QFontMetricsF(f).elidedText(note, Qt.TextElideMode.ElideRight, sub.width())
        self._text(painter, sub, note, f, color(THEME.ink_muted), left)

    def _table(
        self,
        painter: QPainter,
        box: QRectF,
        u: float,
        pool: Sequence[int],
        values: Sequence[Any],
        known: Sequence[int],
        split: tuple[Sequence[int], Sequence[int]] | None,
        framed: bool,
        caption: str,
    ) -> None:
        painter.setPen(QPen(color(THEME.line), max(1.0, 0.25 * u)))
        painter.setBrush(color(THEME.surface))
        painter.drawRoundedRect(box, 2.5 * u, 2.5 * u)
        muted = color(THEME.ink_muted)
        small = font(3.1 * u, bold=True)
        head = QRectF(box.left() + 3 * u, box.top() + 1.5 * u, box.width() - 6 * u, 5 * u)
        left = Qt.AlignmentFlag.AlignLeft
        value_x = box.left() + 27 * u  # the value column spans value_x .. value_x + 14u
        split_x = box.left() + 45 * u
        split_w = box.right() - 3 * u - split_x
        self._text(
            painter, QRectF(head.left(), head.top(), 22 * u, head.height()), "Pool", small, muted, left
        )
        title = "Your value" if len(known) == 1 else "Values" if known else "Hidden"
        centre = Qt.AlignmentFlag.AlignHCenter
        self._text(
            painter, QRectF(value_x - 2 * u, head.top(), 18 * u, head.height()), title, small, muted, centre
        )
        # Whose side is whose: P1's share on the left of each row, P2's on the right.
        for seat, x in ((0, split_x), (1, split_x + split_w - 5 * u)):
            self._text(
                painter,
                QRectF(x, head.top(), 5 * u, head.height()),
                f"P{seat + 1}",
                small,
                color(THEME.player_colors[seat]),
                centre,
            )
        strip = QRectF(split_x + 5 * u, head.top(), split_w - 10 * u, head.height())
        caption = QFontMetricsF(small).elidedText(caption, Qt.TextElideMode.ElideRight, strip.width())
        self._text(painter, strip, caption, small, color(THEME.highlight) if framed else muted, centre)
        row_h = 14.5 * u
        top = head.bottom() + 1.5 * u
        for k in range(3):
            row = QRectF(box.left(), top + k * row_h, box.width(), row_h)
            if k:
                painter.setPen(QPen(color(THEME.line), max(1.0, 0.2 * u)))
                painter.drawLine(
                    QPointF(row.left() + 3 * u, row.top()), QPointF(row.right() - 3 * u, row.top())
                )
            self._row(painter, row, u, k, pool[k], values, known, split, value_x, split_x, split_w)
        if framed and split is not None:
            frame = QRectF(split_x - 1.2 * u, top - 0.8 * u, split_w + 2.4 * u, 3 * row_h + 1.6 * u)
            painter.setPen(QPen(color(THEME.highlight, 230), max(1.5, 0.6 * u)))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(frame, 2 * u, 2 * u)

    def _row(
        self,
        painter: QPainter,
        row: QRectF,
        u: float,
        k: int,
        count: int,
        values: Sequence[Any],
        known: Sequence[int],
        split: tuple[Sequence[int], Sequence[int]] | None,
        value_x: float,
        split_x: float,
        split_w: float,
    ) -> None:
        left = Qt.AlignmentFlag.AlignLeft
        ink = color(THEME.ink)
        icon = QRectF(row.left() + 2.5 * u, row.center().y() - 4 * u, 8 * u, 8 * u)
        self._icon(painter, k, icon, color(ITEM_COLORS[k]))
        name = QRectF(icon.right() + 1.2 * u, row.top(), value_x - icon.right() - 1.2 * u, row.height())
        self._text(
            painter,
            QRectF(name.left(), row.top() + 2 * u, name.width(), 5.5 * u),
            _ITEMS[k].capitalize(),
            font(4 * u, bold=True),
            ink,
            left,
        )
        self._text(
            painter,
            QRectF(name.left(), row.top() + 7.5 * u, name.width(), 5 * u),
            f"× {count}",
            font(3.6 * u),
            color(THEME.ink_muted),
            left,
        )
        # Values: the viewer's alone in a view, both seats' (in their colours) on the full state.
        centre = Qt.AlignmentFlag.AlignHCenter
        column = QRectF(value_x, row.top(), 14 * u, row.height())
        if len(known) == 1:
            v = values[known[0]][k]
            self._text(
                painter,
                QRectF(column.left(), row.top() + 2 * u, column.width(), 6 * u),
                str(v),
                font(5 * u, bold=True),
                ink,
                centre,
            )
            self._text(
                painter,
                QRectF(column.left(), row.top() + 7.8 * u, column.width(), 4.5 * u),
                "each",
                font(3 * u),
                color(THEME.ink_muted),
                centre,
            )
        elif known:
            for i, s in enumerate(known):
                line = QRectF(column.left(), row.top() + (2.2 + 5.3 * i) * u, column.width(), 5 * u)
                self._text(
                    painter,
                    line,
                    f"P{s + 1}: {values[s][k]}",
                    font(3.6 * u, bold=True),
                    color(THEME.player_colors[s]),
                    centre,
                )
        else:
            self._text(painter, column, "?", font(5 * u, bold=True), color(THEME.ink_muted), centre)
        self._split_row(painter, row, u, k, count, split, split_x, split_w)

    def _split_row(
        self,
        painter: QPainter,
        row: QRectF,
        u: float,
        k: int,
        count: int,
        split: tuple[Sequence[int], Sequence[int]] | None,
        split_x: float,
        split_w: float,
    ) -> None:
        label_w = 5 * u
        strip = QRectF(split_x + label_w, row.top() + 2.5 * u, split_w - 2 * label_w, row.height() - 5 * u)
        count = max(0, int(count))
        if count == 0:
            return
        step = strip.width() / count
        size = min(strip.height() * 0.78, step * 0.9)
        first = None
        if split is not None:
            first = max(0, min(count, int(split[0][k])))
            # The two shares as tinted bands, Player1's on the left, with a divider between them.
            for seat, (a, b) in enumerate(((0, first), (first, count))):
                if b > a:
                    band = QRectF(strip.left() + a * step, strip.top(), (b - a) * step, strip.height())
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(color(THEME.player_colors[seat], 34))
                    painter.drawRoundedRect(band.adjusted(0.3 * u, 0, -0.3 * u, 0), 1.6 * u, 1.6 * u)
            x = strip.left() + first * step
            painter.setPen(QPen(color(THEME.ink), max(1.0, 0.45 * u)))
            painter.drawLine(QPointF(x, strip.top() - 0.8 * u), QPointF(x, strip.bottom() + 0.8 * u))
            numbers = font(4 * u, bold=True)
            self._text(
                painter,
                QRectF(split_x, row.top(), label_w, row.height()),
                str(first),
                numbers,
                color(THEME.player_colors[0]),
                Qt.AlignmentFlag.AlignHCenter,
            )
            self._text(
                painter,
                QRectF(strip.right(), row.top(), label_w, row.height()),
                str(count - first),
                numbers,
                color(THEME.player_colors[1]),
                Qt.AlignmentFlag.AlignHCenter,
            )
        ink = color(ITEM_COLORS[k])
        for i in range(count):
            cx = strip.left() + (i + 0.5) * step
            self._icon(painter, k, QRectF(cx - size / 2, strip.center().y() - size / 2, size, size), ink)

    @staticmethod
    def _icon(painter: QPainter, kind: int, box: QRectF, ink: QColor) -> None:
        body, lines = _icon(kind)
        painter.save()
        painter.translate(box.left(), box.top())
        painter.scale(box.width(), box.height())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        painter.drawPath(body)
        pen = QPen(color(THEME.surface), 0.06)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(lines)
        painter.restore()

    def _history(
        self,
        painter: QPainter,
        box: QRectF,
        u: float,
        state: Any,
        pool: Sequence[int],
        values: Sequence[Any],
        offers: Sequence[Sequence[int]],
        viewer: int | None,
        end: str,
    ) -> None:
        left = Qt.AlignmentFlag.AlignLeft
        right = Qt.AlignmentFlag.AlignRight
        muted = color(THEME.ink_muted)
        head = QRectF(box.left(), box.top(), box.width(), 5 * u)
        self._text(painter, head, "History", font(3.4 * u, bold=True), muted, left)
        if end == "agreed":
            scores = tuple(getattr(state, "scores", (0, 0)))
            both = all(v is not None for v in values)
            result = f"Player1 {scores[0]:g} · Player2 {scores[1]:g}" if both else ""
            self._text(painter, head, result, font(3.6 * u, bold=True), color(THEME.ink), right)
        lines: list[tuple[str, str, int]] = []
        for i, first in enumerate(offers):
            second = tuple(n - x for n, x in zip(pool, first, strict=False))
            worth = ""
            if viewer is not None:
                mine = first if viewer == 0 else second
                worth = f"worth {sum(v * s for v, s in zip(values[viewer], mine, strict=False))} to you"
            elif all(v is not None for v in values):
                worth = (
                    f"P1 {sum(v * s for v, s in zip(values[0], first, strict=False))} · "
                    f"P2 {sum(v * s for v, s in zip(values[1], second, strict=False))}"
                )
            lines.append((f"R{i + 1}  P1 {_tuple(first)} · P2 {_tuple(second)}", worth, i % 2))
        if end == "agreed" and offers:
            lines.append((f"R{len(offers) + 1}  {_SEAT_NAMES[len(offers) % 2]} agrees", "", len(offers) % 2))
        if not lines:
            lines.append(("Player1 makes the first proposal.", "", 0))
        shown = lines[-_HISTORY_LINES:]
        line_h = 4.3 * u
        f = font(3.4 * u)
        for j, (text, worth, seat) in enumerate(shown):
            y = head.bottom() + 0.6 * u + j * line_h
            dot = QRectF(box.left() + 0.4 * u, y + line_h / 2 - 0.9 * u, 1.8 * u, 1.8 * u)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color(THEME.player_colors[seat]))
            painter.drawEllipse(dot)
            line = QRectF(box.left() + 3.5 * u, y, box.width() - 3.5 * u, line_h)
            self._text(painter, line, text, f, color(THEME.ink), left)
            if worth:
                self._text(painter, line, worth, f, muted, right)


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample bargaining picture (``bargaining-sample.png`` by default) to the current folder."""
    parser = sample_parser(BargainingRenderer, main.__doc__, highlight="a division or Agree to point at")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--actions",
        nargs="*",
        default=[
            "P1: (3, 0, 1), P2: (1, 7, 0)",
            "P1: (1, 2, 1), P2: (3, 5, 0)",
            "P1: (2, 2, 1), P2: (2, 5, 0)",
        ],
        help='actions to play from the start, e.g. "P1: (3, 0, 1), P2: (1, 7, 0)" Agree',
    )
    parser.add_argument("--seat", type=int, choices=(0, 1), default=None, help="draw this seat's view")
    args = parser.parse_args(argv)
    state = played_state("bargaining", args.actions, args.seed)
    if args.seat is not None:
        state = state.observe(args.seat)
    return write_sample(BargainingRenderer(), state, args)


if __name__ == "__main__":
    sys.exit(main())
