"""Re-score the open session in the app: *View → Re-score this session…*.

Runs :func:`sessions.rescore.rescore_session` (today's answer extractor and oracles over every
recorded answer) and :func:`sessions.audit.audit_session` (the match played again from its own
recorded answers, call for call) in a worker thread, exactly as ``playtrace rescore --audit`` does, and
lists every verdict that changed. No model is called and the session is not written.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["COLUMNS", "RescoreDialog", "open_rescore"]

COLUMNS = ("Step", "Seat", "Verdict", "Attempt", "Recorded", "Now")
_OPEN: set[QWidget] = set()


class RescoreDialog(QDialog):
    def __init__(self, folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = Path(folder)
        self.setWindowTitle("Re-score this session")
        self.resize(900, 520)
        self.report: Any = None
        self.audit: Any = None
        layout = QVBoxLayout(self)
        self.summary = QLabel("Re-reading every recorded answer with today's parser and oracles…")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for c in range(len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        self.audit_line = QLabel()
        self.audit_line.setWordWrap(True)
        layout.addWidget(self.audit_line)
        row = QHBoxLayout()
        row.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        row.addWidget(close)
        layout.addLayout(row)
        self.task: asyncio.Task[Any] = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        from sessions.audit import audit_session
        from sessions.rescore import rescore_session

        def work() -> tuple[Any, Any]:
            report = rescore_session(self.folder)
            try:
                audit = audit_session(self.folder)
            except Exception as exc:  # a session that cannot be played again is a finding
                audit = exc
            return report, audit

        try:
            self.report, self.audit = await asyncio.to_thread(work)
        except Exception as exc:  # shown in the dialog
            self.summary.setText(f"This session cannot be re-scored: {exc}")
            return
        r = self.report
        self.summary.setText(
            f"{r.answers} answers re-read and {r.checks} intermediate answers re-checked with today's parser "
            f"and oracles: {len(r.changes)} verdict{'s' if len(r.changes) != 1 else ''} changed. "
            "No model was called; the session is unchanged."
            + (" " + "; ".join(r.problems) if r.problems else "")
        )
        self.table.setRowCount(len(r.changes))
        for i, c in enumerate(r.changes):
            cells = (
                str(c.step),
                str(c.seat),
                c.what,
                "" if c.attempt is None else str(c.attempt),
                c.before,
                c.after,
            )
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        a = self.audit
        if isinstance(a, Exception):
            self.audit_line.setText(f"Audit: the match cannot be played again here ({a}).")
        elif a.identical:
            self.audit_line.setText(
                f"Audit: played again from its {a.calls_replayed} recorded model answers, the match makes "
                f"the same {a.decisions} decisions and ends on the same boards."
            )
        else:
            self.audit_line.setText(
                f"Audit: played again from its recorded answers, it differs: {a.difference}."
            )


def open_rescore(window: Any) -> RescoreDialog | None:
    folder = getattr(window.controller, "folder", None)
    if folder is None:
        QMessageBox.information(window, "Re-score this session", "Open or play a session first.")
        return None
    dialog = RescoreDialog(folder, window)
    _OPEN.add(dialog)
    dialog.finished.connect(lambda *_: _OPEN.discard(dialog))
    dialog.open()
    return dialog
