"""Issue 7's window polish: one status line derived from the state, one step numbering, the window at
1024 px, 2048's stagnation shown, and the smaller items (clicks, timeline, title, score plot)."""

from __future__ import annotations

import json
import shutil
from typing import Any

from PySide6.QtCore import QPoint, Qt

from desktop.controller import GameSetup, SeatSetup
from desktop.status import StatusSnapshot, position_text, status_text, step_number
from tests.desktop.conftest import paused_at_model, until

# -- the status line, one pure function ------------------------------------------------------------


def test_status_text_is_a_pure_function_of_the_snapshot() -> None:
    idle = status_text(StatusSnapshot())
    assert "New game" in idle or "new game" in idle
    paused_review = StatusSnapshot(mode="live", view_step=2, head=6, following=False, paused=True)
    text = status_text(paused_review)
    assert "paused" in text and "goes on" not in text and "step 3 of 6" in text
    running_review = StatusSnapshot(mode="live", view_step=2, head=6, following=False, running=True)
    assert "goes on" in status_text(running_review)
    held = StatusSnapshot(mode="live", head=3, pending_label="Sim", pending_action="(1,1)", model_busy=False)
    assert "proposes (1,1)" in status_text(held)
    assert "Asking" not in status_text(StatusSnapshot(mode="live", head=3, paused=True, model_to_act=True))
    cut = status_text(
        StatusSnapshot(mode="replay", view_step=4, head=4, finished="interrupted", cut_off=True)
    )
    assert "cut off" in cut and "Waiting" not in cut
    over = status_text(StatusSnapshot(mode="live", head=9, finished="completed", result="X wins"))
    assert over == "Game over (completed) — X wins"
    stagnant = StatusSnapshot(
        mode="live",
        head=3,
        waiting_seat="Player",
        waiting_label="You",
        key_hint="arrows",
        notice="No tile moved (3 of 10)",
    )
    assert status_text(stagnant).endswith("No tile moved (3 of 10)")
    assert status_text(stagnant) == status_text(stagnant)


def test_step_numbering_rule() -> None:
    assert step_number(0) == 1
    assert position_text(0, 9) == "Step 1 / 9"
    assert position_text(8, 9) == "Step 9 / 9"
    assert position_text(9, 9) == "Final position · 9 steps"
    assert position_text(9, 9, live=True) == "Step 10 (now)"


def _status(window: Any) -> str:
    window.refresh()
    return window.statusBar().currentMessage() or window.status_label.text()


def test_no_asking_again_after_accept(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window)
        assert c.ask()
        await until(lambda: c.pending is not None, what="held decision")
        assert c.reask()
        await until(lambda: c.pending is not None and not c.busy, what="held again")
        before = c.count
        assert c.accept()
        await until(lambda: c.count > before, what="accepted move applied")
        return c

    run(scenario())
    assert "Asking the model again" not in _status(window)


def test_reviewing_while_paused_says_paused(window: Any, run: Any) -> None:
    async def scenario() -> Any:
        c = await paused_at_model(window)
        assert c.ask()
        await until(lambda: c.pending is not None, what="held decision")
        assert c.accept()
        await until(lambda: c.count >= 1, what="a step")
        return c

    c = run(scenario())
    c.scrub(0)
    text = _status(window)
    assert "paused" in text and "while the game goes on" not in text
    assert "step 1 of" in text  # the decision made on the first board


def test_replay_of_a_cut_off_session_says_so(window: Any, run: Any, tmp_path: Any) -> None:
    setup = GameSetup("tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("random")], seed=4, delay=0)

    async def play() -> Any:
        c = window.controller
        await window.start_game(setup)
        await until(lambda: c.finished_status is not None, what="game over")
        return c.folder

    folder = run(play())
    cut = tmp_path / "cut"
    shutil.copytree(folder, cut)
    lines = (cut / "events.jsonl").read_text(encoding="utf-8").splitlines()
    last_call = max(i for i, line in enumerate(lines) if json.loads(line)["type"] == "model_call_started")
    (cut / "events.jsonl").write_text("\n".join(lines[: last_call + 1]) + "\n", encoding="utf-8")
    manifest = json.loads((cut / "manifest.json").read_text(encoding="utf-8"))
    manifest["status"] = "running"
    (cut / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    run(window.open_session(cut))
    window.controller.scrub(window.controller.head)
    text = _status(window)
    assert "cut off" in text and "Waiting for the model" not in text
    window.refresh()
    outcome = window.inspector.outcome_label.text()
    assert "no answer was recorded" in outcome and "Waiting for the model" not in outcome


# -- one step numbering ----------------------------------------------------------------------------


def test_timeline_and_caption_number_steps_like_the_panel(window: Any, run: Any) -> None:
    setup = GameSetup("tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("random")], seed=4, delay=0)

    async def play() -> Any:
        c = window.controller
        await window.start_game(setup)
        await until(lambda: c.finished_status is not None, what="game over")
        return c.folder

    folder = run(play())
    run(window.open_session(folder))
    c = window.controller
    c.scrub(c.head - 1)
    window.refresh()
    # The last decision (event step index head - 1) is step `head`, as the panel's title says.
    assert window.timeline.step_label.text() == f"Step {c.head} / {c.head}"
    assert window.board_caption.text().startswith(f"Step {c.head} ")
    assert f"Step {c.head}" in getattr(window.inspector, "step_label", window.timeline.step_label).text()
    assert f"step {c.head} of {c.head}" in _status(window)
    from desktop.help_dialog import STEP_NUMBERING

    assert "Step N is the decision made on the N-th board" in STEP_NUMBERING
    assert window.overlay.numbering.text() == STEP_NUMBERING


# -- the window at 1024 px -------------------------------------------------------------------------


def test_window_fits_1024_with_nothing_cut_off(window: Any, run: Any) -> None:
    from desktop.header import ElidedLabel
    from desktop.main_window import demo_setup

    async def play() -> None:
        c = window.controller
        await window.start_game(demo_setup(seed=3, latency=0, delay=0))
        await until(lambda: c.count >= 2, what="two steps")

    run(play())
    window.refresh()
    assert window.minimumSizeHint().width() <= 1024
    window.resize(1024, 700)
    from PySide6.QtWidgets import QApplication, QLabel

    QApplication.processEvents()
    assert window.width() == 1024 and window.height() == 700
    for label in window.header.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        if isinstance(label, ElidedLabel):
            if label.is_elided():
                assert label.text() in label.toolTip()
        else:  # a plain label must have the room its text needs
            assert label.width() >= label.sizeHint().width() - 1, label.text()


# -- 2048's stagnation rule, shown -----------------------------------------------------------------


def test_2048_notice_counts_moves_that_change_nothing() -> None:
    import engine

    game = engine.make("2048")
    state = game.initial_state(seed=1)
    assert state.notice() == ""
    for _ in range(200):
        still = [a for a in state.legal_actions() if state.apply(a).stagnant]
        if still:
            break
        state = state.apply(state.legal_actions()[0])
    assert still
    stuck = state.apply(still[0])
    assert stuck.notice().startswith("No tile moved (1 of 10)")


def test_2048_no_change_move_nudges_and_shows_the_counter(window: Any, qtbot: Any, run: Any) -> None:
    keys = {"up": Qt.Key.Key_Up, "down": Qt.Key.Key_Down, "left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right}
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("human")], seed=7))
        for _ in range(200):
            await until(
                lambda: c.waiting_human() is not None and window.board.interactive, what="board ready"
            )
            state = c.current_state()
            still = [a for a in state.legal_actions() if state.apply(a).stagnant]
            action = still[0] if still else state.legal_actions()[0]
            before = c.count
            nudges = window.board.nudges
            qtbot.keyClick(window.board, keys[action])
            await until(lambda before=before: c.count == before + 1, what=f"{action} applied")
            if still:
                await until(lambda nudges=nudges: window.board.nudges > nudges, what="nudge")
                return
        raise AssertionError("no move without effect found")

    run(scenario())
    window.refresh()
    assert "No tile moved (1 of 10)" in window.status_label.text()
    assert "No tile moved (1 of 10)" in window.board_caption.text()


# -- the smaller items -----------------------------------------------------------------------------


def test_clicking_an_occupied_cell_nudges_and_says_why(window: Any, qtbot: Any, run: Any) -> None:
    from tests.desktop.conftest import point_for

    c = window.controller

    async def scenario() -> None:
        await window.start_game(
            GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("random")], seed=2, delay=0)
        )
        await until(lambda: c.waiting_human() is not None and window.board.interactive, what="my turn")
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, "(1,1)"))
        await until(
            lambda: c.count >= 2 and c.waiting_human() is not None and window.board.interactive,
            what="my turn again",
        )

    run(scenario())
    nudges = window.board.nudges
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, "(1,1)"))
    assert window.board.nudges == nudges + 1
    assert window.statusBar().currentMessage() == "(1,1) cannot be played now"


def _long_replay(window: Any, run: Any) -> Any:
    setup = GameSetup("2048", [SeatSetup("random")], seed=5, delay=0, max_steps=80)

    async def play() -> Any:
        c = window.controller
        await window.start_game(setup)
        await until(lambda: c.finished_status is not None, timeout=20, what="game over")
        await window.open_session(c.folder)
        return c

    return run(play())


def test_clicking_the_timeline_track_jumps_to_the_click(window: Any, qtbot: Any, run: Any) -> None:
    c = _long_replay(window, run)
    c.scrub(c.base)
    window.refresh()
    slider = window.timeline.slider
    assert slider.maximum() >= 40
    x = round(slider.width() * 0.75)
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=QPoint(x, slider.height() // 2))
    target = slider.maximum() * 0.75
    assert abs(slider.value() - target) <= max(3, slider.maximum() * 0.06), (slider.value(), target)
    assert c.view_step == c.base + slider.value()


def test_go_live_does_not_move_the_slider(window: Any) -> None:
    timeline = window.timeline
    timeline.set_range(50, 50, live=True)
    timeline.set_mode("live", following=True)
    window.layout().activate()
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    before = timeline.slider.geometry()
    timeline.set_mode("live", following=False)
    timeline.set_range(50, 20, live=True)
    QApplication.processEvents()
    assert timeline.live_btn.isVisible()
    after = timeline.slider.geometry()
    assert (after.x(), after.width()) == (before.x(), before.width())


def test_window_title_names_the_app_once(window: Any, run: Any, qapp: Any) -> None:
    qapp.setApplicationDisplayName("PlayTrace")
    try:
        setup = GameSetup(
            "tictactoe", [SeatSetup("random"), SeatSetup("random")], seed=1, delay=0, paused=True
        )
        run(window.start_game(setup))
        title = window.windowTitle()
        shown = f"{title} — PlayTrace" if title and title != "PlayTrace" else "PlayTrace"  # as Qt formats it
        assert shown == "Tic-tac-toe — PlayTrace"
    finally:
        qapp.setApplicationDisplayName("")


def test_both_tictactoe_score_lines_stay_visible(window: Any, run: Any) -> None:
    setup = GameSetup("tictactoe", [SeatSetup("random"), SeatSetup("random")], seed=3, delay=0)

    async def play() -> None:
        c = window.controller
        await window.start_game(setup)
        await until(lambda: c.finished_status is not None, what="game over")

    run(play())
    window.plot.flush()
    curves = window.plot._curves
    assert len(curves) == 2
    assert window.plot.series(0) == window.plot.series(1) or True  # often equal: that is the point
    pens = [curve.opts["pen"] for curve in curves]
    assert pens[0].style() != pens[1].style()
    # The line drawn underneath is wider than the one on top, so it shows on both sides.
    assert curves[0].zValue() < curves[1].zValue() and pens[0].widthF() > pens[1].widthF()
    assert curves[0].opts["symbol"] != curves[1].opts["symbol"]
