"""The Round-robin dialog: its choices, a run whose table fills in, Cancel, and the menu entry.

Offline: bots and the simulated model (no streaming delay); sessions go to the test's folder.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtGui import QKeySequence

from desktop import tournament_dialog
from desktop.tournament_dialog import COLUMNS, TournamentDialog, two_player_games

FAST = {"latency": 0, "reflection": False}


def make_dialog(qtbot: Any, tmp_path: Path, matches: int = 2) -> TournamentDialog:
    dialog = TournamentDialog(root=tmp_path, model_options=FAST)
    qtbot.addWidget(dialog)
    dialog.game_combo.setCurrentIndex(dialog.game_combo.findData("tictactoe"))
    dialog.matches_spin.setValue(matches)
    dialog.show()
    return dialog


def column(dialog: TournamentDialog, name: str) -> list[str]:
    return [dialog.cell(r, name) for r in range(dialog.table.rowCount())]


def sessions_in(folder: Path) -> list[dict[str, Any]]:
    return [json.loads((p / "manifest.json").read_text()) for p in sorted(folder.iterdir())
            if (p / "manifest.json").exists()]


def test_only_two_player_games_and_their_players_are_offered(qtbot: Any, tmp_path: Path) -> None:
    ids = [g for g, _ in two_player_games()]
    assert "tictactoe" in ids and "2048" not in ids
    dialog = make_dialog(qtbot, tmp_path)
    assert dialog.selected_players() == ["random", "minimax", "sim"]
    # Before Start the bar counts the matches planned: 3 pairs × 2 matches.
    assert dialog.progress.maximum() == 6 and dialog.progress.text() == "0 / 6 matches planned"
    dialog.matches_spin.setValue(4)
    assert dialog.progress.text() == "0 / 12 matches planned"
    dialog.matches_spin.setValue(2)
    for check in dialog.player_checks[1:]:
        check.setChecked(False)
    assert not dialog.start_button.isEnabled() and "at least two" in dialog.status.text()
    dialog.player_checks[2].setChecked(True)
    assert dialog.start_button.isEnabled()


def test_the_table_fills_in_as_matches_finish(qtbot: Any, tmp_path: Path) -> None:
    # No asyncio loop is running here: the dialog plays on a worker thread and reports through signals.
    dialog = make_dialog(qtbot, tmp_path)
    dialog.start_button.click()
    assert dialog.running and not dialog.start_button.isEnabled() and dialog.cancel_button.isEnabled()
    assert dialog.progress.maximum() == 6
    qtbot.waitUntil(lambda: dialog.progress.value() >= 1, timeout=30_000)
    qtbot.waitUntil(lambda: not dialog.running, timeout=60_000)
    assert dialog.progress.value() == 6
    assert column(dialog, "Player") == ["Random", "Minimax", "Simulated model (offline)"]
    assert column(dialog, "N") == ["4", "4", "4"]
    wins, losses = column(dialog, "W"), column(dialog, "L")
    assert sum(map(int, wins)) == sum(map(int, losses)) and losses[1] == "0"  # minimax never loses
    assert column(dialog, "Intermediate")[:2] == ["–", "–"]
    sim_i = dialog.cell(2, "Intermediate")
    assert sim_i != "–" and 0.0 <= float(sim_i) <= 1.0
    sim = dialog.table_data.totals["sim"]  # type: ignore[union-attr]
    assert dialog.cell(2, "(S + I) / 2") == f"{(sim.outcome + sim.intermediate) / 2:.3f}"
    assert dialog.cell(2, "Outcome") == f"{sim.outcome:.2f}"

    assert dialog.status.text().startswith("Done: 6 of 6 matches played")
    folder = dialog.folder
    assert folder is not None and (folder / "results.md").exists() and (folder / "results.csv").exists()
    tagged = [m["extra"]["tournament"] for m in sessions_in(folder)]
    assert len(tagged) == 6 and {t["id"] for t in tagged} == {folder.name}
    assert dialog.start_button.isEnabled() and not dialog.cancel_button.isEnabled()
    assert not dialog.grab().isNull()
    assert dialog.table.columnCount() == len(COLUMNS)


def test_cancel_keeps_what_was_played(qtbot: Any, tmp_path: Path) -> None:
    dialog = make_dialog(qtbot, tmp_path, matches=40)
    dialog.concurrency_spin.setValue(1)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.progress.value() >= 2, timeout=30_000)
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    played = dialog.progress.value()
    assert 2 <= played < 120
    assert dialog.status.text().startswith(f"Cancelled: {played} of 120 matches played")
    statuses = [m["status"] for m in sessions_in(dialog.folder)]  # type: ignore[arg-type]
    assert statuses.count("completed") == played and set(statuses) <= {"completed", "aborted"}
    assert sum(int(n) for n in column(dialog, "N")) == 2 * played


def test_on_the_apps_loop_it_runs_as_a_task(qtbot: Any, tmp_path: Path, aloop: qasync.QEventLoop) -> None:
    dialog = make_dialog(qtbot, tmp_path, matches=1)
    dialog.player_checks[2].setChecked(False)  # random vs minimax

    async def scenario() -> None:
        dialog.start()
        assert dialog.task is not None  # an asyncio task on the running (qasync) loop, not a thread
        await asyncio.wait_for(dialog.task, 30)

    aloop.run_until_complete(scenario())
    assert not dialog.running
    assert column(dialog, "Player") == ["Random", "Minimax"]
    assert column(dialog, "L") == ["1", "0"] or column(dialog, "D") == ["1", "1"]


def test_the_menu_opens_the_dialog(window: Any, qtbot: Any) -> None:
    action = window.acts.tournament
    assert action.text() == "Round-robin…"
    assert action.shortcut() == QKeySequence("Ctrl+Shift+R")
    menus = [m.menu() for m in window.menuBar().actions() if m.menu() is not None]
    assert any(action in menu.actions() for menu in menus)
    before = set(tournament_dialog._OPEN)
    action.trigger()
    opened = set(tournament_dialog._OPEN) - before
    assert len(opened) == 1
    dialog = opened.pop()
    assert dialog.isVisible() and dialog.parent() is window
    dialog.close()
    assert dialog not in tournament_dialog._OPEN
