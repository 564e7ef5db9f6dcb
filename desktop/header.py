"""The session header strip: game title, the seats with kind badges, seed, cost meter, score, status.

It shows what :meth:`~desktop.controller.SessionController.header_info` and
:meth:`~desktop.controller.SessionController.spend` report; it decides nothing itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QWidget

from desktop import theme
from desktop.status import step_number


def spend_text(spend: Mapping[str, Any]) -> tuple[str, str]:
    """The header's cost meter for :meth:`SessionController.spend`, and its tooltip.

    Empty when no seat is a model; "free (simulated)" when every model is the simulated one; otherwise
    the dollars spent so far and the tokens, with "+ unknown" when some calls have no known price.
    """
    if not spend or not spend.get("models"):
        return "", ""
    tokens = int(spend.get("tokens") or 0)
    calls = int(spend.get("calls") or 0)
    tokens_in, tokens_out = int(spend.get("input_tokens") or 0), int(spend.get("output_tokens") or 0)
    tip = (f"{calls} model call{'s' if calls != 1 else ''}: {tokens_in:,} tokens in, "
           f"{tokens_out:,} out (reasoning included)")
    if spend.get("simulated"):
        return "free (simulated)", tip
    usd = float(spend.get("usd") or 0.0)
    unknown = int(spend.get("unknown") or 0)
    if unknown and calls and unknown == calls:
        money = "price unknown"
    else:
        money = f"${usd:.4f}" if usd < 0.01 else f"${usd:.2f}"
        if unknown:
            money += " + unknown"
    if unknown:
        tip += f"; {unknown} call{'s' if unknown != 1 else ''} without a known price (add it to prices.json)"
    return f"Spent {money} · {_tokens(tokens)} tokens", tip


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


class ElidedLabel(QLabel):
    """A one-line label that shrinks below its text, ending in "…", with the full text as tooltip.

    :meth:`is_elided` says whether the text is cut now; the tooltip then always holds all of it.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None, *, min_chars: int = 6) -> None:
        super().__init__(text, parent)
        self._min_chars = min_chars
        self._detail = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._sync_tip()

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self._sync_tip()

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        metrics = self.fontMetrics()
        text = self.text()
        shown = text if len(text) <= self._min_chars else text[: self._min_chars] + "…"
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance(shown) + margins.left() + margins.right() + 2
        return QSize(min(hint.width(), width), hint.height())

    def is_elided(self) -> bool:
        rect = self.contentsRect()
        return self.fontMetrics().horizontalAdvance(self.text()) > rect.width()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._sync_tip()

    def set_detail(self, detail: str) -> None:
        """A tooltip shown always (after the full text when the text is cut)."""
        self._detail = detail
        self._sync_tip()

    def _sync_tip(self) -> None:
        detail = getattr(self, "_detail", "")
        parts = [self.text()] if self.is_elided() else []
        self.setToolTip("\n".join([*parts, detail] if detail else parts))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        if not self.is_elided():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), shown)
        painter.end()


#: Background and text colour of the status pill, per session status.
_STATUS_COLOURS: dict[str, tuple[str, str]] = {
    "running": ("#e6f4ea", theme.SUCCESS),
    "paused": (theme.WARNING_BG, theme.WARNING_FG),
    "completed": ("#eef0f4", "#3d4452"),
    "error": ("#fde8e8", theme.ERROR_FG),
    "aborted": ("#fde8e8", theme.ERROR_FG),
}


class HeaderStrip(QFrame):
    """Game title, every seat with a kind badge, the seed, the status and the score."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HeaderStrip")
        self.title = ElidedLabel("PlayTrace", min_chars=10)
        self.title.setObjectName("HeaderTitle")
        self.seats_box = QHBoxLayout()
        self.seats_box.setSpacing(10)
        self.seed = ElidedLabel("", min_chars=7)
        self.seed.setObjectName("Muted")
        self.status = QLabel("")
        self.status.setObjectName("ModePill")
        self.score = QLabel("")
        self.score.setStyleSheet(f"font-weight: 600; color: {theme.TEXT};")
        # The session's model spend so far (the cost meter), updated with every finished call.
        self.spend = ElidedLabel("", min_chars=8)
        self.spend.setObjectName("SpendMeter")
        self.spend.setStyleSheet(f"color: {theme.TEXT};")
        self.spend.setVisible(False)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)
        row.setSpacing(12)
        row.addWidget(self.title)
        row.addLayout(self.seats_box)
        row.addStretch(1)
        row.addWidget(self.seed)
        row.addWidget(self.spend)
        row.addWidget(self.score)
        row.addWidget(self.status)
        self._seat_widgets: list[QWidget] = []

    def set_info(self, info: Mapping[str, Any]) -> None:
        """Show a session's header info (empty: nothing open)."""
        for widget in self._seat_widgets:
            widget.deleteLater()
        self._seat_widgets = []
        if not info:
            self.title.setText("PlayTrace")
            self.set_spend(None)
            self.seed.setText("")
            self.status.setVisible(False)
            self.score.setText("")
            return
        self.title.setText(str(info.get("title") or info.get("game") or ""))
        for player in info.get("players") or []:
            box = self._seat_widget(player)
            self.seats_box.addWidget(box)
            self._seat_widgets.append(box)
        seed = info.get("seed")
        fork = info.get("forked_from")
        parts = [f"seed {seed}" if seed is not None else "no seed"]
        if isinstance(fork, dict):
            step = fork.get("step")
            # The board the fork starts from is the one on which step N is decided (desktop.status).
            parts.append(f"forked at step {step_number(step)}" if isinstance(step, int) else "forked")
        self.seed.setText(" · ".join(parts))
        self._fit()
        self.set_status(str(info.get("status") or ""), info.get("scores"))

    @staticmethod
    def _seat_widget(player: Mapping[str, Any]) -> QWidget:
        box = QWidget()
        lay = QHBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        seat = int(player["seat"])
        swatch = QLabel("●")
        swatch.setStyleSheet(f"color: {theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]};")
        name = ElidedLabel(f"{theme.seat_title(seat, player.get('seat_name'))}:", min_chars=12)
        name.setObjectName("Muted")
        label = ElidedLabel(str(player.get("label", "")))
        badge_kind = str(player.get("badge", "bot"))
        badge = QLabel({"sim": "SIMULATED", "model": "MODEL", "human": "HUMAN"}.get(badge_kind, "BOT"))
        badge.setStyleSheet(theme.badge_style(badge_kind))
        badge.setToolTip(str(player.get("spec", "")))
        for w in (swatch, name, label, badge):
            lay.addWidget(w)
        badge.setObjectName("KindBadge")
        return box

    def _fit(self) -> None:
        """Hide the kind badges and the seed when the strip is narrower than it needs with them (a
        narrow window, larger type for a talk): they give way before any name or the score is cut."""
        layout = self.layout()
        if layout is None:
            return
        badges = [b for box in self._seat_widgets for b in box.findChildren(QLabel, "KindBadge")]
        optional = [self.seed, *badges]
        for widget in optional:
            widget.setVisible(True)
        if layout.minimumSize().width() > self.width():
            for widget in optional:
                widget.setVisible(False)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def set_spend(self, spend: Mapping[str, Any] | None) -> None:
        """Show the cost meter (hidden when no seat is a model)."""
        text, tip = spend_text(spend or {})
        self.spend.setText(text)
        self.spend.set_detail(tip)
        self.spend.setVisible(bool(text))

    def set_status(self, status: str, scores: Any = None) -> None:
        """Show the session status pill and the running score."""
        bg, fg = _STATUS_COLOURS.get(status, ("#eef0f4", "#3d4452"))
        self.status.setVisible(bool(status))
        self.status.setText(status.replace("_", " ").upper())
        self.status.setStyleSheet(f"QLabel#ModePill {{ background: {bg}; color: {fg}; }}")
        if isinstance(scores, (list, tuple)) and scores:
            self.score.setText("Score " + " : ".join(f"{float(s):g}" for s in scores))
        else:
            self.score.setText("")
