"""The task-set viewer and human mode: a generated set with engine-scored results shown item by item,
keyboard stepping, a person taking a QA set with the keys, a perceive answer typed as a matrix, and
closing half-way then resuming at the first unanswered item.

Offline: tic-tac-toe sets drawn by its renderer, results from the random and simulated players.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

import renderers
from desktop import task_viewer
from desktop.task_answer import ChoiceButtons, HumanRun, MatrixEditor, MoveEditor, TakeDialog, read_grid
from desktop.task_viewer import TaskViewer, mark, open_task_set
from engine import tasks
from engine.tasks import TaskSet, TaskSetError

GAME = "tictactoe"


def make_set(folder: Path, task: str, n: int, seed: int = 7, players: tuple[str, ...] = ()) -> TaskSet:
    ts = tasks.generate(GAME, task, n, seed)
    tasks.write_task_set(ts, folder, renderers.get(GAME).png)
    for player in players:
        results = asyncio.run(tasks.evaluate(ts, player))
        tasks.write_results(folder, ts, player, player.title(), results)
    return tasks.load_task_set(folder)


def open_viewer(qtbot: Any, folder: Path) -> TaskViewer:
    viewer = open_task_set(None, folder)
    qtbot.addWidget(viewer)
    qtbot.waitExposed(viewer)
    return viewer


def results_of(folder: Path, slug: str) -> dict[str, Any]:
    return json.loads((folder / "results" / f"{slug}.json").read_text(encoding="utf-8"))


def test_viewer_shows_each_item_with_every_players_marks(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "perceive"
    ts = make_set(folder, "perceive", 6, players=("sim", "random"))
    viewer = open_viewer(qtbot, folder)
    files = {p: results_of(folder, p) for p in ("sim", "random")}
    # The summary names both players with the mean score the engine wrote.
    assert {p.player for p in viewer.players} == {"sim", "random"}
    for p in viewer.players:
        assert p.score == pytest.approx(files[p.player]["score"])
        assert p.label in viewer.summary.text()
    columns = {viewer.items_table.horizontalHeaderItem(c).text(): c for c in range(1, 3)}
    table = viewer.items_table
    keys = [(Qt.Key.Key_Right, 1), (Qt.Key.Key_PageDown, 2), (Qt.Key.Key_Left, 1), (Qt.Key.Key_End, 5),
            (Qt.Key.Key_PageUp, 4), (Qt.Key.Key_Home, 0)]
    for key, expected in keys:
        qtbot.keyClick(table, key)
        qtbot.waitUntil(lambda e=expected: viewer.index == e)
        assert table.currentRow() == expected
        item = ts.items[expected]
        assert viewer.item_title.text().startswith(f"Item {item.id}")
        assert not viewer.image.pixmap().isNull()
        assert viewer.image.pixmap().width() == viewer.image.pixmap().height()  # the square kept square
        shown = {viewer.results_table.cell_text(r, 0): viewer.results_table.cell_text(r, 4)
                 for r in range(viewer.results_table.rowCount())}
        for player, data in files.items():
            result = next(d for d in data["items"] if d["id"] == item.id)
            want = "✓" if result["correct"] else ("✗" if result["parsed"] is None
                                                    else f"{result['score']:.0%}")
            assert table.item(expected, columns[player]).text() == want
            assert shown[player.title()] == want
    # The truth matrix is shown, and the selected answer's wrong cells are marked.
    assert viewer.truth_grid.isVisible() and "<pre" in viewer.truth_grid.text()


def test_qa_rows_show_the_answer_the_parsed_letter_and_the_truth(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "qa"
    ts = make_set(folder, "qa", 3, players=("random",))
    viewer = open_viewer(qtbot, folder)
    data = results_of(folder, "random")
    for k, item in enumerate(ts.items):
        viewer.show_item(k)
        result = data["items"][k]
        row = [viewer.results_table.cell_text(0, c) for c in range(5)]
        assert row[1] == result["answer"] and row[2] == result["parsed"] and row[3] == item.truth
        assert row[4] == ("✓" if result["correct"] else "✗")
        assert "✓ truth" in viewer.question.text() and item.truth + ".</b>" in viewer.question.text()


def test_mark_and_grid_reading() -> None:
    assert mark("qa", None) == ("", mark("qa", None)[1])
    assert mark("perceive", {"correct": False, "parsed": [[0]], "score": 0.5})[0] == "50%"
    assert mark("perceive", {"correct": False, "parsed": None, "score": 0})[0] == "✗"
    assert read_grid("1 0 -1\n0,0,0\n1 1 1", (3, 3), (-1, 1))[0] == [[1, 0, -1], [0, 0, 0], [1, 1, 1]]
    assert "row 2 has 2 numbers" in read_grid("1 0 -1\n0 0\n1 1 1", (3, 3), (-1, 1))[1]
    assert "outside -1..1" in read_grid("1 0 2\n0 0 0\n1 1 1", (3, 3), (-1, 1))[1]
    assert "2 rows" in read_grid("1 0 1\n0 0 0", (3, 3), (-1, 1))[1]
    assert "not a whole number" in read_grid("1 x 1\n0 0 0\n1 1 1", (3, 3), (-1, 1))[1]
    pasted = "Game State: [[1, 0, -1], [0, 0, 0], [1, 1, 1]]"
    assert read_grid(pasted, (3, 3), (-1, 1))[0] == [[1, 0, -1], [0, 0, 0], [1, 1, 1]]


def test_a_person_takes_a_qa_set_with_the_keys(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "qa"
    ts = make_set(folder, "qa", 4, seed=3)
    viewer = open_viewer(qtbot, folder)
    dialog = viewer.take()
    qtbot.waitExposed(dialog)
    dialog.participant_box.setCurrentText("t1")
    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.pages.currentIndex() == 1)
    path = folder / "results" / "human-t1.json"
    given = []
    for k, item in enumerate(ts.items):
        assert dialog.item.id == item.id
        choices = dialog.answer_widget
        assert isinstance(choices, ChoiceButtons)
        # No truth while taking: only the options, nothing marks the right one.
        assert [b.text().split(".", 1)[1].strip() for b in choices.buttons.values()] == list(item.options)
        assert "truth" not in dialog.question.text()
        letters = tasks.LETTERS[: len(item.options)]
        letter = item.truth if k != 2 else next(x for x in letters if x != item.truth)
        given.append(letter)
        qtbot.keyClick(dialog, getattr(Qt.Key, f"Key_{letter}"))
        # Every answer is on disk at once.
        qtbot.waitUntil(lambda k=k: path.exists() and len(results_of(folder, "human-t1")["items"]) == k + 1)
    qtbot.waitUntil(lambda: dialog.pages.currentIndex() == 2)
    assert "3 of 4" in dialog.summary.text()
    data = results_of(folder, "human-t1")
    assert data["format"] == tasks.RESULTS_FORMAT and data["player"] == "human:t1"
    assert data["label"] == "Human (t1)" and data["set"] == {"n": 4, "seed": 3}
    assert data["score"] == pytest.approx(0.75) and data["scored"] == 4 and data["format_errors"] == 0
    for item, letter, saved in zip(ts.items, given, data["items"], strict=True):
        expected = tasks.score(ts, item, f"Answer: {letter}")
        assert saved["id"] == item.id and saved["answer"] == f"Answer: {letter}"
        assert saved["parsed"] == letter and saved["score"] == expected.score
        assert saved["latency_s"] is not None and saved["latency_s"] >= 0
    assert tasks.load_results(path)["score"] == pytest.approx(0.75)
    # Closing the dialog puts the person's answers in the viewer, beside the truth.
    dialog.accept()
    qtbot.waitUntil(lambda: any(p.player == "human:t1" for p in viewer.players))
    column = 1 + [p.player for p in viewer.players].index("human:t1")
    marks = [viewer.items_table.item(r, column).text() for r in range(4)]
    assert marks == ["✓", "✓", "✗", "✓"]


def test_a_perceive_answer_is_typed_checked_and_scored(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "perceive"
    ts = make_set(folder, "perceive", 2)
    dialog = TakeDialog(ts)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.participant_box.setCurrentText("m1")
    assert dialog.start()
    editor = dialog.answer_widget
    assert isinstance(editor, MatrixEditor)
    editor.text.setPlainText("1 0\n0 0 0\n1 1 1")
    assert not dialog.submit_button.isEnabled() and "row 1 has 2 numbers" in editor.status.text()
    truth = ts.items[0].truth
    editor.text.setPlainText("\n".join(" ".join(str(v) for v in row) for row in truth))
    assert dialog.submit_button.isEnabled() and editor.status.text().startswith("✓")
    qtbot.keyClick(editor.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: dialog.item.id == ts.items[1].id)
    # The second one is left at its starting grid and skipped: it scores 0 with the reason recorded.
    dialog.skip_button.click()
    qtbot.waitUntil(lambda: dialog.pages.currentIndex() == 2)
    data = results_of(folder, "human-m1")
    first, second = data["items"]
    assert first["parsed"] == truth and first["score"] == 1.0 and first["correct"]
    assert first["answer"].startswith("Game State: [[")
    assert second["parsed"] is None and second["score"] == 0.0 and second["error"]
    assert data["score"] == pytest.approx(0.5)


def test_closing_half_way_and_reopening_resumes(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "rules"
    ts = make_set(folder, "rules", 3)
    viewer = open_viewer(qtbot, folder)
    dialog = viewer.take()
    dialog.participant_box.setCurrentText("r1")
    dialog.start_button.click()
    move = dialog.answer_widget
    assert isinstance(move, MoveEditor) and "Movement:" in move.hint.text()
    first = sorted(ts.items[0].truth)[0]
    qtbot.keyClicks(move.field, first.lower())
    assert move.move == first
    qtbot.keyClick(move.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.item.id == ts.items[1].id)
    # The app goes away mid-way: what was answered stays.
    viewer.close()
    assert not dialog.isVisible()
    assert [d["id"] for d in results_of(folder, "human-r1")["items"]] == [ts.items[0].id]

    again = open_viewer(qtbot, folder)
    human = next(p for p in again.players if p.player == "human:r1")
    assert len(human.items) == 1 and "1/3 answered" in again.summary.text()
    dialog2 = again.take()
    ids = [dialog2.participant_box.itemText(i) for i in range(dialog2.participant_box.count())]
    assert "r1" in ids
    dialog2.participant_box.setCurrentText("r1")
    assert "answered 1 of 3" in dialog2.participant_note.text()
    dialog2.start_button.click()
    qtbot.waitUntil(lambda: dialog2.item.id == ts.items[1].id)
    assert dialog2.progress.text().startswith("Item 2 of 3")
    # Item 2: a readable move that is not valid (an occupied cell), given with Enter; item 3: skipped.
    occupied = sorted({f"{r}{c}" for r in "ABC" for c in "123"} - set(ts.items[1].truth))[0]
    qtbot.keyClicks(dialog2.answer_widget.field, occupied)
    qtbot.keyClick(dialog2.answer_widget.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog2.item.id == ts.items[2].id)
    dialog2.skip_button.click()
    qtbot.waitUntil(lambda: dialog2.pages.currentIndex() == 2)
    data = results_of(folder, "human-r1")
    assert [d["id"] for d in data["items"]] == [i.id for i in ts.items]
    assert data["items"][0]["parsed"] == first and data["items"][0]["correct"]
    assert data["items"][1]["parsed"] == occupied and not data["items"][1]["correct"]
    assert data["items"][2]["parsed"] is None and data["items"][2]["error"]
    assert data["score"] == pytest.approx(1 / 3)


def test_a_results_file_of_another_set_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "qa"
    ts = make_set(folder, "qa", 2)
    other = tasks.generate(GAME, "qa", 2, 99)
    tasks.write_results(folder, other, "human:x", "Human (x)", [])
    with pytest.raises(TaskSetError):
        HumanRun(ts, "x")
    with pytest.raises(TaskSetError):
        HumanRun(ts, "bad id/../")


def test_the_file_menu_opens_a_task_set(window: Any, qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    folder = tmp_path / "set"
    make_set(folder, "qa", 2)
    action = window.acts.open_tasks
    assert action.text() == "Open task set…" and action.shortcut() == QKeySequence("Ctrl+Shift+O")
    file_menu = next(m.menu() for m in window.menuBar().actions() if m.text() == "&File")
    assert action in file_menu.actions()
    monkeypatch.setattr(task_viewer.QFileDialog, "getExistingDirectory", lambda *a: str(folder))
    before = set(task_viewer._OPEN)
    action.trigger()
    opened = set(task_viewer._OPEN) - before
    assert len(opened) == 1
    viewer = opened.pop()
    assert viewer.isVisible() and viewer.ts.path == folder
    viewer.close()
    assert viewer not in task_viewer._OPEN
    warned: list[str] = []
    monkeypatch.setattr(task_viewer.QFileDialog, "getExistingDirectory", lambda *a: str(tmp_path))
    monkeypatch.setattr(task_viewer.QMessageBox, "warning", lambda _w, title, text: warned.append(text))
    action.trigger()
    assert warned and "manifest.json" in warned[0]
