"""The main window: session header, board beside the model panel, timeline and live score plot.

The window only wires views to the :class:`~desktop.controller.SessionController`; every decision
about the game lives there. Long work (starting a game, opening a session, forking) runs as asyncio
tasks on the qasync loop, and any failure lands in the status bar instead of disappearing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.board_view import BoardView
from desktop.controller import GameSetup, SeatSetup, SessionController
from desktop.score_plot import ScorePlot
from desktop.timeline import Timeline

#: Shown by the F1 overlay and in Help > Keyboard shortcuts.
SHORTCUTS: tuple[tuple[str, str, str], ...] = (
    ("App", "Ctrl+N", "New game"),
    ("App", "Ctrl+O", "Open a saved session"),
    ("App", "Ctrl+E", "Export the session as a zip"),
    ("App", "F1", "Show or hide this help"),
    ("Play", "Space", "Run / pause automatic play"),
    ("Play", "Ctrl+Enter", "Ask the model for one decision"),
    ("Play", "Esc", "Cancel the model call in flight"),
    ("Timeline", "← / →  or  [ / ]", "Previous / next step ([ ] also while the board has focus)"),
    ("Timeline", "Home / End", "First step / back to live"),
    ("2048", "Arrows or W A S D", "Slide the tiles (the board must have focus)"),
    ("Tic-tac-toe", "1 – 9 or click", "Play a cell, in reading order"),
)


def demo_setup(seed: int | None = None, *, latency: float = 0.03, delay: float = 1.0) -> GameSetup:
    """The first-launch demo: the simulated model (X, seeing text and image) against minimax (O)."""
    return GameSetup(
        game_id="tictactoe",
        seats=[
            SeatSetup(
                "sim",
                {"perception": "both", "memory": 6, "reflection": True, "thinking": True, "latency": latency},
            ),
            SeatSetup("minimax"),
        ],
        seed=GameSetup.random_seed() if seed is None else seed,
        delay=delay,
        title="Demo: simulated model vs minimax",
    )


def spend_text(spend: Mapping[str, Any]) -> tuple[str, str]:
    """The header's cost meter for :meth:`SessionController.spend`, and its tooltip.

    Empty when no seat is a model; "free (simulated)" when every model is the simulated one; otherwise
    the dollars spent so far and the tokens, with "+ unknown" when some calls have no known price.
    """
    if not spend or not spend.get("models"):
        return "", ""
    tokens = int(spend.get("tokens") or 0)
    calls = int(spend.get("calls") or 0)
    tip = (f"{calls} model call{'s' if calls != 1 else ''}: {int(spend.get('input_tokens') or 0):,} tokens in, "
           f"{int(spend.get('output_tokens') or 0):,} out (reasoning included)")
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


def _card(widget: QWidget, margins: int = 6) -> QFrame:
    frame = QFrame()
    frame.setObjectName("Card")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(margins, margins, margins, margins)
    layout.addWidget(widget)
    return frame


class HeaderStrip(QFrame):
    """Game title, every seat with a kind badge, the seed, the status and the score."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HeaderStrip")
        self.title = QLabel("PlayTrace")
        self.title.setObjectName("HeaderTitle")
        self.seats_box = QHBoxLayout()
        self.seats_box.setSpacing(14)
        self.seed = QLabel("")
        self.seed.setObjectName("Muted")
        self.status = QLabel("")
        self.status.setObjectName("ModePill")
        self.score = QLabel("")
        self.score.setStyleSheet(f"font-weight: 600; color: {theme.TEXT};")
        # The session's model spend so far (the cost meter), updated with every finished call.
        self.spend = QLabel("")
        self.spend.setObjectName("SpendMeter")
        self.spend.setStyleSheet(f"color: {theme.TEXT};")
        self.spend.setVisible(False)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)
        row.setSpacing(16)
        row.addWidget(self.title)
        row.addLayout(self.seats_box)
        row.addStretch(1)
        row.addWidget(self.seed)
        row.addWidget(self.spend)
        row.addWidget(self.score)
        row.addWidget(self.status)
        self._seat_widgets: list[QWidget] = []

    def set_info(self, info: dict[str, Any]) -> None:
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
            box = QWidget()
            lay = QHBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(6)
            swatch = QLabel("●")
            swatch.setStyleSheet(f"color: {theme.SEAT_COLOURS[int(player['seat']) % len(theme.SEAT_COLOURS)]};")
            name = QLabel(f"{theme.seat_title(int(player['seat']), player.get('seat_name'))}:")
            name.setObjectName("Muted")
            label = QLabel(str(player.get("label", "")))
            badge_kind = str(player.get("badge", "bot"))
            badge = QLabel({"sim": "SIMULATED", "model": "MODEL", "human": "HUMAN"}.get(badge_kind, "BOT"))
            badge.setStyleSheet(theme.badge_style(badge_kind))
            badge.setToolTip(str(player.get("spec", "")))
            for w in (swatch, name, label, badge):
                lay.addWidget(w)
            self.seats_box.addWidget(box)
            self._seat_widgets.append(box)
        seed = info.get("seed")
        fork = info.get("forked_from")
        parts = [f"seed {seed}" if seed is not None else "no seed"]
        if isinstance(fork, dict):
            parts.append(f"forked at step {fork.get('step')}")
        self.seed.setText(" · ".join(parts))
        self.set_status(str(info.get("status") or ""), info.get("scores"))

    def set_spend(self, spend: Mapping[str, Any] | None) -> None:
        """Show the cost meter (hidden when no seat is a model)."""
        text, tip = spend_text(spend or {})
        self.spend.setText(text)
        self.spend.setToolTip(tip)
        self.spend.setVisible(bool(text))

    def set_status(self, status: str, scores: Any = None) -> None:
        colours = {
            "running": ("#e6f4ea", theme.SUCCESS),
            "paused": (theme.WARNING_BG, theme.WARNING_FG),
            "completed": ("#eef0f4", "#3d4452"),
            "error": ("#fde8e8", theme.ERROR_FG),
            "aborted": ("#fde8e8", theme.ERROR_FG),
        }
        bg, fg = colours.get(status, ("#eef0f4", "#3d4452"))
        self.status.setVisible(bool(status))
        self.status.setText(status.replace("_", " ").upper())
        self.status.setStyleSheet(f"QLabel#ModePill {{ background: {bg}; color: {fg}; }}")
        if isinstance(scores, (list, tuple)) and scores:
            self.score.setText("Score " + " : ".join(f"{float(s):g}" for s in scores))
        else:
            self.score.setText("")


class Banner(QFrame):
    """A dismissible message strip with optional action buttons."""

    def __init__(self, object_name: str = "Banner", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(12, 6, 8, 6)
        self._row.setSpacing(8)
        self._row.addWidget(self.text, 1)
        self.buttons: dict[str, QPushButton] = {}
        close = QPushButton("Dismiss")
        close.setFlat(True)
        close.clicked.connect(self.hide)
        self._close = close
        self._row.addWidget(close)
        self.hide()

    def add_button(self, key: str, text: str, *, primary: bool = False) -> QPushButton:
        btn = QPushButton(text)
        if primary:
            btn.setObjectName("Primary")
        self._row.insertWidget(self._row.count() - 1, btn)
        self.buttons[key] = btn
        return btn

    def show_text(self, html: str) -> None:
        self.text.setText(html)
        self.show()


class WelcomeCard(QWidget):
    """The game area when nothing is open: a centred card offering the three ways to begin."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WelcomeArea")
        card = QFrame()
        card.setObjectName("WelcomeCard")
        card.setStyleSheet(
            f"QFrame#WelcomeCard {{ background: {theme.PANEL}; border: 1px solid {theme.BORDER}; "
            "border-radius: 12px; }"
        )
        card.setMaximumWidth(420)
        title = QLabel("Welcome to PlayTrace")
        title.setObjectName("HeaderTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text = QLabel("Play a game yourself, let a language model play, or look back at a saved session.")
        text.setObjectName("Muted")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.new_button = QPushButton("New game (Ctrl+N)")
        self.new_button.setObjectName("Primary")
        self.open_button = QPushButton("Open session (Ctrl+O)")
        self.demo_button = QPushButton("Play the demo")
        self.demo_button.setToolTip("Watch the simulated model play tic-tac-toe (offline, free)")
        inner = QVBoxLayout(card)
        inner.setContentsMargins(28, 24, 28, 24)
        inner.setSpacing(10)
        inner.addWidget(title)
        inner.addWidget(text)
        inner.addSpacing(6)
        for button in (self.new_button, self.open_button, self.demo_button):
            button.setMinimumHeight(32)
            inner.addWidget(button)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(card, 3)
        row.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(1)


class ShortcutOverlay(QFrame):
    """The F1 help: a translucent layer over the window listing every key."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("ShortcutOverlay")
        self.setStyleSheet(
            "QFrame#ShortcutOverlay { background: rgba(20, 24, 32, 120); }"
            f"QFrame#OverlayCard {{ background: {theme.PANEL}; border-radius: 12px; border: 1px solid {theme.BORDER}; }}"
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        card = QFrame(self)
        card.setObjectName("OverlayCard")
        grid = QGridLayout(card)
        grid.setContentsMargins(24, 20, 24, 20)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(8)
        title = QLabel("Keyboard shortcuts")
        title.setObjectName("HeaderTitle")
        grid.addWidget(title, 0, 0, 1, 3)
        for row, (context, keys, what) in enumerate(SHORTCUTS, start=1):
            ctx = QLabel(context)
            ctx.setObjectName("Muted")
            key = QLabel(keys)
            key.setStyleSheet(
                f"font-family: 'DejaVu Sans Mono'; font-weight: 600; color: {theme.ACCENT_DARK};"
            )
            grid.addWidget(ctx, row, 0)
            grid.addWidget(key, row, 1)
            grid.addWidget(QLabel(what), row, 2)
        hint = QLabel("Press F1 or Esc, or click anywhere, to close")
        hint.setObjectName("Muted")
        grid.addWidget(hint, len(SHORTCUTS) + 1, 0, 1, 3)
        self.card = card
        self.hide()

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
            return
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.card.adjustSize()
        self.card.move((self.width() - self.card.width()) // 2, max(20, (self.height() - self.card.height()) // 2))
        self.raise_()
        self.show()
        self.setFocus()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.hide()

    def event(self, event: QEvent) -> bool:
        # Esc is a window-wide shortcut (cancel the model call); while the help is open it closes it.
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
            self.hide()
            event.accept()
            return
        super().keyPressEvent(event)


def _make_inspector() -> QWidget:
    try:
        from desktop.inspector import InspectorPanel

        return InspectorPanel()
    except ImportError:  # the model panel is optional for the walking skeleton
        placeholder = QLabel("Model panel unavailable")
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return placeholder


class MainWindow(QMainWindow):
    """PlayTrace's main window.

    Signals:
        sig_closed(): the window was closed (the app then shuts the session down and quits).
    """

    sig_closed = Signal()

    def __init__(self, controller: SessionController | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("PlayTrace")
        self.resize(1280, 800)
        self.controller = controller or SessionController(parent=self)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.last_error: str | None = None
        self._dialogs: list[QWidget] = []
        # The demo's next game starts a moment after one ends; a member timer (not a free-floating
        # singleShot) can be stopped when the demo ends or the window closes.
        self._demo_restart_timer = QTimer(self)
        self._demo_restart_timer.setSingleShot(True)
        self._demo_restart_timer.setInterval(4000)
        self._demo_restart_timer.timeout.connect(self._restart_demo)
        self.demo_active = False
        self._demo_kwargs: dict[str, Any] = {}
        self._settings: Any = None

        self.header = HeaderStrip()
        self.demo_banner = Banner("Banner")
        self.demo_banner.add_button("add_model", "Add a real model…", primary=True).clicked.connect(
            self.add_real_model
        )
        self.demo_banner.add_button("new_game", "New game…").clicked.connect(self.new_game)
        self.warning_banner = Banner("WarningBanner")

        self.board = BoardView()
        self.board_caption = QLabel("")
        self.board_caption.setObjectName("Muted")
        self.board_caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.board_caption.setWordWrap(True)
        board_box = QWidget()
        board_layout = QVBoxLayout(board_box)
        board_layout.setContentsMargins(0, 0, 0, 0)
        board_layout.setSpacing(4)
        board_layout.addWidget(self.board, 1)
        board_layout.addWidget(self.board_caption)
        # With nothing open the game area shows a welcome card instead of an empty board.
        self.welcome = WelcomeCard()
        self.game_stack = QStackedWidget()
        self.game_stack.addWidget(board_box)
        self.game_stack.addWidget(self.welcome)
        self._board_box = board_box
        self.board_card = _card(self.game_stack, 8)
        self.board_card.setMinimumWidth(340)

        self.inspector = _make_inspector()
        self.timeline = Timeline()
        self.plot = ScorePlot()
        self.plot.setMinimumHeight(110)

        # Left column: the board above the score plot; right: the model panel at full height, where
        # prompts and reasoning need the room. The timeline spans the window below both.
        self.left_split = QSplitter(Qt.Orientation.Vertical)
        self.left_split.addWidget(self.board_card)
        self.left_split.addWidget(self.plot)
        self.left_split.setStretchFactor(0, 4)
        self.left_split.setStretchFactor(1, 1)
        self.left_split.setSizes([430, 150])
        self.left_split.setChildrenCollapsible(False)

        self.top_split = QSplitter(Qt.Orientation.Horizontal)
        self.top_split.addWidget(self.left_split)
        self.top_split.addWidget(self.inspector)
        self.top_split.setStretchFactor(0, 5)
        self.top_split.setStretchFactor(1, 6)
        self.top_split.setSizes([540, 720])
        self.top_split.setChildrenCollapsible(False)

        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(10, 8, 10, 6)
        body_layout.setSpacing(6)
        body_layout.addWidget(self.demo_banner)
        body_layout.addWidget(self.warning_banner)
        body_layout.addWidget(self.top_split, 1)
        body_layout.addWidget(self.timeline)

        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.header)
        central_layout.addWidget(body, 1)
        self.setCentralWidget(central)
        self.overlay = ShortcutOverlay(central)

        self.status_label = QLabel("")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.session_label = QLabel("")
        self.session_label.setObjectName("Muted")
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.session_label)
        # Keep the status text off the window edges (it sat flush against them).
        self.statusBar().setContentsMargins(8, 0, 8, 0)

        self._build_actions()
        self._wire()
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(30)
        self._refresh_timer.timeout.connect(self.refresh)
        self.refresh()

    # ------------------------------------------------------------------------------------------
    # construction
    # ------------------------------------------------------------------------------------------

    def _action(self, text: str, slot: Any, shortcut: str | QKeySequence.StandardKey | None = None,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.act_new = self._action("New game…", self.new_game, "Ctrl+N", "Start a new game")
        self.act_open = self._action("Open session…", self.open_browser, "Ctrl+O", "Browse saved sessions")
        self.act_fork = self._action("Fork from this step", self.fork, None,
                                     "Start a new session from the step shown")
        self.act_export = self._action("Export session…", self.export_session, "Ctrl+E",
                                       "Save the session as a zip archive")
        self.act_quit = self._action("Quit", self.close, "Ctrl+Q")
        self.act_run = self._action("Run / Pause", self.controller.toggle_run, "Space", "Run or pause")
        self.act_step = self._action("Step", self.controller.step, None, "Play one step")
        # Ctrl+Enter and Esc are bound by the model panel (window-wide); the menu items only name them.
        self.act_ask = self._action("Ask the model\tCtrl+Enter", self.controller.ask, None)
        self.act_cancel = self._action("Cancel model call\tEsc", self.controller.cancel, None)
        self.act_take_over = self._action("Take over seat", lambda: self.controller.take_over(), None)
        self.act_hand_back = self._action("Hand back seat", lambda: self.controller.hand_back(), None)
        self.act_prev = self._action("Previous step", lambda: self.controller.scrub_by(-1), "[")
        self.act_next = self._action("Next step", lambda: self.controller.scrub_by(1), "]")
        self.act_live = self._action("Go to live / last step", self.go_end, None)
        self.act_first = self._action("First step", lambda: self.controller.scrub(self.controller.base), None)
        self.act_keys = self._action("Keyboard shortcuts", self.overlay.toggle, "F1")
        self.act_about = self._action("About PlayTrace", self.about)
        self.act_demo = self._action("Play the demo", lambda: self.start_demo(), None,
                                     "Watch the simulated model play (offline, free)")
        self.act_add_model = self._action("Add a real model…", self.add_real_model, None,
                                          "Enter an API key or a local server address")

        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        for act in (self.act_new, self.act_open, None, self.act_fork, self.act_export, None, self.act_quit):
            file_menu.addSeparator() if act is None else file_menu.addAction(act)
        play = menu.addMenu("&Play")
        for act in (self.act_run, self.act_step, None, self.act_ask, self.act_cancel, None,
                    self.act_take_over, self.act_hand_back):
            play.addSeparator() if act is None else play.addAction(act)
        view = menu.addMenu("&View")
        for act in (self.act_prev, self.act_next, self.act_first, self.act_live):
            view.addAction(act)
        models = menu.addMenu("&Models")
        models.addAction(self.act_add_model)
        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self.act_demo)
        help_menu.addSeparator()
        help_menu.addAction(self.act_keys)
        help_menu.addAction(self.act_about)

        bar = QToolBar("Main")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for act in (self.act_new, self.act_open, self.act_fork, self.act_export):
            bar.addAction(act)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addAction(self.act_add_model)
        bar.addAction(self.act_keys)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _wire(self) -> None:
        c = self.controller
        c.sig_session_changed.connect(self._on_session_changed)
        c.sig_view_changed.connect(self.schedule_refresh)
        c.sig_controls_changed.connect(self.schedule_refresh)
        c.sig_step_records.connect(self._on_step_records)
        c.sig_live_record.connect(self._on_live_record)
        c.sig_score.connect(self.plot.append)
        c.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        c.sig_error.connect(self._on_error)
        c.sig_finished.connect(self._on_finished)
        c.sig_spend.connect(self.header.set_spend)
        c.sig_budget.connect(self._on_budget)

        self.welcome.new_button.clicked.connect(self.new_game)
        self.welcome.open_button.clicked.connect(self.open_browser)
        self.welcome.demo_button.clicked.connect(lambda: self.start_demo())

        self.board.sig_action_requested.connect(self._on_board_action)
        # The slider counts from 0; a forked session's steps start at the fork's step.
        self.timeline.sig_scrubbed.connect(lambda position: c.scrub(c.base + position))
        self.timeline.sig_step_requested.connect(c.step)
        self.timeline.sig_run_requested.connect(c.run)
        self.timeline.sig_pause_requested.connect(c.pause)
        self.timeline.sig_speed_changed.connect(c.set_speed)
        self.timeline.sig_live_requested.connect(c.go_live)

        insp = self.inspector
        if hasattr(insp, "sig_ask_requested"):
            insp.sig_ask_requested.connect(c.ask)
            insp.sig_reask_requested.connect(c.reask)
            insp.sig_accept_requested.connect(c.accept)
            insp.sig_override_requested.connect(c.override)
            insp.sig_take_over_requested.connect(lambda: c.take_over())
            insp.sig_hand_back_requested.connect(lambda: c.hand_back())
            insp.sig_fork_requested.connect(self.fork)
            insp.sig_cancel_requested.connect(c.cancel)

    # ------------------------------------------------------------------------------------------
    # tasks
    # ------------------------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run ``coro`` on the qasync loop; a failure is shown in the status bar, never lost."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self.tasks.discard(t)
            if t.cancelled():
                return
            exc = t.exception()
            if exc is not None:
                self._on_error(f"Could not {what}: {exc}")

        task.add_done_callback(done)
        return task

    # ------------------------------------------------------------------------------------------
    # refresh
    # ------------------------------------------------------------------------------------------

    def schedule_refresh(self) -> None:
        # Coalesce: a fast bot game emits many signals per frame; one refresh per ~30 ms is plenty.
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Bring board, timeline, header, panel controls and status bar up to date."""
        c = self.controller
        self._refresh_timer.stop()
        has_session = c.game is not None
        for act in (self.act_fork, self.act_export):
            act.setEnabled(has_session)
        # The demo is about to start (its game is being built): no point flashing the welcome card.
        self.game_stack.setCurrentWidget(
            self._board_box if has_session or self.demo_active else self.welcome
        )
        live = c.live
        self.act_run.setEnabled(live)
        self.act_step.setEnabled(live)
        self.act_take_over.setEnabled(live and bool(c.model_seats()))
        self.act_hand_back.setEnabled(live and any(c.taken_over(s) for s in c.model_seats()))

        # Board
        state = c.state_at(c.view_step) if has_session else None
        if c.mode == "live" and c.following:
            state = c.current_state()
        legal = c.interactive_legal()
        pending = c.pending
        highlight: list[str] = []
        if pending and c.following and pending.get("action"):
            highlight.append(str(pending["action"]))
        elif not (c.mode == "live" and c.following):
            highlight.extend(self._chosen_at(c.view_step).values())
        self.board.set_state(state, interactive=bool(legal), legal=legal, highlight=highlight)
        self.board_caption.setText(self._board_caption())

        # Timeline
        self.timeline.set_range(c.count, c.view_step - c.base)
        self.timeline.step_label.setText(f"Step {c.view_step} / {c.head}")
        self.timeline.set_mode(c.mode if has_session else "idle", following=c.following)
        # A game of people only never waits for the pacer: Step / Run / Pause would do nothing.
        automatic = any(p.kind != "human" for p in c.players())
        finished = c.finished_status is not None or not live or not automatic
        self.timeline.set_transport(running=c.running, can_step=live and not c.running or bool(pending),
                                    finished=finished)
        self.plot.set_marker(None if (c.mode == "live" and c.following) else c.view_step)

        # Header and panel controls
        info = c.header_info()
        self.header.set_status(str(info.get("status") or ""), info.get("scores"))
        if hasattr(self.inspector, "set_controls"):
            model_seat = c.model_to_act()
            pending_info = None
            if pending:
                pending_info = dict(pending)
                pending_info["legal"] = c.interactive_legal()
            self.inspector.set_controls(
                model_to_act=model_seat is not None and c.following and pending is None,
                busy=c.busy,
                pending=pending_info if c.following else None,
                replay=c.mode != "live" or not live,
                can_fork=c.mode != "idle",
            )
            if hasattr(self.inspector, "set_taken_over"):
                self.inspector.set_taken_over(any(c.taken_over(s) for s in c.model_seats()))
        self.status_label.setText(c.describe())
        self.session_label.setText(c.folder.name if c.folder else "")

    def _board_caption(self) -> str:
        c = self.controller
        if c.game is None:
            return ""
        pending = c.pending
        if pending and c.following:
            return f"Proposed: {pending['action']} — click another move to override"
        waiting = c.waiting_human() if c.following else None
        if waiting is not None:
            return f"Your move as {c.game.seats[waiting[0]].name} — {c.key_hint()}"
        if not c.following or c.mode == "replay":
            chosen = self._chosen_at(c.view_step)
            if not chosen:
                return f"Step {c.view_step} — final position" if c.view_step == c.head else f"Step {c.view_step}"
            moves = ", ".join(f"{c.game.seats[s].name} chose {a}" for s, a in sorted(chosen.items()))
            return f"Step {c.view_step} — {moves} (highlighted)"
        return ""

    def _chosen_at(self, step: int) -> dict[int, str]:
        """The actions applied at ``step`` (what each seat chose from the state shown)."""
        for record in self.controller.records_for(step):
            if record.get("type") == "action_applied":
                actions = (record.get("data") or {}).get("actions") or {}
                return {int(seat): str(action) for seat, action in actions.items()}
        return {}

    # ------------------------------------------------------------------------------------------
    # controller signals
    # ------------------------------------------------------------------------------------------

    def _on_session_changed(self) -> None:
        c = self.controller
        info = c.header_info()
        self.header.set_info(info)
        self.header.set_spend(c.spend() if info else None)
        self.board.set_game(c.game)
        labels = [
            f"{theme.seat_title(int(p.get('seat', i)), p.get('seat_name'))} · {p.get('label')}"
            for i, p in enumerate(info.get("players", []))
        ]
        self.plot.reset(labels or ["Score"], title="Score per seat" if len(labels) > 1 else "Score")
        if c.pacer is not None and c.mode == "live":
            self.timeline.show_delay(c.pacer.delay)  # the speed shown is the speed played (the demo's own)
        scores = c.scores
        if scores:
            self.plot.set_series([s for s, _ in scores], [[v[i] for _, v in scores] for i in range(len(labels))])
        if hasattr(self.inspector, "set_header"):
            panel_info = dict(info)
            panel_info["game"] = info.get("title") or info.get("game")
            self.inspector.set_header(panel_info)
        if c.warnings:
            # Warnings quote the session's files (event types, names): text, never markup.
            items = "".join(f"<li>{html.escape(str(w))}</li>" for w in c.warnings[:5])
            self.warning_banner.show_text(
                f"<b>This session was not closed cleanly.</b> What could be read is shown.<ul "
                f"style='margin:0'>{items}</ul>"
            )
        else:
            self.warning_banner.hide()
        self.setWindowTitle(f"PlayTrace — {info.get('title', '')}" if info else "PlayTrace")
        self.statusBar().clearMessage()
        self._on_step_records(c.view_step if not c.following else c.head)
        self.refresh()
        if c.mode == "live":
            self.board.setFocus()

    def _on_step_records(self, step: int) -> None:
        if hasattr(self.inspector, "show_step"):
            self.inspector.show_step(step, self.controller.records_for(step), self.controller.resolve)

    def _on_live_record(self, record: dict[str, Any]) -> None:
        if hasattr(self.inspector, "append_live"):
            self.inspector.append_live(record)

    def _on_board_action(self, action: str) -> None:
        if not self.controller.board_action(action):
            self.statusBar().showMessage(f"{action} cannot be played now", 3000)
        self.schedule_refresh()

    def _on_budget(self, cap: str, message: str) -> None:
        """A seat passed a spending cap: always in the status bar; the hard cap also as a banner."""
        if cap == "hard":
            self.statusBar().showMessage(f"Budget cap reached — {message}", 30000)
            self.warning_banner.show_text(
                f"<b>Hard budget cap reached.</b> {html.escape(message)}. "
                "Raise the cap in New game (Ctrl+N) to play on."
            )
        elif cap == "soft":
            self.statusBar().showMessage(f"Budget warning — {message}", 20000)
        else:
            self.statusBar().showMessage(f"Budget: {message}", 20000)
        self.schedule_refresh()

    def _on_error(self, message: str) -> None:
        self.report_problem(message)
        self.schedule_refresh()

    def report_problem(self, message: str) -> None:
        """Tell the person about an error in the status bar (errors never open blocking dialogs)."""
        self.last_error = message
        self.statusBar().showMessage(message, 15000)

    # ------------------------------------------------------------------------------------------
    # commands
    # ------------------------------------------------------------------------------------------

    def start_game(self, setup: GameSetup) -> asyncio.Task[Any]:
        """Start a live game from ``setup`` (as the New game dialog does)."""
        self._end_demo()
        return self.spawn(self.controller.start(setup), "start the game")

    def open_session(self, path: Path | str) -> asyncio.Task[Any]:
        self._end_demo()
        self.mark_demo_done()
        return self.spawn(self.controller.open_session(path), "open the session")

    def start_from_dialog(self, setup: GameSetup) -> asyncio.Task[Any]:
        """Start the game chosen in the New game dialog: the person's own game, so no more launch demo."""
        self.mark_demo_done()
        # The dialog has no speed field: the game plays at the speed the timeline shows.
        return self.start_game(dataclasses.replace(setup, delay=self.timeline.delay))

    # -- the launch demo's remembered state --------------------------------------------------

    def _app_settings(self) -> Any:
        if self._settings is None:
            from desktop.settings import AppSettings

            self._settings = AppSettings()
        return self._settings

    def demo_done(self) -> bool:
        """Whether the person has played a game of their own (then launches open on the welcome card)."""
        try:
            return bool(self._app_settings().demo_done)
        except Exception:  # an unreadable settings file must not stop the app from opening
            return False

    def mark_demo_done(self) -> None:
        """Remember that the demo is no longer needed on launch."""
        try:
            settings = self._app_settings()
            if not settings.demo_done:
                settings.demo_done = True
                settings.sync()
        except Exception as exc:  # not worth interrupting a game for; the demo just plays once more
            self.statusBar().showMessage(f"Could not save the settings: {exc}", 8000)

    def show_welcome(self) -> None:
        """The idle state for later launches: the welcome card in the game area."""
        self._end_demo()
        self.refresh()

    def start_demo(self, **kwargs: Any) -> asyncio.Task[Any]:
        """Start the first-launch demo (the simulated model playing), restarted when a game ends."""
        self.demo_active = True
        self._demo_kwargs = dict(kwargs)
        self.show_demo_banner()
        self.schedule_refresh()
        return self.spawn(self.controller.start(demo_setup(**kwargs)), "start the demo")

    def _end_demo(self) -> None:
        self.demo_active = False
        self._demo_restart_timer.stop()
        self.demo_banner.hide()
        self.schedule_refresh()

    def _on_finished(self, status: str) -> None:
        self.schedule_refresh()
        if self.demo_active and status in ("completed", "max_steps", "forfeit"):
            # Keep the demo alive: show the result for a moment, then play another game.
            self._demo_restart_timer.start()

    def _restart_demo(self) -> None:
        c = self.controller
        if self.demo_active and c.finished_status is not None and c.mode == "live":
            self.spawn(c.start(demo_setup(**self._demo_kwargs)), "restart the demo")

    def new_game(self) -> None:
        from desktop.new_game_dialog import NewGameDialog

        dialog = NewGameDialog(self, previous=self.controller.setup)
        dialog.sig_start_requested.connect(self.start_from_dialog)
        dialog.finished.connect(lambda _r: self._forget(dialog))
        self._dialogs.append(dialog)
        dialog.open()

    def open_browser(self) -> None:
        from desktop.session_browser import SessionBrowser

        browser = SessionBrowser(self.controller.root, self, in_use=lambda: self.controller.folder)
        browser.sig_open_requested.connect(self.open_session)
        browser.finished.connect(lambda _r: self._forget(browser))
        self._dialogs.append(browser)
        browser.open()

    def _forget(self, widget: QWidget) -> None:
        if widget in self._dialogs:
            self._dialogs.remove(widget)
        widget.deleteLater()

    def fork(self) -> asyncio.Task[Any] | None:
        if self.controller.game is None:
            return None
        self._end_demo()
        return self.spawn(self.controller.fork(), "fork the session")

    def export_session(self) -> None:
        c = self.controller
        if c.folder is None:
            return
        dest, _ = QFileDialog.getSaveFileName(
            self, "Export session", str(Path.home() / f"{c.folder.name}.zip"), "Zip archives (*.zip)"
        )
        if not dest:
            return
        self.spawn(self._export(c.folder, dest), "export the session")

    async def _export(self, folder: Path, dest: str) -> None:
        # A long session with many images makes a big archive: zip it off the UI thread (the folder
        # is the one chosen now, even if another session is opened meanwhile).
        import sessions

        self.statusBar().showMessage("Exporting the session…", 8000)
        out = await asyncio.to_thread(sessions.export_zip, folder, Path(dest))
        self.statusBar().showMessage(f"Exported to {out}", 8000)

    def add_real_model(self) -> None:
        """Open the keys dialog (API keys, local server) if it is available, else the New game dialog."""
        try:
            from desktop import keys_dialog
        except ImportError:
            self.new_game()
            return
        cls = getattr(keys_dialog, "ModelsKeysDialog", None) or getattr(keys_dialog, "KeysDialog", None)
        if cls is None:
            self.new_game()
            return
        dialog = cls(self)
        dialog.finished.connect(lambda _r: self._forget(dialog))
        self._dialogs.append(dialog)
        dialog.open()

    def about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("About PlayTrace")
        box.setText(
            "<b>PlayTrace</b><br>Play games with people and language models, and inspect every "
            "model decision step by step: prompt, reasoning, answer, parsing, verification and cost."
        )
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.open()
        self._dialogs.append(box)
        box.finished.connect(lambda _r: self._forget(box))

    def go_end(self) -> None:
        c = self.controller
        c.scrub(c.head)

    def show_demo_banner(self) -> None:
        self.demo_banner.show_text(
            "<b>Demo:</b> PlayTrace's <b>simulated model</b> is playing offline — no key, no network. "
            "Every pane of the model panel on the right is filled from its recorded events."
        )

    # ------------------------------------------------------------------------------------------
    # Qt events
    # ------------------------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        # Keys the focused widget did not use arrive here: arrows scrub the timeline.
        key = event.key()
        c = self.controller
        if key == Qt.Key.Key_Left:
            c.scrub_by(-1)
        elif key == Qt.Key.Key_Right:
            c.scrub_by(1)
        elif key == Qt.Key.Key_Home:
            c.scrub(c.base)
        elif key == Qt.Key.Key_End:
            self.go_end()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.overlay.isVisible():
            self.overlay.setGeometry(self.centralWidget().rect())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self._demo_restart_timer.stop()
        self.sig_closed.emit()
        super().closeEvent(event)
