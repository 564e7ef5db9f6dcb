"""The toy plug-in games in the app: offered by the New game dialog, played by a person with the
keyboard, by random players and by the simulated model, drawn by the text fallback, and replayed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

import engine
import sessions
from desktop.controller import GameSetup, SeatSetup
from desktop.model.visibility import shown_records
from desktop.new_game_dialog import NewGameDialog
from renderers.text import TextRenderer
from tests.desktop.conftest import until
from tests.toys import installed


@pytest.fixture(autouse=True)
def toys() -> Iterator[None]:
    with installed():
        yield


def test_the_new_game_dialog_offers_the_toys_and_explains_the_missing_one(window: Any, qtbot: Any) -> None:
    dialog = NewGameDialog(window)
    qtbot.addWidget(dialog)
    ids = [dialog.game.itemData(i) for i in range(dialog.game.count())]
    assert {"highcard", "triple", "dodge"} <= set(ids)
    index = ids.index("needsdep")
    item = dialog.game.model().item(index)
    assert not item.isEnabled()
    assert "pip install 'playtrace-toys[fancy]'" in str(
        dialog.game.itemData(index, Qt.ItemDataRole.ToolTipRole)
    )
    dialog.game.setCurrentIndex(ids.index("triple"))
    assert len(dialog.setup().seats) == 3


def test_a_person_plays_three_seat_simultaneous_rounds_and_replays_them(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller

    async def scenario() -> None:
        setup = GameSetup(
            "triple",
            [SeatSetup("human"), SeatSetup("random"), SeatSetup("sim", {"latency": 0})],
            seed=2,
            delay=0,
        )
        window.start_game(setup)
        while True:
            await until(
                lambda: c.finished_status is not None or (c.waiting_human() and window.board.interactive),
                what="my turn or the end",
            )
            if c.finished_status is not None:
                return
            assert isinstance(window.board.renderer, TextRenderer)  # no renderer of its own: its text view
            before = c.count
            qtbot.keyClick(window.board, "1")
            await until(lambda before=before: c.count == before + 1, what="the round played")

    run(scenario())
    session = sessions.load_session(c.folder)
    assert session.num_steps == 5 and all(set(s["data"]["actions"]) == {"0", "1", "2"} for s in session.steps)
    assert all(s["data"]["actions"]["0"] == "1" for s in session.steps)

    run(c.open_session(c.folder))
    assert c.count == 5 and not c.live
    assert c.state_at(5).is_over


def test_a_person_at_high_card_sees_only_their_own_card(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(
            GameSetup("highcard", [SeatSetup("sim", {"latency": 0}), SeatSetup("human")], seed=4, delay=0)
        )
        await until(
            lambda: c.finished_status is not None or (c.waiting_human() and window.board.interactive),
            what="my turn or the end",
        )
        if c.finished_status is None:  # the model bet: the person must call or fold
            full = c.current_state()
            shown = window.board.state
            assert shown.cards[1] == full.cards[1] and shown.cards[0] == "??"
            # The model panel shows nothing of the model's private view either (its prompt holds its card),
            # even on the model's own step.
            c.scrub(0)
            await until(lambda: not c.following, what="the model's step in view")
            window.refresh()
            assert "Your move" not in _panel_text(window) and full.cards[0] not in _panel_text(window)
            c.go_live()
            window.refresh()
            await until(lambda: c.following and window.board.interactive, what="back to the live step")
            qtbot.keyClick(window.board, "f")
            await until(lambda: c.finished_status is not None, what="the fold")
            checked.append(full.cards[0])

    checked: list[str] = []
    run(scenario())
    events = sessions.load_session(c.folder).events
    prompts = [e for e in events if e["type"] == "prompt_built"]
    assert prompts and checked and checked[0] in prompts[0]["data"]["user"]  # the check above could fail
    live = json.dumps(shown_records(engine.make("highcard"), events, [1], live=True))
    assert checked[0] not in live and '"type": "prompt_built"' not in live
    assert checked[0] in json.dumps(shown_records(engine.make("highcard"), events, [1], live=False))


def _panel_text(window: Any) -> str:
    from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit

    texts = [w.text() for w in window.inspector.findChildren(QLabel)]
    texts += [w.toPlainText() for w in window.inspector.findChildren(QTextEdit)]
    texts += [w.toPlainText() for w in window.inspector.findChildren(QPlainTextEdit)]
    return "\n".join(texts)


def test_a_real_time_game_plays_the_default_action_for_a_silent_person(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("dodge", [SeatSetup("human")], seed=1, options={"length": 5}, delay=0))
        await until(lambda: c.waiting_human() and window.board.interactive, what="the first tick")
        qtbot.keyClick(window.board, Qt.Key.Key_Left)
        await until(lambda: c.count >= 1, what="the key's move")
        # Then the person waits: each later tick plays the default action.
        await until(lambda: c.finished_status is not None, timeout=10, what="the end of the game")

    run(scenario())
    decisions = [e["data"] for e in sessions.load_session(c.folder).events if e["type"] == "decision"]
    assert decisions[0]["source"] == "human" and decisions[0]["action"] == "left"
    assert decisions[1:] and all(d["source"] == "default" and d["action"] == "stay" for d in decisions[1:])
