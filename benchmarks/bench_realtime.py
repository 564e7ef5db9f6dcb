"""Real-time play: how many ticks a second a game reaches against its own tick, with a person who
never presses a key (every tick times out to the game's default action), and how many ticks a held
key plays in the app.

Measured through the match loop with the session recorded (the command line's path) and through the
app (an offscreen main window: board, model panel, timeline, score plot), for Super Mario Bros at one
NES frame per tick (60 ticks a second) and Pong (10 ticks a second). In the app, a held Right arrow
then plays Mario for as long again: the share of those ticks that played ``right`` (the rest played
the default ``noop`` because no action reached them in time).

Usage: ``python benchmarks/bench_realtime.py [--seconds N]`` (about 8 x N seconds; Mario needs the
``mario`` extra, ``pip install 'playtrace[mario]'``, and is left out without it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("PLAYTRACE_HOME", tempfile.mkdtemp(prefix="playtrace-bench-"))
# Allow running the script directly from a checkout without installing PlayTrace.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402

#: Each game: its id, the seats (the person first) and the options of the match.
GAMES: dict[str, tuple[list[str], dict[str, Any]]] = {
    "mario": (["human"], {"frames": 1}),
    "pong": (["human", "predictor"], {}),
}


class IdlePerson:
    """A person who never presses a key: every tick times out to the game's default action."""

    kind, spec, label = "human", "human", "Idle person"

    async def act(self, observation: object) -> object:
        await asyncio.Event().wait()
        raise AssertionError("an idle person never answers")


def _available(game_id: str) -> bool:
    return game_id in engine.list_games()


def engine_rate(game_id: str, seconds: float) -> tuple[float, float, int]:
    """Ticks per second, the game's own rate, and the schedule's restarts, through :class:`Match` with
    the session written to a temporary folder."""
    from engine.match import Match
    from engine.roster import make_player
    from sessions import SessionWriter

    specs, options = GAMES[game_id]
    game = engine.make(game_id, **options)
    assert game.tick_s is not None
    ticks = max(10, round(seconds / game.tick_s))
    players = [IdlePerson() if s == "human" else make_player(s, game, seed=1) for s in specs]
    match = Match(game, players, seed=1, max_steps=ticks)  # type: ignore[arg-type]
    match.state.legal_actions(0)  # boots an emulator outside the timing
    with tempfile.TemporaryDirectory() as folder:
        writer = SessionWriter.for_match(folder, match, title="bench")
        started = time.perf_counter()
        result = asyncio.run(match.run())
        elapsed = time.perf_counter() - started
        writer.close(result.status)
    return result.steps / elapsed, 1 / game.tick_s, match.ticks.restarts


async def _app_rate(
    window: Any, game_id: str, seconds: float, hold: Callable[[], None] | None
) -> dict[str, Any]:
    """Ticks per second a live game reaches in the window over ``seconds`` (after the first tick; less
    when the game ends first), and the share of the ticks played by the person (held keys) rather
    than by default."""
    from desktop.controller import GameSetup, SeatSetup

    c = window.controller
    specs, options = GAMES[game_id]
    setup = GameSetup(game_id, [SeatSetup(s) for s in specs], seed=1, delay=0, options=dict(options))
    await window.start_game(setup)
    deadline = time.perf_counter() + 30
    while not (c.count >= 2 and window.board.interactive):
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{game_id} did not start ticking in the window")
        await asyncio.sleep(0.01)
    if hold is not None:
        hold()
    before, started = c.count, time.perf_counter()
    while time.perf_counter() - started < seconds and c.finished_status is None:
        await asyncio.sleep(0.01)
    played, elapsed = c.count - before, time.perf_counter() - started
    sources = [
        (r.get("data") or {}).get("source")
        for r in c.all_records()
        if r.get("type") == "decision" and r.get("seat") == 0 and int(r.get("step") or 0) >= before
    ]
    c.steering.pause()
    await c.close()
    return {
        "rate": played / elapsed,
        "held": sum(1 for s in sources if s == "human") / max(1, len(sources)),
    }


async def app_rates(seconds: float, games: list[str]) -> list[tuple[str, dict[str, Any]]]:
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent

    from desktop.main_window import MainWindow

    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.board.setFocus()
    results = []
    for game_id in games:
        results.append((f"{game_id}, idle person", await _app_rate(window, game_id, seconds, None)))
    if "mario" in games:
        board = window.board
        plain = Qt.KeyboardModifier.NoModifier

        def hold_right() -> None:  # pressed and never released, as a thumb on the arrow would
            board.keyPressEvent(QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Right, plain))

        results.append(("mario, Right held", await _app_rate(window, "mario", seconds, hold_right)))
        board.keyReleaseEvent(QKeyEvent(QEvent.Type.KeyRelease, Qt.Key.Key_Right, plain))
    # Let the closed games' last tasks finish before the window (and with it the loop) closes.
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    window.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each measurement")
    args = parser.parse_args(argv)
    games = [g for g in GAMES if _available(g)]
    for missing in sorted(set(GAMES) - set(games)):
        print(f"{missing}: not installed here, left out")
    print("match loop + session writer (an idle person):")
    for game_id in games:
        rate, target, restarts = engine_rate(game_id, args.seconds)
        print(f"  {game_id:28s} {rate:6.1f} ticks/s of {target:4.0f} ({rate / target:4.0%}); "
              f"schedule restarts {restarts}")

    import qasync

    from desktop.app import create_app

    app = create_app()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        results = loop.run_until_complete(app_rates(args.seconds, games))
    print("app (offscreen main window):")
    for name, info in results:
        game = engine.make(name.split(",")[0], **GAMES[name.split(",")[0]][1])
        assert game.tick_s is not None
        target = 1 / game.tick_s
        held = f"; {info['held']:.0%} of the ticks played by the held key" if "held" in name else ""
        rate = info["rate"]
        print(f"  {name:28s} {rate:6.1f} ticks/s of {target:4.0f} ({rate / target:4.0%}){held}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
