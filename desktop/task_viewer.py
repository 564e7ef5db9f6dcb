"""The task-set viewer: an LVLM-Playground task set as a sequence of items, each answer beside the truth.

A task set folder (``playtrace tasks generate``) opens in its own window: on the left the items, with
a ✓/✗ (or, for perceiving, the cell accuracy) per player who answered them; in the middle the item's
image as the models saw it; on the right the question and options (QA), one row per results file in
``DIR/results/`` (the player, its raw and parsed answer, the truth, the mark), the selected answer
in full (for perceiving, its matrix with the wrong cells marked, then the true matrix) and the prompt.
A strip at the top sums up every player's score. ←/→ or PgUp/PgDn step through the items, Home/End
go to the first and last. "Take this task set…" lets a person answer the same items
(:mod:`desktop.task_answer`); their results join the table when they close it.

Everything read or scored goes through :mod:`engine.tasks`, so the app and ``playtrace tasks`` agree.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QCloseEvent, QColor, QKeyEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.task_answer import ScaledImage, TakeDialog
from desktop.widgets import AutoHeightTable, CollapsibleSection, FoldingTextView, monospace_font, muted_label
from engine import tasks
from engine.tasks import TaskItem, TaskSet, TaskSetError

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Viewers open now (kept referenced while shown; each forgets itself when closed).
_OPEN: set[TaskViewer] = set()
#: Keys that move between items, whatever child has the focus: key → step (None: first/last).
_NAV_KEYS = {Qt.Key.Key_Left: -1, Qt.Key.Key_PageUp: -1, Qt.Key.Key_Right: 1, Qt.Key.Key_PageDown: 1,
             Qt.Key.Key_Home: "first", Qt.Key.Key_End: "last"}
_OK, _BAD = theme.SUCCESS, theme.ERROR_FG
RESULT_COLUMNS = ("Player", "Answer", "Parsed", "Truth", "Result")


@dataclass
class PlayerResults:
    """One results file of the set: who answered, their mean score and the items by id."""

    path: Path
    player: str
    label: str
    score: float
    scored: int
    format_errors: int
    items: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def short(self) -> str:
        """A column title: the player spec's last part (``sim``, ``gpt-4o``, ``p-3f9a``)."""
        tail = self.player.rsplit(":", 1)[-1] or self.label
        return tail if len(tail) <= 10 else tail[:9] + "…"

    @property
    def correct(self) -> int:
        return sum(1 for d in self.items.values() if d.get("correct"))


def read_results(ts: TaskSet) -> tuple[list[PlayerResults], list[str]]:
    """The results files of ``ts`` (best score first) and a note per file that was left out."""
    found: list[PlayerResults] = []
    notes: list[str] = []
    if ts.path is None:
        return found, notes
    for path in sorted((ts.path / "results").glob("*.json")):
        try:
            data = tasks.load_results(path)
        except TaskSetError as exc:
            notes.append(str(exc))
            continue
        seed = (data.get("set") or {}).get("seed")
        if (data["game"], data["task"]) != (ts.game, ts.task) or seed != ts.seed:
            notes.append(f"{path.name} answers another task set")
            continue
        items = {str(d.get("id")): d for d in data.get("items") or [] if isinstance(d, dict)}
        found.append(PlayerResults(path, str(data["player"]), str(data.get("label") or data["player"]),
                                   float(data["score"]), int(data.get("scored") or len(items)),
                                   int(data.get("format_errors") or 0), items))
    found.sort(key=lambda p: (-p.score, p.label))
    return found, notes


def mark(task: str, result: dict[str, Any] | None) -> tuple[str, str]:
    """The sidebar/table mark of one answer and its colour: ✓ or ✗, or the cell accuracy of a
    perceive answer that is not all right; empty when the item was not answered."""
    if result is None:
        return "", theme.MUTED
    if result.get("correct"):
        return "✓", _OK
    if task == "perceive" and result.get("parsed") is not None:
        return f"{float(result.get('score') or 0):.0%}", _BAD
    return "✗", _BAD


def grid_html(rows: Sequence[Sequence[int]], truth: Sequence[Sequence[int]] | None = None) -> str:
    """A matrix as monospace HTML; with ``truth``, the cells that differ from it in red."""
    every = [v for row in rows for v in row] + ([v for row in truth for v in row] if truth else [])
    width = max((len(str(v)) for v in every), default=1)
    family = html.escape(monospace_font().family())
    lines = []
    for r, row in enumerate(rows):
        cells = []
        for c, v in enumerate(row):
            text = str(v).rjust(width)
            wrong = truth is not None and (r >= len(truth) or c >= len(truth[r]) or truth[r][c] != v)
            cells.append(f"<span style='color:{_BAD}; background:#fdecea; font-weight:bold'>{text}</span>"
                         if wrong else text)
        lines.append(" ".join(cells))
    return f"<pre style='font-family:\"{family}\"; font-size:10pt; margin:0'>" + "\n".join(lines) + "</pre>"


def _cell(text: str, *, color: str = "", tip: str = "", bold: bool = False,
          align: Qt.AlignmentFlag | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if color:
        item.setForeground(QColor(color))
    if tip:
        item.setToolTip(tip)
    if bold:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
    if align is not None:
        item.setTextAlignment(align)
    return item


class _KeepColours(QStyledItemDelegate):
    """Draws a selected cell in its own colour, so a ✓ stays green and a ✗ red in the current row."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
                        ) -> None:  # noqa: N802 (Qt naming)
        super().initStyleOption(option, index)
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        if brush is not None:
            option.palette.setColor(QPalette.ColorRole.HighlightedText, brush.color())


class TaskViewer(QMainWindow):
    """A task set's items with every player's answers beside the truth (see the module docstring)."""

    def __init__(self, ts: TaskSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.ts = ts
        self.players: list[PlayerResults] = []
        self.index = 0
        self.take_dialog: TakeDialog | None = None
        self._chosen_player = ""
        self._answered: list[PlayerResults] = []
        try:
            title = ts.make_game().title
        except Exception:  # noqa: BLE001  (a set of a game not installed still shows its images)
            title = ts.game
        self.game_title = title
        self.setWindowTitle(f"Task set — {title} · {ts.task} · {ts.n} items")
        self.resize(1280, 800)

        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self._header())
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        self.items_table = self._items_table()
        self.image = ScaledImage()
        splitter.addWidget(self.items_table)
        splitter.addWidget(self.image)
        splitter.addWidget(self._details())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([190, 600, 490])
        body = QWidget()
        row = QHBoxLayout(body)
        row.setContentsMargins(8, 8, 8, 8)
        row.addWidget(splitter)
        outer.addWidget(body, 1)
        self.setCentralWidget(central)
        self.statusBar().showMessage(f"{ts.path}   ·   ←/→ or PgUp/PgDn: items   ·   Home/End: first/last")
        for widget in (self.items_table, self.results_table):
            widget.installEventFilter(self)
        self.reload()
        self.items_table.setFocus()

    # construction
    def _header(self) -> QWidget:
        strip = QFrame()
        strip.setObjectName("HeaderStrip")
        title = QLabel(f"{self.game_title} · {self.ts.task}")
        title.setObjectName("HeaderTitle")
        where = self.ts.path.name if self.ts.path else ""
        sub = muted_label(f"{self.ts.n} items · seed {self.ts.seed} · {where}")
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.take_button = QPushButton("Take this task set…")
        self.take_button.setObjectName("Primary")
        self.take_button.setToolTip("Answer the same items yourself (the paper's volunteer study); "
                                    "scored as the models are")
        self.take_button.clicked.connect(lambda _c=False: self.take())
        reload_button = QPushButton("Reload")
        reload_button.setToolTip("Read the results folder again (F5)")
        reload_button.setShortcut(QKeySequence("F5"))
        reload_button.clicked.connect(lambda _c=False: self.reload())
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(title)
        names.addWidget(sub)
        layout = QHBoxLayout(strip)
        layout.setContentsMargins(14, 8, 14, 8)
        layout.addLayout(names)
        layout.addSpacing(24)
        layout.addWidget(self.summary, 1)
        layout.addWidget(reload_button)
        layout.addWidget(self.take_button)
        return strip

    def _items_table(self) -> QTableWidget:
        table = QTableWidget(0, 1)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setShowGrid(False)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(24)
        table.horizontalHeader().setHighlightSections(False)
        table.setItemDelegate(_KeepColours(table))
        table.currentCellChanged.connect(lambda row, _c, _pr, _pc: self.show_item(row))
        table.setMinimumWidth(120)
        return table

    def _details(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(10, 4, 10, 10)
        layout.setSpacing(8)
        self.item_title = QLabel()
        self.item_title.setObjectName("HeaderTitle")
        self.question = QLabel()
        self.question.setTextFormat(Qt.TextFormat.RichText)
        self.question.setWordWrap(True)
        self.results_table = AutoHeightTable(RESULT_COLUMNS, stretch_column=1, max_rows=8)
        self.results_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.results_table.setWordWrap(False)
        self.results_table.setItemDelegate(_KeepColours(self.results_table))
        self.results_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.results_table.itemSelectionChanged.connect(self._show_answer)
        self.no_results = muted_label("No results yet: run `playtrace tasks eval DIR --player sim`, or take "
                                      "the set yourself.")
        self.no_results.setWordWrap(True)
        self.answer_title = QLabel()
        self.answer_view = FoldingTextView(fold_lines=4, monospace=True)
        self.answer_grid = QLabel()
        self.answer_grid.setTextFormat(Qt.TextFormat.RichText)
        self.truth_title = QLabel()
        self.truth_grid = QLabel()
        self.truth_grid.setTextFormat(Qt.TextFormat.RichText)
        self.truth_grid.setWordWrap(True)
        self.truth_grid.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prompt_section = CollapsibleSection("Prompt sent with the image", expanded=False)
        self.prompt_view = FoldingTextView(fold_lines=12)
        self.prompt_section.add(self.prompt_view)
        self.prompt_section.add(self.prompt_view.fold_button)
        for widget in (self.item_title, self.question, self.results_table, self.no_results, self.answer_title,
                       self.answer_view, self.answer_view.fold_button, self.answer_grid, self.truth_title,
                       self.truth_grid, self.prompt_section):
            layout.addWidget(widget)
        layout.addStretch(1)
        area = QScrollArea()
        area.setWidget(column)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setMinimumWidth(380)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return area

    # data
    def reload(self) -> None:
        """Read the results folder again and redraw (the item shown stays)."""
        self.players, notes = read_results(self.ts)
        self._fill_summary()
        self._fill_items()
        if notes:
            self.statusBar().showMessage("Left out: " + "; ".join(notes), 15_000)
        self.show_item(self.index, force=True)

    def _fill_summary(self) -> None:
        if not self.players:
            self.summary.setText(f"<span style='color:{theme.MUTED}'>No results yet.</span>")
            return
        pills = []
        for p in self.players:
            if self.ts.task == "perceive":
                value = f"{p.score:.1%} cells"
            else:
                value = f"{p.score:.0%} ({p.correct}/{p.scored})"
            partial = "" if len(p.items) >= self.ts.n else f" · {len(p.items)}/{self.ts.n} answered"
            errors = f" · {p.format_errors} unreadable" if p.format_errors else ""
            pills.append(f"<span style='background:{theme.ACCENT_SOFT}; color:{theme.TEXT}'>"
                         f"&nbsp;{html.escape(p.label)}&nbsp;<b>{value}</b>"
                         f"<span style='color:{theme.MUTED}'>{partial}{errors}</span>&nbsp;</span>")
        self.summary.setText("&nbsp;&nbsp; ".join(pills))

    def _fill_items(self) -> None:
        t = self.items_table
        t.blockSignals(True)
        t.clear()
        t.setColumnCount(1 + len(self.players))
        t.setHorizontalHeaderLabels(["Item", *(p.short for p in self.players)])
        header = t.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for c, p in enumerate(self.players, start=1):
            t.horizontalHeaderItem(c).setToolTip(p.label)
        t.setRowCount(len(self.ts.items))
        centre = Qt.AlignmentFlag.AlignCenter
        for r, item in enumerate(self.ts.items):
            t.setItem(r, 0, _cell(item.id))
            for c, p in enumerate(self.players, start=1):
                text, colour = mark(self.ts.task, p.items.get(item.id))
                t.setItem(r, c, _cell(text, color=colour, bold=True, align=centre,
                                      tip=f"{p.label}: {text or 'not answered'}"))
        t.blockSignals(False)
        # Wide enough for every column: the marks never hide behind a scroll bar.
        wanted = sum(header.sectionSize(c) for c in range(t.columnCount()))
        wanted += t.verticalScrollBar().sizeHint().width() + 2 * t.frameWidth()
        t.setMinimumWidth(min(360, max(120, wanted)))

    # navigation
    def show_item(self, index: int, *, force: bool = False) -> None:
        """Show item ``index`` (clamped to the set)."""
        index = max(0, min(len(self.ts.items) - 1, index))
        if index == self.index and not force and self.items_table.currentRow() == index:
            return
        self.index = index
        if self.items_table.currentRow() != index:
            self.items_table.blockSignals(True)
            self.items_table.setCurrentCell(index, 0)
            self.items_table.blockSignals(False)
        self.items_table.scrollToItem(self.items_table.item(index, 0))
        item = self.ts.items[index]
        self.item_title.setText(f"Item {item.id}   <span style='color:{theme.MUTED}; font-size:10pt; "
                                f"font-weight:normal'>{index + 1} of {self.ts.n}</span>")
        self.image.set_image(self.ts.image_path(item) if self.ts.path else None)
        self.prompt_view.set_text(item.prompt)
        self._show_question(item)
        self._fill_results(item)
        self._show_truth(item)

    def step(self, delta: int) -> None:
        self.show_item(self.index + delta)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if event.type() == QEvent.Type.KeyPress and self._navigate(event):  # type: ignore[arg-type]
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        if not self._navigate(event):
            super().keyPressEvent(event)

    def _navigate(self, event: QKeyEvent) -> bool:
        move = _NAV_KEYS.get(Qt.Key(event.key()))
        if move is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if move == "first":
            self.show_item(0)
        elif move == "last":
            self.show_item(len(self.ts.items) - 1)
        else:
            self.step(int(move))
        return True

    # the item's panels
    def _show_question(self, item: TaskItem) -> None:
        self.question.setVisible(self.ts.task == "qa")
        if self.ts.task != "qa":
            return
        text = html.escape((item.question or "").split("\n", 1)[0])
        rows = []
        for letter, option in zip(tasks.LETTERS, item.options or (), strict=False):
            line = f"<b>{letter}.</b> {html.escape(option)}"
            if letter == item.truth:
                line = f"<span style='color:{_OK}'>{line} &nbsp;✓ truth</span>"
            rows.append(line)
        self.question.setText(f"<p style='font-size:11pt'><b>{text}</b></p>" + "<br>".join(rows))

    def _truth_short(self, item: TaskItem) -> str:
        if self.ts.task == "qa":
            return str(item.truth)
        if self.ts.task == "perceive":
            rows = item.truth
            return f"{len(rows)}×{len(rows[0]) if rows else 0} matrix"
        return f"{len(item.truth)} valid moves"

    def _fill_results(self, item: TaskItem) -> None:
        rows = []
        answered = []
        for p in self.players:
            result = p.items.get(item.id)
            if result is None:
                continue
            answered.append(p)
            raw = str(result.get("answer") or "")
            flat = " ".join(raw.split())
            parsed = result.get("parsed")
            if parsed is None:
                parsed_text = "—"
                tip = str(result.get("error") or "nothing could be read")
            elif self.ts.task == "perceive":
                parsed_text, tip = f"{len(parsed)}×{len(parsed[0]) if parsed else 0}", "matrix read"
            else:
                parsed_text, tip = str(parsed), ""
            text, colour = mark(self.ts.task, result)
            rows.append([_cell(p.label, tip=p.player),
                         _cell(flat if len(flat) <= 60 else flat[:59] + "…", tip=raw[:2000]),
                         _cell(parsed_text, tip=tip, color="" if parsed is not None else _BAD),
                         _cell(self._truth_short(item)),
                         _cell(text or "—", color=colour, bold=True,
                               tip=f"score {float(result.get('score') or 0):.3f}")])
        self._answered = answered
        table = self.results_table
        table.blockSignals(True)
        table.set_rows(rows)
        table.blockSignals(False)
        table.setVisible(bool(rows))
        self.no_results.setVisible(not rows)
        if not self.players:
            self.no_results.setText("No results yet: run `playtrace tasks eval DIR --player sim`, or take "
                                    "the set yourself.")
        else:
            self.no_results.setText("No player has answered this item.")
        if rows:
            labels = [p.label for p in answered]
            pick = labels.index(self._chosen_player) if self._chosen_player in labels else 0
            table.selectRow(pick)
        self._show_answer()

    def _selected_player(self) -> PlayerResults | None:
        rows = {i.row() for i in self.results_table.selectedIndexes()}
        if not rows or not self._answered:
            return None
        return self._answered[min(rows)]

    def _show_answer(self) -> None:
        player = self._selected_player()
        shown = player is not None
        for w in (self.answer_title, self.answer_view):
            w.setVisible(shown)
        self.answer_grid.setVisible(False)
        if player is None:
            self.answer_view.fold_button.setVisible(False)
            return
        self._chosen_player = player.label
        item = self.ts.items[self.index]
        result = player.items[item.id]
        error = result.get("error")
        title = f"<b>{html.escape(player.label)}</b>'s answer"
        if error:
            title += f" <span style='color:{_BAD}'>— {html.escape(str(error))}</span>"
        elif self.ts.task == "perceive" and result.get("parsed") is not None:
            title += f" — {float(result.get('score') or 0):.1%} of the cells right"
        self.answer_title.setText(title)
        self.answer_view.set_text(str(result.get("answer") or "(no answer)"))
        parsed = result.get("parsed")
        if self.ts.task == "perceive" and parsed is not None:
            self.answer_grid.setText(f"<span style='color:{theme.MUTED}'>As read (wrong cells in red):</span>"
                                     + grid_html(parsed, item.truth))
            self.answer_grid.setVisible(True)

    def _show_truth(self, item: TaskItem) -> None:
        task = self.ts.task
        self.truth_title.setVisible(task != "qa")
        self.truth_grid.setVisible(task != "qa")
        if task == "perceive":
            self.truth_title.setText("<b>Truth</b>")
            self.truth_grid.setText(grid_html(item.truth))
        elif task == "rules":
            moves = [str(m) for m in item.truth]
            self.truth_title.setText(f"<b>Truth</b>: {len(moves)} valid moves")
            shown = moves if len(moves) <= 80 else [*moves[:80], f"… {len(moves) - 80} more"]
            self.truth_grid.setText(f"<span style='font-family:\"{monospace_font().family()}\"'>"
                                    + html.escape("  ".join(shown)) + "</span>")

    # human mode
    def take(self) -> TakeDialog:
        """Open the dialog that lets a person take this set (window-modal); the viewer reloads when it
        closes, showing the new answers beside the truth."""
        dialog = TakeDialog(self.ts, self)
        self.take_dialog = dialog
        dialog.finished.connect(lambda _r: self._taken(dialog))
        dialog.open()
        return dialog

    def _taken(self, dialog: TakeDialog) -> None:
        if dialog.run is not None:
            self._chosen_player = dialog.run.label
        self.take_dialog = None
        self.reload()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt naming)
        if self.take_dialog is not None:
            self.take_dialog.close()
        _OPEN.discard(self)
        super().closeEvent(event)


def open_task_set(window: QWidget | None, folder: str | Path) -> TaskViewer:
    """Open the task set in ``folder`` in a new viewer window (over ``window``) and show it.

    Raises:
        TaskSetError: ``folder`` holds no readable task set.
    """
    ts = tasks.load_task_set(folder)
    viewer = TaskViewer(ts, window)
    _OPEN.add(viewer)
    viewer.show()
    viewer.raise_()
    return viewer


def choose_task_set(window: QWidget | None) -> TaskViewer | None:
    """Ask for a task set folder and open it; a folder that is not one is explained in a message."""
    from desktop.settings import AppSettings

    try:
        settings: AppSettings | None = AppSettings()
        start = str(settings.value("tasks/last_folder", "") or Path.home())
    except OSError:  # an unwritable configuration folder must not stop the dialog
        settings, start = None, str(Path.home())
    folder = QFileDialog.getExistingDirectory(window, "Open task set (a folder with manifest.json)", start)
    if not folder:
        return None
    if settings is not None:
        settings.set_value("tasks/last_folder", str(Path(folder).parent))
    try:
        return open_task_set(window, folder)
    except TaskSetError as exc:
        QMessageBox.warning(window, "Not a task set", f"{exc}\n\nCreate one with:\n"
                            "playtrace tasks generate GAME --task perceive --n 20 --seed 1 --out DIR")
        return None
