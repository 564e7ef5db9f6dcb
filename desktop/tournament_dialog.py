"""The Round-robin dialog: pick a two-player game, the players and the matches per pair, then watch the
GameBot tables fill in as matches finish.

The tournament is :mod:`engine.tournament`'s, exactly as ``playtrace tournament`` plays it: every pair
plays ``M`` matches, each side moving first in half of them, each match saved as a session in the
tournament's folder (with ``results.csv``, ``questions.csv`` and ``results.md`` once it ends). It runs
as an asyncio task on the app's (qasync) loop, so the window stays responsive; opened from a plain Qt
script without a running loop, it runs on a worker thread instead. Progress reaches the widgets
through Qt signals either way. Cancel stops starting matches and aborts the running ones (their
sessions say ``aborted``); the table keeps what was played.

Opened with ``open()`` (never ``exec()`` inside a coroutine: qasync cannot nest a task in a modal loop).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop import theme
from desktop.cli.tournament import DASH, default_folder, fmt, write_results
from engine.roster import bots_for
from engine.tournament import (
    MatchRecord,
    Progress,
    ScoreTable,
    TournamentPlan,
    TournamentRunner,
    build_table,
)

#: The table's columns: the player, its matches, outcome and intermediate scores, and the final score.
COLUMNS = ("Player", "N", "W", "D", "L", "Outcome", "Intermediate", "(S + I) / 2")

#: Dialogs open now (kept referenced while they run; each forgets itself when closed).
_OPEN: set[TournamentDialog] = set()


def two_player_games() -> list[tuple[str, str]]:
    """``(id, title)`` of every game that can be played here by two players, GameBot's first."""
    games = [e for e in engine.entries() if e.available and e.cls is not None and len(e.cls.seats) == 2]
    games.sort(key=lambda e: ("gamebot" not in e.cls.suites, e.title.lower()))  # type: ignore[union-attr]
    return [(e.id, e.title) for e in games]


def player_choices(game_id: str) -> list[tuple[str, str, bool]]:
    """``(spec, label, checked)`` of the players offered for a game: random, its bots and the simulated
    model; random, the default opponent and the simulated model start checked."""
    cls = engine.declaration(game_id)
    out = []
    for spec in bots_for(cls):
        label = "Random (uniform legal moves)" if spec == "random" else f"{spec} (built-in bot)"
        out.append((spec, label, spec in ("random", cls.default_opponent)))
    out.append(("sim", "Simulated model (offline)", True))
    return out


class _Bridge(QObject):
    """Carries the runner's progress to the widgets (queued across threads when it runs on one)."""

    progress = Signal(object)
    finished = Signal(object)


class TournamentDialog(QDialog):
    """Set up and run a round-robin; see the module's documentation.

    Args:
        parent: The main window (or nothing).
        root: Where the tournament's folder goes (default: the user-data ``tournaments`` folder); each
            tournament gets ``root/<id>``.
        model_options: Harness options for the model players (tests pass ``{"latency": 0}``).
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        root: Path | None = None,
        model_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Round-robin")
        self.setMinimumWidth(600)
        self.root = root
        self.model_options = dict(model_options or {})
        self.runner: TournamentRunner | None = None
        self.task: asyncio.Future[Any] | None = None
        self.folder: Path | None = None
        self.records: list[MatchRecord] = []
        self.table_data: ScoreTable | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None
        self._close_when_stopped: int | None = None
        self._bridge = _Bridge(self)
        self._bridge.progress.connect(self._on_progress)
        self._bridge.finished.connect(self._on_finished)

        intro = QLabel("Every pair plays the same number of matches, each side moving first in half of "
                       "them. Every match is saved as a session.")
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color: {theme.MUTED};")

        self.game_combo = QComboBox()
        for game_id, title in two_player_games():
            self.game_combo.addItem(title, game_id)
        self.players_box = QWidget()
        self.players_layout = QVBoxLayout(self.players_box)
        self.players_layout.setContentsMargins(0, 0, 0, 0)
        self.players_layout.setSpacing(2)
        self.player_checks: list[QCheckBox] = []
        self.matches_spin = QSpinBox()
        self.matches_spin.setRange(1, 1000)
        self.matches_spin.setValue(4)
        self.matches_spin.setToolTip("The paper plays 20 matches per pair")
        self.matches_spin.valueChanged.connect(lambda _v: self._choices_changed())
        self.concurrency_spin = QSpinBox()
        self.concurrency_spin.setRange(1, 64)
        self.concurrency_spin.setValue(4)
        self.prompt_combo = QComboBox()
        self.prompt_combo.setToolTip("The prompt the model players get (cot: GameBot's curated "
                                     "chain of thought with intermediate questions)")
        counts = QHBoxLayout()
        counts.addWidget(self.matches_spin)
        counts.addSpacing(16)
        counts.addWidget(QLabel("at once"))
        counts.addWidget(self.concurrency_spin)
        counts.addStretch(1)

        form = QFormLayout()
        form.addRow("Game", self.game_combo)
        form.addRow("Players", self.players_box)
        form.addRow("Matches per pair", counts)
        form.addRow("Model prompt", self.prompt_combo)

        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m matches")
        self.progress.setValue(0)
        self.status = QLabel("")
        self.status.setStyleSheet(f"color: {theme.MUTED};")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(150)
        self.note = QLabel("Outcome: (W − L) / N, or the scaled value of value games (best = 0.50). "
                           f"Intermediate: mean F1 / accuracy of the checked answers; {DASH} = none.")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {theme.MUTED}; font-size: 9pt;")

        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("Primary")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.start_button)

        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        layout.addLayout(buttons)

        self.game_combo.currentIndexChanged.connect(self._game_changed)
        index = self.game_combo.findData("tictactoe")
        self.game_combo.setCurrentIndex(max(index, 0))
        self._game_changed()
        self.resize(640, 600)

    # -- set-up --------------------------------------------------------------------------------

    @property
    def game_id(self) -> str:
        return str(self.game_combo.currentData() or "")

    def _game_changed(self) -> None:
        for check in self.player_checks:
            self.players_layout.removeWidget(check)
            check.setParent(None)
            check.deleteLater()
        self.player_checks = []
        if not self.game_id:
            self.start_button.setEnabled(False)
            self.status.setText("No two-player game can be played here.")
            return
        for spec, label, checked in player_choices(self.game_id):
            check = QCheckBox(label)
            check.setProperty("spec", spec)
            check.setChecked(checked)
            check.toggled.connect(self._choices_changed)
            self.players_layout.addWidget(check)
            self.player_checks.append(check)
        self.prompt_combo.clear()
        from desktop.new_game_dialog import prompt_variants

        cls = engine.declaration(self.game_id)
        names = prompt_variants(self.game_id)
        for name in names:
            self.prompt_combo.addItem(name, name)
        self.prompt_combo.setCurrentIndex(max(0, self.prompt_combo.findData(cls.default_prompt)))
        self._choices_changed()

    def selected_players(self) -> list[str]:
        return [str(c.property("spec")) for c in self.player_checks if c.isChecked()]

    def _update_start(self) -> None:
        running = self.runner is not None
        enough = len(self.selected_players()) >= 2
        self.start_button.setEnabled(enough and not running)
        has_model = "sim" in self.selected_players()
        self.prompt_combo.setEnabled(has_model and not running)
        if not running:
            self.status.setText("" if enough else "Choose at least two players.")

    def _choices_changed(self) -> None:
        self._update_start()
        if self.runner is None:
            self._show_planned()

    def _show_planned(self) -> None:
        """The progress bar counts the matches the choices plan (3 players, 4 per pair: 0 / 12)."""
        players = len(self.selected_players())
        planned = players * (players - 1) // 2 * self.matches_spin.value()
        self.progress.setRange(0, max(planned, 1))
        self.progress.setValue(0)
        self.progress.setFormat(f"0 / {planned} matches planned" if planned else "no match planned")

    def plan(self) -> TournamentPlan:
        """The plan the controls describe (raises ``ValueError`` for an impossible one)."""
        return TournamentPlan(
            self.game_id, self.selected_players(), matches=self.matches_spin.value(),
            concurrency=self.concurrency_spin.value(), model_options=self.model_options,
            prompt_variant=str(self.prompt_combo.currentData() or "") or None,
        )

    # -- running -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.runner is not None

    def start(self) -> None:
        """Start the round-robin (on the running asyncio loop, else on a worker thread)."""
        if self.runner is not None:
            return
        try:
            plan = self.plan()
            folder = (self.root / plan.id) if self.root is not None else default_folder(plan.id)
            from desktop.episode import session_recorder

            def record(match: Any, tags: Any) -> Any:
                title = f"Round-robin {plan.id}: {' vs '.join(tags['players'])}, match {tags['match'] + 1}"
                return session_recorder(folder, title=title, extra={"tournament": dict(tags)})(match)

            runner = TournamentRunner(plan, record=record, on_progress=self._bridge.progress.emit)
        except ValueError as exc:
            self.status.setText(f"<span style='color:{theme.ERROR_FG};'>{exc}</span>")
            return
        self.runner, self.folder, self.records = runner, folder, []
        self.progress.setFormat("%v / %m matches")
        self.progress.setRange(0, runner.result.total)
        self.progress.setValue(0)
        self._set_controls(running=True)
        self.status.setText(f"Playing {runner.result.total} matches…")
        self._show_table(build_table([], games=[plan.games[0]], players=list(plan.players)))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self.task = loop.create_task(self._run(runner))
        else:
            threading.Thread(target=self._run_in_thread, args=(runner,), daemon=True,
                             name="playtrace-tournament").start()

    async def _run(self, runner: TournamentRunner) -> None:
        error: BaseException | None = None
        try:
            await runner.run()
        except asyncio.CancelledError:
            runner.result.interrupted = True
        except Exception as exc:  # noqa: BLE001  (shown in the dialog, never raised into the loop)
            error = exc
        self._bridge.finished.emit(error)

    def _run_in_thread(self, runner: TournamentRunner) -> None:
        loop = asyncio.new_event_loop()
        self._thread_loop = loop
        try:
            loop.run_until_complete(self._run(runner))
        finally:
            self._thread_loop = None
            loop.close()

    def cancel(self) -> None:
        """Stop: start no more matches, abort the running ones; the table keeps what was played."""
        runner = self.runner
        if runner is None:
            return
        self.status.setText("Cancelling…")
        self.cancel_button.setEnabled(False)
        loop = self._thread_loop
        if loop is not None:
            loop.call_soon_threadsafe(runner.stop, "cancelled")
        else:
            runner.stop("cancelled")

    def _on_progress(self, progress: Progress) -> None:
        if self.runner is None or progress.kind != "finished" or progress.record is None:
            return
        self.records.append(progress.record)
        self.progress.setValue(len(self.records))
        self.status.setText(f"{len(self.records)} of {progress.total} played · last: "
                            f"{progress.record.summary()}")
        plan = self.runner.plan
        self._show_table(build_table(self.records, games=list(plan.games), players=list(plan.players)))

    def _on_finished(self, error: object) -> None:
        runner, folder = self.runner, self.folder
        self.runner, self.task = None, None
        self._set_controls(running=False)
        if runner is None:
            return
        if isinstance(error, BaseException):
            self.status.setText(f"<span style='color:{theme.ERROR_FG};'>The round-robin failed: "
                                f"{error}</span>")
            return
        table = build_table(self.records, games=list(runner.plan.games), players=list(runner.plan.players))
        self._show_table(table)
        done, total = len(self.records), runner.result.total
        how = "Cancelled" if runner.result.stopped or runner.result.interrupted else "Done"
        where = ""
        if folder is not None and self.records:
            try:
                write_results(table, folder, title=f"Round-robin {runner.plan.id} · {runner.plan.games[0]}")
                where = f" Sessions and tables (results.md, .csv) are in {folder}"
            except OSError as exc:
                where = f" The tables could not be written to {folder}: {exc.strerror or exc}."
        errors = f", {runner.result.errors} ended in an error" if runner.result.errors else ""
        self.status.setText(f"{how}: {done} of {total} matches played{errors}.{where}")
        if self._close_when_stopped is not None:
            super().done(self._close_when_stopped)

    def _set_controls(self, *, running: bool) -> None:
        for widget in (self.game_combo, self.players_box, self.matches_spin, self.concurrency_spin):
            widget.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.close_button.setEnabled(not running)
        self._update_start()

    # -- the table -----------------------------------------------------------------------------

    def _show_table(self, table: ScoreTable) -> None:
        """Show one row per player in the roster's order (rows do not jump while the table fills in),
        the best outcome, intermediate and final scores in bold."""
        self.table_data = table
        game_id = table.games[0] if table.games else self.game_id
        best = {5: table.best(None, "S"), 6: table.best(None, "I"), 7: table.best(None, "final")}
        self.table.setRowCount(len(table.players))
        for r, player in enumerate(table.players):
            total = table.totals[player]
            s = table.standing(game_id, player)
            counts = (s.played, s.wins, s.draws, s.losses) if s is not None else (0, 0, 0, 0)
            outcome = (DASH if s.dash else fmt(s.score)) if s is not None else DASH
            values = {5: total.outcome, 6: total.intermediate, 7: total.final}
            cells = [total.label or player, *(str(v) for v in counts), outcome, fmt(total.intermediate),
                     fmt(total.final, 3)]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c > 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c in best and values[c] is not None and best[c] is not None and values[c] == best[c]:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)

    def cell(self, row: int, column: str) -> str:
        """The text of a table cell (for tests and screenshots)."""
        item = self.table.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""

    # -- closing -------------------------------------------------------------------------------

    def done(self, result: int) -> None:
        """Closing while running cancels first; the dialog closes once the run has stopped."""
        if self.runner is not None:
            self._close_when_stopped = result
            self.cancel()
            return
        super().done(result)


def open_tournament_dialog(parent: QWidget | None = None, **kwargs: Any) -> TournamentDialog:
    """Open a :class:`TournamentDialog` (non-modal to the loop: ``open()``) and keep it referenced
    until it closes."""
    dialog = TournamentDialog(parent, **kwargs)
    _OPEN.add(dialog)
    dialog.finished.connect(lambda _r: _OPEN.discard(dialog))
    dialog.open()
    return dialog
