"""The main window: session header, board beside the model panel, timeline and live score plot.

The window only wires views to the :class:`~desktop.controller.SessionController`; every decision
about the game lives there. Long work (starting a game, opening a session, forking) runs as asyncio
tasks on the qasync loop, and any failure lands in the status bar instead of disappearing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import html
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop import presenter, theme
from desktop.action_panel import ActionPanel
from desktop.board_area import BoardArea
from desktop.board_view import BoardView
from desktop.checks_view import disputes_by_target, session_tallies
from desktop.controller import GameSetup, SeatSetup, SessionController
from desktop.header import HeaderStrip, spend_text
from desktop.help_dialog import ShortcutOverlay, about_box
from desktop.menus import build_actions, install_menus
from desktop.model.visibility import hides_other_seats, shown_records, shown_state
from desktop.score_plot import ScorePlot
from desktop.status import step_number
from desktop.timeline import Timeline
from desktop.welcome import WelcomeCard
from desktop.widgets import Banner, ElidedLabel, card
from engine.players import HUMAN
from sessions import SessionError, annotations

__all__ = ["MainWindow", "demo_setup", "spend_text"]


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


def _demo_tip() -> str:
    """The demo button's tooltip, naming the game the demo plays."""
    try:
        title = engine.declaration(demo_setup(seed=1).game_id).title
    except Exception:  # noqa: BLE001  (a tooltip must never stop the window from opening)
        return ""
    return f"Watch the simulated model play {title} (offline, free)"


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
        # The column sizes at normal type while zoomed (restored by Ctrl+0).
        self._unzoomed: tuple[list[int], list[int]] | None = None

        self.header = HeaderStrip()
        self.demo_banner = Banner("Banner")
        self.demo_banner.add_button("add_model", "Add a real model…", primary=True).clicked.connect(
            self.add_real_model
        )
        self.demo_banner.add_button("new_game", "New game…").clicked.connect(self.new_game)
        self.warning_banner = Banner("WarningBanner")

        self.board = BoardView()
        self._checks_step = 0  # the step whose verified answers the model panel shows
        self.action_panel = ActionPanel()
        board_box = BoardArea(self.board, self.action_panel)
        self.board_area = board_box
        self.board_caption = board_box.caption
        # With nothing open the game area shows a welcome card instead of an empty board.
        self.welcome = WelcomeCard(demo_tip=_demo_tip())
        self.game_stack = QStackedWidget()
        self.game_stack.addWidget(board_box)
        self.game_stack.addWidget(self.welcome)
        self._board_box = board_box
        self.board_card = card(self.game_stack, 8)
        self.board_card.setMinimumWidth(340)

        self.inspector = _make_inspector()
        self.timeline = Timeline()
        self.plot = ScorePlot()
        self.plot.setMinimumHeight(80)
        # Explicit minimum widths (not the content's): larger type for a talk (zoom) must not make the
        # window wider than the screen; the panes wrap or elide instead.
        self.inspector.setMinimumWidth(360)
        self.plot.setMinimumWidth(240)
        self.header.setMinimumWidth(480)

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

        self.status_label = ElidedLabel("")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.session_label = QLabel("")
        self.session_label.setObjectName("Muted")
        self.statusBar().addWidget(self.status_label, 1)
        # A timed message takes the status line's place (never drawn over it, whatever re-shows it).
        self.statusBar().messageChanged.connect(lambda text: self.status_label.setVisible(not text))
        self.statusBar().addPermanentWidget(self.session_label)
        # Keep the status text off the window edges (it sat flush against them).
        self.statusBar().setContentsMargins(8, 0, 8, 0)

        self.acts = build_actions(self)
        # Zoom, presenter mode (F5), replay playback, the caption line, GIF/MP4 export.
        self.presenter = presenter.Presenter(self)
        self._wire()
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(30)
        self._refresh_timer.timeout.connect(self.refresh)
        self.refresh()
        self.presenter.refresh()
        self.toolbar = install_menus(self, {**self.acts.by_id(), **self.presenter.actions})

    # ------------------------------------------------------------------------------------------
    # construction
    # ------------------------------------------------------------------------------------------

    def _wire(self) -> None:
        c = self.controller
        c.sig_session_changed.connect(self._on_session_changed)
        c.sig_view_changed.connect(self.schedule_refresh)
        c.sig_controls_changed.connect(self.schedule_refresh)
        c.sig_step_records.connect(self._on_step_records)
        c.sig_live_record.connect(self._on_live_record)
        c.sig_score.connect(self.plot.append)
        c.sig_undone.connect(self._replot)
        c.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        c.sig_error.connect(self._on_error)
        c.sig_finished.connect(self._on_finished)
        c.sig_spend.connect(self.header.set_spend)
        c.sig_budget.connect(self._on_budget)
        c.sig_no_change.connect(self._on_no_change)

        self.welcome.new_button.clicked.connect(self.new_game)
        self.welcome.open_button.clicked.connect(self.open_browser)
        self.welcome.demo_button.clicked.connect(lambda: self.start_demo())

        self.board.sig_action_requested.connect(self._on_board_action)
        # Real-time games: held keys play on each tick a person is asked to act on (as the wait begins;
        # not while paused).
        self.board.set_turn_probe(lambda: c.waiting_human() if c.following and c.running else None)
        c.sig_controls_changed.connect(self.board.play_held)
        self.action_panel.sig_action_requested.connect(self._on_board_action)
        if hasattr(self.inspector, "checks"):
            self.inspector.checks.sig_marks.connect(self._on_marks)
            self.inspector.checks.sig_dispute_requested.connect(self._on_dispute)
        self.board.sig_action_refused.connect(self._on_board_refused)
        self.board.sig_game_key.connect(c.first_key)
        # The slider counts from 0; a forked session's steps start at the fork's step.
        self.timeline.sig_scrubbed.connect(lambda position: c.scrub(c.base + position))
        self.timeline.sig_step_requested.connect(c.step)
        self.timeline.sig_run_requested.connect(c.run)
        self.timeline.sig_pause_requested.connect(c.pause)
        self.timeline.sig_speed_changed.connect(self._on_speed)
        player = self.presenter.player
        self.timeline.sig_play_requested.connect(player.toggle)
        player.sig_changed.connect(self._show_replay)
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

    def _on_speed(self, delay: float) -> None:
        """The speed box: the pace of a live game, or of a recorded game's playback."""
        if self.timeline.replay:
            self.presenter.player.set_speed_index(self.timeline.speed.currentIndex())
        else:
            self.controller.set_speed(delay)

    def _show_replay(self) -> None:
        player = self.presenter.player
        available = player.available()
        # The speed box shows the playback's speed only while it steers the playback.
        self.timeline.set_replay(available, playing=player.playing,
                                 speed_index=player.speed_index if available else None)

    def _replot(self) -> None:
        """Draw the score plot from the session's scores (after a new session or a step taken back)."""
        scores = self.controller.scores
        if scores:
            seats = len(scores[0][1])
            self.plot.set_series([s for s, _ in scores], [[v[i] for _, v in scores] for i in range(seats)])

    def refresh(self) -> None:
        """Bring board, timeline, header, panel controls and status bar up to date."""
        c = self.controller
        self._refresh_timer.stop()
        has_session = c.game is not None
        for act in (self.acts.fork, self.acts.export):
            act.setEnabled(has_session)
        # The demo is about to start (its game is being built): no point flashing the welcome card.
        self.game_stack.setCurrentWidget(
            self._board_box if has_session or self.demo_active else self.welcome
        )
        live = c.live
        self.acts.run.setEnabled(live)
        self.acts.step.setEnabled(live)
        # Ask only a model seat of a live game that can be asked now (never in a replay).
        self.acts.ask.setEnabled(c.model_to_act() is not None and c.following and not (c.busy or c.pending))
        self.acts.take_over.setEnabled(live and bool(c.model_seats()))
        self.acts.hand_back.setEnabled(live and any(c.taken_over(s) for s in c.model_seats()))
        self.acts.undo.setEnabled(c.can_undo())

        # Board: in a live game of hidden information a person sees only their own seat's view.
        state = c.state_at(c.view_step) if has_session else None
        if c.mode == "live" and c.following:
            state = c.current_state()
        state = shown_state(c.game, state, self._people(), c.live)
        legal = c.interactive_legal()
        pending = c.pending
        highlight: list[str] = []
        if pending and c.following and pending.get("action"):
            highlight.append(str(pending["action"]))
        elif not (c.mode == "live" and c.following):
            highlight.extend(self._chosen_at(c.view_step).values())
        self.board.waiting_for_first_key = c.awaiting_first_key
        panel, paths = c.person_controls()
        self.board.set_state(state, interactive=bool(legal), legal=legal, highlight=highlight, paths=paths)
        self.action_panel.set_panel(panel, enabled=bool(legal))
        caption = self._board_caption()
        notice = ""
        if state is not None:
            with contextlib.suppress(Exception):  # a game's notice must never break the window
                notice = str(state.notice() or "")
        self.board_caption.setText(f"{caption}\n{notice}" if caption and notice else caption or notice)

        # Timeline
        # Step N is the decision made on the N-th board: the label follows desktop.status's rule.
        live_head = c.mode == "live" and c.finished_status is None
        self.timeline.set_range(c.count, c.view_step - c.base, base=c.base, live=live_head)
        self.timeline.set_mode(c.mode if has_session else "idle", following=c.following)
        # A game of people only never waits for the pacer: Step / Run / Pause would do nothing.
        automatic = any(p.kind != HUMAN for p in c.players())
        finished = c.finished_status is not None or not live or not automatic
        self.timeline.set_transport(running=c.running, can_step=live and not c.running or bool(pending),
                                    finished=finished)
        # The plot's x is "after step N" (0: the start); the marker stands on the step shown (the
        # decision made on the board shown is step view_step + 1), or on the end at the final board.
        shown = step_number(c.view_step) if c.view_step < c.head else c.head
        self.plot.set_marker(None if (c.mode == "live" and c.following) else shown)
        self._show_replay()
        # With nothing open there is nothing to plot: no empty axes beside the welcome card.
        self.plot.setVisible(has_session or self.demo_active)

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
        status = c.describe()
        if status != self.status_label.text():
            # The state moved on: a timed notice about the old state (not an error) gives way to it.
            message = self.statusBar().currentMessage()
            if message and message != self.last_error:
                self.statusBar().clearMessage()
            self.status_label.setText(status)
        self.session_label.setText(c.folder.name if c.folder else "")

    def _board_caption(self) -> str:
        c = self.controller
        if c.game is None:
            return ""
        pending = c.pending
        if pending and c.following:
            return f"Proposed: {pending['action']} — click another move to override"
        if c.awaiting_first_key and c.following:
            return f"Press a game key to start — {c.key_hint()}"
        waiting = c.waiting_human() if c.following else None
        if waiting is not None:
            return f"Your move as {c.game.seats[waiting[0]].name} — {c.key_hint()}"
        if not c.following or c.mode == "replay":
            chosen = self._chosen_at(c.view_step)
            if not chosen:
                if c.view_step == c.head:
                    return f"Final position after {c.head} step{'s' if c.head != 1 else ''}"
                return f"Step {step_number(c.view_step)}"
            moves = ", ".join(f"{c.game.seats[s].name} chose {a}" for s, a in sorted(chosen.items()))
            return f"Step {step_number(c.view_step)} — {moves} (highlighted)"
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

    def _balance_columns(self, models: bool) -> None:
        """Give the board the larger column when no model plays (the model panel then only lists
        moves), and the model panel its usual share otherwise."""
        sizes = self.top_split.sizes()
        total = sum(sizes) or 1260
        board = round(total * (0.43 if models else 0.62))
        self.top_split.setSizes([board, total - board])

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
        title = "Score per seat after each step" if len(labels) > 1 else "Score after each step"
        self.plot.reset(labels or ["Score"], title=title)
        self._balance_columns(not info or any(p.get("kind") == "model" for p in info.get("players", [])))
        if c.pacer is not None and c.mode == "live":
            self.timeline.show_delay(c.pacer.delay)  # the speed shown is the speed played (the demo's own)
        self._replot()
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
        # The application's display name ("PlayTrace") is added by Qt: the title names it only once.
        self.setWindowTitle(self._title(str(info.get("title") or "")) if info else self._title(""))
        self.statusBar().clearMessage()
        self._on_step_records(c.view_step if not c.following else c.head)
        self.refresh()
        if c.mode == "live":
            self.board.setFocus()

    @staticmethod
    def _title(what: str) -> str:
        """The window title: "Tic-tac-toe — PlayTrace", naming the app once whatever Qt adds."""
        from PySide6.QtWidgets import QApplication

        app_name = QApplication.applicationDisplayName() or ""
        if app_name == "PlayTrace":
            return what or "PlayTrace"  # Qt shows "<title> — PlayTrace" (and "PlayTrace" alone once)
        return f"{what} — PlayTrace" if what else "PlayTrace"

    def _people(self) -> list[int]:
        return [seat for seat, player in enumerate(self.controller.players()) if player.kind == HUMAN]

    def _on_step_records(self, step: int) -> None:
        if hasattr(self.inspector, "show_step"):
            c = self.controller
            everything = c.records_for(step)
            records = shown_records(c.game, everything, self._people(), c.live)
            self._prepare_checks(step, records)
            self.inspector.show_step(step, records, c.resolve)
            self._notice_hidden(hides_other_seats(c.game, everything, self._people(), c.live), reset=True)

    def _on_marks(self, answer: tuple[str, ...], truth: tuple[str, ...]) -> None:
        """Mark a selected intermediate answer on the board, for the seat whose answer it is."""
        sample = getattr(self.inspector, "current_sample", None)
        self.board.set_marks(answer, truth, sample.seat if sample is not None else None)

    def fit_zoom(self, size: QSize, factor: float) -> None:
        """After the type changed size (zoom): keep the window at ``size`` (so never wider than the
        screen it fitted), and let the score plot, not the board, give up the height larger type takes."""
        self.board_area.fit_captions()  # their fixed number of lines, in the new type
        layout = self.centralWidget().layout()
        if layout is not None:
            layout.activate()  # the size hints of the new type
        if not (self.isFullScreen() or self.isMaximized()):
            self.resize(size)  # the minimum widths are the panes' own, so the type cannot force it wider
        if factor > 1.0:
            if self._unzoomed is None:  # the columns as they were at normal size, for Ctrl+0
                self._unzoomed = (self.top_split.sizes(), self.left_split.sizes())
            total = sum(self.left_split.sizes())
            self.left_split.setSizes([total - self.plot.minimumHeight(), self.plot.minimumHeight()])
        elif self._unzoomed is not None:
            top, left = self._unzoomed
            self._unzoomed = None
            self.top_split.setSizes(top)
            self.left_split.setSizes(left)

    def scale_ticks(self, factor: float) -> None:
        """Give people more (``factor`` > 1) or less time per tick of a real-time game."""
        c = self.controller
        scale = c.set_tick_scale(c.tick_scale * factor)
        tick = c.game.tick_s if c.game is not None else None
        where = f" ({tick * scale:.2g} s per tick in {c.game.title})" if tick else ""
        self.statusBar().showMessage(f"Real-time ticks: {1 / scale:.3g}× speed{where}", 5000)

    def _prepare_checks(self, step: int, records: list[Any]) -> None:
        """Give the model panel the disputes stored beside the session and the running scores of the
        seat whose answers this step shows."""
        checks = getattr(self.inspector, "checks", None)
        if checks is None:
            return
        c = self.controller
        self.board.set_marks((), ())
        self._checks_step = step
        folder = c.folder
        checks.set_can_dispute(folder is not None)
        self.inspector.disputes = disputes_by_target(annotations.load(folder)) if folder is not None else {}
        seats = [r.get("seat") for r in records if r.get("type") == "verification"]
        if not seats:
            checks.set_session([])
            return
        seat = seats[0]
        every = shown_records(c.game, c.all_records(), self._people(), c.live)
        names = c.game.seats if c.game is not None else ()
        who = names[seat].name if isinstance(seat, int) and seat < len(names) else ""
        checks.set_session(session_tallies(c.game, every, step, seat), who)

    def _on_dispute(self, dispute: dict[str, Any]) -> None:
        """Store a disputed verdict (or its withdrawal) beside the session, then show it."""
        c = self.controller
        sample = getattr(self.inspector, "current_sample", None)
        if c.folder is None or sample is None:
            return
        names = ("key", "question", "verdict", "comment")
        fields = {k: dispute[k] for k in names if dispute.get(k) is not None}
        if dispute.get("withdrawn"):
            fields["withdrawn"] = True
        try:
            annotations.add(c.folder, dispute.get("annotator") or "annotator", annotations.DISPUTE,
                            self._checks_step, seat=sample.seat, **fields)
        except SessionError as exc:
            self.statusBar().showMessage(f"The dispute was not saved: {exc}", 8000)
            return
        self.statusBar().showMessage(
            "Dispute withdrawn" if dispute.get("withdrawn") else "Dispute saved beside the session", 4000
        )
        self._on_step_records(self._checks_step)

    def _on_live_record(self, record: dict[str, Any]) -> None:
        if hasattr(self.inspector, "append_live"):
            c = self.controller
            shown = shown_records(c.game, [record], self._people(), c.live)
            for item in shown:
                self.inspector.append_live(dict(item))
            self._notice_hidden(hides_other_seats(c.game, [record], self._people(), c.live))

    def _notice_hidden(self, hidden: bool, *, reset: bool = False) -> None:
        """Say why the panel holds less than the session, when another seat's records are hidden."""
        if not hasattr(self.inspector, "set_notice") or not (hidden or reset):
            return
        self.inspector.set_notice(
            "Hidden while you play: another seat's prompt, reasoning and answers show its private view. "
            "They appear in the replay once the game is over." if hidden else ""
        )

    def _on_board_action(self, action: str) -> None:
        if not self.controller.board_action(action):
            self._on_board_refused(action)
        self.schedule_refresh()

    def _on_board_refused(self, action: str) -> None:
        """A click named an action that is not legal now: the board nudges and the status says so."""
        if not self.board.shaking:
            self.board.nudge()
        self.statusBar().showMessage(f"{action} cannot be played now", 3000)

    def _on_no_change(self) -> None:
        """An applied action changed nothing (it still counts as a step): nudge the board shown live."""
        if self.controller.following:
            self.board.nudge()

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
        return self.spawn(self._start_demo_game(), "start the demo")

    async def _start_demo_game(self) -> Path:
        """Start one demo game; its session is marked as the demo's from its creation (the session list
        hides those)."""
        return await self.controller.start(dataclasses.replace(demo_setup(**self._demo_kwargs), demo=True))

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
            self.spawn(self._start_demo_game(), "restart the demo")

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
        """Open the About box."""
        box = about_box(self)
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

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.overlay.isVisible():
            self.overlay.setGeometry(self.centralWidget().rect())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self._demo_restart_timer.stop()
        self.sig_closed.emit()
        super().closeEvent(event)
