"""Screenshots of the app in typical states: ``python -m desktop.screenshots OUT_DIR``.

Runs offscreen at 1280x800 with sessions in a throw-away folder (unless ``PLAYTRACE_HOME`` is set), so
it works on a build machine without a display and never touches a user's sessions.
"""

from __future__ import annotations

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


async def _until(condition: Callable[[], Any], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not reach the expected state")
        await asyncio.sleep(0.01)


async def _settle(seconds: float = 0.3) -> None:
    # Let the coalesced refresh, the 10 Hz plot timer and the panel's 50 ms repaint run.
    await asyncio.sleep(seconds)


async def take(out: Path) -> list[Path]:
    """Drive a main window through the states worth looking at and save a PNG of each."""
    from PySide6.QtWidgets import QApplication

    from desktop.controller import GameSetup, SeatSetup
    from desktop.main_window import MainWindow
    from desktop.new_game_dialog import NewGameDialog
    from desktop.session_browser import SessionBrowser

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    c = window.controller

    def shot(name: str, widget: Any = None) -> None:
        QApplication.processEvents()
        target = out / f"{name}.png"
        (widget or window).grab().save(str(target))
        saved.append(target)

    # 0. A later launch (the person has played before): the welcome card in the game area.
    window.show_welcome()
    await _settle(0.2)
    shot("00-welcome-idle")

    # 1. First launch: the simulated model plays with every pane filled, streaming live.
    window.start_demo(latency=0.01, delay=0.4)
    await _until(lambda: c.count >= 3 and c.busy)
    await _settle(0.6)

    def streaming_reasoning() -> bool:
        sample = window.inspector.current_sample
        return sample is not None and sample.streaming and bool(sample.reasoning_live)

    await _until(streaming_reasoning)  # caught while the reasoning streams in
    await _settle(0.1)
    window.refresh()
    shot("01-demo-sim-playing")

    # 2. A held decision while stepping the model by hand.
    window.start_game(
        GameSetup(
            "tictactoe",
            [SeatSetup("sim", {"latency": 0, "perception": "both"}), SeatSetup("human")],
            seed=12,
            paused=True,
        )
    )
    await _until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0)
    c.ask()
    await _until(lambda: c.pending is not None)
    c.reask()
    await _until(lambda: c.pending is not None and c.pending["call"] > 1)
    await _settle()
    window.refresh()
    shot("02-held-decision-reask")

    # 2b. The held decision's prompt at full size.
    full_prompt = window.inspector.open_full_prompt()
    await _settle(0.2)
    if full_prompt is not None:
        shot("02b-full-prompt", full_prompt)
        full_prompt.close()

    # 3. A person playing 2048 with the keyboard.
    window.start_game(GameSetup("2048", [SeatSetup("human")], seed=2048))
    for i in range(40):
        await _until(lambda: c.waiting_human() is not None)
        legal = c.interactive_legal()
        c.board_action(legal[(i * 7) % len(legal)] if i % 3 else legal[0])
        await _until(lambda i=i: c.count == i + 1)
    await _until(lambda: c.waiting_human() is not None)
    await _settle()
    window.refresh()
    window.board.setFocus()
    await _settle(0.1)
    shot("03-human-2048")

    # 4. Replay of a finished tic-tac-toe session, scrubbed to the middle.
    window.start_game(
        GameSetup("tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("minimax")], seed=5, delay=0)
    )
    await _until(lambda: c.finished_status is not None)
    finished = c.folder
    window.open_session(finished)
    await _until(lambda: c.mode == "replay")
    c.scrub(max(1, c.head // 2))
    await _settle()
    window.refresh()
    shot("04-replay-tictactoe")

    # 5. The New game dialog.
    dialog = NewGameDialog(window, previous=GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("sim")]))
    dialog.show()
    await _settle(0.2)
    shot("05-new-game-dialog", dialog)
    dialog.close()

    # 5b. A paid model seat: budget caps, timeout and the live pre-run cost estimate.
    dialog = NewGameDialog(
        window,
        previous=GameSetup(
            "tictactoe",
            [
                SeatSetup("openai:gpt-4.1-mini", {"perception": "both", "budget_soft_usd": 0.5,
                                                  "budget_hard_usd": 2, "timeout_s": 60}),
                SeatSetup("minimax"),
            ],
        ),
    )
    dialog.show()
    await _settle(0.2)
    shot("05b-new-game-model-cost", dialog)
    dialog.close()

    # 6. The session browser, and the question before a session is deleted.
    browser = SessionBrowser(c.root, window, in_use=lambda: c.folder)
    browser.load_now()
    browser.show()
    await _settle(0.2)
    shot("06-session-browser", browser)
    browser.table.selectRow(1)
    box = browser.delete_selected()
    await _settle(0.2)
    if box is not None:
        shot("06b-session-delete-confirm", box)
        box.close()
    browser.close()

    # 7. The F1 keyboard help.
    window.overlay.toggle()
    await _settle(0.1)
    shot("07-shortcuts-overlay")
    window.overlay.hide()

    await c.close()
    window.close()
    return saved


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m desktop.screenshots OUT_DIR", file=sys.stderr)
        return 2
    if not os.environ.get("PLAYTRACE_HOME"):
        os.environ["PLAYTRACE_HOME"] = tempfile.mkdtemp(prefix="playtrace-shots-")
    import qasync

    from desktop.app import create_app

    app = create_app()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        saved = loop.run_until_complete(take(Path(args[0])))
    for path in saved:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
