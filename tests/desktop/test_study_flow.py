"""The participant flow of a study: consent to thanks with moves made through the board's keys, an
export with the person's moves as ``participant``, a declined consent that records nothing, a window
dropped mid-game and resumed (each block once in the export), and the time limits (a move played for
the participant, a game aborted)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.cli import main
from desktop.study_flow import StudyWindow, run_study
from engine.study import parse_study
from sessions.study_results import ResultsFolder
from tests.desktop.conftest import until

STUDY = """
id = "flow"
version = 1
title = "Two small games"
consent = "We record the moves you make and the time you take."
instructions = "You will play tic-tac-toe and 2048."
order = "latin"
final_questionnaire = "end"

[breaks]
every = 1
seconds = 0.3

[[game]]
key = "ttt"
game = "tictactoe"
opponent = "random"
seeds = [5]
practice = 1
questionnaire = "after"

[[game]]
key = "2048"
game = "2048"
seeds = [7]
max_steps = 3
questionnaire = "after"

[[questionnaire]]
key = "after"
[[questionnaire.item]]
key = "difficulty"
kind = "likert"
text = "How difficult was this game?"
scale = 5
anchors = ["very easy", "very hard"]
[[questionnaire.item]]
key = "why"
kind = "text"
text = "How did you decide on your moves?"

[[questionnaire]]
key = "end"
[[questionnaire.item]]
key = "fun"
kind = "likert"
text = "How much did you enjoy the games?"
scale = 7
anchors = ["not at all", "very much"]
"""


def make_folder(root: Path, text: str = STUDY) -> ResultsFolder:
    return ResultsFolder(root, parse_study(text), text)


@pytest.fixture(autouse=True)
def _keep_app(qapp: Any) -> Any:
    """Closing the study window (the only one here) must not quit the test's event loop, as it does not
    in ``playtrace study run``."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)


def open_window(qtbot: Any, folder: ResultsFolder, **kw: Any) -> StudyWindow:
    win = StudyWindow(folder, delay=0, **kw)
    qtbot.addWidget(win)
    win.resize(1280, 720)
    win.show()
    return win


def snapshot(win: StudyWindow) -> tuple[Any, ...]:
    c = win.controller
    return (
        id(win.page),
        win.progress.next_block if win.progress else -1,
        c.head,
        win.game_page.go.isVisible(),
        c.waiting_human() is not None,
        win.text_page.title.text(),
    )


async def act(win: StudyWindow, qtbot: Any) -> bool:
    """Do what the participant would do on the page shown; returns False at the end of the flow."""
    page = win.page
    click = Qt.MouseButton.LeftButton
    before = snapshot(win)
    if page is win.text_page:
        if not win.text_page.primary.isVisible():
            return False
        qtbot.mouseClick(win.text_page.primary, click)
    elif page is win.participant_page:
        qtbot.mouseClick(win.participant_page.go, click)
    elif page is win.questionnaire_page:
        q = win.questionnaire_page
        assert not q.go.isEnabled(), "Continue waits for every scale"
        for scale in q.scales.values():
            qtbot.mouseClick(scale.group.button(2), click)
        for edit in q.texts.values():
            qtbot.keyClicks(edit, "corners first")
        qtbot.mouseClick(q.go, click)
    elif page is win.break_page:
        assert not win.break_page.go.isEnabled()
        await until(win.break_page.go.isEnabled, what="the break's end")
        qtbot.mouseClick(win.break_page.go, click)
    elif page is win.game_page:
        c, board = win.controller, win.game_page.board
        await until(lambda: win.game_page.go.isVisible() or (c.waiting_human() and board.interactive),
                    what="the person's turn")
        if win.game_page.go.isVisible():
            qtbot.mouseClick(win.game_page.go, click)
        else:
            legal = c.interactive_legal()
            key = next(k for k, a in sorted(c.game.keymap.items()) if len(k) == 1 and a in legal)
            qtbot.keyClick(board, key)  # the board's own key path, as a person plays
    await until(lambda: snapshot(win) != before, what=f"a change after acting on {type(page).__name__}")
    return True


async def walk(win: StudyWindow, qtbot: Any, stop: Callable[[StudyWindow], bool] = lambda w: False) -> None:
    for _ in range(300):
        if stop(win) or not await act(win, qtbot):
            return
    raise AssertionError("the flow did not end")


def export(folder: ResultsFolder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    out = tmp_path / "export.csv"
    assert main(["study", "export", str(folder.root), "--out", str(out)]) == 0
    capsys.readouterr()
    with out.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def progress_json(folder: ResultsFolder, pid: str) -> dict[str, Any]:
    return json.loads((folder.root / "participants" / f"{pid}.json").read_text(encoding="utf-8"))


def test_consent_to_thanks_then_export(qtbot: Any, run: Any, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_folder(tmp_path / "results")
    win = open_window(qtbot, folder)
    assert win.page is win.text_page and "Do you agree" in win.text_page.text.text()
    assert "Ctrl+Alt+Shift+Q" in win.text_page.footer.text()
    seen: set[str] = set()

    async def scenario() -> None:
        def note(w: StudyWindow) -> bool:
            seen.add(type(w.page).__name__)
            if w.page is w.participant_page:
                assert w.participant_page.edit.text() == "P001"
            if w.page is w.game_page and w.block is not None and w.block.kind == "practice":
                assert w.game_page.badge.isVisible() and "Practice" in w.game_page.badge.text()
            return False

        await walk(win, qtbot, note)

    run(scenario())
    assert {"ParticipantPage", "GamePage", "QuestionnairePage", "BreakPage"} <= seen
    assert win.text_page.title.text() == "Thank you"
    progress = progress_json(folder, "P001")
    assert progress["finished"] and progress["condition"] == "A"
    kinds = [b["kind"] for b in sorted(progress["blocks"], key=lambda b: b["index"])]
    assert kinds == ["consent", "instructions", "practice", "game", "questionnaire", "break", "game",
                     "questionnaire", "questionnaire", "thanks"]
    # Every game's session: the person in seat 0, the study's opponent, the study's tags, think times.
    for entry in progress["blocks"]:
        if entry["kind"] not in ("practice", "game"):
            continue
        session = folder.sessions / entry["session"]
        manifest = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["extra"]["study"]["participant"] == "P001"
        assert manifest["players"][0]["kind"] == "human"
        events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
        mine = [e for e in events if e["type"] == "decision" and e["seat"] == 0]
        assert mine and all(isinstance(e["data"]["latency_ms"], int) for e in mine)

    rows = export(folder, tmp_path, capsys)
    moves = [r for r in rows if r["row_type"] == "move"]
    assert {r["actor"] for r in moves if r["seat"] == "0"} == {"participant"}
    assert {r["actor"] for r in moves if r["seat"] == "1"} == {"bot"}
    assert all(r["think_ms"] != "" for r in moves if r["actor"] == "participant")
    assert {r["timed_out"] for r in moves} == {"false"}
    games = [r for r in rows if r["row_type"] == "game"]
    assert sorted((r["game_key"], r["practice"]) for r in games) == [
        ("2048", "false"), ("ttt", "false"), ("ttt", "true")]
    assert {r["q_after_difficulty"] for r in games if r["practice"] == "false"} == {"2"}
    assert {r["q_after_why"] for r in games if r["practice"] == "false"} == {"corners first"}
    participant = next(r for r in rows if r["row_type"] == "participant")
    assert participant["q_end_fun"] == "2"

    win.request_leave()  # finished: nothing to lose, no confirmation
    run(until(lambda: not win.isVisible(), what="the window to close"))


def test_declining_consent_records_nothing(qtbot: Any, run: Any, tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "results")
    win = open_window(qtbot, folder)
    win.close()  # locked: the window stays
    assert win.isVisible()
    qtbot.mouseClick(win.text_page.secondary, Qt.MouseButton.LeftButton)
    assert "Nothing was recorded" in win.text_page.text.text()
    assert list((folder.root / "participants").iterdir()) == []
    assert list(folder.sessions.iterdir()) == []
    win.request_leave()
    run(until(lambda: not win.isVisible(), what="the window to close"))


def test_leaving_needs_the_confirmation(qtbot: Any, run: Any, tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "results")
    win = open_window(qtbot, folder)
    qtbot.mouseClick(win.text_page.primary, Qt.MouseButton.LeftButton)  # agree
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    qtbot.keyClick(win, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    assert win.page is win.leave_page
    qtbot.mouseClick(win.leave_page.back, Qt.MouseButton.LeftButton)
    assert win.page is win.participant_page and win.isVisible()
    win.request_leave()
    qtbot.mouseClick(win.leave_page.leave, Qt.MouseButton.LeftButton)
    run(until(lambda: not win.isVisible(), what="the window to close"))


def test_a_dropped_window_resumes_at_the_cut_game(qtbot: Any, run: Any, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_folder(tmp_path / "results")
    first = open_window(qtbot, folder)

    def in_counted_game(w: StudyWindow) -> bool:
        return w.playing and w.block is not None and w.block.kind == "game" and w.controller.head >= 2

    run(walk(first, qtbot, in_counted_game))
    cut = first.block
    assert cut is not None and cut.game is not None and cut.game.key == "ttt"
    attempt = [b for b in progress_json(folder, "P001")["blocks"] if b["kind"] == "attempt"]
    assert [b["index"] for b in attempt] == [cut.index]
    first.hide()  # dropped, as by a kill: nothing closes, nothing more is recorded

    second = open_window(qtbot, folder)
    assert second.page is second.resume_page
    assert second.resume_page.list.item(0).text().startswith("P001")
    qtbot.mouseClick(second.resume_page.resume, Qt.MouseButton.LeftButton)
    assert second.block == cut and second.text_page.primary.text() == "Start"
    run(walk(second, qtbot))
    assert progress_json(folder, "P001")["finished"]
    run(first.controller.close())

    rows = export(folder, tmp_path, capsys)
    games = [(r["game_key"], r["round"], r["practice"]) for r in rows if r["row_type"] == "game"]
    assert sorted(games) == [("2048", "1", "false"), ("ttt", "1", "false"), ("ttt", "1", "true")]
    ttt = [r for r in rows if r["row_type"] == "game" and r["game_key"] == "ttt" and r["practice"] == "false"]
    assert ttt[0]["status"] == "completed"
    blocks = progress_json(folder, "P001")["blocks"]
    done = [b["index"] for b in blocks if b["kind"] != "attempt"]
    assert sorted(done) == list(range(10))
    # The cut session stays noted as an attempt, and another session holds the replayed game.
    leftover = [b for b in blocks if b["kind"] == "attempt"]
    replayed = next(b for b in blocks if b["index"] == cut.index and b["kind"] == "game")
    assert [b["session"] for b in leftover] != [replayed["session"]]


LIMITS = """
id = "limits"
version = 1
consent = "We record your moves."

[[game]]
key = "2048"
game = "2048"
seeds = [3]
max_steps = 2
move_seconds = 0.3

[[game]]
key = "ttt"
game = "tictactoe"
opponent = "random"
seeds = [4]
game_seconds = 0.6
"""


def test_time_limits_play_for_the_person_and_abort_the_game(qtbot: Any, run: Any, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_folder(tmp_path / "results", LIMITS)
    win = open_window(qtbot, folder)

    async def scenario() -> None:
        for _ in range(4):  # consent, id, instructions, the first game's Start
            await act(win, qtbot)
        assert win.page is win.game_page
        await until(lambda: win.game_page.move_clock.isVisible(), what="the move countdown")
        assert win.game_page.move_clock.text().startswith("This move: 0:0")
        await until(lambda: win.game_page.go.isVisible(), what="2048 played out by the clock")
        qtbot.mouseClick(win.game_page.go, Qt.MouseButton.LeftButton)
        ready = win.text_page.text.text()
        assert "per move" not in ready and "for the whole game" in ready
        qtbot.mouseClick(win.text_page.primary, Qt.MouseButton.LeftButton)
        await until(lambda: win.game_page.game_clock.isVisible(), what="the game countdown")
        await until(lambda: win.game_page.go.isVisible(), what="the game's time to run out")
        assert "time for this game is up" in win.game_page.caption.text()

    run(scenario())
    rows = export(folder, tmp_path, capsys)
    moves = [r for r in rows if r["row_type"] == "move" and r["game_key"] == "2048"]
    assert len(moves) == 2 and {(r["actor"], r["timed_out"]) for r in moves} == {("participant", "true")}
    assert all(float(r["think_ms"]) >= 250 for r in moves)
    session = folder.sessions / next(
        b["session"] for b in progress_json(folder, "P001")["blocks"] if b["kind"] == "game")
    decisions = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    decisions = [e["data"] for e in decisions if e["type"] == "decision"]
    assert {(d["source"], d["deadline_s"]) for d in decisions} == {("default", 0.3)}
    status = {r["game_key"]: r["status"] for r in rows if r["row_type"] == "game"}
    assert status == {"2048": "max_steps", "ttt": "aborted"}


def test_run_study_refuses_a_finished_participant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_folder(tmp_path / "results")
    progress = folder.progress("P007")
    progress.finished = True
    folder.save(progress)
    assert run_study(folder, participant="P007") == 1
    assert "P007 has finished" in capsys.readouterr().err


def test_run_study_from_the_menu_opens_the_flow(qtbot: Any, run: Any, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

    from desktop import study_flow

    good, bad = tmp_path / "study.toml", tmp_path / "bad.toml"
    good.write_text(STUDY, encoding="utf-8")
    bad.write_text(STUDY.replace('order = "latin"', 'order = "zigzag"'), encoding="utf-8")
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: str(tmp_path / "results"))
    parent = QWidget()
    qtbot.addWidget(parent)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a: (str(bad), ""))
    study_flow.choose_study(parent)
    assert len(warnings) == 1 and "bad.toml:7" in warnings[0] and "zigzag" in warnings[0]
    assert not study_flow.OPEN_FLOWS

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a: (str(good), ""))
    study_flow.choose_study(parent)
    flow = study_flow.OPEN_FLOWS[-1]
    assert flow.isFullScreen() and flow.page is flow.text_page
    assert (tmp_path / "results" / "study.toml").is_file()
    flow.request_leave()
    qtbot.mouseClick(flow.leave_page.leave, Qt.MouseButton.LeftButton)
    run(until(lambda: not study_flow.OPEN_FLOWS, what="the flow to close"))


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_an_eleven_point_scale_fits_the_screen(qtbot: Any, size: tuple[int, int]) -> None:
    from desktop.study_pages import STYLESHEET, QuestionnairePage
    from engine.study import Item, Questionnaire

    page = QuestionnairePage()
    page.setStyleSheet(STYLESHEET)
    qtbot.addWidget(page)
    items = (Item("calm", "likert", "How calm did you feel while playing against the computer?", 11,
                  ("not calm at all", "completely calm")), Item("note", "text", "Anything else?"))
    page.ask(Questionnaire("end", items), "About the study as a whole.")
    page.resize(*size)
    page.show()
    qtbot.waitExposed(page)
    viewport = page.scroll.viewport()
    assert page.scroll.horizontalScrollBar().maximum() == 0
    for button in page.scales["calm"].group.buttons():
        corner = button.mapTo(viewport, button.rect().bottomRight())
        assert 0 <= corner.x() <= viewport.width() and corner.y() <= viewport.height()
