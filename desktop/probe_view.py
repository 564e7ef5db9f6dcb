"""Probe the board shown with several players: *Play → Probe this step…* (Ctrl+Shift+P).

The dialog lists players to ask (one per line: a bot, ``sim``, a model, each optionally with harness
settings, ``sim[memory=0,reflection=false]``); *Ask* puts the board of the step shown, as the seat
that decided there saw it, to each of them (:func:`sessions.probe.probe`, the same code as
``playtrace probe``) on the app's event loop, and the table fills in as answers arrive: the move, whether
it is the move played, how it was reached, the intermediate answers ✓/total and the cost. Answers are
saved in a probe folder of PlayTrace's user data (never in the session).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessions.probe import ProbeError, ProbePlayer, Target, parse_player, probe, targets_of

__all__ = ["COLUMNS", "ProbeDialog", "open_probe"]

COLUMNS = ("Player", "Move", "Same as played", "How", "Intermediate ✓", "Cost", "Rationale")
_OPEN: set[QWidget] = set()


def default_players(game: Any) -> list[str]:
    """What the dialog offers first: the simulated model with and without memory, and the game's bots."""
    bots = [b for b in getattr(game, "bots", {}) if b != "random"]
    return ["sim", "sim[memory=0,reflection=false]", *bots[:2], "random"]


class ProbeDialog(QDialog):
    """Ask several players at one recorded board of the session at ``folder`` (state index ``index``)."""

    def __init__(self, folder: Path, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = Path(folder)
        self.setWindowTitle("Probe this step")
        self.resize(1100, 560)
        from sessions import load_session

        session = load_session(self.folder)
        self.targets: list[Target] = [t for t in targets_of(self.folder) if t.index == index] or targets_of(
            self.folder, [index + 1 + self._first(session)]
        )
        self.task: asyncio.Task[Any] | None = None
        self.results: list[dict[str, Any]] = []
        layout = QVBoxLayout(self)
        t = self.targets[0]
        head = QLabel(
            f"Step {t.step} of {session.id}: seat {t.seat} played <b>{t.recorded}</b>. "
            "Ask others the same question at this board:"
        )
        head.setWordWrap(True)
        layout.addWidget(head)
        row = QHBoxLayout()
        self.players = QPlainTextEdit("\n".join(default_players(session.game())))
        self.players.setToolTip(
            "One player per line: a bot, sim, openai:MODEL, anthropic:MODEL, "
            "local:MODEL@URL, optionally with harness settings: sim[memory=0]"
        )
        self.players.setMaximumWidth(320)
        row.addWidget(self.players)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for c in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        row.addWidget(self.table, 1)
        layout.addLayout(row, 1)
        bottom = QHBoxLayout()
        self.status = QLabel("Paid models are asked only when you press Ask; sim and bots are free.")
        bottom.addWidget(self.status, 1)
        self.ask = QPushButton("Ask")
        self.ask.setDefault(True)
        self.ask.clicked.connect(self.start)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom.addWidget(self.ask)
        bottom.addWidget(close)
        layout.addLayout(bottom)

    @staticmethod
    def _first(session: Any) -> int:
        first = session.events[0].get("step") if len(session.events) else 0
        return first if isinstance(first, int) else 0

    def chosen(self) -> list[ProbePlayer]:
        lines = [line.strip() for line in self.players.toPlainText().splitlines() if line.strip()]
        return [parse_player(line) for line in dict.fromkeys(lines)]

    def start(self) -> asyncio.Task[Any] | None:
        """Ask every listed player (on the running event loop); returns the task."""
        try:
            players = self.chosen()
        except ProbeError as exc:
            QMessageBox.warning(self, "Probe this step", str(exc))
            return None
        if not players:
            return None
        from sessions.paths import user_data_dir

        out = user_data_dir() / "probes" / time.strftime("%Y%m%d-%H%M%S")
        self.table.setRowCount(0)
        self.results = []
        self.ask.setEnabled(False)
        self.status.setText(f"Asking {len(players)} players…")
        render_for = None
        if any(p.options.get("perception") in ("image", "both", "describe") for p in players):
            from desktop.episode import png_renderer

            def render_for(g: Any) -> Any:
                return png_renderer(g.id)

        async def go() -> None:
            try:
                await probe(self.targets, players, out, render_for=render_for, on_result=self._add)
                self.status.setText(f"{len(self.results)} answers · saved in probes/{out.name} of "
                                    "PlayTrace's user data")
                self.status.setToolTip(str(out))
            except Exception as exc:  # shown in the dialog; the app goes on
                self.status.setText(f"The probe stopped: {exc}")
            finally:
                self.ask.setEnabled(True)

        self.task = asyncio.ensure_future(go())
        return self.task

    def _add(self, r: dict[str, Any]) -> None:
        self.results.append(r)
        row = self.table.rowCount()
        self.table.insertRow(row)
        same = "error" if r.get("error") else ("yes" if r.get("action") == r.get("recorded") else "no")
        how = r.get("error") or {"answer": "parsed answer", None: "bot"}.get(
            r.get("policy"), f"fallback: {r.get('policy')}"
        )
        checks = f"{r['correct']}/{r['asked']}" if r.get("asked") else "–"
        cells = (
            r["player"],
            "(forfeit)" if r.get("action") is None else str(r["action"]),
            same,
            str(how),
            checks,
            f"${r.get('cost_usd', 0):.4f}",
            str(r.get("rationale") or ""),
        )
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c == 2:
                item.setForeground(Qt.GlobalColor.darkGreen if same == "yes" else Qt.GlobalColor.darkRed)
            self.table.setItem(row, c, item)


def open_probe(window: Any) -> ProbeDialog | None:
    """Probe the step the main window shows (a saved session's decision)."""
    c = window.controller
    folder = getattr(c, "folder", None)
    if folder is None:
        QMessageBox.information(window, "Probe this step", "Open or play a session first.")
        return None
    try:
        dialog = ProbeDialog(folder, int(c.view_step), window)
    except (ProbeError, ValueError, IndexError) as exc:
        QMessageBox.information(window, "Probe this step", f"This step cannot be probed: {exc}")
        return None
    _OPEN.add(dialog)
    dialog.finished.connect(lambda *_: _OPEN.discard(dialog))
    dialog.open()
    return dialog
