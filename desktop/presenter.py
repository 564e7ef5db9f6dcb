"""Presenting PlayTrace: window zoom, presenter mode, replay playback, the rationale caption and
exporting the session as an animation.

:func:`install` adds all of it to a :class:`~desktop.main_window.MainWindow`:

- **Zoom** (Ctrl+= / Ctrl+- / Ctrl+0) scales every font of the window and is remembered
  (:attr:`desktop.settings.AppSettings.zoom`).
- **Presenter mode** (F5; F5 or Esc leaves) covers the window with the board and the current decision
  only: large type on a dark background, sized from the window's height so it reads from the back of
  a room at 1920×1080 and on a 1280×720 projector. The window goes full screen while it lasts.
- **Replay playback**: Space plays or pauses a replay (in a live game it runs or pauses the game, as
  before), ``<`` / ``>`` change the speed, the arrow keys step back and forward.
- **A caption line under the board** with the decision made on the board shown and its one-sentence
  rationale (the ``decision`` event's ``rationale``).
- **Export animation…** writes the session as a GIF or an MP4 (:mod:`desktop.video_export`) in a
  worker thread, with a progress bar in the status bar.

The window's own code only calls :func:`install`; what is shown comes from the controller.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import QApplication, QFileDialog, QProgressBar, QWidget

from desktop import theme
from desktop.model.visibility import shown_records, shown_state
from desktop.status import position_text
from desktop.timeline import DEFAULT_SPEED, SPEEDS
from desktop.video_export import caption_of, fit_lines
from desktop.widgets import ElidedLabel
from engine import events as ev
from engine.players import HUMAN

if TYPE_CHECKING:
    from desktop.controller import SessionController
    from desktop.main_window import MainWindow

__all__ = ["ZOOM_STEPS", "Presenter", "PresenterView", "ReplayPlayer", "StepView", "step_view"]

#: The zoom factors Ctrl+= and Ctrl+- move between.
ZOOM_STEPS: tuple[float, ...] = (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)

# Presenter colours: light text on a near-black ground (contrast ratio above 15:1).
_BG = "#0B0F19"
_INK = "#FFFFFF"
_MUTED = "#CBD5E1"
_ACCENT = "#FACC15"
_PT = re.compile(r"(\d+(?:\.\d+)?)pt\b")
_BASE_FONT = "_playtrace_zoom_base_pt"
_BASE_SHEET = "_playtrace_zoom_base_sheet"


# -- what is shown ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class StepView:
    """The step shown, as the caption and the presenter draw it."""

    state: Any
    step: int
    head: int
    highlight: tuple[str, ...]
    caption: str
    reasoning: str


def _people(c: SessionController) -> list[int]:
    return [seat for seat, player in enumerate(c.players()) if player.kind == HUMAN]


def _reasoning(records: list[dict[str, Any]]) -> str:
    texts = [str((r.get("data") or {}).get("text") or "") for r in records if r.get("type") == ev.REASONING]
    return texts[-1].strip() if texts else ""


def _chosen(records: list[dict[str, Any]]) -> tuple[str, ...]:
    for record in records:
        if record.get("type") == ev.ACTION_APPLIED:
            actions = (record.get("data") or {}).get("actions") or {}
            return tuple(str(a) for a in actions.values())
    return ()


def step_view(c: SessionController, streaming: str = "") -> StepView | None:
    """The board, the decision made on it and its reasoning at the step the controller shows.

    While a live game is followed, the decision on the current board is not made yet: the caption
    then names the last move made (and its reasoning), marked "Last move".
    """
    if c.game is None:
        return None
    people = _people(c)
    following_live = c.mode == "live" and c.following
    k = c.view_step
    state = c.current_state() if following_live else c.state_at(k)
    state = shown_state(c.game, state, people, c.live)
    names = [s.name for s in c.game.seats]
    records = shown_records(c.game, c.records_for(k), people, c.live)
    models = set(c.model_seats())
    caption = caption_of(records, names, models)
    reasoning = _reasoning(records)
    highlight = () if following_live else _chosen(records)
    if not caption and k > c.base:
        before = shown_records(c.game, c.records_for(k - 1), people, c.live)
        last = caption_of(before, names, models)
        if last:
            caption = f"Last move: {last}"
            reasoning = reasoning or _reasoning(before)
    if following_live and streaming:
        # A model thinks on the board shown: its reasoning as it streams in, not the last move's.
        reasoning = streaming
    if k == c.head and (c.finished_status is not None or c.mode == "replay"):
        result = c.result_text()
        caption = f"Final position — {result}" if result else "Final position"
    return StepView(state, k, c.head, highlight, caption, reasoning)


# -- replay playback --------------------------------------------------------------------------------


class ReplayPlayer(QObject):
    """Plays a replay (or a finished game) forward one step per tick, at the timeline's speeds.

    Signals:
        sig_changed(): started, paused or the speed changed.
    """

    sig_changed = Signal()

    def __init__(self, controller: SessionController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.speed_index = DEFAULT_SPEED
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        controller.sig_session_changed.connect(self.pause)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    @property
    def delay(self) -> float:
        return SPEEDS[self.speed_index][1]

    @property
    def speed_label(self) -> str:
        return SPEEDS[self.speed_index][0]

    def available(self) -> bool:
        """Whether there is a recorded game to play back (not a game being played)."""
        c = self.controller
        return c.game is not None and not c.live and c.count > 0

    def play(self) -> None:
        if not self.available():
            return
        c = self.controller
        if c.view_step >= c.head:
            c.scrub(c.base)  # played to the end: start again from the first board
        self._timer.start(self._interval())
        self.sig_changed.emit()

    def pause(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.sig_changed.emit()

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def set_speed_index(self, index: int) -> None:
        self.speed_index = max(0, min(int(index), len(SPEEDS) - 1))
        if self._timer.isActive():
            self._timer.setInterval(self._interval())
        self.sig_changed.emit()

    def faster(self) -> None:
        self.set_speed_index(self.speed_index + 1)

    def slower(self) -> None:
        self.set_speed_index(self.speed_index - 1)

    def _interval(self) -> int:
        return max(30, int(self.delay * 1000))

    def _tick(self) -> None:
        c = self.controller
        if not self.available() or c.view_step >= c.head:
            self.pause()
            return
        c.scrub_by(1)
        if c.view_step >= c.head:
            self.pause()


# -- zoom -------------------------------------------------------------------------------------------


def next_zoom(current: float, direction: int) -> float:
    """The zoom step after (``direction`` 1) or before (-1) ``current``; 0 gives 1.0."""
    if direction == 0:
        return 1.0
    if direction > 0:
        return next((z for z in ZOOM_STEPS if z > current + 1e-6), ZOOM_STEPS[-1])
    return next((z for z in reversed(ZOOM_STEPS) if z < current - 1e-6), ZOOM_STEPS[0])


def apply_zoom(window: QWidget, factor: float) -> None:
    """Scale every font of the application (and of the style sheet) to ``factor`` of its base size.

    Widgets with a font of their own (bold titles, fixed-pitch views) keep their proportions: each is
    scaled from the size it had at zoom 1.
    """
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    previous = float(app.property("playtrace_zoom") or 1.0)
    base_sheet = app.property("playtrace_base_stylesheet")
    if base_sheet is None:
        base_sheet = app.styleSheet()
        app.setProperty("playtrace_base_stylesheet", base_sheet)
    base_pt = app.property("playtrace_base_pt")
    if base_pt is None:
        base_pt = app.font().pointSizeF() / previous if app.font().pointSizeF() > 0 else theme.BASE_POINT_SIZE
        app.setProperty("playtrace_base_pt", base_pt)
    # Each widget's size at zoom 1 is read before anything changes: a widget that inherits its size
    # from a parent scaled below would otherwise be scaled twice.
    own_fonts: list[tuple[QWidget, float]] = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not widget.testAttribute(Qt.WidgetAttribute.WA_SetFont) or isinstance(widget, PresenterView):
            continue
        base = widget.property(_BASE_FONT)
        if base is None:
            size = widget.font().pointSizeF()
            if size <= 0:
                continue
            base = size / previous
            widget.setProperty(_BASE_FONT, base)
        own_fonts.append((widget, float(base)))
    app.setProperty("playtrace_zoom", factor)
    font = app.font()
    font.setPointSizeF(float(base_pt) * factor)
    app.setFont(font)
    app.setStyleSheet(_PT.sub(lambda m: _scaled(m, factor), str(base_sheet)))
    for widget, base in own_fonts:
        own = widget.font()
        own.setPointSizeF(base * factor)
        widget.setFont(own)
    # Badges and pills size their text in their own style sheets.
    for widget in window.findChildren(QWidget):
        sheet = widget.styleSheet()
        if not sheet or "pt" not in sheet:
            continue
        base_sheet = widget.property(_BASE_SHEET)
        if base_sheet is None or _PT.sub(lambda m: _scaled(m, previous), str(base_sheet)) != sheet:
            base_sheet = sheet  # set by its owner since the last zoom: written for zoom 1
            widget.setProperty(_BASE_SHEET, base_sheet)
        widget.setStyleSheet(_PT.sub(lambda m: _scaled(m, factor), str(base_sheet)))


def _scaled(match: re.Match[str], factor: float) -> str:
    return f"{float(match.group(1)) * factor:.2f}pt"


# -- presenter mode ---------------------------------------------------------------------------------


def _font(pixels: float, *, bold: bool = False) -> QFont:
    from renderers.base import font

    return font(max(8.0, pixels), bold=bold)


class PresenterView(QWidget):
    """The presenter screen: the board and the current decision, in large type on a dark ground.

    Every size is a fraction of the widget's height, so the layout is the same on a 1280×720 projector
    and on a 1920×1080 screen. It handles its own keys (Space, arrows, ``<`` ``>``, Home, End, F5, Esc).
    """

    sig_leave = Signal()

    def __init__(self, presenter: Presenter, parent: QWidget) -> None:
        super().__init__(parent)
        self.presenter = presenter
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.hide()

    _KEYS = frozenset(
        {
            Qt.Key.Key_Space,
            Qt.Key.Key_Left,
            Qt.Key.Key_Right,
            Qt.Key.Key_Home,
            Qt.Key.Key_End,
            Qt.Key.Key_Escape,
            Qt.Key.Key_F5,
            Qt.Key.Key_Less,
            Qt.Key.Key_Greater,
            Qt.Key.Key_Comma,
            Qt.Key.Key_Period,
            Qt.Key.Key_BracketLeft,
            Qt.Key.Key_BracketRight,
        }
    )

    def event(self, e: QEvent) -> bool:
        # Claim the keys before the window's shortcuts (Space, Esc) see them.
        if e.type() == QEvent.Type.ShortcutOverride and isinstance(e, QKeyEvent) and e.key() in self._KEYS:
            e.accept()
            return True
        return super().event(e)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        p, key = self.presenter, event.key()
        c = p.controller
        if key in (Qt.Key.Key_Escape, Qt.Key.Key_F5):
            p.leave()
        elif key == Qt.Key.Key_Space:
            p.toggle_play()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_BracketLeft):
            c.scrub_by(-1)
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_BracketRight):
            c.scrub_by(1)
        elif key == Qt.Key.Key_Home:
            c.scrub(c.base)
        elif key == Qt.Key.Key_End:
            c.scrub(c.head)
        elif key in (Qt.Key.Key_Greater, Qt.Key.Key_Period):
            p.player.faster()
        elif key in (Qt.Key.Key_Less, Qt.Key.Key_Comma):
            p.player.slower()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    # -- drawing --------------------------------------------------------------------------------

    def _status(self) -> str:
        p = self.presenter
        c = p.controller
        if c.live:
            return "● Live" + ("" if c.running else " — paused")
        if p.player.playing:
            return f"▶ Replay {p.player.speed_label}"
        return "Replay — paused"

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        try:
            painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
            self._paint(painter)
        finally:
            painter.end()

    def _paint(self, painter: QPainter) -> None:
        import renderers
        from renderers.base import THEME, color

        w, h = float(self.width()), float(self.height())
        painter.fillRect(self.rect(), QColor(_BG))
        c = self.presenter.controller
        view = step_view(c, self.presenter.streaming)
        m = h * 0.04
        title_f, hint_f = _font(h / 26, bold=True), _font(h / 48)
        title_h = QFontMetricsF(title_f).height()
        hint_h = QFontMetricsF(hint_f).height()
        painter.setFont(title_f)
        painter.setPen(QColor(_MUTED))
        game_title = c.game.title if c.game is not None else "PlayTrace"
        top = QRectF(m, m * 0.6, w - 2 * m, title_h)
        following_live = c.mode == "live" and c.following and c.live
        step_text = (
            f" · {position_text(view.step, view.head, live=following_live)}" if view is not None else ""
        )
        painter.drawText(
            top, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, game_title + step_text
        )
        painter.setPen(QColor(_ACCENT))
        painter.drawText(top, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, self._status())
        painter.setFont(hint_f)
        painter.setPen(QColor(_MUTED))
        painter.drawText(
            QRectF(m, h - m * 0.5 - hint_h, w - 2 * m, hint_h),
            Qt.AlignmentFlag.AlignCenter,
            "Space play / pause · ← → step · < > speed · Esc leaves presenter mode",
        )
        body = QRectF(m, top.bottom() + m * 0.6, w - 2 * m, h - top.bottom() - m * 1.7 - hint_h)
        if view is None or view.state is None:
            painter.setFont(_font(h / 18, bold=True))
            painter.setPen(QColor(_INK))
            painter.drawText(
                body,
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                "Nothing to present yet — play the demo or open a session",
            )
            return
        side = min(body.height(), body.width() * 0.52)
        board = QRectF(body.left(), body.top() + (body.height() - side) / 2, side, side)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color(THEME.background))
        # The renderer leaves a margin around its board; a light ground only under the board itself.
        inner = board.adjusted(side * 0.05, side * 0.05, -side * 0.05, -side * 0.05)
        painter.drawRoundedRect(inner, side * 0.02, side * 0.02)
        renderers.get(c.game.id).paint(painter, view.state, board, highlight=view.highlight)
        text = QRectF(board.right() + m, body.top(), body.right() - board.right() - m, body.height())
        self._paint_text(painter, text, view, h)

    def _paint_text(self, painter: QPainter, rect: QRectF, view: StepView, h: float) -> None:
        y = rect.top()
        caption_f = _font(h / 19, bold=True)
        line = QFontMetricsF(caption_f).lineSpacing()
        painter.setFont(caption_f)
        painter.setPen(QColor(_INK))
        for text in fit_lines(view.caption or "Waiting for the first move…", caption_f, rect.width(), 5):
            painter.drawText(
                QRectF(rect.left(), y, rect.width(), line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
            y += line
        if not view.reasoning:
            return
        y += line * 0.6
        label_f = _font(h / 34, bold=True)
        painter.setFont(label_f)
        painter.setPen(QColor(_ACCENT))
        label_h = QFontMetricsF(label_f).lineSpacing()
        painter.drawText(
            QRectF(rect.left(), y, rect.width(), label_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            "REASONING",
        )
        y += label_h * 1.2
        body_f = _font(h / 30)
        body_line = QFontMetricsF(body_f).lineSpacing()
        painter.setFont(body_f)
        painter.setPen(QColor(_MUTED))
        room = int((rect.bottom() - y) // body_line)
        if room < 1:
            return
        for text in fit_lines(view.reasoning, body_f, rect.width(), room):
            painter.drawText(
                QRectF(rect.left(), y, rect.width(), body_line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
            y += body_line


class _ExportRelay(QObject):
    """Carries an export's progress from the worker thread to the GUI thread (queued signal)."""

    progress = Signal(int, int)


class Presenter(QObject):
    """Zoom, presenter mode, replay playback, the rationale caption and animation export of a window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.player = ReplayPlayer(self.controller, self)
        self.view = PresenterView(self, window)
        self.active = False
        self._restore: dict[str, Any] = {}
        self.exporting: asyncio.Task[Any] | None = None
        # The reasoning a model streams on the live board (model_delta events), shown as it comes.
        self._stream: list[str] = []
        self.controller.sig_live_record.connect(self._on_live_record)
        self.controller.sig_step_records.connect(self._on_step_records)

        # The caption line under the board: the decision made on the board shown, and why.
        # One line (elided, the whole text in its tooltip) of a fixed height: the board never moves as
        # a rationale comes, goes or grows.
        self.caption = ElidedLabel("")
        self.caption.setObjectName("RationaleCaption")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setStyleSheet(f"QLabel#RationaleCaption {{ color: {theme.TEXT}; font-style: italic; }}")
        window.board_area.add_caption(self.caption, lines=1)

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("Exporting %v / %m")
        self.progress.hide()
        window.statusBar().addPermanentWidget(self.progress)
        self._relay = _ExportRelay(self)
        self._relay.progress.connect(self._on_progress)

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(40)
        self._refresh_timer.timeout.connect(self.refresh)
        c = self.controller
        for signal in (
            c.sig_session_changed,
            c.sig_view_changed,
            c.sig_controls_changed,
            c.sig_step_records,
            c.sig_live_record,
            self.player.sig_changed,
        ):
            signal.connect(self._schedule)
        window.installEventFilter(self)
        self.actions = self._make_actions()
        self._apply_saved_zoom()

    # -- actions --------------------------------------------------------------------------------

    def _make_actions(self) -> dict[str, QAction]:
        """Presenter mode's commands (declared in :mod:`desktop.model.actions`; the window puts them in
        its menus). Space plays a replay only when there is no live game (the window's Run / Pause
        has the key then), so the two never share it."""
        from desktop.menus import make_actions

        return make_actions(self.window, {
            "zoom_in": lambda: self.zoom_by(1),
            "zoom_out": lambda: self.zoom_by(-1),
            "zoom_reset": lambda: self.zoom_by(0),
            "presenter": self.toggle,
            "play": self.player.toggle,
            "faster_replay": self.player.faster,
            "slower_replay": self.player.slower,
            "export_video": self.export_animation,
        })

    # -- zoom -----------------------------------------------------------------------------------

    @property
    def zoom(self) -> float:
        app = QApplication.instance()
        return float(app.property("playtrace_zoom") or 1.0) if app is not None else 1.0

    def set_zoom(self, factor: float, *, remember: bool = True) -> None:
        size = self.window.size()
        apply_zoom(self.window, factor)
        # Larger type, same window: it never widens itself past the screen, and the board keeps its room.
        self.window.fit_zoom(size, factor)
        if remember:
            try:
                settings = self.window._app_settings()
                settings.zoom = factor
                settings.sync()
            except Exception as exc:  # noqa: BLE001  (a read-only settings file must not stop zooming)
                self.window.statusBar().showMessage(f"Could not save the zoom: {exc}", 8000)
        self.window.statusBar().showMessage(f"Zoom {round(factor * 100)}%", 2000)

    def zoom_by(self, direction: int) -> None:
        self.set_zoom(next_zoom(self.zoom, direction))

    def _apply_saved_zoom(self) -> None:
        try:
            saved = float(self.window._app_settings().zoom)
        except Exception:  # noqa: BLE001  (an unreadable settings file: normal size)
            saved = 1.0
        if abs(saved - self.zoom) > 1e-6:
            apply_zoom(self.window, saved)

    # -- presenter mode -------------------------------------------------------------------------

    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self, *, full_screen: bool = True) -> None:
        """Show the presenter screen over the whole window (and the window full screen)."""
        if self.active:
            return
        w = self.window
        self.active = True
        self._restore = {
            "bars": [(bar, bar.isVisible()) for bar in (w.menuBar(), w.statusBar(), *self._toolbars())],
            "central": w.centralWidget().isVisible(),
            "state": w.windowState(),
        }
        for bar, _visible in self._restore["bars"]:
            bar.hide()
        w.centralWidget().hide()
        if full_screen:
            w.showFullScreen()
        self.view.setGeometry(w.rect())
        self.view.show()
        self.view.raise_()
        self.view.setFocus()
        self.refresh()

    def leave(self) -> None:
        if not self.active:
            return
        w = self.window
        self.active = False
        self.player.pause()  # the replay played for the audience stops with presenter mode
        self.view.hide()
        for bar, visible in self._restore.get("bars", ()):
            bar.setVisible(visible)
        w.centralWidget().setVisible(self._restore.get("central", True))
        state = self._restore.get("state")
        if state is not None and w.windowState() != state:
            w.setWindowState(state)
        w.setFocus()

    def _toolbars(self) -> list[QWidget]:
        from PySide6.QtWidgets import QToolBar

        return list(self.window.findChildren(QToolBar))

    def toggle_play(self) -> None:
        """Space: run or pause a live game, else play or pause the replay."""
        c = self.controller
        if c.live:
            c.toggle_run()
        else:
            self.player.toggle()
        self._schedule()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.window and event.type() == QEvent.Type.Resize and self.active:
            self.view.setGeometry(self.window.rect())
        return False

    # -- streaming ------------------------------------------------------------------------------

    @property
    def streaming(self) -> str:
        """The reasoning streamed so far by the model deciding on the live board ("" when none)."""
        return "".join(self._stream).strip()

    def _on_live_record(self, record: dict[str, Any]) -> None:
        data = record.get("data") or {}
        if record.get("type") == ev.MODEL_DELTA and data.get("kind") == "reasoning":
            self._stream.append(str(data.get("text") or ""))
            if self.active:
                self._schedule()
        elif record.get("type") in (ev.MODEL_CALL_STARTED, ev.REASONING, ev.DECISION):
            self._stream.clear()  # a new call (a re-ask), or the whole reasoning is recorded now

    def _on_step_records(self, _step: int) -> None:
        self._stream.clear()

    # -- refresh --------------------------------------------------------------------------------

    def _schedule(self, *_args: Any) -> None:
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Bring the caption, the actions and the presenter screen up to date."""
        self._refresh_timer.stop()
        view = step_view(self.controller, self.streaming)
        self.caption.setText(view.caption if view is not None else "")
        # Shown (empty or not) whenever a game is: a caption that appears and disappears moves the board.
        self.caption.setVisible(self.controller.game is not None)
        self.actions["play"].setEnabled(self.player.available())
        self.actions["export_video"].setEnabled(self.controller.folder is not None and self.exporting is None)
        if self.active:
            self.view.update()

    # -- export ---------------------------------------------------------------------------------

    def export_animation(self) -> None:
        """Ask where to save, then export the session as a GIF or an MP4 (by the suffix chosen)."""
        c = self.controller
        if c.folder is None or self.exporting is not None:
            return
        dest, chosen = QFileDialog.getSaveFileName(
            self.window,
            "Export animation",
            str(Path.home() / f"{c.folder.name}.gif"),
            "Animated GIF (*.gif);;MP4 video (*.mp4)",
        )
        if not dest:
            return
        path = Path(dest)
        if not path.suffix:
            path = path.with_suffix(".mp4" if "mp4" in chosen.lower() else ".gif")
        self.export_to(path)

    def export_to(
        self, dest: Path | str, *, first: int | None = None, last: int | None = None
    ) -> asyncio.Task[Any]:
        """Export the open session to ``dest`` off the UI thread; the status bar shows the progress."""
        folder = self.controller.folder
        if folder is None:
            raise RuntimeError("no session is open")
        task = self.window.spawn(self._export(folder, Path(dest), first, last), "export the animation")
        self.exporting = task
        task.add_done_callback(self._export_done)
        self.refresh()
        return task

    async def _export(self, folder: Path, dest: Path, first: int | None, last: int | None) -> Path:
        import sessions
        from desktop.video_export import export_video, plan_video, prepare

        prepare()  # fonts are registered on the GUI thread, before the worker draws
        session = await asyncio.to_thread(sessions.load_session, folder)
        plan = plan_video(session, dest, first=first, last=last)
        self.progress.setRange(0, plan.frames)
        self.progress.setValue(0)
        self.progress.show()
        self.window.statusBar().showMessage(f"Exporting {plan.frames} boards to {dest.name}…", 8000)
        out = await asyncio.to_thread(
            export_video, session, dest, first=first, last=last, progress=self._relay.progress.emit
        )
        self.window.statusBar().showMessage(f"Exported to {out}", 8000)
        return out

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _export_done(self, _task: asyncio.Task[Any]) -> None:
        self.exporting = None
        self.progress.hide()
        self.refresh()
