"""Screenshots of the app in typical states: ``python -m desktop.screenshots OUT_DIR``.

The documentation's pictures (``docs/screenshots``) come from the same window::

    python -m desktop.screenshots docs/screenshots --games sokoban,tetris,2048 --study --annotate

``--games`` saves each game played by a person (``<id>-human.png``) and by the simulated model
(``<id>-sim.png``), skipping games not available here with a message; ``--study`` the participant flow
(``study-consent.png``, ``study-game.png``); ``--annotate`` the Annotate steps panel (``annotate.png``);
``--harness`` the model panel of a decision whose board a model described (perception ``describe``)
and whose move came as a tool call (``harness-describe-tools.png``).

Runs offscreen at 1280x800 with sessions in a throw-away folder (unless ``PLAYTRACE_HOME`` is set), so
it works on a build machine without a display and never touches a user's sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
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


# -- the documentation's pictures ----------------------------------------------------------------

#: The most bytes a documentation PNG may take; a bigger one is narrowed.
DOC_PNG_BYTES = 150_000
#: The width a documentation PNG is scaled to when a palette alone does not bring it under the limit.
DOC_NARROW_WIDTH = 960
#: Moves a person makes, and steps the simulated model takes, before a game's picture is taken.
DOC_MOVES = 4
#: The simulated model as the demo seats it: both perceptions, memory, reflection and thinking.
SIM_OPTIONS: dict[str, Any] = {"perception": "both", "memory": 6, "reflection": True, "thinking": True,
                               "latency": 0}


def save_doc_png(widget: Any, target: Path) -> Path:
    """Save ``widget``'s picture as an optimised PNG with a 256-colour palette, narrowed to
    :data:`DOC_NARROW_WIDTH` pixels when it is still over :data:`DOC_PNG_BYTES`.

    Qt writes full-colour PNGs without optimising them; a window's picture has few colours, and Pillow's
    quantiser (without dithering, so text stays crisp) and optimiser cut it to about a third, with no
    difference to see."""
    import io

    from PIL import Image
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    widget.grab().save(buffer, "PNG")
    buffer.close()
    image = Image.open(io.BytesIO(bytes(data))).convert("RGB")
    image.quantize(256, dither=Image.Dither.NONE).save(target, optimize=True)
    if target.stat().st_size > DOC_PNG_BYTES and image.width > DOC_NARROW_WIDTH:
        height = round(image.height * DOC_NARROW_WIDTH / image.width)
        narrow = image.resize((DOC_NARROW_WIDTH, height), Image.Resampling.LANCZOS)
        narrow.quantize(256, dither=Image.Dither.NONE).save(target, optimize=True)
    return target


def unavailable(game_id: str) -> str:
    """Why ``game_id`` cannot be played here (empty when it can)."""
    import engine
    from engine.core import GameUnavailableError, UnknownGameError

    try:
        engine.declaration(game_id)
    except (UnknownGameError, GameUnavailableError) as exc:
        return str(exc)
    return ""


def _seats(game_id: str, first: Any) -> list[Any]:
    """``first`` in seat 1 and the game's default opponent in the others."""
    import engine
    from desktop.controller import SeatSetup

    cls = engine.declaration(game_id)
    return [first] + [SeatSetup(cls.default_opponent) for _ in cls.seats[1:]]


def _moves(game: Any) -> int:
    """Moves made before a game's picture: :data:`DOC_MOVES`, or a second of play in a real-time game."""
    return DOC_MOVES if not game.tick_s else max(DOC_MOVES, round(1 / game.tick_s))


async def _human_game(window: Any, game_id: str, seed: int) -> None:
    """A person plays a few moves through the board's own path (``board_action``), as clicks and keys do;
    a game that moves on its own clock is paused with the last move, so the picture shows the moves made."""
    from desktop.controller import GameSetup, SeatSetup

    c = window.controller
    window.start_game(GameSetup(game_id, _seats(game_id, SeatSetup("human")), seed=seed, delay=0))
    await _until(lambda: c.game is not None and c.game.id == game_id
                 and (c.waiting_human() is not None or c.awaiting_first_key))
    c.first_key()  # a real-time game waits for the person's first key
    await _until(lambda: c.waiting_human() is not None)
    default = c.game.default_action
    moves = _moves(c.game)
    hold = moves // DOC_MOVES  # in real time a person holds a key for a while, then another
    made = 0
    for _ in range(moves * 3):
        if made >= moves or c.finished_status is not None:
            break
        await _until(lambda: c.waiting_human() is not None or c.finished_status is not None)
        legal = [a for a in c.interactive_legal() if a != default]
        if not legal:
            continue
        before = c.count
        if c.board_action(legal[(2 * (made // hold) + 1) % len(legal)]):
            made += 1
            if made == moves and c.game.tick_s:
                c.pause()  # the clock stops with the person's last move, not with a default one after it
            await _until(lambda before=before: c.count > before or c.finished_status is not None)
    await _until(lambda: c.waiting_human() is not None or c.finished_status is not None or not c.running)
    await _settle()
    window.refresh()
    window.board.setFocus()
    await _fold_sections(window.inspector, model=False)


async def _sim_game(window: Any, game_id: str, seed: int) -> None:
    """The simulated model plays a few steps, stepped by hand, so every pane of the model panel holds a
    decision made with memory and reflection."""
    from desktop.controller import GameSetup, SeatSetup

    c = window.controller
    window.start_game(GameSetup(game_id, _seats(game_id, SeatSetup("sim", dict(SIM_OPTIONS))), seed=seed,
                                delay=0, paused=True))
    await _until(lambda: c.game is not None and c.game.id == game_id and c.pacer is not None
                 and c.pacer.waiting)
    for _ in range(_moves(c.game)):
        if c.finished_status is not None:
            break
        before = c.count
        c.step()  # the model decides; paused, its decision is held for review, and the next step accepts it
        await _until(lambda before=before: c.pending is not None or c.count > before
                     or c.finished_status is not None, timeout=60)
        if c.pending is not None:
            c.step()
        await _until(lambda before=before: (c.count > before and c.pacer is not None and c.pacer.waiting)
                     or c.finished_status is not None, timeout=60)
    await _settle()
    window.refresh()
    await _fold_sections(window.inspector, model=True)


async def _fold_sections(inspector: Any, *, model: bool) -> None:
    """Fold the model panel's sections as a reader does to see a model's decision at a glance: the
    reasoning and the reflection open, then the parse chain, the prompt and the decision while they still
    fit without scrolling (a folded section's header keeps its summary: the action, the prompt's size).
    A person's or a bot's decision shows with every section open."""
    sections = [inspector.sec_outcome, inspector.sec_prompt, inspector.sec_reasoning, inspector.sec_answer,
                inspector.sec_verify, inspector.sec_reflection, inspector.sec_memory, inspector.sec_usage]
    for section in sections:
        section.set_expanded(not model or section in (inspector.sec_reasoning, inspector.sec_reflection))
    await _settle(0.1)
    if model:
        content, room = inspector.scroll.widget(), inspector.scroll.viewport().height()
        for section in (inspector.sec_answer, inspector.sec_prompt, inspector.sec_outcome):
            section.set_expanded(True)
            await _settle(0.1)
            if content.layout().sizeHint().height() > room:
                section.set_expanded(False)
                await _settle(0.1)
    value = 0
    if model:  # the reflection's end in view, at the cost of the decision's header (the parse chain's
        # header names the action too), never of the prompt's
        content = inspector.scroll.widget()
        end = inspector.sec_reflection.mapTo(content, inspector.sec_reflection.rect().bottomLeft()).y()
        prompt_top = inspector.sec_prompt.mapTo(content, inspector.sec_prompt.rect().topLeft()).y()
        overflow = end - inspector.scroll.viewport().height()
        value = prompt_top if 0 < overflow <= prompt_top else 0
    inspector.scroll.verticalScrollBar().setValue(value)
    await _settle(0.1)


async def take_games(window: Any, out: Path, games: list[str]) -> list[Path]:
    saved: list[Path] = []
    for n, game_id in enumerate(games):
        problem = unavailable(game_id)
        if problem:
            print(f"skipped {game_id}: {problem}", file=sys.stderr)
            continue
        seed = 7 + n
        await _human_game(window, game_id, seed)
        saved.append(save_doc_png(window, out / f"{game_id}-human.png"))
        await _sim_game(window, game_id, seed)
        saved.append(save_doc_png(window, out / f"{game_id}-sim.png"))
    return saved


async def take_study(out: Path) -> list[Path]:
    """The participant flow of the bundled example study: its consent page, then a game under way after
    the participant agreed, took a pseudonym and read the instructions."""
    import assets
    from desktop.study_flow import StudyWindow
    from engine.study import parse_study
    from sessions.study_results import ResultsFolder

    text = assets.path("studies", "example.toml").read_text(encoding="utf-8")
    home = Path(tempfile.mkdtemp(prefix="playtrace-study-"))  # the results of a pretend participant
    folder = ResultsFolder(home / "results", parse_study(text), text)
    win = StudyWindow(folder, delay=0)
    win.resize(1280, 800)
    win.show()
    try:
        return await _study_pages(win, out)
    finally:
        shutil.rmtree(home, ignore_errors=True)


async def _study_pages(win: Any, out: Path) -> list[Path]:
    saved: list[Path] = []
    await _until(lambda: win.page is win.text_page and win.text_page.primary.isVisible())
    await _settle(0.2)
    saved.append(save_doc_png(win, out / "study-consent.png"))

    c, page = win.controller, win.game_page
    for _ in range(20):  # agree, pseudonym, instructions, Start: up to the first game
        if win.page is page:
            break
        before = (id(win.page), win.text_page.title.text())
        button = win.participant_page.go if win.page is win.participant_page else win.text_page.primary
        button.click()
        await _until(lambda before=before: (id(win.page), win.text_page.title.text()) != before)
    made = 0
    while made < 2:  # two of the participant's moves, through the board's own path
        await _until(lambda: c.waiting_human() is not None and page.board.interactive)
        legal = c.interactive_legal()
        before = c.count
        c.board_action(legal[(made * 5) % len(legal)])
        made += 1
        await _until(lambda before=before: c.count > before)
    await _until(lambda: c.waiting_human() is not None and page.board.interactive)
    await _settle(0.3)
    saved.append(save_doc_png(win, out / "study-game.png"))
    win.request_leave()
    win.leave_page.leave.click()
    await _until(lambda: not win.isVisible())
    return saved


async def take_annotate(window: Any, out: Path) -> list[Path]:
    """The Annotate steps panel (View menu) on a recorded session of the simulated model, with labels
    ticked on the step shown."""
    from PySide6.QtCore import Qt

    from desktop.annotation_panel import toggle_annotations
    from desktop.controller import GameSetup, SeatSetup

    c = window.controller
    folder = await window.start_game(
        GameSetup("tictactoe", [SeatSetup("sim", dict(SIM_OPTIONS)), SeatSetup("minimax")], seed=3, delay=0)
    )
    await _until(lambda: c.folder == folder and c.finished_status is not None)
    window.open_session(folder)
    await _until(lambda: c.mode == "replay")
    panel = toggle_annotations(window)
    # The dock takes room from the game area: the board is narrowed as a person drags the splitter, so
    # the model panel keeps its width.
    window.resizeDocks([window.annotation_dock], [280], Qt.Orientation.Horizontal)
    await _settle(0.1)
    sizes = window.top_split.sizes()
    narrow = window.board_card.minimumWidth()
    window.top_split.setSizes([narrow, sum(sizes) - narrow])
    panel.annotator.setText("ana")
    c.scrub(2)  # the model's second move (X moves on even steps)
    await _until(lambda: panel.step == 2)
    for index in (0, 5):
        panel.toggle(index)
    await _until(lambda: not panel.pending)
    panel.note.setPlainText("Compare with minimax's values for this position.")
    panel.save_note()
    await _until(lambda: not panel.pending)
    await _settle()
    window.refresh()
    await _fold_sections(window.inspector, model=True)
    shot = save_doc_png(window, out / "annotate.png")
    toggle_annotations(window)
    window.top_split.setSizes(sizes)
    return [shot]


async def take_harness(window: Any, out: Path) -> list[Path]:
    """The model panel on a recorded 2048 game of the simulated model with ``describe`` perception and
    tool calling: the perception stage (the image, the description, its call) above the parse chain."""
    from desktop.controller import GameSetup, SeatSetup

    c = window.controller
    options = {**SIM_OPTIONS, "perception": "describe", "action_format": "tools", "reflection": False,
               "memory": 2}
    folder = await window.start_game(GameSetup("2048", [SeatSetup("sim", options)], seed=3, delay=0,
                                               max_steps=4))
    await _until(lambda: c.folder == folder and c.finished_status is not None, timeout=60)
    window.open_session(folder)
    await _until(lambda: c.mode == "replay")
    c.scrub(2)
    await _settle()
    window.refresh()
    inspector = window.inspector
    folded = (inspector.sec_outcome, inspector.sec_prompt, inspector.sec_reasoning, inspector.sec_verify,
              inspector.sec_reflection, inspector.sec_memory, inspector.sec_usage)
    for section in folded:
        section.set_expanded(False)
    for section in (inspector.sec_perception, inspector.sec_answer):
        section.set_expanded(True)
    await _settle(0.1)
    # The perception stage at the top (the decision's header names the action too).
    content = inspector.scroll.widget()
    top = inspector.sec_perception.mapTo(content, inspector.sec_perception.rect().topLeft()).y()
    inspector.scroll.verticalScrollBar().setValue(top)
    await _settle(0.1)
    return [save_doc_png(window, out / "harness-describe-tools.png")]


async def take_docs(out: Path, games: list[str], *, study: bool = False,
                    annotate: bool = False, harness: bool = False) -> list[Path]:
    """The documentation's pictures: each game in ``games`` played by a person and by the simulated
    model, then (when asked) the study's participant flow and the annotation panel."""
    from desktop.main_window import MainWindow

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.mark_demo_done()
    try:
        saved += await take_games(window, out, games)
        if annotate:
            saved += await take_annotate(window, out)
        if harness:
            saved += await take_harness(window, out)
        if study:
            saved += await take_study(out)
    finally:
        await window.controller.close()
        window.close()
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m desktop.screenshots",
        description="Save screenshots of PlayTrace, offscreen at 1280x800. Without options: the app in "
        "its typical states. With --games, --study or --annotate: the documentation's pictures, "
        "saved as optimised PNGs.",
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="folder the PNGs are saved in")
    parser.add_argument("--games", metavar="IDS", default="",
                        help="comma-separated game ids: each played by a person (<id>-human.png) and by "
                        "the simulated model (<id>-sim.png); games not available here are skipped")
    parser.add_argument("--study", action="store_true",
                        help="the participant flow of the example study (study-consent.png, study-game.png)")
    parser.add_argument("--annotate", action="store_true",
                        help="the Annotate steps panel on a recorded session (annotate.png)")
    parser.add_argument("--harness", action="store_true",
                        help="the model panel with a describe perception stage and a tool-call parse chain "
                        "(harness-describe-tools.png)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if not os.environ.get("PLAYTRACE_HOME"):
        os.environ["PLAYTRACE_HOME"] = tempfile.mkdtemp(prefix="playtrace-shots-")
    from desktop import qt_app

    docs = bool(games or args.study or args.annotate or args.harness)
    if docs:
        saved = qt_app.run(take_docs(args.out_dir, games, study=args.study, annotate=args.annotate,
                                     harness=args.harness))
    else:
        saved = qt_app.run(take(args.out_dir))
    for path in saved:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
