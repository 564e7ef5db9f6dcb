"""Steering commands clicked in quick succession or out of order (take over, cancel, re-ask)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import paused_at_model, point_for, sim_setup, until


def test_take_over_while_the_model_is_thinking_lets_me_play(window: Any, qtbot: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window, sim_setup(latency=5))
        assert c.ask()
        await until(lambda: c.busy, what="a model call in flight")
        assert c.take_over()
        await until(lambda: not c.busy, what="the call cancelled")
        # No further Ask/Step needed: the seat is mine now and the game waits for my move.
        await until(lambda: c.waiting_human() is not None, timeout=3, what="my turn in the model's seat")
        window.refresh()
        cell = c.interactive_legal()[0]
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, cell))
        await until(lambda: c.count == 1, timeout=3, what="my move applied")
        return c, cell

    c, cell = run(scenario())
    decision = [e for e in sessions.load_session(c.folder).events if e["type"] == "decision"][0]
    assert decision["data"]["source"] == "human" and decision["data"]["action"] == cell


def test_cancelled_reask_then_ask_holds_the_new_calls_number(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window, sim_setup())
        c.ask()
        await until(lambda: c.pending is not None, what="a held decision")
        first = c.pending
        c.steering.models[0].inner.client.latency = 5
        assert c.reask()
        await until(lambda: c.busy, what="the re-ask in flight")
        reask_call = c.steering.models[0].last_observation.call
        assert c.cancel()
        await until(lambda: not c.busy, what="the re-ask cancelled")
        c.steering.models[0].inner.client.latency = 0
        assert c.ask()
        await until(lambda: c.pending is not None, what="held decision after asking again")
        held = c.pending
        c.accept()
        await until(lambda: c.count == 1, what="accepted")
        return c, first, reask_call, held

    c, first, reask_call, held = run(scenario())
    answers = {r["call"]: r for r in c.records_for(0) if r["type"] == "answer"}
    assert held["call"] not in (first["call"], reask_call)
    assert held["call"] in answers
    events = sessions.load_session(c.folder).events
    decision = [d for d in events if d["type"] == "decision" and d["step"] == 0][0]
    assert decision["data"]["accepted_call"] == held["call"]
    assert decision["call"] == held["call"]  # the decision names the call whose answer was played


def _finished_game(window: Any, run: Any) -> Any:
    c = window.controller

    async def scenario() -> None:
        setup = GameSetup("tictactoe", [SeatSetup("random"), SeatSetup("random")], seed=8, delay=0)
        await window.start_game(setup)
        await until(lambda: c.finished_status is not None, what="game over")

    run(scenario())
    folder = c.folder
    run(c.close())
    return folder


def test_session_torn_before_its_first_event_opens_without_errors(window: Any, qtbot: Any, run: Any) -> None:
    folder = _finished_game(window, run)
    c = window.controller
    # The app died while writing the very first line: not even the initial state survived.
    (folder / "events.jsonl").write_text('{"v": 1, "seq": 0, "type": "sess', encoding="utf-8")

    async def scenario() -> None:
        task = window.open_session(folder)
        await until(lambda: task.done(), what="opened")
        await until(lambda: c.mode == "replay", what="replay mode")
        window.refresh()
        for _ in range(3):
            c.scrub_by(1)
            c.scrub_by(-1)
            window.refresh()

    run(scenario())
    assert c.warnings and window.warning_banner.isVisible()
    assert window.board.state is None  # nothing to draw, and no exception from trying
    assert window.timeline.count == 0


def test_a_long_live_game_does_not_keep_every_image_in_memory(window: Any, run: Any) -> None:
    from desktop.session_model import BLOB_CACHE

    c = window.controller
    setup = GameSetup("2048", [SeatSetup("sim", {"latency": 0, "perception": "image", "memory": 0,
                                                 "reflection": False})], seed=3, delay=0)

    async def scenario() -> None:
        await window.start_game(setup)
        await until(lambda: c.count >= BLOB_CACHE + 8 or c.finished_status is not None, timeout=20,
                    what="many steps")
        c.pause()

    run(scenario())
    images = [r["data"]["image"] for k in range(c.base, c.head) for r in c.records_for(k)
              if r["type"] == "prompt_built" and r["data"].get("image")]
    assert len(set(images)) > BLOB_CACHE
    assert len(c.doc.blobs) <= BLOB_CACHE
    first = c.resolve(images[0])  # an old image is still there, read back from the session folder
    assert first is not None and first.startswith(b"\x89PNG")


def test_a_move_queued_in_one_game_is_not_played_in_the_next(window: Any, run: Any) -> None:
    c = window.controller
    setup = GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("random")], seed=5, delay=0)

    async def scenario() -> None:
        await c.start(setup)
        # A click that lands before the new match reached the person's turn is kept for that turn...
        assert c.board_action("(0,0)")
        # ...but this game is replaced by another before it could be played.
        await c.start(setup)
        # A kept move is submitted the moment its turn begins: a turn seen waiting for me is one in
        # which no earlier click was played (and the closed game's steering forgot its click).
        await until(lambda: c.waiting_human() is not None, what="my first turn in the new game")

    run(scenario())
    assert c.count == 0  # the new game waits for my move; the old click was not played in it
    assert c.waiting_human() is not None


def test_a_slow_open_does_not_replace_a_game_started_after_it(
    window: Any, run: Any, monkeypatch: Any
) -> None:
    import threading

    folder = _finished_game(window, run)
    c = window.controller
    real_load = sessions.load_session
    loaded = threading.Event()  # the big session on a slow disk is read only when the test says so

    def slow_load(path: Any) -> Any:
        loaded.wait(timeout=10)  # (this runs in a worker thread)
        return real_load(path)

    monkeypatch.setattr(sessions, "load_session", slow_load)
    setup = GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("random")], seed=5, delay=0)

    async def scenario() -> None:
        opening = window.open_session(folder)
        starting = window.start_game(setup)  # the person changed their mind: this click came last
        await until(lambda: starting.done(), what="the new game started")
        loaded.set()  # only now does the earlier open finish reading
        await until(lambda: opening.done(), what="the open finished")
        await until(lambda: c.waiting_human() is not None, what="my turn")

    run(scenario())
    assert c.mode == "live" and c.live
    assert c.folder != folder


def test_export_zips_off_the_ui_thread_and_reports_where(window: Any, run: Any, monkeypatch: Any,
                                                         tmp_path: Any) -> None:
    import threading

    from PySide6.QtWidgets import QFileDialog

    _finished_game(window, run)
    c = window.controller
    run(c.open_session(c.root / next(p.name for p in c.root.iterdir())))
    dest = tmp_path / "out.zip"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(dest), "")))
    threads: list[threading.Thread] = []
    real_export = sessions.export_zip

    def spy(src: Any, target: Any) -> Any:
        threads.append(threading.current_thread())
        return real_export(src, target)

    monkeypatch.setattr(sessions, "export_zip", spy)

    async def scenario() -> None:
        window.export_session()
        await until(lambda: "Exported to" in window.statusBar().currentMessage(), what="exported")

    run(scenario())
    assert dest.exists()
    assert threads and threads[0] is not threading.main_thread()


def test_reviewing_an_old_step_is_not_replaced_by_streaming_text(window: Any, run: Any) -> None:
    c = window.controller
    setup = GameSetup("tictactoe", [SeatSetup("sim", {"latency": 0, "thinking": True}), SeatSetup("random")],
                      seed=4, delay=0)
    deltas: list[Any] = []

    async def scenario() -> None:
        await window.start_game(setup)
        await until(lambda: c.count >= 2, what="two steps played")
        c.steering.models[0].inner.client.latency = 0.01  # slow the model down from here on
        await until(lambda: c.busy and c.records_for(c.head), what="the model thinking about the next step")
        c.scrub(c.base)  # look back at the first step while the model thinks about the next one
        assert window.inspector.step_model.step == c.base
        c.episode.match.subscribe(lambda e: e.type == "model_delta" and deltas.append(e))
        before = len(deltas)
        await until(lambda: len(deltas) > before + 2, what="reasoning streaming in")
        window.inspector._flush()

    run(scenario())
    assert not c.following
    assert window.inspector.step_model.step == c.base


def test_the_speed_shown_is_the_speed_played(window: Any, run: Any) -> None:
    from desktop.timeline import SPEEDS

    c = window.controller
    fast = next(i for i, (_label, d) in enumerate(SPEEDS) if d == 0.1)
    window.timeline.speed.setCurrentIndex(fast)  # the person chose 4× before starting a game
    setup = GameSetup("tictactoe", [SeatSetup("random"), SeatSetup("random")], seed=2, paused=True)

    async def scenario() -> None:
        await window.start_from_dialog(setup)  # the New game dialog's setup carries no speed
        assert c.pacer is not None and c.pacer.delay == 0.1
        await window.start_demo(latency=0)
        await until(lambda: c.mode == "live", what="demo")
        window._on_session_changed()

    run(scenario())
    assert c.pacer is not None
    assert window.timeline.delay == c.pacer.delay  # the demo's own pace is what the combo shows


def test_closing_a_taken_over_game_leaves_no_task_waiting_for_me(window: Any, run: Any) -> None:
    import asyncio

    c = window.controller

    async def scenario() -> list[Any]:
        await paused_at_model(window, sim_setup())
        assert c.take_over()
        await until(lambda: c.waiting_human() is not None, what="my turn in the model's seat")
        me = asyncio.current_task()
        turns = [t for t in asyncio.all_tasks() if not t.done() and t is not me
                 and "act" in t.get_coro().__qualname__]
        assert turns  # the turn waiting for me
        await c.close()
        # Cancelled tasks end on their next turn of the loop: wait for them to end, not for a time.
        await asyncio.wait(turns, timeout=5)
        return [t for t in turns if not t.done()]

    leftovers = run(scenario())
    assert leftovers == []


def test_closing_the_browser_while_it_lists_leaves_no_failed_task(
    window: Any, run: Any, monkeypatch: Any
) -> None:
    import threading

    from desktop.session_browser import SessionBrowser

    _finished_game(window, run)
    real_list = SessionBrowser._list
    listing = threading.Event()
    release = threading.Event()  # thousands of sessions: the list arrives only when the test says so
    listed = threading.Event()

    def slow_list(self: Any) -> Any:
        listing.set()
        release.wait(timeout=10)  # (this runs in a worker thread)
        try:
            return real_list(self)
        finally:
            listed.set()

    monkeypatch.setattr(SessionBrowser, "_list", slow_list)

    async def scenario() -> Any:
        window.open_browser()
        browser = window._dialogs[-1]
        task = browser._task
        assert task is not None
        await until(listing.is_set, what="the listing under way")
        deleted: list[bool] = []
        browser.destroyed.connect(lambda *_: deleted.append(True))
        browser.reject()  # Esc before the list arrived; the window then deletes the dialog
        await until(lambda: deleted, what="the dialog deleted")
        release.set()  # the list arrives after the dialog is gone
        await until(listed.is_set, what="the listing finished")
        await until(lambda: task.done(), what="listing task ended")
        return task

    task = run(scenario())
    assert task.cancelled() or task.exception() is None


def test_take_over_mid_call_then_hand_back_holds_the_decision_once(window: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        await paused_at_model(window, sim_setup(latency=5))
        assert c.ask()
        await until(lambda: c.busy, what="a model call in flight")
        assert c.take_over()
        await until(lambda: c.waiting_human() is not None, what="my turn in the model's seat")
        c.steering.models[0].inner.client.latency = 0
        assert c.hand_back()
        await until(lambda: c.pending is not None, what="the model's decision held")
        held = c.pending
        assert c.accept()
        # Next comes random's turn, paused: the match waits for Step. A second hold of the same
        # decision would come before that, with nothing applied.
        await until(lambda: c.pending is not None or (c.count == 1 and c.pacer.waiting),
                    what="applied and paused before the next turn (or held again)")
        assert c.pending is None, f"the same decision was held twice: {held} then {c.pending}"
        assert c.count == 1

    run(scenario())


def test_a_new_game_that_cannot_start_keeps_the_current_one(window: Any, run: Any) -> None:
    c = window.controller
    good = GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("random")], seed=5, delay=0)
    bad = GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("no-such-player")], seed=5, delay=0)

    async def scenario() -> None:
        await window.start_game(good)
        await until(lambda: c.waiting_human() is not None, what="my turn")
        folder = c.folder
        task = window.start_game(bad)
        await until(lambda: task.done(), what="the failed start")
        assert window.last_error and "Could not start the game" in window.last_error
        assert c.live and c.folder == folder  # the game being played was not thrown away
        assert c.board_action("(1,1)")
        await until(lambda: c.count >= 1, what="my move still counts")

    run(scenario())


def test_an_interrupted_session_does_not_replay_as_running(window: Any, run: Any) -> None:
    import json

    folder = _finished_game(window, run)
    c = window.controller
    # The app was killed mid-game: the manifest still says "running" and no session_finished was written.
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["status"] = "running"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if '"session_finished"' not in line][:-2]
    (folder / "events.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")

    async def scenario() -> None:
        await window.open_session(folder)
        await until(lambda: c.mode == "replay", what="replay")
        window.refresh()

    run(scenario())
    assert c.status_label() == "interrupted"
    assert window.header.status.text() == "INTERRUPTED"
    assert "interrupted" in window.warning_banner.text.text()


def test_session_warnings_are_shown_as_text_not_markup(window: Any, run: Any) -> None:
    import json

    folder = _finished_game(window, run)
    c = window.controller
    odd = {"v": 1, "seq": 9999, "ts": "2026-01-01T00:00:00Z", "type": "<b>x</b>", "step": 0, "seat": None,
           "call": None, "data": {}}
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(odd) + "\n")

    async def scenario() -> None:
        await window.open_session(folder)
        await until(lambda: c.mode == "replay", what="replay")

    run(scenario())
    assert any("<b>x</b>" in w for w in c.warnings)
    assert "&lt;b&gt;x&lt;/b&gt;" in window.warning_banner.text.text()
