"""Held keys in real-time games: the board plays the held keys' action on every tick a person is asked
to act on, the longest chord held wins, a new press wins its tick, releasing everything leaves the
game's default action, auto-repeat changes nothing; turn-based games keep one press, one move."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent, QKeyEvent

import engine
import sessions
from desktop.board_view import BoardView, chord_action, chord_keys
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import until

KEYS = {
    "right": (Qt.Key.Key_Right, ""),
    "left": (Qt.Key.Key_Left, ""),
    "up": (Qt.Key.Key_Up, ""),
    "x": (Qt.Key.Key_X, "x"),
    "z": (Qt.Key.Key_Z, "z"),
    "space": (Qt.Key.Key_Space, " "),
}
PLAIN = Qt.KeyboardModifier.NoModifier


def key_event(kind: QEvent.Type, name: str, *, repeat: bool = False) -> QKeyEvent:
    key, text = KEYS[name]
    return QKeyEvent(kind, key, PLAIN, text, repeat)


def press(board: BoardView, name: str, *, repeat: bool = False) -> None:
    board.keyPressEvent(key_event(QEvent.Type.KeyPress, name, repeat=repeat))


def release(board: BoardView, name: str, *, repeat: bool = False) -> None:
    board.keyReleaseEvent(key_event(QEvent.Type.KeyRelease, name, repeat=repeat))


@dataclass
class Waiting:
    """What the board sees of a person asked to act: the observation's step and legal actions."""

    step: int
    legal_actions: tuple[str, ...]


@dataclass
class Ticks:
    """Stands in for the match: a tick opens, the board answers it (or the default plays)."""

    legal: tuple[str, ...]
    step: int = 0
    waiting: Waiting | None = None
    played: list[str | None] = field(default_factory=list)

    def probe(self) -> tuple[int, Ticks] | None:
        return (0, self) if self.waiting is not None else None

    def submit(self, action: str) -> None:
        assert self.waiting is not None, "an action reached the match while no tick was waiting"
        self.played.append(action)
        self.waiting = None
        self.step += 1

    def tick(self, board: BoardView) -> str | None:
        """Open the next tick, tell the board (as the window does when a person starts waiting), and
        close it: the board's action, else ``None`` (the game's default action)."""
        self.waiting = Waiting(self.step, self.legal)
        board.play_held()
        if self.waiting is not None:  # nobody answered: the default action
            self.played.append(None)
            self.waiting = None
            self.step += 1
        return self.played[-1]


@pytest.fixture
def mario_board(qtbot: Any) -> tuple[BoardView, Ticks]:
    game = engine.make("mario")
    board = BoardView()
    qtbot.addWidget(board)
    board.set_game(game)
    ticks = Ticks(tuple(game.actions))
    board.set_turn_probe(ticks.probe)
    board.set_state(None, interactive=True, legal=game.actions)
    board.sig_action_requested.connect(ticks.submit)
    return board, ticks


def test_chords_name_several_keys_and_the_longest_held_wins() -> None:
    assert chord_keys("right+x") == {"right", "x"} and chord_keys("up") == {"up"} and chord_keys("+") == {"+"}
    chords = [(chord_keys(k), a) for k, a in engine.declaration("mario").keymap.items()]
    assert chord_action(chords, {}) is None
    assert chord_action(chords, {"right": 1}) == "right"
    assert chord_action(chords, {"right": 1, "x": 2}) == "right_a"
    assert chord_action(chords, {"right": 1, "x": 2, "z": 3}) == "right_a_b"
    assert chord_action(chords, {"left": 1, "z": 2}) == "left_b"
    assert chord_action(chords, {"left": 3, "space": 1}) == "left_a"
    # Two chords of one key each: the later press wins.
    assert chord_action(chords, {"right": 1, "left": 2}) == "left"
    assert chord_action(chords, {"right": 2, "left": 1}) == "right"


def test_a_held_key_plays_on_every_tick_until_it_is_released(mario_board: tuple[BoardView, Ticks]) -> None:
    board, ticks = mario_board
    assert board.real_time
    assert ticks.tick(board) is None  # nothing held: the default action
    press(board, "right")
    assert [ticks.tick(board) for _ in range(4)] == ["right"] * 4
    assert board.held_keys == ("right",) and board.held_action == "right"
    release(board, "right")
    assert board.held_keys == ()
    assert [ticks.tick(board) for _ in range(3)] == [None] * 3


def test_chords_held_together_play_the_combined_action(mario_board: tuple[BoardView, Ticks]) -> None:
    board, ticks = mario_board
    press(board, "right")
    assert ticks.tick(board) == "right"
    press(board, "x")  # jump while running right
    assert [ticks.tick(board) for _ in range(3)] == ["right_a"] * 3
    press(board, "z")
    assert ticks.tick(board) == "right_a_b"
    release(board, "x")  # A let go, still running right
    assert ticks.tick(board) == "right_b"
    release(board, "right")
    assert ticks.tick(board) == "b"
    release(board, "z")
    press(board, "left")
    press(board, "space")
    assert ticks.tick(board) == "left_a"
    release(board, "left")
    release(board, "space")
    assert ticks.tick(board) is None


def test_auto_repeat_changes_nothing(mario_board: tuple[BoardView, Ticks]) -> None:
    board, ticks = mario_board
    # A repeated press of a key that is not held (its first press went elsewhere) does not hold it.
    press(board, "right", repeat=True)
    assert board.held_keys == () and ticks.tick(board) is None
    press(board, "right")
    for _ in range(3):  # the platform's auto-repeat: a release and a press, both marked repeated
        release(board, "right", repeat=True)
        press(board, "right", repeat=True)
    assert board.held_keys == ("right",)
    assert [ticks.tick(board) for _ in range(3)] == ["right"] * 3
    assert ticks.played.count("right") == 3  # one action a tick, however many events arrived


def test_a_press_between_ticks_plays_on_the_next_tick_even_when_released_at_once(
    mario_board: tuple[BoardView, Ticks],
) -> None:
    board, ticks = mario_board
    press(board, "x")  # a tap between two ticks
    release(board, "x")
    assert ticks.played == []  # no tick was waiting: nothing reached the match yet
    assert ticks.tick(board) == "a"
    assert ticks.tick(board) is None
    # While a tick waits, a press answers it at once.
    ticks.waiting = Waiting(ticks.step, ticks.legal)
    press(board, "up")
    assert ticks.played[-1] == "up" and ticks.waiting is None
    release(board, "up")


def test_a_new_press_wins_its_tick_over_the_held_keys(mario_board: tuple[BoardView, Ticks]) -> None:
    board, ticks = mario_board
    press(board, "right")
    assert ticks.tick(board) == "right"
    press(board, "x")
    release(board, "x")  # jump tapped between ticks while right is held
    assert ticks.tick(board) == "right_a"
    assert ticks.tick(board) == "right"


def test_losing_the_keyboard_releases_everything_and_illegal_actions_are_not_sent(
    qtbot: Any, mario_board: tuple[BoardView, Ticks]
) -> None:
    board, ticks = mario_board
    press(board, "right")
    board.focusOutEvent(QFocusEvent(QEvent.Type.FocusOut))
    assert board.held_keys == () and ticks.tick(board) is None
    press(board, "right")
    ticks.legal = ("noop", "left")  # right is not legal on this tick: the default plays
    assert ticks.tick(board) is None
    # Watching (no person to act): held keys are kept but nothing is played.
    ticks.legal = tuple(engine.declaration("mario").actions)
    board.set_state(None, interactive=False)
    assert ticks.tick(board) is None and board.held_keys == ("right",)


def test_turn_based_games_keep_one_press_one_move(qtbot: Any) -> None:
    game = engine.make("2048")
    board = BoardView()
    qtbot.addWidget(board)
    board.set_game(game)
    ticks = Ticks(("up", "down", "left", "right"))
    board.set_turn_probe(ticks.probe)
    board.set_state(None, interactive=True, legal=ticks.legal)
    requested: list[str] = []
    board.sig_action_requested.connect(requested.append)
    assert not board.real_time
    press(board, "right")
    press(board, "right", repeat=True)
    assert requested == ["right"]
    ticks.waiting = Waiting(1, ticks.legal)
    assert board.play_held() is None and requested == ["right"]  # held keys play nothing here
    assert board.held_keys == ()


def test_a_real_time_board_without_a_probe_plays_one_action_per_press(qtbot: Any) -> None:
    game = engine.make("pong")
    board = BoardView()
    qtbot.addWidget(board)
    board.set_game(game)
    board.set_state(None, interactive=True, legal=("up", "down", "stay"))
    requested: list[str] = []
    board.sig_action_requested.connect(requested.append)
    press(board, "up")
    press(board, "up", repeat=True)
    assert requested == ["up"] and board.held_keys == ("up",)


def test_mario_in_the_window_runs_while_right_is_held(window: Any, run: Any) -> None:
    c = window.controller
    board = window.board

    def decisions() -> list[dict[str, Any]]:
        return [dict(r.get("data") or {}) for r in c.all_records() if r.get("type") == "decision"]

    async def scenario() -> tuple[int, int]:
        await window.start_game(GameSetup("mario", [SeatSetup("human")], seed=1, delay=0))
        # Mario waits for the person's first key (his clock and "no progress" rule do not run before).
        await until(lambda: c.awaiting_first_key, what="Mario waiting for my first key")
        assert c.count == 0
        board.setFocus()
        start = len(decisions())
        press(board, "right")
        await until(lambda: sum(d["action"] == "right" for d in decisions()[start:]) >= 6, what="right held")
        press(board, "x")
        held = len(decisions())
        await until(lambda: sum(d["action"] == "right_a" for d in decisions()[held:]) >= 3, what="jumping")
        release(board, "x")
        release(board, "right")
        released = len(decisions())
        await until(lambda: sum(d["source"] == "default" for d in decisions()[released:]) >= 4, what="noop")
        c.steering.pause()
        # Paused: a key held down plays nothing, although the person's turn still waits.
        await until(lambda: c.waiting_human() is not None, what="the paused turn")
        press(board, "right")
        before = c.count
        assert board.play_held() is None and c.count == before
        release(board, "right")
        return start, released

    start, released = run(scenario())
    session = sessions.load_session(c.folder)
    played = [e["data"] for e in session.events if e["type"] == "decision"]
    # While keys were held, every tick played them (none fell back to the default action).
    during = played[start + 1 : released - 1]
    assert during and all(d["source"] == "human" for d in during)
    actions = {d["action"] for d in during}
    assert actions <= {"right", "right_a"} and "right_a" in actions
    after = played[released + 1 :]
    assert after and all(d["source"] == "default" and d["action"] == "noop" for d in after)
