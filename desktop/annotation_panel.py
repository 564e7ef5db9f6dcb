"""The annotation panel (*View → Annotate steps*, Ctrl+L): label a step, write a note, keyboard first.

The panel follows the step the model panel shows. With the panel focused:

* ``1`` … ``9``, ``0`` toggle the taxonomy's first ten labels on this step (saved at once);
* ``N`` opens the note box, ``Ctrl+Enter`` saves the note, ``Esc`` leaves it;
* ``J`` / ``K`` (or ``[`` / ``]`` anywhere in the window) go to the next / previous step.

Every change is one line appended to this annotator's own file beside the session
(:mod:`sessions.annotations`), written off the UI thread; the session's events are never touched.
A study's own taxonomy is loaded with *Taxonomy…*. Disputes of a verifier's verdict stay in the
model panel's checks (Ctrl+D).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.status import step_number
from sessions import annotations
from sessions.errors import SessionError
from sessions.taxonomy import DEFAULT_TAXONOMY, Label, load_taxonomy

#: The settings key remembering the annotator's name between runs.
ANNOTATOR_SETTING = "annotation/annotator"


class AnnotationPanel(QWidget):
    """Labels and a note for one step of the open session, by one annotator.

    Signals:
        sig_saved(str): an annotation was written (a short text for the status bar).
        sig_failed(str): an annotation could not be written (why).
    """

    sig_saved = Signal(str)
    sig_failed = Signal(str)

    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ = window
        self.controller = window.controller
        self.taxonomy: tuple[Label, ...] = DEFAULT_TAXONOMY
        self.step = 0
        self.items: list[dict[str, Any]] = []
        self.pending: set[asyncio.Future[Any]] = set()
        self._last: asyncio.Future[Any] | None = None
        self.setObjectName("AnnotationPanel")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.annotator = QLineEdit(str(self._settings_value() or ""))
        self.annotator.setPlaceholderText("your annotator id, e.g. ana")
        self.annotator.editingFinished.connect(self._annotator_changed)
        self.step_label = QLabel("")
        self.step_label.setObjectName("Heading")
        self.prev_button = QPushButton("◀ Previous (K)")
        self.next_button = QPushButton("Next (J) ▶")
        self.prev_button.clicked.connect(lambda: self.controller.scrub_by(-1))
        self.next_button.clicked.connect(lambda: self.controller.scrub_by(1))
        self.taxonomy_button = QPushButton("Taxonomy…")
        self.taxonomy_button.setToolTip("Load a study's own labels from a TOML file")
        self.taxonomy_button.clicked.connect(self.choose_taxonomy)

        self.boxes_host = QWidget()
        self.boxes_layout = QVBoxLayout(self.boxes_host)
        self.boxes_layout.setContentsMargins(0, 0, 0, 0)
        self.boxes_layout.setSpacing(2)
        self.boxes: list[QCheckBox] = []
        self.others = QLabel("")
        self.others.setObjectName("Muted")
        self.others.setWordWrap(True)
        self.note = QPlainTextEdit()
        self.note.setPlaceholderText("A note on this step (N to write, Ctrl+Enter to save)")
        self.note.setMaximumHeight(110)
        self.save_note_button = QPushButton("Save note")
        self.save_note_button.clicked.connect(self.save_note)

        nav = QHBoxLayout()
        nav.addWidget(self.prev_button)
        nav.addWidget(self.next_button)
        who = QHBoxLayout()
        who.addWidget(QLabel("Annotator"))
        who.addWidget(self.annotator, 1)
        who.addWidget(self.taxonomy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(who)
        layout.addWidget(self.step_label)
        layout.addLayout(nav)
        layout.addWidget(self.boxes_host)
        layout.addWidget(self.others)
        layout.addWidget(self.note)
        layout.addWidget(self.save_note_button, 0, Qt.AlignmentFlag.AlignRight)
        layout.addStretch(1)

        self._shortcuts()
        self._build_boxes()
        self.controller.sig_step_records.connect(self.show_step)
        self.controller.sig_session_changed.connect(self.reload)
        self.reload()

    # -- keys ------------------------------------------------------------------------------------

    def _shortcut(self, key: str, slot: Any, widget: QWidget | None = None) -> QShortcut:
        sc = QShortcut(QKeySequence(key), widget or self)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.activated.connect(slot)
        return sc

    def _shortcuts(self) -> None:
        for i in range(10):
            key = str((i + 1) % 10)
            self._shortcut(key, lambda i=i: self.toggle(i), self.boxes_host)
            self._shortcut(key, lambda i=i: self.toggle(i), self.step_label)
        for host in (self, self.boxes_host):
            self._shortcut("J", lambda: self.controller.scrub_by(1), host)
            self._shortcut("K", lambda: self.controller.scrub_by(-1), host)
            self._shortcut("N", self.note.setFocus, host)
        # The note box takes Ctrl+Enter as text (a line break) before any shortcut sees it: it is
        # caught on the box itself (eventFilter).
        self.note.installEventFilter(self)
        self._shortcut("Escape", self.setFocus, self.note)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Ctrl+Enter in the note box saves the note."""
        if (
            watched is self.note
            and event.type() in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride)
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self.save_note()
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802
        """Number keys, J/K and N while the panel itself has focus (its shortcuts cover its children)."""
        text = event.text()
        if text.isdigit():
            self.toggle((int(text) - 1) % 10)
        elif text.lower() == "j":
            self.controller.scrub_by(1)
        elif text.lower() == "k":
            self.controller.scrub_by(-1)
        elif text.lower() == "n":
            self.note.setFocus()
        else:
            super().keyPressEvent(event)

    # -- what is shown -------------------------------------------------------------------------

    def _build_boxes(self) -> None:
        for box in self.boxes:
            box.deleteLater()
        self.boxes = []
        for i, label in enumerate(self.taxonomy):
            key = f"{(i + 1) % 10}  " if i < 10 else "    "
            box = QCheckBox(f"{key}{label.title}")
            box.setToolTip(f"{label.key}: {label.description}" if label.description else label.key)
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the number keys stay with the panel
            box.clicked.connect(lambda _checked=False, i=i: self._save_labels())
            self.boxes_layout.addWidget(box)
            self.boxes.append(box)

    def reload(self) -> None:
        """Read the session's annotations again (another annotator may have written since)."""
        folder = self.controller.folder
        self.items = annotations.load(folder) if folder is not None else []
        self.show_step(self.controller.view_step)

    def show_step(self, step: int) -> None:
        self.step = int(step)
        folder = self.controller.folder
        enabled = folder is not None
        self.setEnabled(enabled)
        self.step_label.setText(f"Step {step_number(self.step)}" if enabled else "No session open")
        mine = self._me()
        sets = annotations.label_sets(self.items)
        own = sets.get((mine, self.step, None), frozenset()) if mine else frozenset()
        for box, label in zip(self.boxes, self.taxonomy, strict=True):
            box.setChecked(label.key in own)
        notes = annotations.notes(self.items)
        self.note.setPlainText(notes.get((mine, self.step, None), "") if mine else "")
        others = [f"{who}: {', '.join(sorted(keys)) or 'nothing'}"
                  for (who, step, _seat), keys in sets.items() if step == self.step and who != mine]
        self.others.setText("Others: " + "; ".join(others) if others else "")

    def _me(self) -> str:
        try:
            return annotations.annotator_id(self.annotator.text()) if self.annotator.text().strip() else ""
        except SessionError:
            return ""

    # -- changes ---------------------------------------------------------------------------------

    def toggle(self, index: int) -> None:
        if 0 <= index < len(self.boxes) and self.isEnabled():
            self.boxes[index].setChecked(not self.boxes[index].isChecked())
            self._save_labels()

    def labels(self) -> list[str]:
        return [label.key for box, label in zip(self.boxes, self.taxonomy, strict=True) if box.isChecked()]

    def _save_labels(self) -> None:
        keys = self.labels()
        self._write(annotations.LABEL, {"labels": keys},
                    f"Step {step_number(self.step)}: " + (", ".join(keys) if keys else "no labels"))

    def save_note(self) -> None:
        text = self.note.toPlainText().strip()
        self._write(annotations.NOTE, {"text": text}, f"Step {step_number(self.step)}: note saved")
        self.setFocus()

    def _write(self, kind: str, fields: dict[str, Any], done: str) -> None:
        folder = self.controller.folder
        who = self._me()
        if folder is None:
            return
        if not who:
            self.sig_failed.emit("Type your annotator id first (letters, digits, '.', '_' or '-')")
            self.annotator.setFocus()
            return
        self._remember_annotator()
        line = {"annotator": who, "kind": kind, "step": self.step, "seat": None, "key": None, **fields}
        self.items.append(line)  # shown at once; the file follows off the UI thread
        # One write after the other, in the order made: the last line of a step is its standing set.
        previous = self._last
        task = asyncio.ensure_future(self._append(previous, Path(folder), who, kind, self.step, fields))
        self._last = task
        self.pending.add(task)
        task.add_done_callback(lambda t: self._written(t, done))

    @staticmethod
    async def _append(previous: asyncio.Future[Any] | None, folder: Path, who: str, kind: str, step: int,
                      fields: dict[str, Any]) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        await asyncio.to_thread(annotations.add, folder, who, kind, step, seat=None, key=None, **fields)

    def _written(self, task: asyncio.Future[Any], done: str) -> None:
        self.pending.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.sig_failed.emit(f"The annotation was not saved: {exc}")
        else:
            self.sig_saved.emit(done)

    def choose_taxonomy(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a taxonomy", "", "Taxonomy (*.toml);;All files (*)")
        if path:
            self.load_taxonomy(Path(path))

    def load_taxonomy(self, path: Path) -> bool:
        try:
            self.taxonomy = load_taxonomy(path)
        except SessionError as exc:
            self.sig_failed.emit(str(exc))
            return False
        self._build_boxes()
        self.show_step(self.step)
        return True

    def _settings_value(self) -> Any:
        getter = getattr(self.window_, "_app_settings", None)
        return getter().value(ANNOTATOR_SETTING) if getter else None

    def _remember_annotator(self) -> None:
        getter = getattr(self.window_, "_app_settings", None)
        if getter and self._me():
            getter().set_value(ANNOTATOR_SETTING, self.annotator.text().strip())

    def _annotator_changed(self) -> None:
        self._remember_annotator()
        self.show_step(self.step)  # this annotator's own labels and note


def toggle_annotations(window: Any) -> AnnotationPanel:
    """Show the annotation panel docked on the window's right (created on first use), or hide it."""
    dock = getattr(window, "annotation_dock", None)
    if dock is None:
        panel = AnnotationPanel(window)
        dock = QDockWidget("Annotate", window)
        dock.setObjectName("AnnotationDock")
        dock.setWidget(panel)
        dock.setMinimumWidth(280)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        panel.sig_saved.connect(lambda text: window.statusBar().showMessage(text, 3000))
        panel.sig_failed.connect(lambda text: window.statusBar().showMessage(text, 8000))
        window.annotation_dock = dock
        dock.show()
        panel.setFocus()
        return panel
    panel = dock.widget()
    if dock.isVisible():
        dock.hide()
    else:
        dock.show()
        panel.reload()
        panel.setFocus()
    return panel
