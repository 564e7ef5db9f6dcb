"""Taking an LVLM-Playground task set as a person (the paper's volunteer study, spec §1.3, §5).

The :class:`TakeDialog` asks for a participant id (a pseudonym), then shows the items one at a time:
the image and an answer widget for the task — a matrix editor for perceiving, one button per option
(keys A-D) for question answering, a move field for rule following. No truth is shown while the set
is being taken. Each answer is written in the task's output format (``Game State:``, ``Answer:``,
``Movement:``), scored by :func:`engine.tasks.score` exactly as a model's reply is, and saved at once
to ``DIR/results/human-<participant>.json`` (the shared results format) by :class:`HumanRun`, so a
closed app keeps what was answered and taking the set again resumes at the first unanswered item.
The time from showing an item to its answer is recorded as the item's latency.

:class:`ScaledImage` (an image that fits its space, keeping its aspect) is shared with the viewer.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.widgets import FoldingTextView, monospace_font, muted_label, note_label
from engine import tasks
from engine.tasks import ItemResult, TaskItem, TaskSet, TaskSetError

#: A participant id: a short pseudonym that is also safe in a file name.
PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
#: The most an image is enlarged beyond its own size (small boards stay crisp enough).
MAX_UPSCALE = 2.0
_INT = re.compile(r"-?\d+")


# -- shared widgets --------------------------------------------------------------------------------


class ScaledImage(QLabel):
    """An image scaled smoothly to fit the label, keeping its aspect ratio (at most
    :data:`MAX_UPSCALE` times its own size)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full = QPixmap()
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(200, 200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setStyleSheet(f"QLabel {{ background: {theme.PANEL}; border: 1px solid {theme.BORDER};"
                           " border-radius: 8px; }")

    def set_image(self, path: Path | None) -> bool:
        """Show the PNG at ``path``; a missing or unreadable file shows a note. Returns success."""
        self.full = QPixmap()
        if path is not None and path.is_file():
            self.full.load(str(path))
        if self.full.isNull():
            self.setPixmap(QPixmap())
            self.setText(f"image unavailable\n{path.name if path else ''}")
            return False
        self.setText("")
        self._fit()
        return True

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if self.full.isNull():
            return
        w = min(self.width() - 12, int(self.full.width() * MAX_UPSCALE))
        h = min(self.height() - 12, int(self.full.height() * MAX_UPSCALE))
        self.setPixmap(self.full.scaled(max(w, 16), max(h, 16), Qt.AspectRatioMode.KeepAspectRatio,
                                        Qt.TransformationMode.SmoothTransformation))


def instructions(item: TaskItem) -> str:
    """The prompt the models get with the item, with a QA question replaced by a pointer to where
    the dialog shows it."""
    text = item.prompt
    if item.question:
        text = text.replace(item.question, "[the question and its options are shown below]")
    return text


def move_hint(prompt: str) -> str:
    """The move format the rule-following prompt gives (its ``Movement: <…>`` line and the line that
    explains it), or an empty string."""
    lines = [line.strip() for line in prompt.splitlines()]
    for k, line in enumerate(lines):
        if line.startswith("Movement:") and "<" in line:
            follow = next((x for x in lines[k + 1 :] if x), "")
            return f"{line}\n{follow}".strip()
    return ""


def is_submit_key(event: QKeyEvent) -> bool:
    """Ctrl+Enter (Cmd+Enter on macOS): submit the answer."""
    return event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
        bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)


def matrix_text(rows: list[list[int]]) -> str:
    """A matrix as the perceiving prompts ask for it: ``[[1, 0], [0, 2]]``."""
    return "[" + ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in rows) + "]"


def read_grid(text: str, shape: tuple[int, int], value_range: tuple[int, int]
              ) -> tuple[list[list[int]] | None, str]:
    """Read a matrix typed as rows of numbers (one line per row, spaces or commas between cells) or
    pasted as ``Game State: [[...]]``. Returns ``(matrix, "")`` or ``(None, what is wrong)``."""
    rows, cols = shape
    low, high = value_range
    if "[" in text:
        found, why = tasks.parse_matrix(text, shape, value_range)
        return found, why or ""
    grid: list[list[int]] = []
    for line in text.splitlines():
        tokens = [t for t in re.split(r"[\s,;]+", line.strip()) if t]
        if not tokens:
            continue
        for t in tokens:
            if not _INT.fullmatch(t):
                return None, f"row {len(grid) + 1}: “{t}” is not a whole number"
        grid.append([int(t) for t in tokens])
    if len(grid) != rows:
        return None, f"{len(grid)} rows; the board needs {rows}"
    for r, row in enumerate(grid):
        if len(row) != cols:
            return None, f"row {r + 1} has {len(row)} numbers; it needs {cols}"
        for c, v in enumerate(row):
            if not low <= v <= high:
                return None, f"row {r + 1}, column {c + 1}: {v} is outside {low}..{high}"
    return grid, ""


# -- answers kept on disk ------------------------------------------------------------------------


class HumanRun:
    """One participant's answers to a task set, saved after every answer (atomically: a crash
    leaves the previous file whole) to ``results/human-<participant>.json``.

    Raises:
        TaskSetError: the participant id is not a plain pseudonym, the set has no folder, or the
            participant's results file belongs to another set.
    """

    def __init__(self, ts: TaskSet, participant: str) -> None:
        if not PARTICIPANT.fullmatch(participant):
            raise TaskSetError("a participant id is 1-40 letters, digits, '.', '_' or '-'")
        if ts.path is None:
            raise TaskSetError("this task set has no folder to save answers in")
        self.ts = ts
        self.participant = participant
        self.player = f"human:{participant}"
        self.label = f"Human ({participant})"
        self.path = ts.path / "results" / f"{tasks.player_slug(self.player)}.json"
        self.results: dict[str, ItemResult] = {}
        if self.path.exists():
            data = tasks.load_results(self.path)
            if (data.get("game"), data.get("task")) != (ts.game, ts.task) or \
                    (data.get("set") or {}).get("seed") != ts.seed:
                raise TaskSetError(f"{self.path.name} holds answers to another task set")
            ids = {item.id for item in ts.items}
            for d in data.get("items") or []:
                result = ItemResult.from_json(d)
                if result.id in ids:
                    self.results[result.id] = result

    @property
    def answered(self) -> int:
        return len(self.results)

    def next_item(self) -> TaskItem | None:
        """The first item (in set order) without an answer, or ``None`` when all are answered."""
        return next((item for item in self.ts.items if item.id not in self.results), None)

    def answer(self, item: TaskItem, reply: str, latency_s: float | None) -> ItemResult:
        """Score ``reply`` (in the task's output format) as a model's is scored, and save it."""
        result = tasks.score(self.ts, item, reply, latency_s=latency_s)
        self.results[item.id] = result
        self.save()
        return result

    def ordered(self) -> list[ItemResult]:
        return [self.results[i.id] for i in self.ts.items if i.id in self.results]

    def score(self) -> float:
        done = self.ordered()
        return sum(r.score for r in done) / len(done) if done else 0.0

    def save(self) -> Path:
        data = tasks.results_json(self.ts, self.player, self.label, self.ordered())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".human-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                # The same layout as the results files the engine writes.
                out.write(json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return self.path


def participants(ts: TaskSet) -> list[tuple[str, int]]:
    """``(participant, answered)`` of everyone who has taken (part of) the set, by name."""
    found = []
    if ts.path is not None:
        for path in sorted((ts.path / "results").glob("human-*.json")):
            try:
                data = tasks.load_results(path)
            except TaskSetError:
                continue
            player = str(data.get("player", ""))
            if player.startswith("human:"):
                found.append((player.split(":", 1)[1], len(data.get("items") or [])))
    return found


def new_participant(ts: TaskSet) -> str:
    """A fresh pseudonym (``p-3f9a``) not used on this set yet."""
    taken = {p for p, _ in participants(ts)}
    while True:
        pid = f"p-{secrets.token_hex(2)}"
        if pid not in taken:
            return pid


# -- answer widgets ------------------------------------------------------------------------------


class MatrixEditor(QWidget):
    """A monospace text box for the perceive matrix, checked as it is typed (shape and range).

    One line per board row; a ``Game State: [[...]]`` pasted whole is read too. A fill row starts the
    grid over with one value everywhere; the line under the box names the cell at the cursor.
    """

    changed = Signal()
    submitted = Signal()

    def __init__(self, shape: tuple[int, int], value_range: tuple[int, int],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shape, self.value_range = shape, value_range
        low, high = value_range
        self.fill_spin = QSpinBox()
        self.fill_spin.setRange(low, high)
        self.fill_spin.setValue(0 if low <= 0 <= high else low)
        fill = QPushButton("Fill grid")
        fill.setToolTip("Start over with every cell set to this value")
        fill.clicked.connect(lambda _c=False: self.fill(self.fill_spin.value()))
        row = QHBoxLayout()
        row.addWidget(QLabel(f"{shape[0]} rows × {shape[1]} columns, values {low}..{high}."))
        row.addStretch(1)
        row.addWidget(QLabel("Every cell:"))
        row.addWidget(self.fill_spin)
        row.addWidget(fill)
        self.text = QPlainTextEdit()
        self.text.setFont(monospace_font(3))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setTabChangesFocus(True)
        self.text.textChanged.connect(self._check)
        self.text.cursorPositionChanged.connect(self._where)
        self.text.installEventFilter(self)
        self.status = QLabel()
        self.cursor_label = muted_label("")
        below = QHBoxLayout()
        below.addWidget(self.status, 1)
        below.addWidget(self.cursor_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.text, 1)
        layout.addLayout(below)
        self._matrix: list[list[int]] | None = None
        self.fill(self.fill_spin.value())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.text and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress \
                and is_submit_key(event):
            self.submitted.emit()
            return True
        return super().eventFilter(watched, event)

    def fill(self, value: int) -> None:
        width = max(len(str(v)) for v in self.value_range)
        line = " ".join(str(value).rjust(width) for _ in range(self.shape[1]))
        self.text.setPlainText("\n".join(line for _ in range(self.shape[0])))
        self.text.setFocus()

    def matrix(self) -> list[list[int]] | None:
        """The matrix typed, or ``None`` while it is not a valid one."""
        return self._matrix

    def reply(self) -> str:
        return f"Game State: {matrix_text(self._matrix)}" if self._matrix is not None else ""

    def _check(self) -> None:
        self._matrix, why = read_grid(self.text.toPlainText(), self.shape, self.value_range)
        ok = self._matrix is not None
        rows, cols = self.shape
        self.status.setText(f"✓ {rows} × {cols}, ready" if ok else f"✗ {why}")
        self.status.setStyleSheet(f"color: {theme.SUCCESS if ok else theme.ERROR_FG};")
        self.changed.emit()

    def _where(self) -> None:
        cursor = self.text.textCursor()
        block = cursor.block()
        row = sum(1 for b in range(block.blockNumber())
                  if self.text.document().findBlockByNumber(b).text().strip()) + 1
        before = block.text()[: cursor.positionInBlock()]
        col = len([t for t in re.split(r"[\s,;]+", before) if t]) + (0 if before[-1:].strip() else 1)
        self.cursor_label.setText(f"cursor: row {row}, column {max(col, 1)}")


class ChoiceButtons(QWidget):
    """One button per option, lettered A-D; a click or the letter's key chooses it."""

    chosen = Signal(str)

    def __init__(self, options: tuple[str, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[str, QPushButton] = {}
        for letter, text in zip(tasks.LETTERS, options, strict=False):
            button = QPushButton(f"{letter}.  {text}")
            button.setStyleSheet("QPushButton { text-align: left; padding: 8px 12px; font-size: 11pt; }")
            button.setToolTip(f"Answer {letter} (key {letter})")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _c=False, x=letter: self.chosen.emit(x))
            layout.addWidget(button)
            self.buttons[letter] = button

    def choose_key(self, key: int) -> bool:
        for letter in self.buttons:
            if key == getattr(Qt.Key, f"Key_{letter}"):
                self.chosen.emit(letter)
                return True
        return False


class MoveEditor(QWidget):
    """A move field with the game's format hint; Enter submits. The line below says what the game's
    move reader makes of the text (never whether the move is valid)."""

    submitted = Signal()

    def __init__(self, ts: TaskSet, item: TaskItem, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ts = ts
        hint = move_hint(item.prompt) or "Write one move as the instructions describe."
        self.hint = QLabel(hint)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {theme.MUTED};")
        self.field = QLineEdit()
        self.field.setFont(monospace_font(2))
        self.field.setPlaceholderText("your move")
        self.field.textChanged.connect(self._read)
        self.field.returnPressed.connect(self._enter)
        self.reads = QLabel(" ")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.field)
        layout.addWidget(self.reads)
        self.move: str | None = None

    def reply(self) -> str:
        return f"Movement: {self.field.text().strip()}"

    def _read(self, text: str) -> None:
        reader = tasks.definitions(self.ts.game).read_move
        try:
            self.move = reader(f"Movement: {text}") if text.strip() else None
        except Exception:  # noqa: BLE001  (a game's reader never breaks the form)
            self.move = None
        if self.move:
            self.reads.setText(f"reads as: <b>{self.move}</b>")
        else:
            self.reads.setText("no move read yet" if text.strip() else " ")

    def _enter(self) -> None:
        if self.move:
            self.submitted.emit()


# -- the dialog ----------------------------------------------------------------------------------


class TakeDialog(QDialog):
    """Take a task set as a participant: choose a pseudonym, answer every item, see the score."""

    def __init__(self, ts: TaskSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ts = ts
        self.run: HumanRun | None = None
        self.item: TaskItem | None = None
        self.shown_at = 0.0
        self.answer_widget: Any = None
        self.setWindowTitle(f"Take the task set — {ts.game} · {ts.task}")
        self.resize(1180, 760)
        self.pages = QStackedWidget()
        self.pages.addWidget(self._start_page())
        self.pages.addWidget(self._item_page())
        self.pages.addWidget(self._end_page())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addWidget(self.pages)

    # pages
    def _start_page(self) -> QWidget:
        page = QWidget()
        self.participant_box = QComboBox()
        self.participant_box.setEditable(True)
        self.participant_box.addItem(new_participant(self.ts))
        for pid, done in participants(self.ts):
            self.participant_box.addItem(pid, done)
        self.participant_box.setMinimumWidth(260)
        self.participant_box.currentTextChanged.connect(self._participant_changed)
        self.participant_note = muted_label("")
        self.start_error = note_label("error")
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("Primary")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        intro = QLabel(
            f"<h2>Take this task set yourself</h2><p>{self.ts.n} items of the <b>{self.ts.task}</b> task "
            f"on <b>{self.ts.game}</b>. Each item shows an image; answer as the instructions ask. "
            "The answers are scored exactly as a model's, and the time from showing an item to your "
            "answer is recorded. Nothing is shown about right or wrong until the end. Every answer is "
            "saved at once: close the window any time and continue later under the same id.</p>")
        intro.setWordWrap(True)
        intro.setMaximumWidth(760)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow("Participant id (a pseudonym):", self.participant_box)
        form.addRow("", self.participant_note)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(60, 40, 60, 40)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.start_error)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self._participant_changed(self.participant_box.currentText())
        return page

    def _item_page(self) -> QWidget:
        page = QWidget()
        self.image = ScaledImage()
        self.progress = QLabel()
        self.progress.setObjectName("HeaderTitle")
        self.instructions = FoldingTextView(fold_lines=6)
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.question.setStyleSheet("font-size: 11pt; font-weight: 600;")
        self.answer_box = QVBoxLayout()
        self.skip_button = QPushButton("Skip (scores 0)")
        self.skip_button.setToolTip("Give no answer to this item; it counts as wrong")
        self.skip_button.clicked.connect(self.skip)
        self.submit_button = QPushButton("Submit")
        self.submit_button.setToolTip("Give this answer (Ctrl+Enter; Enter in a move field)")
        self.submit_button.setObjectName("Primary")
        self.submit_button.clicked.connect(self.submit)
        for button in (self.skip_button, self.submit_button):
            button.setAutoDefault(False)  # Enter belongs to the answer fields
        buttons = QHBoxLayout()
        buttons.addWidget(self.skip_button)
        buttons.addStretch(1)
        buttons.addWidget(self.submit_button)
        side = QVBoxLayout()
        side.addWidget(self.progress)
        side.addWidget(QLabel("<b>Instructions</b> (as given to the models)"))
        side.addWidget(self.instructions)
        side.addWidget(self.instructions.fold_button, 0, Qt.AlignmentFlag.AlignLeft)
        side.addSpacing(6)
        side.addWidget(self.question)
        side.addLayout(self.answer_box, 1)
        side.addLayout(buttons)
        right = QWidget()
        right.setLayout(side)
        right.setFixedWidth(500)
        layout = QHBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.image, 1)
        layout.addWidget(right)
        return page

    def _end_page(self) -> QWidget:
        page = QWidget()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        close = QPushButton("Close")
        close.setObjectName("Primary")
        close.clicked.connect(self.accept)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(60, 40, 60, 40)
        layout.addWidget(self.summary)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        layout.addLayout(row)
        layout.addStretch(1)
        return page

    def _participant_changed(self, pid: str) -> None:
        done = dict(participants(self.ts)).get(pid.strip())
        if done is None:
            self.participant_note.setText("A new participant: the set starts at item 1.")
        elif done >= self.ts.n:
            self.participant_note.setText(f"{pid} has answered all {self.ts.n} items (shows the score).")
        else:
            self.participant_note.setText(f"{pid} has answered {done} of {self.ts.n}: continues at the "
                                          "first unanswered item.")

    # flow
    def start(self) -> bool:
        """Begin (or resume) under the participant id entered; False with a note if it is unusable."""
        try:
            self.run = HumanRun(self.ts, self.participant_box.currentText().strip())
        except TaskSetError as exc:
            self.start_error.setText(str(exc))
            self.start_error.setVisible(True)
            return False
        self.setWindowTitle(f"{self.windowTitle()} — {self.run.participant}")
        self.start_button.setDefault(False)
        self._next()
        return True

    def _next(self) -> None:
        assert self.run is not None
        self.item = self.run.next_item()
        if self.item is None:
            self._finish()
            return
        self._show(self.item)

    def _show(self, item: TaskItem) -> None:
        assert self.run is not None and self.ts.path is not None
        index = self.ts.items.index(item)
        self.progress.setText(f"Item {index + 1} of {self.ts.n}   ·   {self.run.answered} answered")
        self.instructions.set_text(instructions(item))
        self.instructions.set_expanded(False)
        self.question.setText((item.question or "").split("\n", 1)[0] if self.ts.task == "qa" else "")
        self.question.setVisible(self.ts.task == "qa")
        if self.answer_widget is not None:
            self.answer_box.removeWidget(self.answer_widget)
            self.answer_widget.deleteLater()
        self.answer_widget = self._answer_widget(item)
        if isinstance(self.answer_widget, MatrixEditor):
            self.answer_box.addWidget(self.answer_widget, 1)
        else:
            self.answer_box.addWidget(self.answer_widget, 0, Qt.AlignmentFlag.AlignTop)
        self.pages.setCurrentIndex(1)
        self.image.set_image(self.ts.image_path(item))
        self._update_submit()
        if isinstance(self.answer_widget, MoveEditor):
            self.answer_widget.field.setFocus()
        elif isinstance(self.answer_widget, MatrixEditor):
            self.answer_widget.text.setFocus()
        else:
            self.setFocus()
        self.shown_at = time.monotonic()

    def _answer_widget(self, item: TaskItem) -> QWidget:
        defs = tasks.definitions(self.ts.game)
        if self.ts.task == "perceive":
            editor = MatrixEditor((defs.rows, defs.cols), (defs.low, defs.high))
            editor.changed.connect(self._update_submit)
            editor.submitted.connect(self.submit)
            return editor
        if self.ts.task == "qa":
            choices = ChoiceButtons(item.options or ())
            choices.chosen.connect(lambda letter: self._give(f"Answer: {letter}"))
            return choices
        move = MoveEditor(self.ts, item)
        move.field.textChanged.connect(lambda _t: self._update_submit())
        move.submitted.connect(self.submit)
        return move

    def _update_submit(self) -> None:
        w = self.answer_widget
        ready = (isinstance(w, MatrixEditor) and w.matrix() is not None) or \
            (isinstance(w, MoveEditor) and bool(w.field.text().strip()))
        self.submit_button.setVisible(not isinstance(w, ChoiceButtons))
        self.submit_button.setEnabled(ready)

    def submit(self) -> None:
        """Give the answer in the editor (perceive, rules); QA answers with its buttons or keys."""
        w = self.answer_widget
        if self.pages.currentIndex() != 1 or not self.submit_button.isEnabled():
            return
        if isinstance(w, (MatrixEditor, MoveEditor)):
            self._give(w.reply())

    def skip(self) -> None:
        if self.pages.currentIndex() == 1:
            self._give("")

    def _give(self, reply: str) -> None:
        assert self.run is not None and self.item is not None
        self.run.answer(self.item, reply, time.monotonic() - self.shown_at)
        self._next()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        w = self.answer_widget
        if self.pages.currentIndex() == 1 and is_submit_key(event):
            self.submit()
            return
        if self.pages.currentIndex() == 1 and isinstance(w, ChoiceButtons) and not event.modifiers() \
                and w.choose_key(event.key()):
            return
        super().keyPressEvent(event)

    def _finish(self) -> None:
        assert self.run is not None
        done = self.run.ordered()
        right = sum(1 for r in done if r.correct)
        if self.ts.task == "perceive":
            line = (f"Mean cell accuracy <b>{self.run.score():.1%}</b>; {right} of {len(done)} boards "
                    "read exactly right.")
        else:
            line = f"<b>{right} of {len(done)}</b> correct (score {self.run.score():.3f})."
        seconds = [r.latency_s for r in done if r.latency_s is not None]
        pace = f" Median time per item {sorted(seconds)[len(seconds) // 2]:.1f} s." if seconds else ""
        self.summary.setText(
            f"<h2>Done — thank you</h2><p>Participant <b>{self.run.participant}</b> answered all "
            f"{self.ts.n} items.</p><p style='font-size:13pt'>{line}</p><p>{pace}</p>"
            f"<p style='color:{theme.MUTED}'>Saved to results/{self.run.path.name}; the viewer now "
            "shows these answers beside the truth.</p>")
        self.pages.setCurrentIndex(2)
