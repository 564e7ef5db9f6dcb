"""Chess against Stockfish on the app's event loop (desktop.qt_app.run), and the bot's fallback.

python-chess runs its UCI client in a worker thread with its own ``asyncio.run``; the app's Qt loop
must not leak into that thread (it did through qasync's event-loop policy: the game died after
White's first move). When the engine fails anyway, the bot plays the built-in search and says why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication

import engine
from desktop import qt_app
from desktop.episode import start_episode
from engine.games.chess.bots import StockfishBot, find_stockfish
from engine.players import Observation
from sessions import load_session

needs_stockfish = pytest.mark.skipif(find_stockfish() is None, reason="Stockfish is not installed here")


def _observation(game: engine.Game) -> Observation:
    state = game.initial_state(seed=0)
    return Observation(game, state, 0, tuple(state.legal_actions(0)))


def test_the_app_loop_leaves_the_event_loop_policy_alone(qapp: QApplication) -> None:
    policy = asyncio.get_event_loop_policy()

    async def inside() -> str:
        # A worker thread's asyncio.run gets a plain asyncio loop, not a Qt one.
        def in_thread() -> str:
            return asyncio.run(_loop_kind())

        return await asyncio.to_thread(in_thread)

    assert qt_app.run(inside()) != "QEventLoop"
    assert asyncio.get_event_loop_policy() is policy


async def _loop_kind() -> str:
    return type(asyncio.get_running_loop()).__name__


@needs_stockfish
def test_stockfish_answers_every_black_move_on_the_app_loop(qapp: QApplication, tmp_path: Path) -> None:
    episode = start_episode("chess", ["random", "stockfish"], root=tmp_path, seed=0, max_steps=6,
                            options={"engine_time": 0.05})
    bot = episode.match.players[1]
    result = qt_app.run(episode.run())
    assert (result.status, result.steps) == ("max_steps", 6)
    assert isinstance(bot, StockfishBot) and bot.available, bot.label
    session = load_session(episode.path)
    black = [step for step in session.steps if "1" in step["data"]["actions"]]
    assert len(black) == 3


@needs_stockfish
def test_an_engine_that_fails_in_its_thread_falls_back_to_the_built_in_search(qapp: QApplication) -> None:
    # qasync.run (Python 3.11) installs a policy whose new loops are Qt loops: exactly the failure the
    # app met. The bot must play on with its own search and say so.
    game = engine.make("chess", engine_time=0.05)
    bot = StockfishBot(game, 0)

    async def act() -> tuple[str, str]:
        decision = await bot.act(_observation(game))
        return str(decision.action), decision.rationale

    try:
        action, rationale = qasync.run(act())
    finally:
        bot.close()
    assert action in game.initial_state(seed=0).legal_actions(0)
    assert not bot.available
    assert bot.label.startswith("Built-in search (Stockfish failed: RuntimeError")
    assert rationale.startswith(bot.label)


def test_a_binary_that_is_no_engine_falls_back_too(qapp: QApplication) -> None:
    game = engine.make("chess", engine_time=0.05)
    bot = StockfishBot(game, 0, path="/bin/true")
    action, _ = qt_app.run(_act(bot, game))
    assert action in game.initial_state(seed=0).legal_actions(0)
    assert not bot.available and bot.label.startswith("Built-in search (Stockfish failed")


async def _act(bot: StockfishBot, game: engine.Game) -> tuple[str, str]:
    decision = await bot.act(_observation(game))
    return str(decision.action), decision.rationale
