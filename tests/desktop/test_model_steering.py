"""Stepping a model by hand: Ask, Re-ask, Accept, Override, Take over / Hand back, Cancel and Fork."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import paused_at_model, point_for, sim_setup, until


def _events(c: Any, type_: str) -> list[dict[str, Any]]:
    return [e for e in sessions.load_session(c.folder).events if e["type"] == type_]


def test_ask_reask_accept_keeps_both_alternatives(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window)
        window.refresh()
        assert window.inspector.ask_button.isEnabled()
        window.inspector.sig_ask_requested.emit()
        await until(lambda: c.pending is not None, what="a held decision")
        first = c.pending
        assert c.count == 0  # held, not applied
        window.inspector.sig_reask_requested.emit()
        await until(lambda: c.pending is not None and c.pending["call"] != first["call"], what="re-asked")
        second = c.pending
        window.inspector.sig_accept_requested.emit()
        await until(lambda: c.count == 1, what="accepted")
        return c, first, second

    c, first, second = run(scenario())
    calls = {r["call"] for r in c.records_for(0) if r["type"] == "answer"}
    assert {first["call"], second["call"]} <= calls
    answers = _events(c, "answer")
    assert len({a["call"] for a in answers if a["step"] == 0}) == 2
    decision = [d for d in _events(c, "decision") if d["step"] == 0][0]
    assert decision["data"]["source"] == "model"
    assert decision["call"] == second["call"]  # the re-asked call's answer was played
    assert decision["data"]["action"] == second["action"]
    assert decision["data"]["accepted_call"] == second["call"]
    applied = _events(c, "action_applied")[0]
    assert applied["data"]["actions"]["0"] == second["action"]


def test_override_by_clicking_the_board(window: Any, qtbot: Any, run: Any) -> None:
    async def scenario() -> tuple[Any, str, str]:
        c = await paused_at_model(window)
        c.ask()
        await until(lambda: c.pending is not None, what="a held decision")
        proposed = c.pending["action"]
        window.refresh()
        assert window.board.interactive
        mine = next(a for a in c.interactive_legal() if a != proposed)
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, mine))
        await until(lambda: c.count == 1, what="override applied")
        return c, proposed, mine

    c, proposed, mine = run(scenario())
    held = [r["call"] for r in c.records_for(0) if r["type"] == "answer"][-1]
    override = _events(c, "override")
    assert override and override[0]["data"] == {
        "proposed": proposed, "action": mine, "by": "human", "rejected_call": held
    }
    assert override[0]["call"] == held
    decision = [d for d in _events(c, "decision") if d["step"] == 0][0]
    assert decision["data"]["source"] == "human"  # the person's action, the model's answer rejected
    assert decision["data"]["action"] == mine and decision["data"]["proposed"] == proposed
    assert decision["call"] == held and decision["data"]["rejected_call"] == held
    assert _events(c, "action_applied")[0]["data"]["actions"]["0"] == mine


def test_take_over_and_hand_back(window: Any, qtbot: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window)
        window.inspector.sig_take_over_requested.emit()
        assert c.taken_over(0)
        await until(lambda: c.waiting_human() is not None, what="my turn in the model's seat")
        window.refresh()
        cell = c.interactive_legal()[0]
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, cell))
        await until(lambda: c.count == 1, what="my move")
        c.step()  # random (O) plays one step while paused
        await until(lambda: c.count == 2, what="random's move")
        await until(lambda: c.waiting_human() is not None, what="my turn again")
        window.inspector.sig_hand_back_requested.emit()
        assert not c.taken_over(0)
        # The waiting turn goes back to the model, whose decision is held while paused.
        await until(lambda: c.pending is not None, what="model decision after hand back")
        c.accept()
        await until(lambda: c.count == 3, what="model move")
        return c, cell

    c, cell = run(scenario())
    changes = _events(c, "player_changed")
    assert [ch["data"]["kind"] for ch in changes] == ["human", "model"]
    decisions = sorted(_events(c, "decision"), key=lambda d: d["step"])
    assert decisions[0]["data"]["source"] == "human" and decisions[0]["data"]["action"] == cell
    assert decisions[2]["data"]["source"] == "model"
    # The animation's caption (and presenter mode's) says that a person played the model's seat.
    from desktop.video_export import caption_of, frames, plan_video

    session = sessions.load_session(c.folder)
    names = [s.name for s in c.game.seats]
    assert caption_of(session.events_for_step(0), names, {0}) == f"X plays {cell} (a person took over)"
    assert "took over" not in caption_of(session.events_for_step(2), names, {0})
    assert next(iter(frames(plan_video(session, c.folder.parent / "unused.gif", first=1, last=1)))).size


def test_cancel_in_flight_call_keeps_the_game(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window, sim_setup(latency=0.05))
        c.ask()
        await until(lambda: c.busy, what="a model call in flight")
        window.refresh()
        window.inspector.sig_cancel_requested.emit()
        await until(lambda: not c.busy, what="cancelled")
        assert c.live and c.count == 0
        failed = [r for r in c.records_for(0) if r["type"] == "model_call_failed"]
        assert failed and failed[-1]["data"].get("kind") == "cancelled"
        # Asking again makes a new call at the same step.
        c.steering.models[0].inner.client.latency = 0
        assert c.ask()
        await until(lambda: c.pending is not None, what="held decision after re-asking")
        assert c.pending["call"] != failed[-1]["call"]
        c.accept()
        await until(lambda: c.count == 1)
        return c

    c = run(scenario())
    assert c.live or c.finished_status is None


def test_fork_from_a_step_starts_a_new_session(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window)
        c.run()
        await until(lambda: c.finished_status is not None, what="game over")
        source = c.folder
        source_state = c.state_at(2)
        before = (source / "manifest.json").read_bytes()
        c.scrub(2)
        await window.fork()
        await until(lambda: c.live and c.folder != source, what="forked session")
        # The fork links to its parent and leaves the parent, a finished game, exactly as it was.
        assert (source / "manifest.json").read_bytes() == before
        return c, source, source_state

    c, source, source_state = run(scenario())
    manifest = json.loads((c.folder / "manifest.json").read_text())
    forked = manifest.get("forked_from") or manifest.get("extra", {}).get("forked_from")
    assert forked == {"session": source.name, "step": 2}
    assert c.current_state() == source_state
    assert c.base == 2
    # The timeline of a fork starts at the fork's step.
    window.refresh()
    # Step N is the decision made on the N-th board: a fork at state 2 starts with step 3.
    assert window.timeline.step_label.text().startswith("Step 3 ")
    if c.head > 2:
        window.timeline.slider.setValue(1)
        assert c.view_step == 3
    started = _events(c, "session_started")[0]
    assert started["data"]["forked_from"] == {"session": source.name, "step": 2}
    assert started["data"]["state"] == source_state.to_json()
    assert c.folder.parent == source.parent


def test_fork_from_a_replayed_session(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = window.controller
        await window.start_game(GameSetup("2048", [SeatSetup("random")], seed=9, max_steps=6, delay=0))
        await until(lambda: c.finished_status is not None, what="six steps")
        source = c.folder
        await window.open_session(source)
        await until(lambda: c.mode == "replay")
        before = (source / "manifest.json").read_bytes()
        expected = c.state_at(4)
        c.scrub(4)
        await window.fork()
        await until(lambda: c.mode == "live" and c.folder != source, what="fork of the replay")
        assert (source / "manifest.json").read_bytes() == before  # the parent's status is left alone
        return c, source, expected

    c, source, expected = run(scenario())
    assert c.current_state() == expected
    assert len(c.episode.match.history) == 4
    assert sessions.load_session(c.folder).manifest["extra"]["forked_from"]["step"] == 4


def test_an_override_after_a_reask_is_labelled_as_a_persons_move(window: Any, qtbot: Any, run: Any) -> None:
    from desktop.inspector_format import StepModel, pills

    async def scenario() -> tuple[Any, str]:
        c = await paused_at_model(window)
        c.ask()
        await until(lambda: c.pending is not None, what="a held decision")
        c.reask()
        await until(lambda: c.pending is not None and c.pending["call"] > 1, what="the second answer")
        proposed = c.pending["action"]
        window.refresh()
        mine = next(a for a in c.interactive_legal() if a != proposed)
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, mine))
        await until(lambda: c.count == 1, what="override applied")
        return c, mine

    c, mine = run(scenario())
    texts = [p.text for p in pills(StepModel.from_records(0, c.records_for(0)), {})]
    assert len(texts) == 2 and not any(t.endswith("· played") for t in texts)
    assert texts[1].endswith(f"→ {mine} (a person's override)")
