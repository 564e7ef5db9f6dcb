"""The app's analysis views on sessions the engine recorded: compare, probe, search, ratings.

Each view is also grabbed at 1280x800 into ``$PLAYTRACE_SCREENSHOTS`` when that is set (the README's
pictures are made this way).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from desktop import theme
from sessions import load_session
from sessions.search import find_sessions
from tests.commands import own_home, record


def _grab(widget: QWidget, name: str) -> None:
    folder = os.environ.get("PLAYTRACE_SCREENSHOTS")
    widget.resize(1280, 800)
    QApplication.processEvents()
    image = widget.grab()
    assert image.width() == 1280 and image.height() == 800
    if folder:
        image.save(str(Path(folder) / f"{name}.png"))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("views")
    with own_home(tmp_path_factory):
        record("run", "tictactoe", "-p", "sim", "-p", "random", "-n", "2", "--out", str(root / "a"))
        record(
            "run",
            "tictactoe",
            "-p",
            "sim",
            "-p",
            "random",
            "-n",
            "2",
            "--seed",
            "0",
            "--prompt-variant",
            "naive",
            "--out",
            str(root / "b"),
        )
        record("run", "tictactoe", "-p", "random", "-p", "random", "-n", "1", "--out", str(root / "c"))
        record(
            "tournament",
            "tictactoe",
            "-p",
            "random",
            "-p",
            "minimax",
            "-p",
            "sim",
            "--matches",
            "4",
            "--sim-latency",
            "0",
            "--out",
            str(root / "rr"),
        )
    yield root


def _seed0(folder: Path) -> Path:
    return next(f for f in find_sessions(folder) if load_session(f).manifest.get("seed") == 0)


def test_compare_window_aligns_and_marks_the_divergence(qapp: QApplication, recorded: Path) -> None:
    from desktop.compare_view import CompareWindow

    theme.apply(qapp)
    a, b, c = (load_session(_seed0(recorded / name)) for name in ("a", "b", "c"))
    view = CompareWindow([a, b, c])
    try:
        first = view.alignment.first_divergence
        assert first is not None
        view.go_to_divergence()
        assert view.slider.value() == first
        assert "diverged" in view.position.text() and f"Step {first + 1}" in view.position.text()
        assert all(col.board.pixmap() is not None and not col.board.pixmap().isNull() for col in view.columns)
        side = view.alignment.rows[first][0]
        if side is not None and side.action is not None:
            assert side.action in view.columns[0].decision.text()
        view.slider.setValue(0)
        assert view.position.text().startswith("Step 1 /")
        _grab(view, "compare")
    finally:
        view.close()


def test_probe_dialog_asks_every_player(window: Any, run: Callable[..., Any], recorded: Path) -> None:
    from desktop.probe_view import ProbeDialog

    folder = _seed0(recorded / "a")
    dialog = ProbeDialog(folder, 2, window)
    dialog.players.setPlainText("sim\nsim[memory=0,reflection=false]\nminimax\nrandom")
    task = dialog.start()
    assert task is not None
    run(task)
    assert dialog.table.rowCount() == 4
    players = [dialog.table.item(r, 0).text() for r in range(4)]
    assert sorted(players) == sorted(["sim", "sim[memory=0,reflection=false]", "minimax", "random"])
    assert all(dialog.table.item(r, 2).text() in ("yes", "no") for r in range(4))
    assert "saved in probes/" in dialog.status.text() and Path(dialog.status.toolTip()).is_dir()
    _grab(dialog, "probe")
    dialog.close()


def test_search_opens_a_result_at_its_step(window: Any, run: Callable[..., Any], recorded: Path) -> None:
    from desktop.search_view import SearchWindow

    view = SearchWindow(recorded / "a", window)
    view.sql.setPlainText("SELECT path, step, player, action FROM steps WHERE step = 3 ORDER BY path")
    run(view.run())
    assert view.columns == ("path", "step", "player", "action") and len(view.rows) == 2
    _grab(view, "search")
    task = view.open_row(0)
    assert task is not None
    run(task)
    c = window.controller
    assert c.folder is not None and Path(c.folder) == Path(view.rows[0][0])
    assert c.view_step - c.base == 2  # step 3 is the decision on the third board
    view.sql.setPlainText("SELEC nothing")
    run(view.run())
    assert view.status.text().startswith("The query failed")
    view.close()


def test_ratings_window_ranks_the_pool(
    run: Callable[..., Any], qapp: QApplication, recorded: Path, aloop: Any
) -> None:
    from desktop.ratings_view import RatingsWindow

    theme.apply(qapp)
    view = RatingsWindow(recorded / "rr")
    assert view.task is not None
    run(view.task)
    names = [view.ratings.item(r, 1).text() for r in range(view.ratings.rowCount())]
    assert {"minimax ⚓", "random ⚓", "sim"} <= set(names)
    assert names.index("minimax ⚓") < names.index("random ⚓")
    # Matchmaking: the model is offered first, with the opponent whose result is least certain.
    assert view.newcomer.currentText() == "sim" and "predicted win chance" in view.suggestion.text()
    assert view.overall.rowCount() == 3 and view.per_game.rowCount() == 3
    _grab(view, "ratings")
    view.tabs.setCurrentIndex(1)
    _grab(view, "leaderboard")
    view.close()


def test_rescore_dialog_reports_no_change_and_an_identical_replay(
    window: Any, run: Callable[..., Any], recorded: Path
) -> None:
    from desktop.rescore_view import RescoreDialog

    dialog = RescoreDialog(_seed0(recorded / "a"), window)
    run(dialog.task)
    assert dialog.report is not None and dialog.report.changes == [] and dialog.report.answers > 0
    assert dialog.table.rowCount() == 0
    assert "0 verdicts changed" in dialog.summary.text()
    assert "same" in dialog.audit_line.text() and "decisions" in dialog.audit_line.text()
    dialog.close()
