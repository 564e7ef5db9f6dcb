"""The model panel shows a step's recorded facts, streams live text throttled, and drives the controls."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QColor, QImage

from desktop import inspector as insp
from desktop.inspector import InspectorPanel, demo_header, demo_records

IMAGE_REF = "attachment://sha256-demo.png"


def _png(width: int = 40, height: int = 30) -> bytes:
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("#2f6fd6"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


@pytest.fixture
def panel(qtbot: Any) -> InspectorPanel:
    widget = InspectorPanel()
    qtbot.addWidget(widget)
    widget.resize(560, 700)
    widget.show()
    return widget


def _delta(kind: str, text: str, *, call: int = 1, step: int = 5) -> dict[str, Any]:
    return {
        "type": "model_delta",
        "step": step,
        "seat": 0,
        "call": call,
        "data": {"kind": kind, "text": text},
    }


def test_show_step_displays_prompt_reasoning_reflection_parse_chain_and_verification(
    panel: InspectorPanel,
) -> None:
    png = _png()
    asked: list[str] = []

    def resolve(ref: str) -> bytes | None:
        asked.append(ref)
        return png if ref == IMAGE_REF else None

    panel.set_header(demo_header())
    panel.show_step(4, demo_records(IMAGE_REF), resolve)

    prompt = panel.prompt_view.toPlainText()
    assert "You are playing tic-tac-toe as X" in prompt
    assert "Step 4. Current board (you are X):" in prompt
    assert "SYSTEM" in prompt and "USER" in prompt
    # The invalid-answer re-ask is shown after the prompt, as sent.
    assert "RE-ASK · attempt 2" in prompt and "Answer again, following the output format" in prompt
    assert prompt.index("USER") < prompt.index("RE-ASK")
    assert panel.prompt_view.isReadOnly()
    assert "diagonal (0,0)-(1,1)-(2,2) needs only (2,2)" in panel.reasoning_view.toPlainText()
    assert "O did not block (2,2)" in panel.reflection_view.toPlainText()
    # Both raw answers of the call are kept, the re-prompt marked.
    answer = panel.answer_view.toPlainText()
    assert "MOVE: (0,0)" in answer and "MOVE: (2,2)" in answer and "re-prompt 2" in answer

    chain = panel.parse_label.text()
    assert "Attempt 1 — illegal" in chain and "cell (0,0) is already taken by X" in chain
    assert insp.BAD_COLOR in chain  # the illegal attempt is drawn in red
    assert "Attempt 2 — legal" in chain
    assert (
        "extracted <b>(2,2)</b>" in chain
        and "matched <b>(2,2)</b>" in chain
        and "executed <b>(2,2)</b>" in chain
    )

    table = panel.verify_table
    assert table.rowCount() == 2
    assert [table.cell_text(r, 3) for r in range(2)] == ["✓", "✗"]
    assert table.cell_text(1, 0) == "Can you win this turn? (winning cells)"
    assert (table.cell_text(1, 1), table.cell_text(1, 2)) == ("(none)", "(2,2)")
    assert table.item(1, 0).toolTip() == "outcome: FN"
    assert not panel.verify_empty.isVisible()

    assert panel.memory_table.rowCount() == 4
    assert [panel.memory_table.cell_text(2, c) for c in range(3)] == ["2", "(1,1)", "0"]
    assert panel.memory_table.cell_text(3, 1) == "(2,0)  (O)"  # the opponent's move, marked

    usage = panel.usage_label.text()
    assert "<b>2,062</b>" in usage  # input tokens summed over the attempt's three provider calls
    assert "Call 1 (reflection)" in usage
    assert "reasoning <b>96</b>" in usage
    assert "rate limited (429)" in usage and "waiting 2.0 s" in usage
    assert "free (simulated)" in usage

    assert panel.sim_badge.isVisible()
    assert "SIMULATED MODEL" in panel.sim_badge.text()
    header = panel.players_label.text().replace("&nbsp;", " ")
    assert "perception both" in header and "memory 10" in header and "T 0.7" in header
    assert "3 retries → random" in header

    outcome = panel.outcome_label.text()
    assert "(2,2)" in outcome and "score <b>1 – 0</b>" in outcome
    assert "policy" not in outcome  # the model's own answer was played: no fallback to report

    # The image thumbnail was resolved through the resolver and holds the PNG.
    assert IMAGE_REF in asked
    assert len(panel.thumbnails) == 1 and panel.thumbnails[0].loaded
    assert panel.thumbnails[0].pixmap_full.width() == 40


def test_thumbnail_click_opens_full_size_dialog(panel: InspectorPanel, qtbot: Any) -> None:
    png = _png(300, 200)
    panel.show_step(4, demo_records(IMAGE_REF), lambda ref: png)
    thumb = panel.thumbnails[0]
    qtbot.mouseClick(thumb, Qt.MouseButton.LeftButton)
    assert thumb.dialog is not None and thumb.dialog.isVisible()
    shown = thumb.dialog.image_label.pixmap()
    assert (shown.width(), shown.height()) == (300, 200)
    thumb.dialog.close()


def test_missing_attachment_shows_placeholder(panel: InspectorPanel) -> None:
    panel.show_step(4, demo_records(IMAGE_REF), lambda ref: None)
    assert len(panel.thumbnails) == 1
    assert not panel.thumbnails[0].loaded
    assert "unavailable" in panel.thumbnails[0].text()


def test_reask_alternatives_are_kept_and_selectable(panel: InspectorPanel, qtbot: Any) -> None:
    panel.show_step(4, demo_records(IMAGE_REF), lambda ref: None)
    assert panel.pill_row.isVisible()
    texts = [p.text() for p in panel.pills]
    assert texts == ["Sample 1 · (2,2) · played", "Sample 2 · (2,1)"]
    # The played sample is selected first.
    assert panel.pills[0].isChecked()
    assert "(2,2)" in panel.answer_view.toPlainText()

    qtbot.mouseClick(panel.pills[1], Qt.MouseButton.LeftButton)
    assert panel.pills[1].isChecked() and not panel.pills[0].isChecked()
    assert panel.answer_view.toPlainText().endswith("MOVE: (2,1)")
    assert "Blocking seems safer" in panel.reasoning_view.toPlainText()
    assert "matched <b>(2,1)</b>" in panel.parse_label.text()
    assert "executed" not in panel.parse_label.text()  # sample 2 was not the one played
    assert panel.verify_table.rowCount() == 2
    assert "RE-ASK" not in panel.prompt_view.toPlainText()  # sample 2 needed no re-ask

    qtbot.mouseClick(panel.pills[0], Qt.MouseButton.LeftButton)
    assert "executed <b>(2,2)</b>" in panel.parse_label.text()


def test_append_live_streams_deltas_coalesced(
    panel: InspectorPanel, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel.show_step(5, [], lambda ref: None)
    panel.append_live(
        {
            "type": "turn_started",
            "step": 5,
            "seat": None,
            "call": None,
            "data": {"seats": [0], "legal": {"0": ["(0,2)"]}},
        }
    )
    panel.append_live(
        {
            "type": "model_call_started",
            "step": 5,
            "seat": 0,
            "call": 1,
            "data": {"provider": "sim", "model": "sim"},
        }
    )

    paints: list[int] = []
    original = panel._render_live_text
    monkeypatch.setattr(panel, "_render_live_text", lambda: (paints.append(1), original())[1])

    reasoning = [f"r{i} " for i in range(300)]
    content = [f"c{i}," for i in range(200)]
    for piece in reasoning:
        panel.append_live(_delta("reasoning", piece))
    for piece in content:
        panel.append_live(_delta("content", piece))
    # Nothing is painted per token: the views catch up only when the timer fires.
    assert panel.reasoning_view.toPlainText() != "".join(reasoning)
    qtbot.waitUntil(lambda: panel.reasoning_view.toPlainText() == "".join(reasoning), timeout=2000)
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText() == "".join(content), timeout=2000)
    assert len(paints) <= 3, "500 deltas must be coalesced into a few repaints"
    assert "streaming" in panel.sec_reasoning.summary.text()

    # The assembled events replace the streamed text (same text here) and end the live state.
    panel.append_live(
        {"type": "reasoning", "step": 5, "seat": 0, "call": 1, "data": {"text": "".join(reasoning)}}
    )
    panel.append_live({"type": "answer", "step": 5, "seat": 0, "call": 1, "data": {"text": "MOVE: (0,2)"}})
    panel.append_live(
        {
            "type": "model_call_finished",
            "step": 5,
            "seat": 0,
            "call": 1,
            "data": {"latency_ms": 1200, "input_tokens": 10, "output_tokens": 20, "cost_usd": 0.001},
        }
    )
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText() == "MOVE: (0,2)", timeout=2000)
    assert "$0.0010" in panel.usage_label.text() or "free (simulated)" in panel.usage_label.text()
    assert "streaming" not in panel.sec_reasoning.summary.text()


def test_live_text_follows_bottom_unless_user_scrolled_up(panel: InspectorPanel, qtbot: Any) -> None:
    panel.show_step(5, [], lambda ref: None)
    view = panel.reasoning_view
    for i in range(80):
        panel.append_live(_delta("reasoning", f"line {i}\n"))
    qtbot.waitUntil(lambda: view.toPlainText().endswith("line 79\n"), timeout=2000)
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(0)  # the reader scrolls up
    for i in range(80, 120):
        panel.append_live(_delta("reasoning", f"line {i}\n"))
    qtbot.waitUntil(lambda: view.toPlainText().endswith("line 119\n"), timeout=2000)
    assert bar.value() == 0


def test_reask_live_selects_new_sample(panel: InspectorPanel, qtbot: Any) -> None:
    records = [r for r in demo_records(IMAGE_REF) if r["call"] in (1, None) and r["type"] != "action_applied"]
    panel.show_step(4, records, lambda ref: None)
    panel.append_live(
        {
            "type": "model_call_started",
            "step": 4,
            "seat": 0,
            "call": 2,
            "data": {"provider": "sim", "model": "sim"},
        }
    )
    panel.append_live(_delta("content", "MOVE: (1,0)", call=2, step=4))
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText() == "MOVE: (1,0)", timeout=2000)
    assert len(panel.pills) == 2
    assert panel.pills[1].isChecked()
    assert panel.pills[1].text().endswith("…")


def test_model_call_failure_is_shown(panel: InspectorPanel) -> None:
    records = [
        {
            "type": "model_call_started",
            "step": 2,
            "seat": 1,
            "call": 1,
            "data": {"provider": "openai", "model": "gpt-4o"},
        },
        {
            "type": "model_call_failed",
            "step": 2,
            "seat": 1,
            "call": 1,
            "data": {"error": "Request timed out after 60 s", "kind": "timeout"},
        },
    ]
    panel.show_step(2, records, lambda ref: None)
    assert panel.error_banner.isVisible()
    assert "timeout" in panel.error_banner.text() and "timed out after 60 s" in panel.error_banner.text()
    assert "failed" in panel.sec_usage.summary.text()
    assert panel.verify_table.rowCount() == 0 and panel.verify_empty.isVisible()
    assert panel.verify_empty.text() == "No intermediate questions for this game yet"


def test_bot_step_shows_rationale_and_values(panel: InspectorPanel) -> None:
    panel.set_header(
        {
            "game": "Tic-tac-toe",
            "players": [
                {"seat": 0, "label": "You", "kind": "human", "spec": "human"},
                {"seat": 1, "label": "Minimax bot", "kind": "bot", "spec": "minimax"},
            ],
            "harness": {},
            "simulated": False,
        }
    )
    assert not panel.sim_badge.isVisible()
    records = [
        {
            "type": "decision",
            "step": 3,
            "seat": 1,
            "call": 1,
            "data": {
                "action": "(1,1)",
                "source": "bot",
                "rationale": "minimax depth 9",
                "values": {"(0,2)": -1.0, "(1,1)": 0.0, "(2,2)": -0.5},
            },
        },
        {
            "type": "action_applied",
            "step": 3,
            "seat": None,
            "call": None,
            "data": {
                "actions": {"1": "(1,1)"},
                "rewards": [0, 0],
                "scores": [0, 0],
                "state": {},
                "changed": [4],
                "is_over": False,
            },
        },
    ]
    panel.show_step(3, records, lambda ref: None)
    assert "Minimax bot" in panel.outcome_label.text() and "minimax depth 9" in panel.outcome_label.text()
    table = panel.values_table
    assert table.isVisible() and table.rowCount() == 3
    assert [table.cell_text(r, 0) for r in range(3)] == ["(1,1)", "(2,2)", "(0,2)"]  # best first
    assert table.item(0, 0).font().bold()
    assert not panel.sec_prompt.isVisible()  # no model sections for a bot step
    assert not panel.pill_row.isVisible()


def test_buttons_emit_signals_and_follow_set_controls(panel: InspectorPanel, qtbot: Any) -> None:
    panel.set_controls(model_to_act=True, busy=False, pending=None, replay=False)
    assert panel.ask_button.isEnabled() and panel.reask_button.isEnabled()
    assert not panel.accept_button.isEnabled() and not panel.override_button.isEnabled()
    assert not panel.cancel_button.isEnabled() and panel.fork_button.isEnabled()
    with qtbot.waitSignal(panel.sig_ask_requested, timeout=500):
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(panel.sig_reask_requested, timeout=500):
        qtbot.mouseClick(panel.reask_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(panel.sig_fork_requested, timeout=500):
        qtbot.mouseClick(panel.fork_button, Qt.MouseButton.LeftButton)

    panel.set_controls(model_to_act=True, busy=True, pending=None, replay=False)
    assert panel.cancel_button.isEnabled()
    assert (
        not panel.ask_button.isEnabled()
        and not panel.reask_button.isEnabled()
        and not panel.fork_button.isEnabled()
    )
    with qtbot.waitSignal(panel.sig_cancel_requested, timeout=500):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)

    pending = {"action": "(0,0)", "seat": 0, "call": 1, "legal": ["(0,2)", "(1,0)", "(2,2)"]}
    panel.set_controls(model_to_act=True, busy=False, pending=pending, replay=False)
    assert panel.accept_button.isEnabled() and panel.override_button.isEnabled()
    assert not panel.ask_button.isEnabled() and not panel.cancel_button.isEnabled()
    assert "(0,0)" in panel.held_label.text()
    assert [panel.override_combo.itemText(i) for i in range(panel.override_combo.count())] == pending["legal"]
    with qtbot.waitSignal(panel.sig_accept_requested, timeout=500):
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    panel.override_combo.setCurrentIndex(2)
    with qtbot.waitSignal(panel.sig_override_requested, timeout=500) as blocker:
        qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["(2,2)"]
    panel.override_combo.setEditText("(1,0)")  # typed rather than picked
    with qtbot.waitSignal(panel.sig_override_requested, timeout=500) as blocker:
        qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["(1,0)"]

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


def test_preview_writes_png(tmp_path: Any, qtbot: Any) -> None:
    out = tmp_path / "inspector.png"
    assert insp.main([str(out), "560", "700"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (560, 700)


def test_reflection_stream_goes_to_reflection_not_answer(panel: InspectorPanel, qtbot: Any) -> None:
    panel.show_step(7, [], lambda ref: None)

    def live(type_: str, data: dict[str, Any]) -> None:
        panel.append_live({"type": type_, "step": 7, "seat": 0, "call": 1, "data": data})

    live("model_call_started", {"provider": "sim", "model": "sim", "purpose": "reflection"})
    for word in ("I ", "missed ", "a ", "fork."):
        live("model_delta", {"kind": "content", "text": word, "purpose": "reflection"})
    qtbot.waitUntil(lambda: panel.reflection_view.toPlainText() == "I missed a fork.", timeout=2000)
    assert panel.answer_view.toPlainText() == ""
    live(
        "model_call_finished",
        {"latency_ms": 5, "input_tokens": 1, "output_tokens": 4, "purpose": "reflection"},
    )
    live("reflection", {"text": "I missed a fork."})
    live("model_call_started", {"provider": "sim", "model": "sim", "purpose": "action"})
    live("model_delta", {"kind": "content", "text": "MOVE: (1,1)", "purpose": "action"})
    qtbot.waitUntil(lambda: panel.answer_view.toPlainText() == "MOVE: (1,1)", timeout=2000)
    assert panel.reflection_view.toPlainText() == "I missed a fork."


def test_fallback_policy_is_reported(panel: InspectorPanel) -> None:
    records = [
        {
            "type": "model_call_started",
            "step": 1,
            "seat": 0,
            "call": 1,
            "data": {"provider": "sim", "model": "sim"},
        },
        {"type": "answer", "step": 1, "seat": 0, "call": 1, "data": {"text": "I like turtles"}},
        {
            "type": "model_call_finished",
            "step": 1,
            "seat": 0,
            "call": 1,
            "data": {"latency_ms": 3, "input_tokens": 1, "output_tokens": 3},
        },
        {
            "type": "action_unparsable",
            "step": 1,
            "seat": 0,
            "call": 1,
            "data": {"raw": "I like turtles", "error": "no move found", "attempt": 1},
        },
        {
            "type": "decision",
            "step": 1,
            "seat": 0,
            "call": 1,
            "data": {
                "action": "(0,1)",
                "source": "model",
                "policy": "random",
                "fallback_reason": "no usable answer after 1 attempt",
            },
        },
        {
            "type": "action_applied",
            "step": 1,
            "seat": None,
            "call": None,
            "data": {"actions": {"0": "(0,1)"}, "rewards": [0, 0], "scores": [0, 0], "is_over": False},
        },
    ]
    panel.show_step(1, records, lambda ref: None)
    assert "Invalid-answer policy: random" in panel.outcome_label.text()
    assert "no usable answer after 1 attempt" in panel.outcome_label.text()
    chain = panel.parse_label.text()
    assert "Attempt 1 — unparsable" in chain and "no move found" in chain


def test_long_content_never_widens_the_column(panel: InspectorPanel, qtbot: Any) -> None:
    records = demo_records(IMAGE_REF)
    records[0] = dict(records[0])
    long_user = "x" * 400  # one unbroken line in the prompt
    for r in records:
        if r["type"] == "prompt_built" and not r["data"].get("reask"):
            r["data"] = {**r["data"], "user": long_user, "variant": "a-very-long-prompt-variant-name-" * 3}
    panel.show_step(4, records, lambda ref: None)
    qtbot.waitUntil(lambda: panel.scroll.widget().width() > 0, timeout=1000)
    assert panel.scroll.widget().width() <= panel.scroll.viewport().width()


def _live_records(step: int = 6) -> list[dict[str, Any]]:
    """The start of a live model step: a long prompt, then the call that will stream its reasoning."""
    rules = "\n".join(f"{i}. A rule of the game that takes a whole line to state." for i in range(1, 40))
    base = {"step": step, "seat": 0, "call": 1}
    return [
        {
            "type": "turn_started",
            "step": step,
            "seat": None,
            "call": None,
            "data": {"seats": [0], "legal": {"0": ["(0,2)", "(1,1)"]}},
        },
        {
            **base,
            "type": "prompt_built",
            "data": {"system": "You play X.", "user": rules, "variant": "default"},
        },
        {**base, "type": "model_call_started", "data": {"provider": "sim", "model": "sim"}},
    ]


def _in_viewport(panel: InspectorPanel, widget: Any) -> bool:
    """Whether the top of ``widget`` (a section of the scrolling column) is inside the visible area."""
    top = widget.mapTo(panel.scroll.viewport(), widget.rect().topLeft()).y()
    return 0 <= top and top + 40 <= panel.scroll.viewport().height()


def test_prompt_is_compact_opens_at_the_top_and_opens_full_size(panel: InspectorPanel, qtbot: Any) -> None:
    panel.set_header(demo_header())
    panel.show_step(4, demo_records(IMAGE_REF), lambda ref: None)
    view = panel.prompt_view
    bar = view.verticalScrollBar()
    assert view.height() <= insp.PROMPT_COMPACT_HEIGHT
    assert bar.maximum() > 0, "the demo prompt is longer than the compact box"
    assert bar.value() == 0, "a prompt is read from the system prompt down"

    assert panel.full_prompt_button.isEnabled()
    assert panel.full_prompt_button.text() == "Open full prompt…"
    qtbot.mouseClick(panel.full_prompt_button, Qt.MouseButton.LeftButton)
    dialog = panel.prompt_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert dialog.view.toPlainText() == view.text()
    assert dialog.view.toPlainText().startswith("── SYSTEM ──")
    assert dialog.view.textCursor().position() == 0
    assert dialog.windowTitle() == "Prompt — Step 4 · Seat 1 (X)"
    # A second click reuses the one prompt window.
    assert panel.open_full_prompt() is dialog
    dialog.close()

    # Another prompt replaces the text and again starts at the top, even after reading to the end.
    bar.setValue(bar.maximum())
    panel.show_step(6, _live_records(), lambda ref: None)
    assert view.text().startswith("── SYSTEM ──\nYou play X.")
    assert bar.value() == 0


def test_live_call_brings_reasoning_into_view_unless_the_reader_scrolled(
    panel: InspectorPanel, qtbot: Any
) -> None:
    panel.resize(680, 470)  # the model panel's size in a 1280x800 window
    panel.set_header(demo_header())
    panel.show_step(5, [], lambda ref: None)
    for record in _live_records():
        panel.append_live(record)
    for i in range(6):
        panel.append_live(_delta("reasoning", f"thought {i}\n", step=6))
    qtbot.waitUntil(lambda: panel.reasoning_view.text().endswith("thought 5\n"), timeout=2000)
    bar = panel.scroll.verticalScrollBar()
    # The column scrolls past the long prompt so the reasoning is in view.
    qtbot.waitUntil(lambda: bar.value() > 0 and _in_viewport(panel, panel.sec_reasoning), timeout=2000)

    # The reader scrolls back up to read the prompt: streaming must not pull the view away again.
    bar.triggerAction(bar.SliderAction.SliderToMinimum)
    assert bar.value() == 0
    for i in range(6, 12):
        panel.append_live(_delta("reasoning", f"thought {i}\n", step=6))
    qtbot.waitUntil(lambda: panel.reasoning_view.text().endswith("thought 11\n"), timeout=2000)
    qtbot.wait(60)
    assert bar.value() == 0

    # The next step follows the live call again.
    for record in _live_records(step=7):
        panel.append_live(record)
    panel.append_live(_delta("reasoning", "next\n", step=7))
    qtbot.waitUntil(lambda: _in_viewport(panel, panel.sec_reasoning) and bar.value() > 0, timeout=2000)


def test_seats_are_numbered_from_one_and_providers_named_once(panel: InspectorPanel) -> None:
    panel.set_header(
        {
            "game": "Tic-tac-toe",
            "players": [
                {"seat": 0, "seat_name": "X", "label": "Simulated model", "kind": "model", "spec": "sim"},
                {"seat": 1, "seat_name": "O", "label": "GPT", "kind": "model", "spec": "openai:gpt-4.1-mini"},
            ],
            "harness": {
                "0": {"provider": "sim", "model": "sim", "perception": "both"},
                "1": {"provider": "openai", "model": "gpt-4.1-mini"},
            },
        }
    )
    header = panel.players_label.text().replace("&nbsp;", " ")
    assert "Seat 1 (X)" in header and "Seat 2 (O)" in header and "Seat 0" not in header
    assert "sim · sim" not in header and "sim · perception both" in header
    assert "openai · gpt-4.1-mini · perception text" in header
    assert insp.harness_summary("sim", {}).startswith("sim · perception")

    panel.show_step(4, demo_records(IMAGE_REF), lambda ref: None)
    assert "Seat 1 (X)" in panel.step_label.text() and "Seat 0" not in panel.step_label.text()
    pending = {"action": "(2,2)", "seat": 0, "call": 1, "legal": []}
    panel.set_controls(model_to_act=True, busy=False, pending=pending, replay=False)
    assert panel.held_label.text() == "Held from Seat 1 (X): <b>(2,2)</b>"
