"""The model panel on sessions the engine recorded: the simulated model on tic-tac-toe and 2048.

Each fixture plays a real match (``desktop.episode``, the wiring the app and the CLI use) with the
board renderer, reads the session back with :mod:`sessions`, and the tests compare what the panel
shows with the recorded events: the prompt as sent, the parse chain, the verdicts, the images behind
the attachments, the usage. Live tests replay the match's own event stream, ``model_delta`` included.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

import sessions
from desktop import inspector as insp
from desktop.controller import SessionController
from desktop.episode import png_renderer
from desktop.inspector import InspectorPanel
from desktop.widgets import BAD_COLOR
from engine import events as ev
from tests.desktop.conftest import sim_setup, until
from tests.sessions.test_steps import Recording, has_mixed_checks, of_type, record_sim_match

# -- recorded sessions ------------------------------------------------------------------------------


def _record(root: Path, game_id: str, specs: list[str], **options: Any) -> Recording:
    return record_sim_match(root, game_id, specs, render=png_renderer(game_id), perception="both", **options)


@pytest.fixture(scope="module")
def tictactoe(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """X: the simulated model seeing text and image, its intermediate answers wrong half the time."""
    return _record(tmp_path_factory.mktemp("ttt"), "tictactoe", ["sim", "minimax"], seed=3, wrong_ir_rate=0.5)


@pytest.fixture(scope="module")
def careless(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """Every answer breaks the format: the harness re-asks, then plays a random legal move."""
    return _record(tmp_path_factory.mktemp("c"), "tictactoe", ["sim:careless", "minimax"], seed=3,
                   format_error_rate=1.0)


@pytest.fixture(scope="module")
def g2048(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """2048 through a server that fails half the calls."""
    return _record(tmp_path_factory.mktemp("2048"), "2048", ["sim"], seed=3, max_steps=6, api_error_rate=0.5)


def header(session: sessions.Session) -> dict[str, Any]:
    """The panel header of a session opened for replay (what the controller gives the panel)."""
    game = session.game()
    players = [{**p, "seat_name": game.seats[p["seat"]].name} for p in session.manifest["players"]]
    return {"game": game.title, "players": players, "harness": session.manifest.get("harness") or {}}


def show(panel: InspectorPanel, rec: Recording, index: int, resolve: Any = None) -> list[dict[str, Any]]:
    """Show decision ``index`` of ``rec`` as the app does on replay; returns its recorded events."""
    records = rec.session.events_for_step(index)
    panel.set_header(header(rec.session))
    panel.show_step(rec.step(index), records, resolve or rec.session.read_attachment)
    return records


def model_step(rec: Recording, predicate: Any = None) -> int:
    return rec.find(
        lambda r: bool(of_type(r, ev.PROMPT_BUILT)) and (predicate is None or predicate(r)), "a model step"
    )


@pytest.fixture
def panel(qtbot: Any) -> InspectorPanel:
    widget = InspectorPanel()
    qtbot.addWidget(widget)
    widget.resize(560, 700)
    widget.show()
    return widget


# -- a recorded step, section by section ------------------------------------------------------------


@pytest.mark.parametrize("name", ["tictactoe", "g2048"])
def test_a_recorded_model_step_is_shown_as_recorded(
    panel: InspectorPanel, name: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(name)
    index = model_step(rec, lambda r: bool(of_type(r, ev.REFLECTION)) and bool(of_type(r, ev.ACTION_PARSED)))
    asked: list[str] = []

    def resolve(ref: str) -> bytes:
        asked.append(ref)
        return rec.session.read_attachment(ref)

    records = show(panel, rec, index, resolve)
    data = {t: [r["data"] for r in of_type(records, t)] for t in ev.EVENT_TYPES}

    prompt = data[ev.PROMPT_BUILT][0]
    shown = panel.prompt_view.toPlainText()
    system, user = prompt["system"].rstrip(), prompt["user"].rstrip()
    assert shown.startswith(f"── SYSTEM ──\n{system}\n\n── USER ──\n{user}")
    assert panel.prompt_view.isReadOnly()
    assert panel.reasoning_view.toPlainText() == data[ev.REASONING][0]["text"]
    assert panel.answer_view.toPlainText().startswith(data[ev.ANSWER][0]["text"])
    assert panel.reflection_view.toPlainText() == data[ev.REFLECTION][0]["text"]

    # The image sent is the recorded attachment, resolved through the session.
    assert asked == [prompt["image"]]
    assert len(panel.thumbnails) == 1 and panel.thumbnails[0].loaded
    png = QImage.fromData(rec.session.read_attachment(prompt["image"]))
    assert panel.thumbnails[0].pixmap_full.size() == png.size() and not png.isNull()

    parsed = data[ev.ACTION_PARSED][-1]
    played = data[ev.ACTION_APPLIED][0]["actions"]["0"]
    chain = panel.parse_label.text()
    assert f"Attempt {parsed['attempt']} — legal" in chain
    assert f"→ matched <b>{parsed['matched']}</b> → executed <b>{played}</b>" in chain

    checks = data[ev.VERIFICATION]
    table = panel.verify_table
    assert table.rowCount() == len(checks)
    marks = [table.cell_text(r, 3)[0] for r in range(len(checks))]
    assert marks == ["✓" if c["correct"] else "✗" for c in checks]
    assert panel.checks.empty.isVisible() == (not checks)

    entries = data[ev.MEMORY][0]["entries"]
    assert panel.memory_table.rowCount() == len(entries)
    steps = [panel.memory_table.cell_text(r, 0) for r in range(len(entries))]
    assert steps == [str(e["step"] + 1) for e in entries]  # step N is the decision on the N-th board

    finished = data[ev.MODEL_CALL_FINISHED]
    usage = panel.usage_label.text()
    assert f"Tokens in <b>{sum(f['input_tokens'] for f in finished):,}</b>" in usage
    assert "Call 1 (reflection)" in usage and "free (simulated)" in usage
    assert f"{sum(f['latency_ms'] for f in finished) / 1000:.2f} s" in usage

    assert panel.sim_badge.isVisible() and "SIMULATED MODEL" in panel.sim_badge.text()
    outcome = panel.outcome_label.text()
    scores = " – ".join(f"{s:g}" for s in data[ev.ACTION_APPLIED][0]["scores"])
    assert f"Played <b>{played}</b>" in outcome and f"score <b>{scores}</b>" in outcome
    assert "policy" not in outcome  # the model's own answer was played
    assert not panel.pill_row.isVisible()
    assert panel.error_banner.isVisible() == bool(data[ev.MODEL_CALL_FAILED])
    assert panel.step_label.text().startswith(f"<b>Step {rec.step(index) + 1}</b> · Seat 1")


def test_verdicts_are_the_recorded_ones(panel: InspectorPanel, tictactoe: Recording) -> None:
    index = model_step(tictactoe, has_mixed_checks)
    records = show(panel, tictactoe, index)
    checks = [r["data"] for r in of_type(records, ev.VERIFICATION)]
    table = panel.verify_table
    for row, check in enumerate(checks):
        assert table.cell_text(row, 0) == check["question"]
        assert table.cell_text(row, 3) == ("✓ " if check["correct"] else "✗ ") + check["detail"]["label"]
        assert table.item(row, 3).toolTip().startswith(check["detail"]["label"] + " · precision")
    good = sum(c["correct"] for c in checks)
    assert f"{good}/{len(checks)} correct" in panel.sec_verify.summary.text()


def test_thumbnail_click_opens_the_image_full_size(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    show(panel, tictactoe, model_step(tictactoe))
    thumb = panel.thumbnails[0]
    qtbot.mouseClick(thumb, Qt.MouseButton.LeftButton)
    assert thumb.dialog is not None and thumb.dialog.isVisible()
    shown = thumb.dialog.image_label.pixmap()
    assert (shown.width(), shown.height()) == (512, 512)  # the renderer's size: the PNG as sent
    thumb.dialog.close()


def test_a_missing_attachment_shows_a_placeholder(
    panel: InspectorPanel, tictactoe: Recording, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tictactoe.session.path, copy)
    shutil.rmtree(copy / "attachments")
    damaged = Recording(sessions.load_session(copy), [])
    show(panel, damaged, model_step(damaged))  # read_attachment raises SessionError: the panel copes
    assert len(panel.thumbnails) == 1 and not panel.thumbnails[0].loaded
    assert "unavailable" in panel.thumbnails[0].text()


def test_reasks_of_unusable_answers_and_the_fallback(panel: InspectorPanel, careless: Recording) -> None:
    records = show(panel, careless, model_step(careless))
    reasks = [r["data"] for r in of_type(records, ev.PROMPT_BUILT)][1:]
    prompt = panel.prompt_view.toPlainText()
    assert reasks and prompt.index("── USER ──") < prompt.index("── RE-ASK · attempt 2 ──")
    for reask in reasks:
        assert reask["user"].rstrip() in prompt
    answer = panel.answer_view.toPlainText()
    assert f"── re-prompt {len(reasks) + 1} ──" in answer
    chain = panel.parse_label.text()
    for failure in of_type(records, ev.ACTION_UNPARSABLE):
        assert f"Attempt {failure['data']['attempt']} — unparsable" in chain
    assert BAD_COLOR in chain
    decision = of_type(records, ev.DECISION)[0]["data"]
    outcome = panel.outcome_label.text()
    assert "Invalid-answer policy: random" in outcome and decision["action"] in outcome
    assert f"{len(reasks)} re-asks" in panel.sec_prompt.summary.text()
    assert not panel.pill_row.isVisible()  # re-asks of one call are one sample


def test_a_failed_call_is_shown_in_the_banner_and_the_usage(panel: InspectorPanel, g2048: Recording) -> None:
    records = show(panel, g2048, model_step(g2048, lambda r: bool(of_type(r, ev.MODEL_CALL_FAILED))))
    failure = of_type(records, ev.MODEL_CALL_FAILED)[0]["data"]
    assert panel.error_banner.isVisible()
    banner = panel.error_banner.text()
    assert f"server (HTTP {failure['status']})" in banner and failure["error"] in banner
    failed = len(of_type(records, ev.MODEL_CALL_FAILED))
    assert f"{failed} failed" in panel.sec_usage.summary.text()
    assert panel.checks.empty.isVisible() and panel.verify_table.rowCount() == 0  # 2048 asks no questions
    assert panel.checks.empty.text() == "No intermediate questions for this game yet"


def test_a_bot_step_shows_its_rationale_and_values(panel: InspectorPanel, tictactoe: Recording) -> None:
    index = tictactoe.find(lambda r: of_type(r, ev.DECISION)[0]["data"]["source"] == "bot", "a bot step")
    records = show(panel, tictactoe, index)
    decision = of_type(records, ev.DECISION)[0]["data"]
    assert "Minimax" in panel.outcome_label.text() and decision["rationale"] in panel.outcome_label.text()
    table = panel.values_table
    assert table.isVisible() and table.rowCount() == len(decision["values"])
    values = [float(table.cell_text(r, 1)) for r in range(table.rowCount())]
    assert values == sorted(values, reverse=True)  # best first
    chosen = [r for r in range(table.rowCount()) if table.item(r, 0).font().bold()]
    assert [table.cell_text(r, 0) for r in chosen] == [decision["action"]]
    assert not panel.sec_prompt.isVisible() and not panel.pill_row.isVisible()
    assert "Seat 2 (O)" in panel.step_label.text()


# -- samples of a step: Re-ask and Override from the panel, recorded by the app's controller ---------


@pytest.fixture
def controller(qapp: QApplication, tmp_path: Path, aloop: Any) -> Iterator[SessionController]:
    c = SessionController(root=tmp_path / "sessions")
    yield c
    aloop.run_until_complete(c.close())


def _steer(
    run: Any, c: SessionController, final: str
) -> tuple[sessions.Session, dict[str, Any], dict[str, Any]]:
    """Ask the model, Re-ask it, then ``final`` ("accept" or "override"); returns the recorded session."""

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        await c.start(sim_setup())
        await until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0, what="turn")
        c.ask()
        await until(lambda: c.pending is not None, what="a held decision")
        first = dict(c.pending or {})
        c.reask()
        await until(lambda: c.pending is not None and c.pending["call"] != first["call"], what="re-asked")
        second = dict(c.pending or {})
        if final == "accept":
            c.accept()
        else:
            c.override(next(a for a in c.interactive_legal() if a != second["action"]))
        await until(lambda: c.count == 1, what="the step applied")
        return first, second

    first, second = run(scenario())
    assert c.folder is not None
    return sessions.load_session(c.folder), first, second


def test_reask_samples_are_kept_side_by_side(
    panel: InspectorPanel, qtbot: Any, controller: SessionController, run: Any
) -> None:
    session, first, second = _steer(run, controller, "accept")
    records = session.events_for_step(0)
    panel.set_header(header(session))
    panel.show_step(records[0]["step"], records, session.read_attachment)
    answers = {r["call"]: r["data"]["text"] for r in of_type(records, ev.ANSWER)}
    assert panel.pill_row.isVisible()
    assert [p.text() for p in panel.pills] == [
        f"Sample 1 · {first['action']}", f"Sample 2 · {second['action']} · played"
    ]
    # The accepted re-ask is what was played: it is shown first, and only it was executed.
    assert panel.pills[1].isChecked() and panel.step_model.decided().call == second["call"]
    assert panel.answer_view.toPlainText() == answers[second["call"]]
    assert f"executed <b>{second['action']}</b>" in panel.parse_label.text()

    qtbot.mouseClick(panel.pills[0], Qt.MouseButton.LeftButton)
    assert panel.pills[0].isChecked() and not panel.pills[1].isChecked()
    assert panel.answer_view.toPlainText() == answers[first["call"]]
    assert "executed" not in panel.parse_label.text()
    assert f"Proposed <b>{first['action']}</b>" in panel.outcome_label.text()
    assert "(not played)" in panel.outcome_label.text()


def test_an_override_is_shown_on_the_sample_it_replaced(
    panel: InspectorPanel, controller: SessionController, run: Any
) -> None:
    session, _first, second = _steer(run, controller, "override")
    records = session.events_for_step(0)
    played = of_type(records, ev.ACTION_APPLIED)[0]["data"]["actions"]["0"]
    panel.show_step(records[0]["step"], records, session.read_attachment)
    assert panel.step_model.decided().call == second["call"]
    # The person's move, named as theirs: never "Sample 2 · <move> · played" as if the model chose it.
    assert panel.pills[1].isChecked()
    assert panel.pills[1].text().endswith(f"{second['action']} → {played} (a person's override)")
    outcome = panel.outcome_label.text()
    assert f"proposed {second['action']} → played {played}" in outcome
    assert "executed differs: overridden by human" in panel.parse_label.text()


def test_a_reask_in_the_window_follows_the_new_sample(window: Any, run: Any) -> None:
    c = window.controller
    panel = window.inspector

    async def scenario() -> None:
        await window.start_game(sim_setup())
        await until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0)
        panel.sig_ask_requested.emit()
        await until(lambda: c.pending is not None, what="a held decision")
        first = c.pending["call"]
        panel.sig_reask_requested.emit()
        await until(lambda: c.pending is not None and c.pending["call"] != first, what="re-asked")
        await until(lambda: len(panel.pills) == 2 and panel.pills[1].isChecked(), what="the new sample")

    run(scenario())
    assert panel.current_sample.call == c.pending["call"]
    assert "Held for review" in panel.outcome_label.text()


# -- live: the match's own event stream, model_delta included ----------------------------------------


def _deltas(records: list[dict[str, Any]], **match: str) -> list[dict[str, Any]]:
    deltas = [r for r in records if r["type"] == ev.MODEL_DELTA]
    return [r for r in deltas if all(r["data"][k] == v for k, v in match.items())]


def test_live_deltas_are_coalesced_into_few_repaints(
    panel: InspectorPanel, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tictactoe: Recording
) -> None:
    index = model_step(tictactoe)
    live = tictactoe.live_for(index)
    recorded = next(r["data"]["text"] for r in live if r["type"] == ev.ANSWER)
    panel.show_step(tictactoe.step(index), [], tictactoe.session.read_attachment)
    first_delta = next(i for i, r in enumerate(live) if r["type"] == ev.MODEL_DELTA)
    for record in live[:first_delta]:
        panel.append_live(record)
    qtbot.waitUntil(lambda: panel.current_sample is not None and panel.current_sample.streaming, timeout=2000)

    paints: list[int] = []
    original = panel._render_live_text
    monkeypatch.setattr(panel, "_render_live_text", lambda: (paints.append(1), original())[1])
    deltas = [r for r in live if r["type"] == ev.MODEL_DELTA and r["data"]["purpose"] == "action"]
    streamed = "".join(r["data"]["text"] for r in deltas if r["data"]["kind"] == "content")
    for record in deltas:
        panel.append_live(record)
    # Nothing is painted per token: the views catch up only when the timer fires.
    assert panel.answer_view.toPlainText() != streamed
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText() == streamed, timeout=2000)
    assert len(paints) <= 2, f"{len(deltas)} deltas must be coalesced into a repaint or two"
    assert "streaming" in panel.sec_reasoning.summary.text()
    assert "model working" in panel.step_label.text()

    # The assembled events replace the streamed text and end the live state.
    for record in live[first_delta:]:
        if record["type"] != ev.MODEL_DELTA:
            panel.append_live(record)
    qtbot.waitUntil(lambda: panel.parse_label.text().count("executed") == 1, timeout=2000)
    assert panel.answer_view.toPlainText() == recorded == streamed
    assert "streaming" not in panel.sec_reasoning.summary.text()
    assert "free (simulated)" in panel.usage_label.text()
    assert len(panel.thumbnails) == 1 and panel.thumbnails[0].loaded  # the live prompt's attachment


def _one_long_call(rec: Recording, step: int) -> list[dict[str, Any]]:
    """Every reasoning delta of the recorded match, streamed as if one call at ``step`` produced them."""
    started = next(r for r in rec.live if r["type"] == ev.MODEL_CALL_STARTED)
    stream = [started, *_deltas(rec.live, kind="reasoning", purpose="action")]
    return [{**r, "step": step, "seat": 0, "call": 1} for r in stream]


def test_live_text_follows_the_end_unless_the_reader_scrolled_up(
    panel: InspectorPanel, qtbot: Any, g2048: Recording
) -> None:
    stream = _one_long_call(g2048, step=5)
    third = len(stream) // 3
    panel.resize(560, 1200)  # tall enough for the whole column
    panel.show_step(5, [], lambda ref: None)
    view = panel.reasoning_view
    column = panel.scroll.verticalScrollBar()

    def feed(records: list[dict[str, Any]]) -> None:
        for record in records:
            panel.append_live(record)
        text = view.text() + "".join(r["data"].get("text", "") for r in records)
        qtbot.waitUntil(lambda: view.toPlainText() == text, timeout=2000)

    def end_in_view() -> bool:
        bottom = view.mapTo(panel.scroll.viewport(), view.rect().bottomLeft()).y()
        return 0 < bottom <= panel.scroll.viewport().height()

    feed(stream[:third])
    assert panel.current_sample is not None and panel.current_sample.streaming
    # The streamed text is shown whole (never folded, never scrolled inside its own box).
    assert not view.is_folded() and view.verticalScrollBar().maximum() == 0
    width = view.viewport().width()
    assert column.maximum() == 0
    # The panel gets shorter, so the column scrolls: its text keeps its width (no rewrap away from the end).
    panel.resize(560, 360)
    qtbot.waitUntil(lambda: column.maximum() > 0 and column.isVisible(), timeout=2000)
    assert view.viewport().width() == width
    feed(stream[third : 2 * third])
    qtbot.waitUntil(end_in_view, timeout=2000)  # the column follows the end of the stream
    assert view.verticalScrollBar().maximum() == 0
    column.triggerAction(column.SliderAction.SliderToMinimum)  # the reader scrolls up
    feed(stream[2 * third :])
    qtbot.wait(2 * insp.REPAINT_INTERVAL_MS)
    assert column.value() == 0


def test_the_reflection_stream_goes_to_the_reflection(
    panel: InspectorPanel, qtbot: Any, g2048: Recording
) -> None:
    index = g2048.find(lambda r: bool(of_type(r, ev.REFLECTION)), "a reflection")
    live = g2048.live_for(index)
    until_reflection = live[: next(i for i, r in enumerate(live) if r["type"] == ev.REFLECTION)]
    streamed = "".join(r["data"]["text"] for r in _deltas(until_reflection, purpose="reflection"))
    assert streamed
    panel.show_step(g2048.step(index), [], g2048.session.read_attachment)
    for record in until_reflection:
        panel.append_live(record)
    qtbot.waitUntil(lambda: panel.reflection_view.toPlainText() == streamed, timeout=2000)
    assert panel.answer_view.toPlainText() == ""
    for record in live[len(until_reflection):]:
        panel.append_live(record)
    answer = next(r["data"]["text"] for r in reversed(live) if r["type"] == ev.ANSWER)
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText().endswith(answer), timeout=2000)
    assert panel.reflection_view.toPlainText() == of_type(live, ev.REFLECTION)[0]["data"]["text"]


def _in_viewport(panel: InspectorPanel, widget: Any) -> bool:
    """Whether the top of ``widget`` (a section of the scrolling column) is inside the visible area."""
    top = widget.mapTo(panel.scroll.viewport(), widget.rect().topLeft()).y()
    return top >= 0 and top + 40 <= panel.scroll.viewport().height()


def test_a_live_call_brings_the_reasoning_into_view_unless_the_reader_scrolled(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    panel.resize(680, 470)  # the model panel's size in a 1280x800 window
    panel.set_header(header(tictactoe.session))
    first, second = model_step(tictactoe), model_step(tictactoe, lambda r: bool(of_type(r, ev.REFLECTION)))
    panel.show_step(tictactoe.step(first) - 1, [], tictactoe.session.read_attachment)

    def stream(index: int, part: slice) -> str:
        """Feed the live records of ``index`` up to its reasoning, then ``part`` of the reasoning deltas."""
        live = tictactoe.live_for(index)
        start = live.index(_deltas(live, kind="reasoning")[0])
        for record in live[:start]:
            panel.append_live(record)
        reasoning = _deltas(live, kind="reasoning")
        for record in reasoning[part]:
            panel.append_live(record)
        return "".join(r["data"]["text"] for r in reasoning[: part.stop])

    text = stream(first, slice(0, 6))
    qtbot.waitUntil(lambda: panel.reasoning_view.text() == text, timeout=2000)
    bar = panel.scroll.verticalScrollBar()
    # The column scrolls past the long prompt so the reasoning is in view.
    qtbot.waitUntil(lambda: bar.value() > 0 and _in_viewport(panel, panel.sec_reasoning), timeout=2000)

    # The reader scrolls back up to read the prompt: streaming must not pull the view away again.
    bar.triggerAction(bar.SliderAction.SliderToMinimum)
    assert bar.value() == 0
    rest = _deltas(tictactoe.live_for(first), kind="reasoning")[6:]
    for record in rest:
        panel.append_live(record)
    full = text + "".join(r["data"]["text"] for r in rest)
    qtbot.waitUntil(lambda: panel.reasoning_view.text() == full, timeout=2000)
    qtbot.wait(2 * insp.REPAINT_INTERVAL_MS)
    assert bar.value() == 0

    # The next model step follows the live call again.
    stream(second, slice(0, 3))
    qtbot.waitUntil(lambda: _in_viewport(panel, panel.sec_reasoning) and bar.value() > 0, timeout=2000)


# -- prompt box, layout, header and controls ---------------------------------------------------------


def test_the_prompt_folds_opens_at_the_top_and_opens_full_size(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    index = model_step(tictactoe)
    show(panel, tictactoe, index)
    view = panel.prompt_view
    assert view.is_folded(), "a recorded prompt is longer than its folded first lines"
    assert view.fold_button.text() == f"Show all ({view.line_count} lines)"
    assert view.height() < view.document().size().height()
    assert view.verticalScrollBar().value() == 0, "a prompt is read from the system prompt down"

    assert panel.full_prompt_button.isEnabled() and panel.full_prompt_button.text() == "Open full prompt…"
    qtbot.mouseClick(panel.full_prompt_button, Qt.MouseButton.LeftButton)
    dialog = panel.prompt_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert dialog.view.toPlainText() == view.text()
    assert dialog.view.toPlainText().startswith("── SYSTEM ──")
    assert dialog.view.textCursor().position() == 0
    assert dialog.windowTitle() == f"Prompt — Step {tictactoe.step(index) + 1} · Seat 1 (X)"
    assert panel.open_full_prompt() is dialog  # a second click reuses the one prompt window
    dialog.close()

    # Another step's prompt replaces the text and is folded again, even after it was unfolded.
    qtbot.mouseClick(view.fold_button, Qt.MouseButton.LeftButton)
    assert not view.is_folded() and view.height() >= view.document().size().height()
    later = model_step(tictactoe, lambda r: r[0]["step"] > tictactoe.step(index))
    records = show(panel, tictactoe, later)
    system = of_type(records, ev.PROMPT_BUILT)[0]["data"]["system"]
    assert view.text().startswith(f"── SYSTEM ──\n{system.rstrip()}")
    assert view.is_folded() and view.verticalScrollBar().value() == 0


def test_long_content_never_widens_the_column(panel: InspectorPanel, qtbot: Any, g2048: Recording) -> None:
    records = [dict(r) for r in g2048.session.events_for_step(model_step(g2048))]
    for r in records:  # the recorded prompt, with one unbreakable line added to it
        if r["type"] == ev.PROMPT_BUILT and not r["data"].get("reask"):
            r["data"] = {**r["data"], "user": r["data"]["user"] + "\n" + "x" * 400, "variant": "v-" * 40}
    panel.show_step(records[0]["step"], records, g2048.session.read_attachment)
    qtbot.waitUntil(lambda: panel.scroll.widget().width() > 0, timeout=1000)
    assert panel.scroll.widget().width() <= panel.scroll.viewport().width()


def test_seats_are_numbered_from_one_and_the_simulated_model_named_once(
    panel: InspectorPanel, tictactoe: Recording
) -> None:
    records = show(panel, tictactoe, model_step(tictactoe))
    text = panel.players_label.text().replace("&nbsp;", " ")
    assert "Seat 1 (X)" in text and "Seat 2 (O)" in text and "Seat 0" not in text
    assert "sim · perception both" in text and "sim · sim" not in text
    assert "invalid: re-ask with feedback ×3 → random move" in text
    assert "Seat 1 (X)" in panel.step_label.text() and "Seat 0" not in panel.step_label.text()
    legal = of_type(records, ev.TURN_STARTED)[0]["data"]["legal"]["0"]
    panel.set_controls(model_to_act=True, busy=False, pending={"action": legal[0], "seat": 0, "call": 1,
                                                               "legal": legal}, replay=False)
    assert panel.held_label.text() == f"Held from Seat 1 (X): <b>{legal[0]}</b>"


def test_buttons_emit_signals_and_follow_set_controls(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    index = model_step(tictactoe)
    records = tictactoe.session.events_for_step(index)
    # The step as the panel has it while the model's decision is held: everything before the decision.
    held = records[: records.index(of_type(records, ev.DECISION)[0])]
    panel.set_header(header(tictactoe.session))
    panel.show_step(tictactoe.step(index), held, tictactoe.session.read_attachment)
    legal = of_type(records, ev.TURN_STARTED)[0]["data"]["legal"]["0"][:3]
    proposed = of_type(records, ev.ACTION_PARSED)[-1]
    panel.set_controls(model_to_act=True, busy=False, pending=None, replay=False)
    assert panel.ask_button.isEnabled() and panel.reask_button.isEnabled()
    assert not panel.accept_button.isEnabled() and not panel.override_button.isEnabled()
    assert not panel.cancel_button.isEnabled() and panel.fork_button.isEnabled()
    for button, signal in ((panel.ask_button, panel.sig_ask_requested), (panel.reask_button,
                           panel.sig_reask_requested), (panel.fork_button, panel.sig_fork_requested)):
        with qtbot.waitSignal(signal, timeout=500):
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    panel.set_controls(model_to_act=True, busy=True, pending=None, replay=False)
    assert panel.cancel_button.isEnabled()
    assert not any(b.isEnabled() for b in (panel.ask_button, panel.reask_button, panel.fork_button))
    with qtbot.waitSignal(panel.sig_cancel_requested, timeout=500):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)

    action = proposed["data"]["matched"]
    pending = {"action": action, "seat": 0, "call": proposed["call"], "legal": legal}
    panel.set_controls(model_to_act=True, busy=False, pending=pending, replay=False)
    assert panel.accept_button.isEnabled() and panel.override_button.isEnabled()
    assert not panel.ask_button.isEnabled() and not panel.cancel_button.isEnabled()
    assert panel.held_label.text() == f"Held from Seat 1 (X): <b>{action}</b>"
    assert f"Held for review: {action}" in panel.outcome_label.text()
    assert [panel.override_combo.itemText(i) for i in range(panel.override_combo.count())] == legal
    with qtbot.waitSignal(panel.sig_accept_requested, timeout=500):
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    panel.override_combo.setCurrentIndex(2)
    with qtbot.waitSignal(panel.sig_override_requested, timeout=500) as blocker:
        qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [legal[2]]
    panel.override_combo.setEditText(legal[1])  # typed rather than picked
    with qtbot.waitSignal(panel.sig_override_requested, timeout=500) as blocker:
        qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [legal[1]]

    with qtbot.waitSignal(panel.sig_take_over_requested, timeout=500):
        qtbot.mouseClick(panel.take_over_button, Qt.MouseButton.LeftButton)
    assert panel.take_over_button.text() == "Hand back"
    with qtbot.waitSignal(panel.sig_hand_back_requested, timeout=500):
        qtbot.mouseClick(panel.take_over_button, Qt.MouseButton.LeftButton)
    assert panel.take_over_button.text() == "Take over"

    panel.set_controls(model_to_act=False, busy=False, pending=None, replay=True)
    assert not panel.ask_button.isEnabled() and not panel.accept_button.isEnabled()
    assert not panel.take_over_button.isEnabled() and panel.fork_button.isEnabled()
    assert "No decision held" in panel.held_label.text()


def test_keyboard_shortcuts(panel: InspectorPanel, qtbot: Any) -> None:
    panel.activateWindow()
    panel.set_controls(model_to_act=True, busy=False, pending=None, replay=False)
    with qtbot.waitSignal(panel.sig_ask_requested, timeout=500):
        panel.ask_shortcuts[0].activated.emit()
    panel.set_controls(model_to_act=True, busy=True, pending=None, replay=False)
    with qtbot.waitSignal(panel.sig_cancel_requested, timeout=500):
        panel.cancel_shortcut.activated.emit()
    # A shortcut of a disabled button does nothing.
    with qtbot.assertNotEmitted(panel.sig_ask_requested):
        panel.ask_shortcuts[0].activated.emit()
    assert "Ctrl+Enter" in panel.ask_button.toolTip() and "Esc" in panel.cancel_button.toolTip()


def test_a_step_opens_at_the_top_of_the_panel_once_laid_out(
    panel: InspectorPanel, tictactoe: Recording, qtbot: Any
) -> None:
    panel.show()
    session = tictactoe.session
    bar = panel.scroll.verticalScrollBar()
    for step in range(2):
        bar.setValue(bar.maximum())  # the reader was further down the previous step
        panel.show_step(step, session.events_for_step(step), session.read_attachment)
        QApplication.processEvents()  # the layout settles and the deferred reset runs
        QApplication.processEvents()
        assert bar.value() == 0, step
