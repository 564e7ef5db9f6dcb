"""Issue 7, the model panel: one scrolling column whose long blocks fold, a new step read from its
top, an override picker that never carries a choice to another decision, Ask only when a model can
be asked, and the step numbers people see (step N is the decision made on the N-th board).

Panels are shown sessions the engine recorded (the simulated model on tic-tac-toe and 2048) and
decisions held by the app's real controller.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QToolButton

from desktop import inspector_format as fmt
from desktop.controller import GameSetup, SeatSetup
from desktop.episode import png_renderer
from desktop.inspector import InspectorPanel
from engine import events as ev
from tests.desktop.conftest import paused_at_model, sim_setup, until
from tests.sessions.test_steps import Recording, of_type, record_sim_match


@pytest.fixture(scope="module")
def tictactoe(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    return record_sim_match(
        tmp_path_factory.mktemp("ttt"),
        "tictactoe",
        ["sim", "minimax"],
        seed=3,
        render=png_renderer("tictactoe"),
        perception="both",
    )


@pytest.fixture(scope="module")
def g2048(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    return record_sim_match(
        tmp_path_factory.mktemp("2048"),
        "2048",
        ["sim"],
        seed=3,
        max_steps=8,
        render=png_renderer("2048"),
        perception="both",
    )


@pytest.fixture
def panel(qtbot: Any) -> InspectorPanel:
    widget = InspectorPanel()
    qtbot.addWidget(widget)
    widget.resize(680, 470)  # the model panel's size in a 1280x800 window
    widget.show()
    return widget


def _header(rec: Recording) -> dict[str, Any]:
    game = rec.session.game()
    players = [{**p, "seat_name": game.seats[p["seat"]].name} for p in rec.session.manifest["players"]]
    return {"game": game.title, "players": players, "harness": rec.session.manifest.get("harness") or {}}


def _model_steps(rec: Recording) -> list[int]:
    events = rec.session.events_for_step
    return [i for i in range(rec.session.num_steps) if of_type(events(i), ev.PROMPT_BUILT)]


def _show(panel: InspectorPanel, rec: Recording, index: int) -> list[dict[str, Any]]:
    records = rec.session.events_for_step(index)
    panel.set_header(_header(rec))
    panel.show_step(rec.step(index), records, rec.session.read_attachment)
    return records


def _wheel(widget: Any, down: bool = True) -> None:
    """A mouse-wheel notch over ``widget``, delivered as the window system delivers it."""
    pos = QPointF(widget.width() / 2, min(20, widget.height() / 2))
    delta = QPoint(0, -120 if down else 120)
    event = QWheelEvent(
        pos,
        widget.mapToGlobal(pos),
        QPoint(),
        delta,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget.viewport(), event)


# -- 1. one scroll area; long blocks fold and expand; a new step starts at the top ------------------


def test_the_column_is_the_only_scroll_area_and_long_blocks_fold(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    _show(panel, tictactoe, _model_steps(tictactoe)[0])
    views = [panel.prompt_view, panel.reasoning_view, panel.answer_view, panel.reflection_view]
    prompt = panel.prompt_view
    # The prompt is long: it folds to its first lines, with the count of all of them on the button.
    assert prompt.is_folded() and prompt.fold_button.isVisible()
    assert prompt.fold_button.text() == f"Show all ({prompt.line_count} lines)"
    assert prompt.line_count > len(prompt.text().splitlines()) // 2
    for view in views:
        doc_height = view.document().size().height()
        # Every text is shown whole or folded behind its button: never a box that scrolls inside.
        assert view.is_folded() or view.height() >= doc_height, view.objectName()
        assert view.verticalScrollBar().value() == 0

    column = panel.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: column.maximum() > 0, timeout=2000)
    assert column.value() == 0
    _wheel(prompt)  # the wheel over a folded text scrolls the column, not the text
    assert column.value() > 0 and prompt.verticalScrollBar().value() == 0

    folded_height = prompt.height()
    qtbot.mouseClick(prompt.fold_button, Qt.MouseButton.LeftButton)
    assert not prompt.is_folded() and prompt.fold_button.text() == "Show less"
    assert prompt.height() > folded_height and prompt.height() >= prompt.document().size().height()
    qtbot.mouseClick(prompt.fold_button, Qt.MouseButton.LeftButton)
    assert prompt.is_folded() and prompt.height() == folded_height


def test_long_reasoning_unfolds_into_the_column(panel: InspectorPanel, qtbot: Any, g2048: Recording) -> None:
    """Long reasoning is not squeezed into a small box: unfolded, all of it is in the column."""
    index = _model_steps(g2048)[0]
    every = [
        r["data"]["text"]
        for i in range(g2048.session.num_steps)
        for r in of_type(g2048.session.events_for_step(i), ev.REASONING)
    ]
    long_text = "\n\n".join(every)  # the recorded reasoning of every step, as one long answer would be
    records = [dict(r) for r in g2048.session.events_for_step(index)]
    for record in records:
        if record["type"] == ev.REASONING:
            record["data"] = {**record["data"], "text": long_text}
    panel.set_header(_header(g2048))
    panel.show_step(records[0]["step"], records, g2048.session.read_attachment)
    view = panel.reasoning_view
    assert view.toPlainText() == long_text
    buttons = [
        b
        for b in panel.sec_reasoning.findChildren(QToolButton)
        if b.isVisible() and b.text().startswith("Show all")
    ]
    assert len(buttons) == 1, "long reasoning folds behind one Show all button"
    column = panel.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: column.maximum() > 0, timeout=2000)
    panel.scroll.ensureWidgetVisible(buttons[0])  # the reader scrolls down to it
    qtbot.mouseClick(buttons[0], Qt.MouseButton.LeftButton)
    assert view.height() >= view.document().size().height()
    assert view.verticalScrollBar().maximum() == 0  # nothing scrolls inside the text: the column does
    viewport = panel.scroll.viewport()
    qtbot.waitUntil(lambda: column.maximum() >= view.height() - viewport.height(), timeout=2000)


def test_a_new_step_is_read_from_the_top_of_the_column(
    panel: InspectorPanel, qtbot: Any, tictactoe: Recording
) -> None:
    first, second = _model_steps(tictactoe)[:2]
    panel.set_header(_header(tictactoe))
    panel.show_step(tictactoe.step(first), [], tictactoe.session.read_attachment)
    for record in tictactoe.live_for(first):
        panel.append_live(record)
    qtbot.waitUntil(lambda: panel.parse_label.text().count("executed") == 1, timeout=2000)
    column = panel.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: column.maximum() > 0, timeout=2000)
    column.triggerAction(column.SliderAction.SliderToMaximum)  # the reader reads down to the end
    assert column.value() > 0

    # The next steps arrive live (a bot's, then the model's, quickly: in one repaint).
    start, end = tictactoe.step(first), tictactoe.step(second)
    between = [r for r in tictactoe.live if start < r.get("step", -1) < end]
    live = tictactoe.live_for(second)
    applied = next(i for i, r in enumerate(live) if r["type"] == ev.ACTION_APPLIED)
    for record in between + live[:applied]:
        panel.append_live(record)
    qtbot.waitUntil(
        lambda: (
            panel.step_model.step == tictactoe.step(second)
            and "Played" not in panel.outcome_label.text()
            and panel.usage_label.text() != ""
        ),
        timeout=2000,
    )
    qtbot.wait(60)
    assert column.maximum() > 0 and column.value() == 0
    assert panel.prompt_view.is_folded()

    # Later records of the same step leave the reader's position alone.
    column.triggerAction(column.SliderAction.SliderPageStepAdd)
    kept = column.value()
    assert kept > 0
    for record in live[applied:]:
        panel.append_live(record)
    qtbot.waitUntil(lambda: "Played" in panel.outcome_label.text(), timeout=2000)
    qtbot.wait(60)
    assert column.value() == kept


# -- 2. the override picker starts empty at every held decision ---------------------------------------


def _choices(panel: InspectorPanel) -> list[str]:
    combo = panel.override_combo
    return [combo.itemText(i) for i in range(combo.count())]


def test_the_override_picker_starts_empty_at_every_held_decision(window: Any, run: Any) -> None:
    c = window.controller
    panel = window.inspector
    combo = panel.override_combo

    async def hold() -> dict[str, Any]:
        await until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0, what="turn")
        panel.sig_ask_requested.emit()
        await until(lambda: c.pending is not None, what="held")
        window.refresh()  # what the window's refresh timer does
        assert panel.override_button.isEnabled()
        return dict(c.pending or {})

    async def scenario() -> list[tuple[str, list[str], list[str]]]:
        seen = []
        await window.start_game(sim_setup())
        held = await hold()
        legal = c.interactive_legal()
        assert _choices(panel) == legal and combo.currentText() == ""
        # The reader picks another move, but accepts the model's: the pick must not survive.
        picked = next(a for a in reversed(legal) if a != held["action"])
        combo.setCurrentIndex(legal.index(picked))
        assert combo.currentText() == picked
        window.refresh()
        assert combo.currentText() == picked  # kept while the same decision is held
        panel.sig_accept_requested.emit()
        await until(lambda: c.count == 1, what="accepted")
        c.step()  # the game goes on: the other seat plays
        await until(lambda: c.count == 2, what="the bot's move")
        held = await hold()
        seen.append((combo.currentText(), _choices(panel), c.interactive_legal()))
        combo.setCurrentIndex(combo.count() - 1)
        # A new game: its first held decision starts empty too.
        await window.start_game(sim_setup())
        await hold()
        seen.append((combo.currentText(), _choices(panel), c.interactive_legal()))
        return seen

    for text, choices, legal in run(scenario()):
        assert text == "" and combo.lineEdit().text() == ""
        assert choices == legal


# -- 3. Ask only when a live game has a model to ask --------------------------------------------------


def test_ask_is_off_in_a_replay_of_a_human_versus_bot_game(window: Any, run: Any) -> None:
    c = window.controller
    panel = window.inspector
    setup = GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("random")], seed=4, delay=0)

    async def scenario() -> Path:
        folder = await window.start_game(setup)
        await until(lambda: c.waiting_human() is not None, what="my turn")
        window.refresh()
        assert not window.acts.ask.isEnabled(), "no model seat in a live human-vs-bot game"
        c.board_action(c.interactive_legal()[0])
        await until(lambda: c.count >= 2 and c.waiting_human() is not None, what="my next turn")
        await window.open_session(folder)
        await until(lambda: c.mode == "replay", what="the replay")
        window.refresh()
        return folder

    run(scenario())
    for step in (c.base, c.head):
        c.scrub(step)
        window.refresh()
        assert not window.acts.ask.isEnabled()
        assert not panel.ask_button.isEnabled() and not panel.reask_button.isEnabled()
        assert not panel.take_over_button.isEnabled()

    async def model_game() -> None:
        await paused_at_model(window)
        window.refresh()

    run(model_game())
    assert window.acts.ask.isEnabled() and panel.ask_button.isEnabled()


# -- 4. step numbers: step N is the decision made on the N-th board -----------------------------------


def test_the_panel_numbers_steps_from_one(panel: InspectorPanel, tictactoe: Recording) -> None:
    steps = _model_steps(tictactoe)
    records = _show(panel, tictactoe, steps[0])
    assert tictactoe.step(steps[0]) == 0
    assert panel.step_label.text().startswith("<b>Step 1</b> · Seat 1 (X)")
    dialog = panel.open_full_prompt()
    assert dialog is not None and dialog.windowTitle() == "Prompt — Step 1 · Seat 1 (X)"
    dialog.close()

    later = next(
        i
        for i in steps
        if of_type(tictactoe.session.events_for_step(i), ev.MEMORY)
        and of_type(tictactoe.session.events_for_step(i), ev.MEMORY)[0]["data"]["entries"]
    )
    records = _show(panel, tictactoe, later)
    k = tictactoe.step(later)
    assert panel.step_label.text().startswith(f"<b>Step {k + 1}</b>")
    entries = of_type(records, ev.MEMORY)[0]["data"]["entries"]
    shown = [panel.memory_table.cell_text(r, 0) for r in range(len(entries))]
    assert shown == [str(e["step"] + 1) for e in entries]
    assert fmt.step_number(k) == k + 1
