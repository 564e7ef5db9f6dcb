"""The session browser: every saved session in a sortable, filterable table, newest first.

Listing reads the catalogue off the UI thread (``asyncio.to_thread``) so a folder with thousands of
sessions never freezes the window. Double-click or Enter opens a session for replay; Delete (the key or
the button) removes a session's folder after a confirmation; Import… unpacks an exported zip (off the
UI thread too). The filter matches every column, the session id included. Sessions the launch demo
recorded are hidden unless "Show demo sessions" is ticked; a session the catalogue found damaged
carries a badge in its Status cell, with what is wrong in the tooltip.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop import theme

COLUMNS = ("Date", "Game", "Players", "Steps", "Result", "Status", "ID")
STATUS_COLUMN = 5
ID_COLUMN = 6
#: The badge a damaged session's Status cell carries.
DAMAGE_BADGE = "⚠ damaged"
_Index = QModelIndex | QPersistentModelIndex


def is_demo(summary: Any) -> bool:
    """Whether the launch demo recorded this session (the catalogue's ``demo`` flag)."""
    return bool(getattr(summary, "demo", False))


def damage_of(summary: Any) -> list[str]:
    """What the catalogue found wrong with a session, one sentence each (empty when it is healthy).

    Accepts the forms a summary can carry: ``damage`` as a list of problems or one sentence, and
    ``damaged`` as a flag.
    """
    damage = getattr(summary, "damage", None)
    if isinstance(damage, str):
        problems = [damage] if damage.strip() else []
    elif isinstance(damage, dict):
        problems = [f"{key}: {value}" for key, value in damage.items()]
    elif isinstance(damage, (list, tuple)):
        problems = [str(p) for p in damage if str(p).strip()]
    else:
        problems = []
    if not problems and getattr(summary, "damaged", False):
        problems = ["the session's files do not agree with its manifest"]
    return problems


def _id_of(summary: Any) -> str:
    """The id the commands accept for a session: its folder's name (the manifest's id, unless copied)."""
    return Path(summary.path).name or str(summary.id)


def one_line(exc: BaseException) -> str:
    """An error as one line for the person (the first line of its message, else its type)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _game_title(game_id: str) -> str:
    try:
        return engine.spec(game_id).title
    except Exception:
        return game_id


def _date(created_at: str) -> str:
    # ISO timestamps sort correctly as text; show them without the seconds' fraction and zone.
    text = created_at.replace("T", " ")
    return text[:16] if len(text) >= 16 else text


class SessionTableModel(QAbstractTableModel):
    """Rows of :class:`sessions.SessionSummary`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Any] = []

    def set_rows(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        damage = damage_of(row)
        if role == Qt.ItemDataRole.DisplayRole:
            status = row.status or ""
            if damage:
                status = f"{DAMAGE_BADGE} · {status}" if status else DAMAGE_BADGE
            if is_demo(row):
                status = f"{status} · demo" if status else "demo"
            return (
                _date(row.created_at),
                _game_title(row.game),
                " vs ".join(row.players),
                str(row.steps),
                row.result or "",
                status,
                _id_of(row),
            )[col]
        if role == Qt.ItemDataRole.UserRole:  # sort keys
            status = self.data(index) if col == STATUS_COLUMN else ""
            players = " ".join(row.players)
            return (row.created_at, row.game, players, row.steps, row.result, status, _id_of(row))[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == STATUS_COLUMN and damage:
                problems = "\n".join(f"• {p}" for p in damage)
                return f"This session is damaged; what it shows may be incomplete.\n{problems}\n{row.path}"
            if col == ID_COLUMN and str(row.id) != _id_of(row):
                return f"{_id_of(row)}\n(a copy of session {row.id})\n{row.path}"
            # The full text of a clipped cell, and where the session lives.
            return f"{self.data(index)}\n{row.path}" if col in (2, 4, ID_COLUMN) else str(row.path)
        if role == Qt.ItemDataRole.ForegroundRole and col == STATUS_COLUMN and damage:
            return QColor(theme.ERROR_FG)
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 3:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def path_at(self, row: int) -> Path:
        return Path(self.rows[row].path)

    def status_at(self, row: int) -> str:
        return str(self.rows[row].status or "")

    def row_of(self, path: Path) -> int | None:
        """The row of the session in folder ``path`` (``None`` if it is not listed)."""
        target = Path(path).name
        return next((i for i, r in enumerate(self.rows) if Path(r.path).name == target), None)

    def describe(self, row: int) -> str:
        """A short, human name of the session in ``row``: "the Tic-tac-toe session of 2026-11-22 23:53"."""
        summary = self.rows[row]
        return f"the {_game_title(summary.game)} session of {_date(summary.created_at)}"


class SessionFilter(QSortFilterProxyModel):
    """The typed filter over every column, and demo sessions hidden unless asked for."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.show_demo = False

    def set_show_demo(self, show: bool) -> None:
        if not hasattr(self, "endFilterChange"):  # Qt before 6.10
            self.show_demo = bool(show)
            self.invalidateFilter()
            return
        self.beginFilterChange()
        self.show_demo = bool(show)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:  # noqa: N802
        model = self.sourceModel()
        if not self.show_demo and isinstance(model, SessionTableModel) and is_demo(model.rows[source_row]):
            return False
        return super().filterAcceptsRow(source_row, source_parent)


class SessionBrowser(QDialog):
    """Lists saved sessions; emits ``sig_open_requested(Path)`` for the one to replay.

    Signals:
        sig_open_requested(object): the folder of the session to open.
        sig_deleted(object): the folder of a session that was just deleted.
    """

    sig_open_requested = Signal(object)
    sig_deleted = Signal(object)

    def __init__(
        self, root: Path, parent: QWidget | None = None, *, in_use: Callable[[], Path | None] | None = None
    ) -> None:
        """Create the browser.

        Args:
            root: The sessions folder.
            parent: The owning window.
            in_use: Returns the folder the app has open (recording or replaying); it cannot be deleted.
        """
        super().__init__(parent)
        self.setWindowTitle("Sessions")
        # Wide enough for every column, but never wider than the screen (1024 px laptops, projectors).
        room = self.screen().availableGeometry()
        self.resize(min(1120, room.width() - 40), min(540, room.height() - 60))
        self.root = Path(root)
        self._in_use = in_use or (lambda: None)
        self.confirm_box: QMessageBox | None = None
        self.model = SessionTableModel(self)
        self.proxy = SessionFilter(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by game, player, result, id…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.filter.textChanged.connect(lambda _t: self._update_count())
        self.show_demo = QCheckBox("Show demo sessions")
        self.show_demo.setToolTip("List the sessions the launch demo recorded too")
        self.show_demo.toggled.connect(self._show_demo_toggled)
        self.count_label = QLabel("")
        self.count_label.setObjectName("Muted")
        # What the last import or export did (one line; errors in red).
        self.message = QLabel("")
        self.message.setObjectName("Muted")
        self.message.setWordWrap(True)
        self.message.setVisible(False)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(28)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        # An id's distinctive part is its end (the random suffix): clip cells in the middle.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for col, width in enumerate((130, 100, 260, 55, 170, 130, 190)):
            self.table.setColumnWidth(col, width)
        # Players takes what is left (the longest text: "Simulated model (offline) vs Minimax"); the
        # result and the id keep their width (an id is cut in its middle, its whole text in a tooltip).
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(50)
        self.table.doubleClicked.connect(lambda index: self.open_row(index.row()))
        self.table.installEventFilter(self)

        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("Primary")
        self.open_button.clicked.connect(self.open_selected)
        self.export_button = QPushButton("Export zip…")
        self.export_button.clicked.connect(self.export_selected)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.setToolTip("Delete the selected session's folder (Delete key)")
        self.delete_button.clicked.connect(self.delete_selected)
        self.import_button = QPushButton("Import…")
        self.import_button.setToolTip("Add a session from an exported zip archive")
        self.import_button.clicked.connect(self.import_dialog)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)

        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.show_demo)
        top.addWidget(self.count_label)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self._task: asyncio.Task[None] | None = None
        self._export_task: asyncio.Task[None] | None = None
        self._import_task: asyncio.Task[None] | None = None
        self._select_after_load: Path | None = None
        self.export_error_box: QMessageBox | None = None
        self.refresh()

    # -- loading ----------------------------------------------------------------------------------

    def _list(self) -> list[Any]:
        import sessions

        return list(sessions.Catalogue(self.root).list())

    def refresh(self) -> None:
        """Reload the list (in a worker thread when an event loop runs, else at once)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.load_now()
            return
        if self._task is not None and not self._task.done():
            self._task.cancel()  # the newer listing wins: an older, slower one must not overwrite it
        self._task = asyncio.ensure_future(self.reload())

    def done(self, result: int) -> None:  # noqa: D102 (Qt override)
        # The window deletes a closed browser: a listing still on its way must not fill dead widgets.
        if self._task is not None and not self._task.done():
            self._task.cancel()
        super().done(result)

    def load_now(self) -> None:
        self._set_rows(self._list())

    async def reload(self) -> None:
        self.count_label.setText("Loading…")
        rows = await asyncio.to_thread(self._list)
        self._set_rows(rows)

    def _set_rows(self, rows: list[Any]) -> None:
        self.model.set_rows(rows)
        wanted, self._select_after_load = self._select_after_load, None
        if wanted is not None and not self.select_session(wanted):
            wanted = None
        if wanted is None and self.proxy.rowCount():
            self.table.selectRow(0)
        self._update_count()

    def _update_count(self) -> None:
        """"12 sessions", "12 sessions (5 demo hidden)", "3 of 12 sessions"; buttons follow what is shown."""
        shown = self.proxy.rowCount()
        demos = sum(1 for r in self.model.rows if is_demo(r))
        total = len(self.model.rows) - (0 if self.show_demo.isChecked() else demos)
        text = f"{total} session{'s' if total != 1 else ''}"
        if shown != total:
            text = f"{shown} of {text}"
        if demos and not self.show_demo.isChecked():
            text += f" ({demos} demo hidden)"
        self.count_label.setText(text)
        for button in (self.open_button, self.export_button, self.delete_button):
            button.setEnabled(shown > 0)

    def _show_demo_toggled(self, on: bool) -> None:
        self.proxy.set_show_demo(on)
        if self.proxy.rowCount() and not self.table.selectionModel().selectedRows():
            self.table.selectRow(0)
        self._update_count()

    def select_session(self, path: Path) -> bool:
        """Select the session in folder ``path`` (shown even if a demo); returns whether it is listed."""
        row = self.model.row_of(path)
        if row is None:
            return False
        if is_demo(self.model.rows[row]) and not self.show_demo.isChecked():
            self.show_demo.setChecked(True)
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():  # hidden by the typed filter
            self.filter.clear()
            index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.selectRow(index.row())
        self.table.scrollTo(index)
        return True

    def show_message(self, text: str, *, error: bool = False) -> None:
        """One line under the table: what an import or export did, or why it failed."""
        self.message.setStyleSheet(f"color: {theme.ERROR_FG};" if error else "")
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # -- actions --------------------------------------------------------------------------------

    def selected_row(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.proxy.mapToSource(rows[0]).row()

    def open_row(self, proxy_row: int) -> None:
        source = self.proxy.mapToSource(self.proxy.index(proxy_row, 0))
        if source.isValid():
            self.sig_open_requested.emit(self.model.path_at(source.row()))
            self.accept()

    def open_selected(self) -> None:
        row = self.selected_row()
        if row is not None:
            self.sig_open_requested.emit(self.model.path_at(row))
            self.accept()

    def export_selected(self) -> None:
        row = self.selected_row()
        if row is None:
            return
        path = self.model.path_at(row)
        dest, _ = QFileDialog.getSaveFileName(
            self, "Export session", str(Path.home() / f"{path.name}.zip"), "Zip archives (*.zip)"
        )
        if not dest:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._export_done(path, Path(dest), self._export_now(path, Path(dest)))
            return
        # A big session makes a big archive: zip it in a worker thread (the task is kept referenced).
        self._export_task = asyncio.ensure_future(self._export(path, Path(dest)))

    @staticmethod
    def _export_now(path: Path, dest: Path) -> str | None:
        """Write the archive; returns why it failed, or ``None``."""
        import sessions

        try:
            sessions.export_zip(path, dest)
        except Exception as exc:  # shown to the person, never swallowed
            return str(exc) or type(exc).__name__
        return None

    async def _export(self, path: Path, dest: Path) -> None:
        error = await asyncio.to_thread(self._export_now, path, dest)
        with contextlib.suppress(RuntimeError):  # the browser was closed meanwhile
            self._export_done(path, dest, error)

    def _export_done(self, path: Path, dest: Path, error: str | None) -> None:
        if error is None:
            self.count_label.setText(f"Exported {path.name} to {dest.name}")
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Export session", f"Could not export {path.name}: {error}", parent=self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.export_error_box = box
        box.open()

    # -- import -----------------------------------------------------------------------------------

    def import_dialog(self) -> None:
        """Ask for an exported zip and import it."""
        source, _ = QFileDialog.getOpenFileName(
            self, "Import session", str(Path.home()), "Session archives (*.zip);;All files (*)"
        )
        if source:
            self.import_zip(Path(source))

    def import_zip(self, source: Path) -> asyncio.Task[None] | None:
        """Import ``source`` into the sessions folder, in a worker thread when an event loop runs.

        The outcome is one line under the table; the imported session is listed and selected.
        Returns the import task (``None`` when it ran at once, without an event loop).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._import_done(source, *self._import_now(source, self.root))
            return None
        if self._import_task is not None and not self._import_task.done():
            self.show_message("An import is already running; wait for it to finish.", error=True)
            return None
        self.import_button.setEnabled(False)
        self.show_message(f"Importing {source.name}…")
        self._import_task = asyncio.ensure_future(self._import(source))
        return self._import_task

    @staticmethod
    def _import_now(source: Path, root: Path) -> tuple[Path | None, str | None]:
        """Unpack the archive; returns (the new folder, None) or (None, why it failed, in one line)."""
        import sessions

        try:
            return sessions.import_zip(source, root), None
        except Exception as exc:  # any failure is the person's one-line answer, never a traceback
            return None, one_line(exc)

    async def _import(self, source: Path) -> None:
        folder, error = await asyncio.to_thread(self._import_now, source, self.root)
        with contextlib.suppress(RuntimeError):  # the browser was closed meanwhile
            self._import_done(source, folder, error)

    def _import_done(self, source: Path, folder: Path | None, error: str | None) -> None:
        self.import_button.setEnabled(True)
        if folder is None:
            self.show_message(f"Could not import {source.name}: {error}", error=True)
            return
        self.show_message(f"Imported {source.name} as {folder.name}")
        self._select_after_load = folder
        self.refresh()

    def delete_selected(self) -> QMessageBox | None:
        """Ask to delete the selected session; the folder goes once the person confirms.

        The question is shown with ``open()``, never ``exec()``: a nested event loop inside the asyncio
        loop would stall a running match. Returns the question box (``None`` if nothing can be deleted).
        """
        row = self.selected_row()
        if row is None:
            return None
        path = self.model.path_at(row)
        refusal = self._why_not_deletable(path, self.model.status_at(row))
        if refusal is not None:
            box = QMessageBox(QMessageBox.Icon.Information, "Delete session", refusal[0], parent=self)
            box.setInformativeText(refusal[1])
            box.setStandardButtons(QMessageBox.StandardButton.Ok)
        else:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                "Delete session",
                f"Delete {self.model.describe(row)}?",
                QMessageBox.StandardButton.Cancel,
                self,
            )
            box.setInformativeText(
                f"Its folder {path.name}, with its events and images, is removed from disk."
                " This cannot be undone."
            )
            delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
            box.setDefaultButton(QMessageBox.StandardButton.Cancel)
            delete.clicked.connect(lambda _checked=False, p=path: self.delete_session(p))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(self._forget_confirm_box)
        self.confirm_box = box
        box.open()
        return box

    def _forget_confirm_box(self) -> None:
        self.confirm_box = None

    def _why_not_deletable(self, path: Path, status: str) -> tuple[str, str] | None:
        """(what, what to do) when the session must stay, else ``None``."""
        from sessions import schema

        if self._is_in_use(path):
            return (
                "This session is open in the main window.",
                "Start or open another session first, then delete this one.",
            )
        if status == schema.RUNNING:
            return ("This session is still being recorded.", "Wait until its match ends, then delete it.")
        return None

    def _is_in_use(self, path: Path) -> bool:
        current = self._in_use()
        return current is not None and Path(current).resolve() == path.resolve()

    def delete_session(self, path: Path) -> bool:
        """Remove the session folder ``path`` (only a session folder directly under the root).

        Returns whether it was deleted; the list is reloaded either way.
        """
        from sessions import schema

        folder = Path(path)
        # Never follow a stray path out of the sessions folder, nor delete a folder that is no session.
        inside = folder.resolve().parent == self.root.resolve()
        is_session = (folder / schema.MANIFEST_FILE).is_file() or (folder / schema.EVENTS_FILE).is_file()
        deleted = False
        if inside and is_session and not self._is_in_use(folder):
            try:
                shutil.rmtree(folder)
                deleted = True
            except OSError as exc:
                error = QMessageBox(
                    QMessageBox.Icon.Warning,
                    "Delete session",
                    f"Could not delete {folder.name}: {exc}",
                    parent=self,
                )
                error.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
                error.open()
        if deleted:
            self.sig_deleted.emit(folder)
        self.refresh()
        return deleted

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
        if watched is self.table and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_selected()
                return True
            if event.key() == Qt.Key.Key_Delete:
                self.delete_selected()
                return True
        return super().eventFilter(watched, event)
