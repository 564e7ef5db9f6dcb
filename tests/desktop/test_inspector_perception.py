"""The model panel shows the ``describe`` perception call as a stage of its own and a tool call in the
parse chain, on a session the engine recorded (the simulated model describing 2048's board image, then
playing from the text by calling the move tool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop.episode import png_renderer
from desktop.inspector import InspectorPanel
from desktop.inspector_format import confidence_html
from engine import events as ev
from tests.desktop.test_inspector import header
from tests.sessions.test_steps import Recording, of_type, record_sim_match


@pytest.fixture(scope="module")
def described(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    root: Path = tmp_path_factory.mktemp("describe")
    return record_sim_match(root, "2048", ["sim"], seed=3, max_steps=3, render=png_renderer("2048"),
                            perception="describe", reflection=False, action_format="tools")


@pytest.fixture
def panel(qtbot: Any) -> InspectorPanel:
    widget = InspectorPanel()
    qtbot.addWidget(widget)
    widget.resize(560, 760)
    widget.show()
    return widget


def test_the_perception_call_is_its_own_stage(panel: InspectorPanel, described: Recording) -> None:
    records = described.session.events_for_step(1)
    panel.set_header(header(described.session))
    panel.show_step(described.step(1), records, described.session.read_attachment)
    perception = of_type(records, ev.PERCEPTION)[0]["data"]
    assert panel.sec_perception.isVisible()
    assert panel.perception_view.toPlainText() == perception["text"]
    assert "The image shows 2048 at step 1" in perception["text"]
    # The image the perception model saw, from the session's attachment; the action prompt had none.
    assert panel.perception_thumb is not None and panel.perception_thumb.loaded
    assert not panel.thumbnails
    call = next(r["data"] for r in records
                if r["type"] == ev.MODEL_CALL_FINISHED and r["data"]["purpose"] == "perception")
    label = panel.perception_label.text()
    assert "Described by <b>sim</b>" in label and f"{call['input_tokens']:,}" in label
    assert "prompts/_common/describe.md" in label
    # The action prompt carries the description as its state, and the usage lists both calls.
    assert perception["text"].split("\n\n", 1)[1].strip()[:40] in panel.prompt_view.toPlainText()
    assert "(perception)" in panel.usage_label.text()
    assert "perception&nbsp;describe" in panel.players_label.text()


def test_the_description_streams_into_its_section(panel: InspectorPanel, described: Recording) -> None:
    live = described.live_for(1)
    panel.set_header(header(described.session))
    panel.show_step(described.step(1), [], described.session.read_attachment)
    cut = next(i for i, r in enumerate(live) if r["type"] == ev.PERCEPTION)
    for record in live[:cut]:
        panel.append_live(record)
    panel._flush()
    streamed = "".join(r["data"]["text"] for r in live[:cut]
                       if r["type"] == ev.MODEL_DELTA and r["data"].get("purpose") == "perception")
    assert streamed and panel.perception_view.toPlainText() == streamed
    assert panel.answer_view.toPlainText() == ""  # the description is not the answer


def test_the_parse_chain_shows_the_tool_call(panel: InspectorPanel, described: Recording) -> None:
    records = described.session.events_for_step(1)
    panel.set_header(header(described.session))
    panel.show_step(described.step(1), records, described.session.read_attachment)
    parsed = of_type(records, ev.ACTION_PARSED)[0]["data"]
    chain = panel.parse_label.text()
    assert parsed["format"] == "tools" and "tool call <b>play_move</b>" in chain
    assert f'"move": "{parsed["matched"]}"' in chain.replace("&quot;", '"')
    assert f"matched <b>{parsed['matched']}</b>" in chain
    answer = of_type(records, ev.ANSWER)[0]["data"]
    assert panel.answer_view.toPlainText().endswith(f"play_move({answer['tool_calls'][0]['arguments']})")
    assert "answers&nbsp;as&nbsp;tools" in panel.players_label.text()


def test_confidence_over_the_candidate_moves_in_one_line() -> None:
    html = confidence_html({"move": "left", "chosen": 0.8187, "candidates": {"left": 0.8187, "right": 0.1496},
                            "other": 0.0183})
    assert "confidence (first token): <b>left 82%</b> · right 15% · other 2% · whole move 82%" in html
