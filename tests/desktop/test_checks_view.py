"""Verified intermediate answers in the window, on a session the engine recorded: the board marks a
selected answer against the truth, the running scores follow the session, and a disputed verdict is
stored beside the session without touching its events."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop.checks_view import session_scores_html, session_tallies
from desktop.inspector_format import check_rows
from engine import events as ev
from sessions import annotations
from tests.sessions.test_steps import Recording, record_sim_match


@pytest.fixture(scope="module")
def recorded(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """The simulated model as X on tic-tac-toe, its intermediate answers wrong half the time."""
    return record_sim_match(tmp_path_factory.mktemp("ttt"), "tictactoe", ["sim", "minimax"], seed=5,
                            wrong_ir_rate=0.5)


def _wrong_set_step(rec: Recording) -> int:
    """The index of a decision whose first verified answer is wrong and differs on the board."""
    def wrong(records: list[dict[str, Any]]) -> bool:
        checks = [r["data"] for r in records if r["type"] == ev.VERIFICATION]
        return any(c["correct"] is False and (c["answer"] or c["truth"]) for c in checks)

    return rec.find(wrong, "a step with a wrong intermediate answer")


def test_selecting_an_answer_marks_model_and_truth_on_the_board(
    window: Any, run: Callable[..., Any], recorded: Recording
) -> None:
    run(window.controller.open_session(recorded.session.path))
    index = _wrong_set_step(recorded)
    step = recorded.step(index)
    window.controller.scrub(step)
    checks = window.inspector.checks
    rows = checks._rows
    assert rows and [r.key for r in rows] == [1, 2]
    bad = next(i for i, r in enumerate(rows) if r.correct is False and (r.answer_items or r.truth_items))
    checks.table.selectRow(bad)
    answer, truth = window.board.marks
    assert (answer, truth) == (rows[bad].answer_items, rows[bad].truth_items) and answer != truth
    assert "green = truth" in checks.legend.text()
    # Every marked cell has a place on the board: the renderer's inverse of its hit test.
    board = window.board
    for item in {*answer, *truth}:
        rect = board.renderer.cell_rect(board.state, 300, 300, item)
        assert rect is not None
        assert board.renderer.hit_test(board.state, 300, 300, *rect.center().toTuple()) == item
    checks.table.clearSelection()
    assert window.board.marks == ((), ())


def test_running_scores_count_every_check_up_to_the_step(recorded: Recording) -> None:
    records = list(recorded.session.events)
    game = recorded.session.game()
    last = max(r["step"] for r in records)
    tallies = session_tallies(game, records, last, 0)
    checks = [r["data"] for r in records if r["type"] == ev.VERIFICATION and r["seat"] == 0]
    assert sum(t["asked"] for t in tallies) == len(checks) > 0
    assert [t["metric"] for t in tallies] == ["f1", "f1"]
    first = min(r["step"] for r in records if r["type"] == ev.VERIFICATION)
    assert sum(t["asked"] for t in session_tallies(game, records, first, 0)) == 2
    html = session_scores_html(tallies)
    assert "F1" in html and "asked" in html


def test_a_dispute_is_an_annotation_and_the_events_stay_byte_identical(
    window: Any, run: Callable[..., Any], recorded: Recording, monkeypatch: pytest.MonkeyPatch
) -> None:
    events_file = Path(recorded.session.path) / "events.jsonl"
    before = hashlib.sha256(events_file.read_bytes()).hexdigest()
    run(window.controller.open_session(recorded.session.path))
    index = _wrong_set_step(recorded)
    window.controller.scrub(recorded.step(index))
    checks = window.inspector.checks
    checks.table.selectRow(0)
    assert checks.dispute_button.isEnabled()
    dialog = checks.dispute_selected()
    assert dialog is not None and not dialog.buttons.buttons()[0].isEnabled()  # nothing said yet
    dialog.annotator.setText("ana")
    dialog.comment.setPlainText("the oracle ignores that (2,0) is already taken")
    dialog.accept()
    QApplication.processEvents()
    saved = annotations.load(recorded.session.path)
    assert [(a["kind"], a["annotator"], a["key"], a["comment"][:10]) for a in saved] == [
        ("dispute", "ana", rows_key(checks), "the oracle")
    ]
    assert "⚑" in checks.table.item(0, 3).text()
    assert checks.dispute_button.text() == "Withdraw dispute"
    checks.dispute_selected()  # withdraws it
    QApplication.processEvents()
    assert annotations.current(annotations.load(recorded.session.path)) == {}
    assert hashlib.sha256(events_file.read_bytes()).hexdigest() == before
    assert check_rows  # the formatter the panel uses


def rows_key(checks: Any) -> int:
    row = checks.selected_row()
    assert row is not None
    return row.key
