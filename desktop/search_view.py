"""Search every decision with SQL in the app: *File → Search sessions…* (Ctrl+Shift+F).

The query runs over the same documented tables as ``playtrace search`` (:mod:`sessions.search`:
``steps``, ``sessions``, ``questions``), on the sessions folder by default, in a worker thread. A
result row that names a session's ``path`` (and a ``step``) opens that session at that step in the
main window on a double click or Enter.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["EXAMPLE", "SearchWindow", "open_search"]

EXAMPLE = (
    "SELECT path, step, game, player, action, answer\nFROM steps\n"
    "WHERE fallback OR questions_correct < questions_asked\nORDER BY path, step\nLIMIT 200"
)
_OPEN: set[QWidget] = set()


class SearchWindow(QWidget):
    """A query box, its results, and a way back into the main window."""

    def __init__(self, root: Path, window: Any = None) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.root = Path(root)
        self.window_ = window
        self.task: asyncio.Task[Any] | None = None
        self.columns: tuple[str, ...] = ()
        self.rows: list[tuple[Any, ...]] = []
        self.setWindowTitle("Search sessions")
        self.resize(1280, 800)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.where = QLabel(f"Sessions under {self.root}")
        choose = QPushButton("Choose folder…")
        choose.clicked.connect(self._choose)
        schema = QPushButton("Tables…")
        schema.clicked.connect(self._schema)
        top.addWidget(self.where, 1)
        top.addWidget(schema)
        top.addWidget(choose)
        layout.addLayout(top)
        self.sql = QPlainTextEdit(EXAMPLE)
        self.sql.setFont(QFont("monospace"))
        self.sql.setMaximumHeight(140)
        layout.addWidget(self.sql)
        run_row = QHBoxLayout()
        self.run_button = QPushButton("Run (Ctrl+Enter)")
        self.run_button.clicked.connect(self.run)
        self.status = QLabel()
        run_row.addWidget(self.status, 1)
        run_row.addWidget(self.run_button)
        layout.addLayout(run_row)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a path keeps its session id in view
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.open_row(row))
        layout.addWidget(self.table, 1)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.run)
        QShortcut(QKeySequence(Qt.Key.Key_Return), self.table, lambda: self.open_row(self.table.currentRow()))

    def _choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Sessions to search", str(self.root))
        if folder:
            self.root = Path(folder)
            self.where.setText(f"Sessions under {self.root}")

    def _schema(self) -> None:
        from sessions.search import schema_text

        self.status.setText("The tables are listed in the results below.")
        rows = [
            tuple(line.split(None, 2)) if line.startswith("  ") else (line, "", "")
            for line in schema_text().splitlines()
        ]
        self._show(("column", "type", "meaning"), [tuple(r) + ("",) * (3 - len(r)) for r in rows])

    def run(self) -> asyncio.Task[Any]:
        """Run the query in a worker thread; returns the task (tests await it)."""
        sql = self.sql.toPlainText()
        self.run_button.setEnabled(False)
        self.status.setText("Indexing and searching…")

        def query() -> tuple[tuple[str, ...], list[tuple[Any, ...]], int]:
            from sessions.search import SearchIndex

            with SearchIndex(self.root) as index:
                stats = index.update()
                result = index.query(sql)
            return result.columns, result.rows, stats.sessions

        async def go() -> None:
            from sessions.search import QueryError

            try:
                columns, rows, n = await asyncio.to_thread(query)
            except QueryError as exc:
                self.status.setText(f"The query failed: {exc}")
                return
            except Exception as exc:  # shown in the window
                self.status.setText(f"Could not search {self.root}: {exc}")
                return
            finally:
                self.run_button.setEnabled(True)
            self._show(columns, rows)
            hint = " · double-click a row to open its session at that step" if "path" in columns else ""
            self.status.setText(f"{len(rows):,} rows from {n:,} sessions{hint}")

        self.task = asyncio.ensure_future(go())
        return self.task

    def _show(self, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        self.columns, self.rows = tuple(columns), list(rows)
        self.table.clear()
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(list(columns))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                text = "" if value is None else " ".join(str(value).split())
                item = QTableWidgetItem(text[:300])
                item.setToolTip(str(value)[:2000] if value is not None else "")
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        for c in range(len(columns)):
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), 420))

    def open_row(self, row: int) -> asyncio.Task[Any] | None:
        """Open the session of result ``row`` in the main window, at its step when the row gives one."""
        if not (0 <= row < len(self.rows)) or "path" not in self.columns or self.window_ is None:
            return None
        values = dict(zip(self.columns, self.rows[row], strict=True))
        step = values.get("step")
        window = self.window_

        async def go() -> None:
            await window.open_session(Path(str(values["path"])))
            if isinstance(step, int) and step >= 1:
                window.controller.scrub(window.controller.base + step - 1)
            window.raise_()
            window.activateWindow()

        return asyncio.ensure_future(go())


def open_search(window: Any, root: Path | None = None) -> SearchWindow:
    from sessions import default_root

    view = SearchWindow(root or default_root(), window)
    _OPEN.add(view)
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    view.destroyed.connect(lambda *_: _OPEN.discard(view))
    view.show()
    return view
