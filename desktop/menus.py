"""The main window's actions, menus and toolbar.

Every action calls a command of the window or of its controller; nothing here decides anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolBar, QWidget

if TYPE_CHECKING:
    from desktop.main_window import MainWindow


@dataclasses.dataclass(frozen=True, slots=True)
class WindowActions:
    """The window's actions (each also reachable by its shortcut while the window has focus)."""

    new: QAction
    open: QAction
    fork: QAction
    export: QAction
    quit: QAction
    run: QAction
    step: QAction
    ask: QAction
    cancel: QAction
    take_over: QAction
    hand_back: QAction
    undo: QAction
    prev: QAction
    next: QAction
    first: QAction
    live: QAction
    keys: QAction
    about: QAction
    demo: QAction
    add_model: QAction
    tournament: QAction
    open_tasks: QAction
    slower: QAction
    faster: QAction
    run_study: QAction
    open_vgdl: QAction
    annotate: QAction


def _action(window: QWidget, text: str, slot: Callable[[], Any], shortcut: str | None = None,
            tip: str = "") -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)
    return action


def build_actions(window: MainWindow) -> WindowActions:
    """Create the window's actions, connected to its commands and its controller's."""
    c = window.controller
    w = window
    return WindowActions(
        new=_action(w, "New game…", w.new_game, "Ctrl+N", "Start a new game"),
        open=_action(w, "Open session…", w.open_browser, "Ctrl+O", "Browse saved sessions"),
        fork=_action(w, "Fork from this step", w.fork, None, "Start a new session from the step shown"),
        export=_action(w, "Export session…", w.export_session, "Ctrl+E", "Save the session as a zip archive"),
        quit=_action(w, "Quit", w.close, "Ctrl+Q"),
        run=_action(w, "Run / Pause", c.toggle_run, "Space", "Run or pause"),
        step=_action(w, "Step", c.step, None, "Play one step"),
        # Ctrl+Enter and Esc are bound by the model panel (window-wide); the menu items only name them.
        ask=_action(w, "Ask the model\tCtrl+Enter", c.ask),
        cancel=_action(w, "Cancel model call\tEsc", c.cancel),
        take_over=_action(w, "Take over seat", lambda: c.take_over()),
        hand_back=_action(w, "Hand back seat", lambda: c.hand_back()),
        undo=_action(w, "Undo move", lambda: c.undo(), "Ctrl+Z",
                     "Take back your last move (single-player games; the session records it)"),
        prev=_action(w, "Previous step", lambda: c.scrub_by(-1), "["),
        next=_action(w, "Next step", lambda: c.scrub_by(1), "]"),
        first=_action(w, "First step", lambda: c.scrub(c.base)),
        live=_action(w, "Go to live / last step", w.go_end),
        keys=_action(w, "Keyboard shortcuts", w.overlay.toggle, "F1", "Keys of the app and of every game"),
        about=_action(w, "About PlayTrace", w.about),
        demo=_action(w, "Play the demo", lambda: w.start_demo(), None,
                     "Watch the simulated model play (offline, free)"),
        add_model=_action(w, "Add a real model…", w.add_real_model, None,
                          "Enter an API key or a local server address"),
        slower=_action(w, "Slower ticks (real time)", lambda: w.scale_ticks(2.0), "Ctrl+Alt+Down",
                       "Give people twice as long per tick in Pong, Surround and other real-time games"),
        faster=_action(w, "Faster ticks (real time)", lambda: w.scale_ticks(0.5), "Ctrl+Alt+Up",
                       "Halve people's time per tick in real-time games"),
        tournament=_action(w, "Round-robin…", lambda: _open_tournament(w), "Ctrl+Shift+R",
                           "Play every pair of players against each other and score them (GameBot)"),
        open_tasks=_action(w, "Open task set…", lambda: _open_task_set(w), "Ctrl+Shift+O",
                           "View an LVLM-Playground task set and every player's answers, or take it"),
        run_study=_action(w, "Run study…", lambda: _run_study(w), None,
                          "Run a human-baseline study file with a participant, full screen"),
        open_vgdl=_action(w, "Open VGDL game…", lambda: _open_vgdl(w), "Ctrl+Shift+G",
                          "Play a game written in VGDL (GVGAI) from its game and level files"),
        annotate=_action(w, "Annotate steps", lambda: _annotate(w), "Ctrl+L",
                         "Label the steps of this session, dispute verdicts and write notes"),
    )


def _run_study(window: MainWindow) -> None:
    from desktop.study_flow import choose_study

    choose_study(window)


def _open_vgdl(window: MainWindow) -> None:
    from desktop.vgdl_dialog import open_vgdl_game

    open_vgdl_game(window)


def _annotate(window: MainWindow) -> None:
    from desktop.annotation_panel import toggle_annotations

    toggle_annotations(window)


def _open_tournament(window: MainWindow) -> None:
    from desktop.tournament_dialog import open_tournament_dialog

    open_tournament_dialog(window)


def _open_task_set(window: MainWindow) -> None:
    from desktop.task_viewer import choose_task_set

    choose_task_set(window)


def _fill(menu: QMenu, actions: tuple[QAction | None, ...]) -> None:
    for act in actions:
        if act is None:
            menu.addSeparator()
        else:
            menu.addAction(act)


def install_menus(window: MainWindow, acts: WindowActions) -> QToolBar:
    """Add the menu bar's menus and the main toolbar to ``window``; returns the toolbar."""
    menu = window.menuBar()
    _fill(menu.addMenu("&File"), (acts.new, acts.open, acts.open_tasks, acts.open_vgdl, None,
                                  acts.run_study, None, acts.fork, acts.export, None,
                                  acts.quit))
    _fill(menu.addMenu("&Play"), (acts.run, acts.step, acts.undo, None, acts.ask, acts.cancel, None,
                                  acts.take_over, acts.hand_back, None, acts.slower, acts.faster, None,
                                  acts.tournament))
    _fill(menu.addMenu("&View"), (acts.prev, acts.next, acts.first, acts.live, None, acts.annotate))
    _fill(menu.addMenu("&Models"), (acts.add_model,))
    _fill(menu.addMenu("&Help"), (acts.demo, None, acts.keys, acts.about))

    bar = QToolBar("Main")
    bar.setMovable(False)
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    for act in (acts.new, acts.open, acts.fork, acts.export):
        bar.addAction(act)
    spacer = QWidget()
    spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    bar.addWidget(spacer)
    bar.addAction(acts.add_model)
    bar.addAction(acts.keys)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    return bar
