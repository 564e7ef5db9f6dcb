"""The main window's actions, menus and toolbar, built from the command declarations.

:mod:`desktop.model.actions` declares every command once (text, keys, menu, help); here each becomes a
``QAction`` calling a command of the window or of its controller, and the menus and the toolbar are
laid out in the declared order. Nothing here decides anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSizePolicy, QToolBar, QWidget

from desktop.model.actions import ACTIONS, MENUS, ActionSpec, in_menu, spec

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
    compare: QAction
    search: QAction
    probe: QAction
    ratings: QAction
    rescore: QAction

    def by_id(self) -> dict[str, QAction]:
        """Every action by its command's id."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def make_action(window: QWidget, declared: ActionSpec, slot: Callable[[], Any]) -> QAction:
    """A ``QAction`` of ``window`` for the declared command, calling ``slot``. Keys a panel binds
    (``bound=False``) are only named beside the menu text."""
    text = declared.text
    if declared.keys and not declared.bound:
        text = f"{text}\t{declared.keys[0]}"
    action = QAction(text, window)
    if declared.keys and declared.bound:
        action.setShortcuts([QKeySequence(k) for k in declared.keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if declared.tip:
        action.setToolTip(declared.tip)
        action.setStatusTip(declared.tip)
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)
    return action


def make_actions(window: QWidget, slots: Mapping[str, Callable[[], Any]]) -> dict[str, QAction]:
    """The ``QAction`` of every command in ``slots`` (by its id in :data:`desktop.model.actions.ACTIONS`)."""
    return {action_id: make_action(window, spec(action_id), slot) for action_id, slot in slots.items()}


def build_actions(window: MainWindow) -> WindowActions:
    """Create the window's actions, connected to its commands and its controller's."""
    c = window.controller
    w = window
    slots: dict[str, Callable[[], Any]] = {
        "new": w.new_game,
        "open": w.open_browser,
        "fork": w.fork,
        "export": w.export_session,
        "quit": w.close,
        "run": c.toggle_run,
        "step": c.step,
        "ask": c.ask,  # Ctrl+Enter and Esc are bound by the model panel; the menu items name them
        "cancel": c.cancel,
        "take_over": lambda: c.take_over(),
        "hand_back": lambda: c.hand_back(),
        "undo": lambda: c.undo(),
        "prev": lambda: c.scrub_by(-1),
        "next": lambda: c.scrub_by(1),
        "first": lambda: c.scrub(c.base),
        "live": w.go_end,
        "keys": w.overlay.toggle,
        "about": w.about,
        "demo": lambda: w.start_demo(),
        "add_model": w.add_real_model,
        "slower": lambda: w.scale_ticks(2.0),
        "faster": lambda: w.scale_ticks(0.5),
        "tournament": lambda: _open_tournament(w),
        "open_tasks": lambda: _open_task_set(w),
        "run_study": lambda: _run_study(w),
        "open_vgdl": lambda: _open_vgdl(w),
        "annotate": lambda: _annotate(w),
        "compare": lambda: _compare(w),
        "search": lambda: _search(w),
        "probe": lambda: _probe(w),
        "ratings": lambda: _ratings(w),
        "rescore": lambda: _rescore(w),
    }
    return WindowActions(**make_actions(w, slots))


def _compare(window: MainWindow) -> None:
    from desktop.compare_view import open_compare

    open_compare(window)


def _search(window: MainWindow) -> None:
    from desktop.search_view import open_search

    open_search(window)


def _probe(window: MainWindow) -> None:
    from desktop.probe_view import open_probe

    open_probe(window)


def _ratings(window: MainWindow) -> None:
    from desktop.ratings_view import open_ratings

    open_ratings(window)


def _rescore(window: MainWindow) -> None:
    from desktop.rescore_view import open_rescore

    open_rescore(window)


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


def install_menus(window: QMainWindow, actions: Mapping[str, QAction]) -> QToolBar:
    """Build the menu bar and the main toolbar from the declarations (:data:`ACTIONS`), with the
    ``actions`` made for them (a declared command without an action here is left out)."""
    bar_menu = window.menuBar()
    for name in MENUS:
        menu = bar_menu.addMenu(f"&{name}")
        for declared in in_menu(name):
            action = actions.get(declared.id)
            if action is None:
                continue
            if declared.separated and menu.actions():
                menu.addSeparator()
            menu.addAction(action)
    bar = QToolBar("Main")
    bar.setMovable(False)
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    spaced = False
    for declared in ACTIONS:
        action = actions.get(declared.id)
        if not declared.toolbar or action is None:
            continue
        if not spaced and declared.menu in ("Models", "Help"):
            # The window's own commands on the left; models and help on the right.
            spacer = QWidget()
            spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            bar.addWidget(spacer)
            spaced = True
        bar.addAction(action)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    return bar
