"""The session browser: every saved session in a sortable, filterable table.

Listing reads the catalogue off the UI thread (``asyncio.to_thread``) so a folder with thousands of
sessions never freezes the window. Double-click or Enter opens a session for replay.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import engine

COLUMNS = ("Date", "Game", "Players", "Steps", "Result", "Status")
_Index = QModelIndex | QPersistentModelIndex


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

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                _date(row.created_at),
                _game_title(row.game),
                " vs ".join(row.players),
                str(row.steps),
                row.result or "",
                row.status or "",
            )[col]
        if role == Qt.ItemDataRole.UserRole:  # sort keys
            return (row.created_at, row.game, " ".join(row.players), row.steps, row.result, row.status)[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(row.path)
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 3:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def path_at(self, row: int) -> Path:
        return Path(self.rows[row].path)


class SessionBrowser(QDialog):
    """Lists saved sessions; emits ``sig_open_requested(Path)`` for the one to replay.

    Signals:
        sig_open_requested(object): the folder of the session to open.
    """

    sig_open_requested = Signal(object)

    def __init__(self, root: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sessions")
        self.resize(900, 520)
        self.root = Path(root)
        self.model = SessionTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by game, player, result…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.count_label = QLabel("")
        self.count_label.setObjectName("Muted")

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
        for col, width in enumerate((140, 100, 260, 60, 190, 90)):
            self.table.setColumnWidth(col, width)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda index: self.open_row(index.row()))
        self.table.installEventFilter(self)

        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("Primary")
        self.open_button.clicked.connect(self.open_selected)
        self.export_button = QPushButton("Export zip…")
        self.export_button.clicked.connect(self.export_selected)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)

        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.count_label)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._task: asyncio.Task[None] | None = None
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
        self._task = asyncio.ensure_future(self.reload())

    def load_now(self) -> None:
        self._set_rows(self._list())

    async def reload(self) -> None:
        self.count_label.setText("Loading…")
        rows = await asyncio.to_thread(self._list)
        self._set_rows(rows)

    def _set_rows(self, rows: list[Any]) -> None:
        self.model.set_rows(rows)
        n = len(rows)
        self.count_label.setText(f"{n} session{'s' if n != 1 else ''}")
        if n:
            self.table.selectRow(0)
        self.open_button.setEnabled(n > 0)
        self.export_button.setEnabled(n > 0)

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
        import sessions

        row = self.selected_row()
        if row is None:
            return
        path = self.model.path_at(row)
        dest, _ = QFileDialog.getSaveFileName(
            self, "Export session", str(Path.home() / f"{path.name}.zip"), "Zip archives (*.zip)"
        )
        if dest:
            with contextlib.suppress(Exception):
                sessions.export_zip(path, Path(dest))

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
        if watched is self.table and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_selected()
                return True
        return super().eventFilter(watched, event)
