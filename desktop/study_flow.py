"""A study run with a person: the locked, full-screen participant flow.

``playtrace study run FILE`` (:func:`run_study`) and *File → Run study…* (:func:`choose_study`) open a
:class:`StudyWindow` on a results folder. It walks the blocks of :meth:`engine.study.Study.schedule`:
consent (nothing is recorded before it is given), the participant's pseudonym, instructions, practice
rounds and games, questionnaires, breaks and thanks. A game shows what a model of it would get: the
board picture, the game's controls line and its notice or turn text; no model panel, no menus, no
other sessions.

Games are recorded exactly as ``playtrace study simulate`` (:mod:`desktop.study_sim`) records them: a
session in the folder's ``sessions/`` tagged with ``extra.study``, the person in seat 0 and the study's
opponent in the other seats, an ``attempt`` entry in the participant's progress before the game
starts (a game cut off by a crash or a kill is played again from its start on resume). The study's
time limits run as visible countdowns: a move not made in time is played for the person (the game's
``default_action`` when legal, else a seeded random legal move), its ``decision`` event saying
``timed_out`` as a real-time game's default move does; a game out of time ends as ``aborted``.

The experimenter leaves with Ctrl+Alt+Shift+Q and a confirmation; closing the window otherwise does
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QMessageBox, QStackedWidget, QVBoxLayout, QWidget

import engine
from desktop import qt_app
from desktop.controller import SessionController
from desktop.model.visibility import shown_state
from desktop.session_model import GameSetup, SeatSetup
from desktop.study_pages import (
    LEAVE_KEYS,
    STYLESHEET,
    BreakPage,
    GamePage,
    LeavePage,
    ParticipantPage,
    QuestionnairePage,
    ResumePage,
    TextPage,
)
from engine.core import Game
from engine.players import DEFAULT, HUMAN, Decision, Observation
from engine.registry import declaration
from engine.steering import SteeredHuman
from engine.study import Block
from sessions.errors import SessionError
from sessions.study_results import Progress, ResultsFolder

__all__ = ["StudyHuman", "StudyWindow", "choose_study", "run_study"]

#: Told to the experimenter at the foot of the consent and instructions pages.
EXPERIMENTER_NOTE = f"Experimenter: {LEAVE_KEYS} ends the session (after a confirmation); progress is kept."

#: How often the countdowns are brought up to date (seconds).
TICK_S = 0.2


class StudyHuman(SteeredHuman):
    """The participant at the board; :meth:`time_out` plays a move for them when their time runs out,
    recorded as the match records a real-time game's default move (``source: default``,
    ``timed_out: true``, the limit in ``deadline_s``), with the person's ``latency_ms``."""

    def __init__(self, label: str = "You") -> None:
        super().__init__(label=label)
        #: When the current turn began (``time.monotonic()``), or ``None`` between turns.
        self.started: float | None = None
        self._timed_out: float | None = None

    async def act(self, observation: Observation) -> Decision:
        self._timed_out = None
        self.started = time.monotonic()
        try:
            decision = await super().act(observation)
        finally:
            self.started = None
        if self._timed_out is not None:
            decision.source = DEFAULT
            decision.rationale = f"no move within {self._timed_out:g} s; played for the participant"
            decision.extra.update({"timed_out": True, "deadline_s": self._timed_out, "player": HUMAN})
        return decision

    def time_out(self, action: str, limit_s: float) -> bool:
        """Play ``action`` for the participant, whose ``limit_s`` seconds for the move ran out; returns
        whether it was taken."""
        obs = self.waiting
        if obs is None or action not in obs.legal_actions:
            return False
        self._timed_out = limit_s
        if not self.submit(action):
            self._timed_out = None
            return False
        return True


class StudyController(SessionController):
    """The session controller of a study: the person's seat is a :class:`StudyHuman`."""

    def build_players(self, game: Game, setup: GameSetup) -> list[Any]:
        players = super().build_players(game, setup)
        return [StudyHuman(p.label) if type(p) is SteeredHuman else p for p in players]


def timeout_action(game: Game, legal: tuple[str, ...], seed: str) -> str:
    """The move played for a participant out of time: the game's default action when it is legal,
    else a random legal move (seeded, so the same study, participant and step give the same move)."""
    default = game.default_action
    if default is not None and default in legal:
        return default
    return random.Random(seed).choice(sorted(legal))


class StudyWindow(QWidget):
    """The participant flow over one results folder (see the module docstring).

    ``participant`` resumes that participant (or starts them after consent when new); without it the
    window offers the unfinished participants first. ``delay`` is the pause (seconds) before the other
    players' moves, so the person sees them happen.

    Signals:
        sig_closed(): the window closed (the experimenter left, or the flow was over).
    """

    sig_closed = Signal()

    def __init__(
        self, folder: ResultsFolder, participant: str | None = None, *, delay: float = 0.4,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("StudyWindow")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(STYLESHEET)
        self.folder = folder
        self.study = folder.study
        self.setWindowTitle(f"{self.study.title} — PlayTrace study")
        self.delay = delay
        self.controller = StudyController(root=folder.sessions, parent=self)
        self.progress: Progress | None = None
        self.blocks: list[Block] = []
        self._pid = participant
        self._game_block: Block | None = None
        self._session: str | None = None
        self._game_started: float | None = None
        self._ended = ""
        self._break_until: float | None = None
        self._on_primary: Callable[[], None] | None = None
        self._on_secondary: Callable[[], None] | None = None
        self._before_leave: QWidget | None = None
        self._settled = False  # nothing left to lose by closing (declined, finished)
        self._may_close = False
        self._tasks: set[asyncio.Future[Any]] = set()

        self.stack = QStackedWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.text_page = TextPage()
        self.participant_page = ParticipantPage()
        self.resume_page = ResumePage()
        self.questionnaire_page = QuestionnairePage()
        self.break_page = BreakPage()
        self.game_page = GamePage()
        self.leave_page = LeavePage()
        for page in (self.text_page, self.participant_page, self.resume_page, self.questionnaire_page,
                     self.break_page, self.game_page, self.leave_page):
            self.stack.addWidget(page)
        self.text_page.sig_primary.connect(lambda: self._call(self._on_primary))
        self.text_page.sig_secondary.connect(lambda: self._call(self._on_secondary))
        self.participant_page.sig_chosen.connect(self._create)
        self.resume_page.sig_resume.connect(self.resume)
        self.resume_page.sig_new.connect(self._consent)
        self.questionnaire_page.sig_answered.connect(self._answered)
        self.break_page.sig_done.connect(self._break_done)
        self.game_page.sig_continue.connect(self._enter_next)
        self.game_page.sig_undo.connect(self.controller.undo)
        board = self.game_page.board
        board.sig_action_requested.connect(self._play)
        self.game_page.panel.sig_action_requested.connect(self._play)
        self.leave_page.sig_back.connect(self._leave_cancelled)
        self.leave_page.sig_leave.connect(self.leave)
        c = self.controller
        for signal in (c.sig_view_changed, c.sig_controls_changed, c.sig_session_changed):
            signal.connect(self._refresh)
        c.sig_finished.connect(self._on_game_finished)

        self.shortcut = QShortcut(QKeySequence(LEAVE_KEYS), self)
        self.shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.shortcut.activated.connect(self.request_leave)
        self.timer = QTimer(self)
        self.timer.setInterval(round(TICK_S * 1000))
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self._start()

    # -- where the flow is --------------------------------------------------------------------------

    @property
    def page(self) -> QWidget:
        """The page shown now."""
        return self.stack.currentWidget()

    @property
    def block(self) -> Block | None:
        """The block the participant is at (``None`` before consent)."""
        if self.progress is None or self.progress.next_block >= len(self.blocks):
            return None
        return self.blocks[self.progress.next_block]

    @property
    def playing(self) -> bool:
        """Whether a game is being played now (its session is being recorded)."""
        return self._game_block is not None and self._session is not None

    def _show(self, page: QWidget) -> None:
        self.stack.setCurrentWidget(page)

    @staticmethod
    def _call(handler: Callable[[], None] | None) -> None:
        if handler is not None:
            handler()

    def _text(self, title: str, text: str, primary: str = "", on_primary: Callable[[], None] | None = None,
              secondary: str = "", on_secondary: Callable[[], None] | None = None, **kw: Any) -> None:
        self._on_primary, self._on_secondary = on_primary, on_secondary
        self.text_page.show_text(title, text, primary, secondary, **kw)
        self._show(self.text_page)
        self.text_page.primary.setFocus()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- consent, the participant, resuming -------------------------------------------------------

    def _start(self) -> None:
        if self._pid is not None and self._pid in self.folder.participant_ids():
            self.resume(self._pid)
            return
        unfinished = [] if self._pid is not None else self._unfinished()
        if unfinished:
            self.resume_page.show_participants(unfinished)
            self._show(self.resume_page)
        else:
            self._consent()

    def _unfinished(self) -> list[tuple[str, str]]:
        rows = []
        for pid in self.folder.participant_ids():
            try:
                progress = self.folder.progress(pid)
            except SessionError:
                continue
            if not progress.finished:
                blocks = self.folder.blocks(progress)
                where = f"step {progress.next_block + 1} of {len(blocks)}"
                if progress.next_block < len(blocks):
                    block = blocks[progress.next_block]
                    what = block.kind + (f" {block.game.key} round {block.round}" if block.game else "")
                    where += f": {what}"
                rows.append((pid, where))
        return rows

    def _consent(self) -> None:
        self._text(self.study.title, f"{self.study.consent.strip()}\n\nDo you agree to take part?",
                   "I agree", self._consented, "I do not agree", self._declined, footer=EXPERIMENTER_NOTE)

    def _declined(self) -> None:
        self._settled = True
        self._text("Thank you", "You chose not to take part. Nothing was recorded.\n\n"
                   "Please let the experimenter know.", footer=EXPERIMENTER_NOTE)

    def _consented(self) -> None:
        if self._pid is not None:
            self._create(self._pid)
            return
        self.participant_page.ask(self.folder.new_participant_id())
        self._show(self.participant_page)

    def _create(self, pid: str) -> None:
        """The participant gave consent and has an id: their progress starts (the first record)."""
        if pid in self.folder.participant_ids():
            self.participant_page.ask(
                self.folder.new_participant_id(),
                f"{pid} is already in this results folder: choose another id, or resume them (run the "
                "study again on this folder).")
            self._show(self.participant_page)
            return
        try:
            self.folder.claim(pid)  # no other PlayTrace on this folder runs this participant now
            progress = self.folder.progress(pid)
        except SessionError as exc:
            self.participant_page.ask(self.folder.new_participant_id(), str(exc))
            self._show(self.participant_page)
            return
        self.progress, self._pid = progress, pid
        self.blocks = self.folder.blocks(progress)
        consent = self.blocks[0]
        if consent.kind == "consent":
            self._done(consent)
        self._enter_next()

    def resume(self, pid: str) -> None:
        """Go on with ``pid`` at the first block they have not done."""
        try:
            self.folder.claim(pid)
        except SessionError as exc:
            self._settled = True
            self._text("Participant busy", f"{exc}.", footer=EXPERIMENTER_NOTE)
            return
        self.progress, self._pid = self.folder.progress(pid), pid
        self.blocks = self.folder.blocks(self.progress)
        if self.progress.finished:
            self._settled = True
            self._text("Already finished", f"{pid} has finished this study; nothing more to do.",
                       footer=EXPERIMENTER_NOTE)
            return
        self._enter_next()

    # -- the blocks ---------------------------------------------------------------------------------

    def _done(self, block: Block, **fields: Any) -> None:
        assert self.progress is not None
        self.progress.done(block, **fields)
        if block.kind == "thanks":
            self.progress.finished = True
        self.folder.save(self.progress)

    def _enter_next(self) -> None:
        block = self.block
        if block is None:
            self._thanks(None)
            return
        if block.kind == "consent":  # given before the progress existed
            self._done(block)
            self._enter_next()
        elif block.kind == "instructions":
            self._text(self.study.title, self.study.instructions or "The study is about to begin.", "Begin",
                       lambda: self._next_after(block), footer=EXPERIMENTER_NOTE)
        elif block.plays:
            self._ready(block)
        elif block.kind == "questionnaire":
            self._questionnaire(block)
        elif block.kind == "break":
            self._break_until = time.monotonic() + block.seconds
            self.break_page.set_remaining(block.seconds)
            self._show(self.break_page)
        else:
            self._thanks(block)

    def _next_after(self, block: Block, **fields: Any) -> None:
        self._done(block, **fields)
        self._enter_next()

    def _thanks(self, block: Block | None) -> None:
        if block is not None:
            self._done(block)
        self._settled = True
        self._text("Thank you", self.study.thanks, footer=f"Experimenter: {LEAVE_KEYS} closes this window.")

    def _questionnaire(self, block: Block) -> None:
        assert block.questionnaire is not None
        questionnaire = self.study.questionnaires[block.questionnaire]
        if block.game is not None:
            intro = f"About the game you just played ({self._title(block)})."
        else:
            intro = "About the study as a whole."
        self.questionnaire_page.ask(questionnaire, intro)
        self._show(self.questionnaire_page)

    def _answered(self, answers: dict[str, Any]) -> None:
        block = self.block
        if block is not None and block.kind == "questionnaire":
            self._next_after(block, answers=answers)

    def _break_done(self) -> None:
        block = self.block
        self._break_until = None
        if block is not None and block.kind == "break":
            self._next_after(block)

    # -- games --------------------------------------------------------------------------------------

    def _title(self, block: Block) -> str:
        assert block.game is not None
        try:
            name = declaration(block.game.game).title
        except Exception:  # a game that cannot be looked up still has the study's key
            name = block.game.key
        if block.kind == "practice":
            return f"{name} — practice {block.round} of {block.game.practice}"
        total = len(block.game.seeds)
        return f"{name} — game {block.round} of {total}" if total > 1 else name

    def _ready(self, block: Block) -> None:
        game = block.game
        assert game is not None
        controls = declaration(game.game).controls or "Click the board."
        limits = []
        if game.move_seconds and declaration(game.game).tick_s is None:
            limits.append(f"{game.move_seconds:g} seconds per move (a move not made in time is played for "
                          "you)")
        if game.game_seconds:
            limits.append(f"{_minutes(game.game_seconds)} for the whole game")
        text = f"How to play: {controls.rstrip('.')}."
        if limits:
            text += "\n\nTime: " + "; ".join(limits) + "."
        practice = "Practice round — it does not count" if block.kind == "practice" else ""
        self._text(self._title(block), text, "Start", lambda: self._spawn(self._play_block(block)),
                   badge=practice)

    async def _play_block(self, block: Block) -> None:
        game = block.game
        assert game is not None and self.progress is not None
        if self._game_block is not None or self.block is None or self.block.index != block.index:
            return  # Start pressed twice: the game is on its way already
        seats = engine.make(game.game, **dict(game.options)).num_seats
        setup = GameSetup(
            game.game,
            [SeatSetup(HUMAN)] + [SeatSetup(game.opponent) for _ in range(seats - 1)],
            seed=block.seed,
            max_steps=game.max_steps,
            options=dict(game.options),
            undo=self.study.undo,
            # A real-time game keeps its own pace (its tick); others pause so the person sees each move.
            delay=0.0 if declaration(game.game).tick_s is not None else self.delay,
            extra={"study": block.tags(self.study, self.progress.participant, self.progress.condition)},
        )
        self._game_block, self._session, self._game_started, self._ended = block, None, None, ""
        badge = "Practice — does not count" if block.kind == "practice" else ""
        self.game_page.begin(self._title(block), badge, undo=self.study.undo and seats == 1)
        self._show(self.game_page)
        try:
            path = await self.controller.start(setup)
        except Exception as exc:  # an opponent that cannot be seated here: the experimenter must know
            self._game_block = None
            self._text("This game cannot start", f"{type(exc).__name__}: {exc}", footer=EXPERIMENTER_NOTE)
            return
        # The session exists from here: note it before a move is made, so a kill leaves a trace of the
        # attempt and the game is played again from its start on resume.
        self.progress.blocks.append({"index": block.index, "kind": "attempt", "session": path.name})
        self.folder.save(self.progress)
        self._session, self._game_started = path.name, time.monotonic()
        self.game_page.board.set_game(self.controller.game)
        self._refresh()
        self.game_page.board.setFocus()

    def _play(self, action: str) -> None:
        if self._game_block is not None and not self.controller.board_action(action):
            self.game_page.board.nudge()

    def _refresh(self) -> None:
        c = self.controller
        if self.page is not self.game_page or c.game is None:
            return
        page = self.game_page
        state = shown_state(c.game, c.current_state(), {0}, c.live)
        legal = c.interactive_legal() if self._game_block is not None else []
        panel, paths = c.person_controls() if legal else (None, {})
        page.board.set_state(state, interactive=bool(legal), legal=legal, paths=paths)
        page.panel.set_panel(panel, enabled=bool(legal))
        page.undo.setEnabled(c.can_undo())
        lines = []
        mine = c.human_to_act()
        if self._ended:
            lines.append(self._ended)
        elif mine is not None:
            seat = c.game.seats[mine].name if c.game.num_seats > 1 else ""
            lines.append(f"Your move{' as ' + seat if seat else ''} — {c.key_hint()}")
        elif c.live and c.game.num_seats > 1:
            lines.append("The other player is moving…")
        if state is not None:
            with contextlib.suppress(Exception):  # a game's notice must never break the flow
                notice = str(state.notice() or "")
                if notice:
                    lines.append(notice)
        page.caption.setText("\n".join(lines))

    def _on_game_finished(self, status: str) -> None:
        block = self._game_block
        if block is not None and self._session is not None:
            self._game_over(block, status, f"Game over — {self._result(status)}")

    def _result(self, status: str) -> str:
        c = self.controller
        state = c.current_state()
        if state is None or c.game is None:
            return status
        if state.winner is not None:
            return "you won." if state.winner == 0 else f"{c.game.seats[state.winner].name} won."
        if c.game.num_seats == 1:
            return f"your score: {float(state.scores[0]):g}."
        return "a draw." if status == "completed" else "no winner."

    def _game_over(self, block: Block, status: str, text: str) -> None:
        assert self.progress is not None and self._session is not None
        self._game_block = None
        session = self._session
        self.progress.blocks = [
            b for b in self.progress.blocks
            if not (b.get("kind") == "attempt" and b.get("session") == session)
        ]
        self._done(block, session=session, status=status)
        self._ended = text
        self.game_page.ended(text)
        self._refresh()

    async def _out_of_time(self, block: Block) -> None:
        await self.controller.close()  # the session is closed as aborted
        self._game_over(block, "aborted", "The time for this game is up.")

    def _tick(self) -> None:
        now = time.monotonic()
        if self._break_until is not None and self.page is self.break_page:
            self.break_page.set_remaining(self._break_until - now)
        block = self._game_block
        if block is None or block.game is None or self._game_started is None:
            return
        game = block.game
        game_left = game.game_seconds - (now - self._game_started) if game.game_seconds else None
        if game_left is not None and game_left <= 0:
            self._game_block = None  # once: the next tick must not stop it again
            self._spawn(self._out_of_time(block))
            return
        move_left = None
        waiting = self.controller.waiting_human()
        turn_based = self.controller.game is not None and self.controller.game.tick_s is None
        if waiting is not None and game.move_seconds and turn_based and isinstance(waiting[1], StudyHuman):
            person = waiting[1]
            if person.started is not None:
                move_left = game.move_seconds - (now - person.started)
                obs = person.waiting
                if move_left <= 0 and obs is not None and self.controller.game is not None:
                    seed = f"{self.study.id}:{self._pid}:{block.index}:{obs.state.step}"
                    action = timeout_action(self.controller.game, obs.legal_actions, seed)
                    person.time_out(action, game.move_seconds)
        self.game_page.set_clocks(move_left, game_left)

    # -- leaving --------------------------------------------------------------------------------------

    def request_leave(self) -> None:
        """The experimenter's key combination: ask for confirmation (none needed once nothing is left
        to lose)."""
        if self._settled:
            self.leave()
            return
        if self.page is not self.leave_page:
            self._before_leave = self.page
            self._show(self.leave_page)
            self.leave_page.back.setFocus()

    def _leave_cancelled(self) -> None:
        self._show(self._before_leave or self.text_page)
        self._refresh()

    def leave(self) -> None:
        """End the flow: a game in progress is stopped (its attempt stays noted) and the window closes."""
        self._game_block = None
        self._spawn(self._close())

    async def _close(self) -> None:
        await self.controller.close()
        self._may_close = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        if not self._may_close:
            event.ignore()  # locked: only the experimenter's key combination leaves
            return
        self.timer.stop()
        event.accept()
        self.sig_closed.emit()


def _minutes(seconds: float) -> str:
    if seconds % 60 == 0 and seconds >= 60:
        m = int(seconds // 60)
        return f"{m} minute{'s' if m != 1 else ''}"
    return f"{seconds:g} seconds"


# -- entry points -------------------------------------------------------------------------------------

#: Study windows opened from the main window (kept alive until they close).
OPEN_FLOWS: list[StudyWindow] = []


def run_study(folder: ResultsFolder, participant: str | None = None) -> int:
    """Run the participant flow full screen until the experimenter closes it; returns the exit code."""
    from desktop.cli.common import EXIT_FAILURE, EXIT_OK, UsageError, err
    from desktop.crash import setup_logging

    if participant is not None and participant in folder.participant_ids():
        try:
            finished = folder.progress(participant).finished
        except SessionError as exc:
            raise UsageError(str(exc)) from exc
        if finished:
            err(f"{participant} has finished this study already (results in {folder.root})")
            return EXIT_FAILURE
    setup_logging()
    app = qt_app.create_app()
    app.setQuitOnLastWindowClosed(False)
    window = StudyWindow(folder, participant)
    window.showFullScreen()

    async def run() -> None:
        closed = asyncio.Event()
        window.sig_closed.connect(closed.set)
        await closed.wait()
        await window.controller.close()

    try:
        qt_app.run(run())
    except KeyboardInterrupt:
        return 130
    print(f"results in {folder.root}")
    return EXIT_OK


def choose_study(window: Any) -> None:
    """*File → Run study…*: choose a study file and a results folder, then open the flow full screen."""
    from desktop.cli.common import default_root
    from engine.study import StudyError, check_games, load_study

    name, _ = QFileDialog.getOpenFileName(window, "Run study — choose the study file", "",
                                          "Study files (*.toml);;All files (*)")
    if not name:
        return
    path = Path(name)
    try:
        study = load_study(path)
    except StudyError as exc:
        QMessageBox.warning(window, "PlayTrace", str(exc))
        return
    problems = check_games(study)
    if problems:
        QMessageBox.warning(window, "PlayTrace", f"{path.name}: " + "\n".join(problems))
        return
    suggested = default_root().parent / "studies"
    suggested.mkdir(parents=True, exist_ok=True)
    where = QFileDialog.getExistingDirectory(
        window, f"Results folder for {study.id} version {study.version}", str(suggested))
    if not where:
        return
    try:
        folder = ResultsFolder(Path(where), study, path.read_text(encoding="utf-8"))
    except (SessionError, OSError) as exc:
        QMessageBox.warning(window, "PlayTrace", str(exc))
        return
    flow = StudyWindow(folder)
    OPEN_FLOWS.append(flow)
    flow.sig_closed.connect(lambda: OPEN_FLOWS.remove(flow) if flow in OPEN_FLOWS else None)
    flow.showFullScreen()
