"""Ratings and leaderboards in the app: *View → Ratings & leaderboard…* (Ctrl+Shift+L).

Reads every finished session under a folder (the sessions folder by default; *Choose folder…* picks
another, e.g. a tournament's or a study's results) and shows two tabs, both computed exactly as the
command line computes them:

* **Ratings** (:mod:`sessions.ratings`, ``playtrace ratings``): people, bots, the simulated model and
  models in one OpenSkill pool, per game or over all games, as a table and a plot of each player's
  rating with its 90 % interval (anchored bots marked ⚓);
* **Leaderboard** (:mod:`sessions.leaderboard`, ``playtrace leaderboard``): the cross-suite view (each
  game's headline normalised per game, averaged) as bars, and each game's figures as a table;
  *Export…* writes it as HTML, Markdown or CSV.

Reading happens in a worker thread, so the window stays responsive on a large folder.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

__all__ = ["RatingsWindow", "open_ratings"]

_OPEN: set[QWidget] = set()
ALL_GAMES = "All games"


def _table(headers: tuple[str, ...]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(False)
    t.setAlternatingRowColors(True)
    header = t.horizontalHeader()
    for c in range(len(headers)):
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
    # The player's name takes the spare width; figures stay next to each other.
    header.setSectionResizeMode(headers.index("Player"), QHeaderView.ResizeMode.Stretch)
    return t


def _label_axis(plot: pg.PlotWidget, labels: list[tuple[float, str]]) -> None:
    """Name each row on the left axis, wide enough for the longest name."""
    axis = plot.getAxis("left")
    axis.setTicks([labels])
    longest = max((len(text) for _, text in labels), default=4)
    axis.setWidth(min(260, 16 + 8 * longest))


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            if c > 0 and text.replace(".", "").replace("-", "").replace("–", "").strip().isdigit():
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)


class RatingsWindow(QWidget):
    """Ratings and leaderboard of the sessions under ``root``."""

    RATING_COLUMNS = ("#", "Player", "Kind", "Rating", "90% interval", "Games", "W-D-L")
    OVERALL_COLUMNS = ("#", "Player", "Games", "Mean normalised")
    GAME_COLUMNS = ("Game", "Player", "N", "Headline", "Value", "Score ± SE", "S", "I", "Normalised")

    def __init__(self, root: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.root = Path(root)
        self.setWindowTitle("Ratings & leaderboard")
        self.resize(1280, 800)
        self.matches: list[Any] = []
        self.board: Any = None
        self.task: asyncio.Task[Any] | None = None
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.where = QLabel()
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        choose = QPushButton("Choose folder…")
        choose.clicked.connect(self.choose_folder)
        self.game = QComboBox()
        self.game.addItem(ALL_GAMES)
        self.game.currentTextChanged.connect(lambda _: self._show_ratings())
        self.export = QPushButton("Export leaderboard…")
        self.export.clicked.connect(self.export_board)
        top.addWidget(self.where, 1)
        top.addWidget(QLabel("Ratings of:"))
        top.addWidget(self.game)
        top.addWidget(choose)
        top.addWidget(self.export)
        layout.addLayout(top)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)
        # Ratings tab
        ratings = QSplitter(Qt.Orientation.Horizontal)
        self.ratings = _table(self.RATING_COLUMNS)
        self.rating_plot = pg.PlotWidget(background="w")
        self.rating_plot.setLabel("bottom", "rating (OpenSkill μ, 90% interval)")
        self.rating_plot.getAxis("left").setStyle(tickLength=0)
        ratings.addWidget(self.ratings)
        ratings.addWidget(self.rating_plot)
        ratings.setSizes([640, 600])
        self.tabs.addTab(ratings, "Ratings")
        # Leaderboard tab
        board = QSplitter(Qt.Orientation.Vertical)
        upper = QSplitter(Qt.Orientation.Horizontal)
        self.overall = _table(self.OVERALL_COLUMNS)
        self.board_plot = pg.PlotWidget(background="w")
        self.board_plot.setLabel("bottom", "mean normalised headline (0 = lowest, 1 = highest per game)")
        upper.addWidget(self.overall)
        upper.addWidget(self.board_plot)
        upper.setSizes([520, 720])
        self.per_game = _table(self.GAME_COLUMNS)
        board.addWidget(upper)
        board.addWidget(self.per_game)
        board.setSizes([330, 400])
        self.tabs.addTab(board, "Leaderboard")
        place = QHBoxLayout()
        place.addWidget(QLabel("Next opponent for:"))
        self.newcomer = QComboBox()
        self.newcomer.setMinimumWidth(200)
        self.newcomer.currentTextChanged.connect(lambda _: self._suggest())
        place.addWidget(self.newcomer)
        self.suggestion = QLabel()
        place.addWidget(self.suggestion, 1)
        layout.addLayout(place)
        self.status = QLabel()
        layout.addWidget(self.status)
        self.load(self.root)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Sessions to rate", str(self.root))
        if folder:
            self.load(Path(folder))

    def load(self, root: Path) -> asyncio.Task[Any] | asyncio.Future[Any]:
        """Read ``root`` in a worker thread, then fill both tabs; returns the task (tests await it)."""
        self.root = Path(root)
        self.where.setText(f"Sessions under {self.root}")
        self.status.setText("Reading sessions…")

        def read() -> tuple[list[Any], Any]:
            from sessions.leaderboard import build
            from sessions.ratings import load_manifests, matches_from
            from sessions.search import SearchIndex

            matches = matches_from(load_manifests([self.root]))
            with SearchIndex(self.root) as index:
                index.update()
                board = build([index])
            return matches, board

        async def go() -> None:
            try:
                self.matches, self.board = await asyncio.to_thread(read)
            except Exception as exc:  # shown in the window
                self.status.setText(f"Could not read {self.root}: {exc}")
                return
            games = sorted({m.game for m in self.matches})
            self.game.blockSignals(True)
            self.game.clear()
            self.game.addItems([ALL_GAMES, *games])
            self.game.blockSignals(False)
            self._show_ratings()
            self._show_board()
            n = len(self.board.entries) if self.board else 0
            self.status.setText(
                f"{len(self.matches)} rated matches · {n} player-game rows on the leaderboard"
            )

        self.task = asyncio.ensure_future(go())
        return self.task

    def _matches(self) -> list[Any]:
        game = self.game.currentText()
        return [m for m in self.matches if game in (ALL_GAMES, "") or m.game == game]

    def _suggest(self) -> None:
        """Matchmaking: the opponent whose result against the chosen player is least certain."""
        from sessions.ratings import suggest_opponent

        player = self.newcomer.currentText()
        matches = self._matches()
        pool = sorted({p for m in matches for p in m.players} - {player})
        if not player or not pool:
            self.suggestion.setText("")
            return
        opponent, chance = suggest_opponent(player, matches, pool)
        self.suggestion.setText(f"<b>{opponent}</b>: predicted win chance {chance:.0%}, the least certain "
                                "result, so the match that teaches the ratings most")

    def _show_ratings(self) -> None:
        from sessions.ratings import rate

        matches = self._matches()
        standings = rate(matches) if matches else []
        chosen = self.newcomer.currentText()
        self.newcomer.blockSignals(True)
        self.newcomer.clear()
        self.newcomer.addItems([s.player for s in standings if not s.anchor] + [s.player for s in standings
                                                                                if s.anchor])
        if chosen:
            self.newcomer.setCurrentText(chosen)
        self.newcomer.blockSignals(False)
        self._suggest()
        _fill(
            self.ratings,
            [
                [
                    str(n),
                    s.player + (" ⚓" if s.anchor else ""),
                    s.kind,
                    f"{s.mu:.1f}",
                    f"{s.low:.1f} – {s.high:.1f}",
                    str(s.games),
                    f"{s.wins}-{s.draws}-{s.losses}",
                ]
                for n, s in enumerate(standings, 1)
            ],
        )
        plot = self.rating_plot
        plot.clear()
        if not standings:
            return
        ys = list(range(len(standings)))[::-1]
        mus = [s.mu for s in standings]
        err = [s.high - s.mu for s in standings]
        colors = ["#9ca3af" if s.anchor else "#1d4ed8" for s in standings]
        plot.addItem(
            pg.ErrorBarItem(
                x=np.array(mus),
                y=np.array(ys),
                left=np.array(err),
                right=np.array(err),
                beam=0.25,
                pen=pg.mkPen("#374151", width=2),
            )
        )
        plot.addItem(pg.ScatterPlotItem(x=mus, y=ys, size=11, brush=[pg.mkBrush(c) for c in colors]))
        _label_axis(plot, [(y, s.player) for y, s in zip(ys, standings, strict=True)])
        plot.setYRange(-0.7, len(standings) - 0.3)

    def _show_board(self) -> None:
        from sessions.leaderboard import _overall_rows, _rows

        if self.board is None:
            return
        _fill(self.overall, _overall_rows(self.board)[1])
        _fill(self.per_game, _rows(self.board)[1])
        plot = self.board_plot
        plot.clear()
        overall = self.board.overall
        if not overall:
            return
        ys = list(range(len(overall)))[::-1]
        plot.addItem(
            pg.BarGraphItem(x0=0, y=ys, height=0.6, width=[v for _, v, _ in overall], brush="#1d4ed8")
        )
        _label_axis(plot, [(y, p) for y, (p, _, _) in zip(ys, overall, strict=True)])
        plot.setXRange(0, 1.05)
        plot.setYRange(-0.7, len(overall) - 0.3)

    def export_board(self) -> None:
        from sessions.leaderboard import to_csv, to_html, to_markdown

        if self.board is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export leaderboard",
            str(Path.home() / "leaderboard.html"),
            "Web page (*.html);;Markdown (*.md);;CSV (*.csv)",
        )
        if not path:
            return
        dest = Path(path)
        writer = {".md": to_markdown, ".csv": to_csv}.get(dest.suffix.lower(), to_html)
        from desktop.cli.common import session_folder_of

        if session_folder_of(dest) is not None:
            self.status.setText(
                "A session folder is written only by PlayTrace's session writer: choose another place."
            )
            return
        dest.write_text(writer(self.board), encoding="utf-8")
        self.status.setText(f"Leaderboard written to {dest}")


def open_ratings(window: QWidget, root: Path | None = None) -> RatingsWindow:
    """Open the ratings and leaderboard of the sessions folder (or ``root``)."""
    from sessions import default_root

    view = RatingsWindow(root or default_root())
    _OPEN.add(view)
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    view.destroyed.connect(lambda *_: _OPEN.discard(view))
    view.show()
    return view
