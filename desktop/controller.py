"""The session controller: the Qt face of one live match (or one replayed session).

It owns the :class:`~desktop.episode.Episode` (match + players + session writer), the asyncio task that
runs the match on the qasync loop, the :class:`~engine.steering.Steering` of the live match, and the
:class:`~desktop.session_model.SessionModel` (states, per-step records, scores) the views display.
Views only call its methods and listen to its signals; nothing here blocks the event loop.

Steering (Ask, Re-ask, Accept, Override, Take over / Hand back, cancel, Step / Run / Pause, the spend
meter, fork points) is engine code, :mod:`engine.steering`; this class adapts it to signals, to the
step being viewed and to the session folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

import engine
from desktop.episode import Episode, png_renderer, start_episode
from desktop.session_model import (
    BLOB_CACHE,
    MODEL_OPTION_KEYS,
    PASSIVE_TYPES,
    GameSetup,
    SeatSetup,
    SessionModel,
    is_simulated,
    kind_key,
    player_row,
    record_of,
    retry_text,
    setup_from_manifest,
)
from desktop.status import StatusSnapshot, status_text
from engine import events as ev
from engine.core import Game, Seat, State
from engine.events import Event
from engine.players import HUMAN, MODEL, HumanPlayer, Player, StepRecord
from engine.roster import make_player
from engine.steering import CALL_CANCELLED, REASKING, SpendMeter, SteeredHuman, Steering, SteeringPacer

__all__ = [
    "BLOB_CACHE",
    "MODEL_OPTION_KEYS",
    "GameSetup",
    "SeatSetup",
    "SessionController",
    "SpendMeter",
    "is_simulated",
    "kind_key",
    "record_of",
    "retry_text",
]

#: How the window words the engine's notices (the others are shown as the engine words them).
_NOTICES = {
    CALL_CANCELLED: "Model call cancelled — press Ctrl+Enter to ask again, or take over the seat",
}


#: Notices the status line already derives from the state.
_STATE_NOTICES = frozenset({CALL_CANCELLED, REASKING})


async def _close_clients(players: Sequence[Any]) -> None:
    """Close the provider clients of players that will never play again."""
    for player in players:
        with contextlib.suppress(Exception):
            client = getattr(getattr(player, "inner", player), "client", None)
            if client is not None and hasattr(client, "aclose"):
                await client.aclose()


#: Events after which the view (board, timeline, controls) changes.
_VIEW_TYPES = frozenset({ev.ACTION_APPLIED, ev.UNDO, ev.TURN_STARTED, ev.PLAYER_CHANGED, ev.SESSION_FINISHED})


class SessionController(QObject):
    """Owns the open session (live or replay) and answers the window's requests.

    Signals:
        sig_session_changed(): a session was started or opened (reset every view).
        sig_view_changed(): the step shown (board, timeline, plot marker) changed.
        sig_step_records(int): show the records of this step in the model panel (``show_step``).
        sig_live_record(dict): a record for the step the model panel follows (``append_live``).
        sig_controls_changed(): running / pending / busy / waiting changed.
        sig_score(int, list): scores after this many steps (a new plot point).
        sig_undone(): a person took back the last step (the plot and the timeline go back one).
        sig_status(str): what is happening, for the status bar.
        sig_error(str): something failed (shown in the status bar and a banner).
        sig_finished(str): the live game ended with this status.
        sig_spend(dict): the session's model spend so far changed (see :meth:`spend`).
        sig_budget(str, str): a seat passed a budget cap: ``("soft" | "hard" | "", message)``.
        sig_no_change(): an action was applied that changed nothing (the board nudges).
    """

    sig_session_changed = Signal()
    sig_view_changed = Signal()
    sig_step_records = Signal(int)
    sig_live_record = Signal(object)
    sig_controls_changed = Signal()
    sig_score = Signal(int, object)
    sig_undone = Signal()
    sig_status = Signal(str)
    sig_error = Signal(str)
    sig_finished = Signal(str)
    sig_spend = Signal(object)
    sig_budget = Signal(str, str)
    sig_no_change = Signal()

    def __init__(self, root: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if root is None:
            from sessions.paths import default_root

            root = default_root()
        self.root = Path(root)
        self.mode = "idle"  # "idle" | "live" | "replay"
        self.game: Game | None = None
        self.episode: Episode | None = None
        self.setup: GameSetup | None = None
        #: The steering of the live match (kept after it ends: a fork starts from its history).
        self.steering: Steering | None = None
        #: People's time per tick of a real-time game, as a multiple of the game's tick (Play menu).
        self.tick_scale = 1.0
        #: A real-time game with a person holds its clock until their first game key.
        self.awaiting_first_key = False
        self.task: asyncio.Task[Any] | None = None
        self.status_text = ""
        self.finished_status: str | None = None
        self.warnings: list[str] = []
        self.error: str | None = None
        #: What is shown of the open session (states, records, scores, attachments).
        self.doc = SessionModel()
        self._view: int | None = None  # None = following the live head
        self._inspector_step = 0
        self._generation = 0
        #: Counts start / open requests (and closes): the latest request wins over slower earlier ones.
        self._requests = 0

    # ------------------------------------------------------------------------------------------
    # Queries used by the views
    # ------------------------------------------------------------------------------------------

    @property
    def base(self) -> int:
        """The step number of the first state (0, or the step a fork started from)."""
        return self.doc.base

    @property
    def count(self) -> int:
        """How many steps have been applied (the timeline runs from ``base`` to ``base + count``)."""
        return self.doc.count

    @property
    def head(self) -> int:
        return self.doc.head

    @property
    def following(self) -> bool:
        return self._view is None

    @property
    def view_step(self) -> int:
        """The step whose state is shown."""
        return self.head if self._view is None else self._view

    @property
    def folder(self) -> Path | None:
        """The folder of the open session."""
        return self.doc.folder

    @property
    def session(self) -> Any:
        """The saved session being replayed (a :class:`sessions.Session`), else ``None``."""
        return self.doc.session

    @property
    def pacer(self) -> SteeringPacer | None:
        return self.steering.pacer if self.steering is not None else None

    @property
    def pending(self) -> dict[str, Any] | None:
        """The model decision held for review (``seat, step, call, action, rationale, label``) or ``None``."""
        held = self.steering.pending if self.steering is not None else None
        return held.as_dict() if held is not None else None

    @property
    def running(self) -> bool:
        return bool(self.steering and self.steering.running)

    @property
    def live(self) -> bool:
        return self.mode == "live" and self.task is not None and not self.task.done()

    @property
    def busy(self) -> bool:
        """Whether a model call is in flight."""
        return bool(self.steering and self.steering.busy)

    @property
    def scores(self) -> list[tuple[int, list[float]]]:
        return list(self.doc.scores)

    def records_for(self, step: int) -> list[dict[str, Any]]:
        return self.doc.records_for(step)

    def all_records(self) -> list[dict[str, Any]]:
        return self.doc.all_records()

    def state_at(self, step: int) -> State | None:
        """The state at ``step`` (after ``step - base`` applied actions)."""
        return self.doc.state_at(step)

    def current_state(self) -> State | None:
        if self.episode is not None and self.mode == "live":
            return self.episode.match.state
        return self.state_at(self.head)

    def seated(self, seat: Seat) -> Player:
        assert self.episode is not None
        return self.episode.match.players[seat]

    def players(self) -> list[Player]:
        return list(self.episode.match.players) if self.episode else []

    def _steering_live(self) -> Steering | None:
        return self.steering if self.live else None

    def waiting_human(self) -> tuple[Seat, HumanPlayer] | None:
        """The human player the live game waits for, if any."""
        steering = self._steering_live()
        return steering.waiting_human() if steering is not None else None

    def model_to_act(self) -> Seat | None:
        """The model seat that acts next at the live head, if any."""
        steering = self._steering_live()
        return steering.model_to_act() if steering is not None else None

    def human_to_act(self) -> Seat | None:
        """The human seat that acts next at the live head, if any."""
        steering = self._steering_live()
        return steering.human_to_act() if steering is not None else None

    def model_seats(self) -> list[Seat]:
        return self.steering.model_seats() if self.steering is not None else []

    def taken_over(self, seat: Seat) -> bool:
        return self.steering is not None and self.steering.taken_over(seat)

    def interactive_legal(self) -> list[str]:
        """Actions a person may choose on the board now (a human's turn or overriding a proposal)."""
        steering = self._steering_live()
        if steering is None or not self.following:
            return []
        return steering.legal_for_person()

    def person_controls(self) -> tuple[Any, dict[str, str]]:
        """For the person to act now: the buttons and amounts of :meth:`engine.core.State.panel`
        (``None`` when the board and keys suffice) and the click paths of
        :meth:`engine.core.State.path_actions`; ``(None, {})`` when no person is to act."""
        steering = self._steering_live()
        seat = steering.human_to_act() if steering is not None and self.following else None
        if steering is None or seat is None or steering.finished:
            return None, {}
        try:
            state = steering.match.state
            return state.panel(seat), dict(state.path_actions(seat))
        except Exception:  # a game's controls must never break the window: the board still works
            return None, {}

    def header_info(self) -> dict[str, Any]:
        """What the session header and the model panel header show."""
        if self.game is None:
            return {}
        info: dict[str, Any] = {
            "game": self.game.id,
            "title": self.game.title,
            "mode": self.mode,
            "session_id": self.folder.name if self.folder else None,
            "status": self.status_label(),
        }
        players: list[dict[str, Any]] = []
        harness: dict[str, Any] = {}
        if self.episode is not None:
            info["seed"] = self.episode.match.seed
            for seat, player in enumerate(self.episode.match.players):
                row = player_row(
                    self.game, seat, player.spec, player.label, player.kind, simulated=is_simulated(player)
                )
                players.append(row)
                config = getattr(player, "harness_config", None)
                if player.kind == MODEL and callable(config):
                    with contextlib.suppress(Exception):
                        harness[str(seat)] = config()
            info["forked_from"] = self.episode.match.forked_from
        elif self.session is not None:
            manifest = self.session.manifest
            info["seed"] = manifest.get("seed")
            players = self.doc.manifest_players()
            harness = dict(manifest.get("harness") or {})
            info["forked_from"] = (manifest.get("extra") or {}).get("forked_from")
        info["players"] = players
        info["harness"] = harness
        info["simulated"] = any(p["simulated"] for p in players)
        if self.doc.scores:
            info["scores"] = self.doc.scores[-1][1]
        return info

    def status_label(self) -> str:
        if self.mode == "replay":
            return self.finished_status or "replay"
        if self.finished_status:
            return self.finished_status
        if self.mode == "live":
            return "running" if self.running else "paused"
        return ""

    def resolve(self, ref: str) -> bytes | None:
        """The bytes behind an ``attachment://`` reference of the open session, or ``None``."""
        return self.doc.resolve(ref)

    # ------------------------------------------------------------------------------------------
    # Starting and opening sessions
    # ------------------------------------------------------------------------------------------

    def build_players(self, game: Game, setup: GameSetup) -> list[Player]:
        """Players for ``setup`` (people are :class:`SteeredHuman` players at the window's board)."""
        humans = sum(1 for s in setup.seats if s.spec == HUMAN)
        players: list[Player] = []
        for seat, seat_setup in enumerate(setup.seats):
            seat_seed = None if setup.seed is None else setup.seed * 1009 + seat
            if seat_setup.spec == HUMAN:
                name = game.seats[seat].name
                players.append(SteeredHuman(label="You" if humans == 1 else f"You ({name})"))
                continue
            players.append(make_player(seat_setup.spec, game, seed=seat_seed, **dict(seat_setup.options)))
        return players

    async def start(
        self,
        setup: GameSetup,
        *,
        state: State | None = None,
        history: Sequence[StepRecord] = (),
        forked_from: Mapping[str, Any] | None = None,
    ) -> Path:
        """Start a live game from ``setup`` (closing whatever was open); returns the session folder."""
        self._requests += 1
        ticket = self._requests
        game = engine.make(setup.game_id, **setup.options)
        if len(setup.seats) != game.num_seats:
            raise ValueError(f"{game.title} needs {game.num_seats} player(s), got {len(setup.seats)}")
        needs_png = any(str(s.options.get("perception", "text")) in ("image", "both", "describe")
                        for s in setup.seats)
        # The renderer needs the GUI thread; players (provider SDK clients, first imports) and the
        # session folder (mkdir, fsync) are built in a worker thread so the window never stalls.
        render = png_renderer(setup.game_id) if needs_png else None
        # Players are built before the open game is closed: a seat that cannot be made (no API key,
        # a bad option) fails this start and leaves the game being played untouched.
        players = await asyncio.to_thread(self.build_players, game, setup)
        if ticket != self._requests:
            # A later start or open (or the window closing) superseded this one while it was built.
            await _close_clients(players)
            raise asyncio.CancelledError
        await self.close()
        self._generation += 1
        generation = self._generation

        def create() -> Episode:
            return start_episode(
                setup.game_id,
                [p.spec for p in players],
                root=self.root,
                seed=setup.seed,
                options=setup.options,
                max_steps=setup.max_steps,
                render=render,
                players=players,
                state=state,
                history=history,
                forked_from=forked_from,
                title=setup.title,
                undo=setup.undo and game.num_seats == 1,
                demo=setup.demo,
                extra=setup.extra,
            )

        episode = await asyncio.to_thread(create)
        if generation != self._generation:
            # Another start or open won the race while this one was being built.
            episode.writer.close("aborted")
            return episode.path
        # A real-time game with a person waits for their first key: its clock (and a rule such as
        # Mario's "no progress for 5 s") must not run out before they have touched the keyboard.
        hold = (
            episode.game.tick_s is not None
            and not setup.paused
            and any(p.kind == HUMAN for p in episode.match.players)
        )
        steering = Steering(
            episode.match, running=not (setup.paused or hold), delay=setup.delay,
            takeover_label="You (took over)",
        )
        steering.set_tick_scale(self.tick_scale)
        steering.on_changed.append(lambda: self._steering_changed(generation))
        steering.on_notice.append(lambda code, text: self._on_notice(generation, code, text))
        self.steering = steering
        self.awaiting_first_key = hold
        self.setup = setup
        self.mode = "live"
        self.game = episode.game
        self.episode = episode
        self.finished_status = None
        self.error = None
        self.warnings = []
        start_state = episode.match.state
        self.doc = SessionModel.live(episode.game, start_state, episode.path, steering.spend)
        self._view = None
        self._inspector_step = self.doc.base
        episode.match.subscribe(lambda event: self._on_event(event, generation))
        self.sig_session_changed.emit()
        self.task = asyncio.ensure_future(self._run(episode, generation))
        self._controls_changed()
        return episode.path

    async def _run(self, episode: Episode, generation: int) -> None:
        """Run the match; every outcome (finished, cancelled, crashed) ends in a closed session."""
        status = "error"
        try:
            result = await episode.match.run()
            status = result.status
        except asyncio.CancelledError:
            status = "aborted"
            raise
        except Exception as exc:  # a bug in a game or player: keep what was played, say what failed
            message = f"The game stopped: {type(exc).__name__}: {exc}"
            if generation == self._generation:
                self.error = message
                self.sig_error.emit(message)
        finally:
            with contextlib.suppress(Exception):
                episode.writer.close(status)
            if generation == self._generation:
                self.finished_status = status
                if self.steering is not None:
                    self.steering.close()
                self.sig_finished.emit(status)
                self._controls_changed()

    async def open_session(self, path: Path | str) -> None:
        """Open a saved session for replay (read off the UI thread)."""
        import sessions

        self._requests += 1
        ticket = self._requests
        loaded = await asyncio.to_thread(sessions.load_session, Path(path))
        if ticket != self._requests:
            # A game was started or another session opened while this one loaded: the later request wins.
            return
        await self.close()
        self._generation += 1
        manifest = loaded.manifest
        game = engine.make(str(manifest["game"]), **dict(manifest.get("options") or {}))
        self.mode = "replay"
        self.awaiting_first_key = False
        self.game = game
        self.episode = None
        self.steering = None
        self.setup = setup_from_manifest(manifest)
        # The reader's status is reconciled with the events: a manifest still saying "running" after a
        # crash is reported as "interrupted" (or as the outcome its last event recorded).
        self.finished_status = str(getattr(loaded, "status", None) or manifest.get("status") or "")
        self.warnings = list(getattr(loaded, "warnings", []) or [])
        self.error = None
        self.doc = SessionModel.replay(game, loaded)
        self._view = self.doc.base
        self._inspector_step = self.doc.base
        self.sig_session_changed.emit()
        self._controls_changed()
        self.scrub(self.doc.base)

    async def close(self) -> None:
        """Stop the live game (recorded as aborted if unfinished) and forget the open session."""
        self._generation += 1
        self._requests += 1  # a start or open still on its way must not reopen anything
        task, self.task = self.task, None
        if self.steering is not None:
            # A held decision is given up, and a move clicked for the next turn never played elsewhere.
            self.steering.close()
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.steering is not None:
            await _close_clients(list(self.steering.models.values()))

    # ------------------------------------------------------------------------------------------
    # Live events
    # ------------------------------------------------------------------------------------------

    def _steering_changed(self, generation: int) -> None:
        if generation == self._generation:
            self._controls_changed()

    def _on_notice(self, generation: int, code: str, text: str) -> None:
        # A notice that describes the state (asking again, a cancelled call) is said by the status
        # line, derived from the state; as a timed message it would outlive the state it describes.
        if generation == self._generation and code not in _STATE_NOTICES:
            self._set_status(_NOTICES.get(code, text))

    def _on_event(self, event: Event, generation: int) -> None:
        if generation != self._generation or self.episode is None:
            return
        if event.type == ev.MODEL_DELTA:
            # Not while the person reviews an earlier step: the panel shows that step, not the stream.
            if self.following and event.step == self._inspector_step:
                self.sig_live_record.emit(record_of(event))
            return
        data = self.doc.store_blobs(event, self.episode.writer) if event.blobs else dict(event.data)
        record = record_of(event, data)
        step = event.step if event.step is not None else self.head
        self.doc.add_record(step, record)

        if event.type == ev.ACTION_APPLIED:
            state = self.episode.match.state
            scores = [float(s) for s in data.get("scores", state.scores)]
            self.doc.add_state(state, scores)
            self.sig_score.emit(state.step, scores)
            if data.get("changed") is False:
                self.sig_no_change.emit()
        elif event.type == ev.UNDO:
            self.doc.undo_state()
            self.sig_undone.emit()
            if self.following:
                # The panel leaves the undone move for the last decision still on the board.
                self._inspector_step = self.doc.latest_active_step()
                self.sig_step_records.emit(self._inspector_step)
        elif event.type == ev.MODEL_CALL_FINISHED:
            self.sig_spend.emit(self.spend())  # the steering's meter has counted it already
        elif event.type == ev.MODEL_RETRY:
            self._set_status(retry_text(data))
        elif event.type == ev.ERROR:
            if data.get("where") == "budget":
                # A spending cap is not a failure of the app: it gets its own, clearer presentation.
                self.sig_budget.emit(str(data.get("cap") or ""), str(data.get("message", "budget")))
            else:
                self.sig_error.emit(str(data.get("message", "error")))

        if self.following:
            if step > self._inspector_step and event.type not in PASSIVE_TYPES:
                self._inspector_step = step
                self.sig_step_records.emit(step)
            elif step == self._inspector_step:
                self.sig_live_record.emit(record)
        if event.type in _VIEW_TYPES:
            if self.following:
                self.sig_view_changed.emit()
            self._controls_changed()

    # ------------------------------------------------------------------------------------------
    # Commands from the window (the rules are the engine's steering)
    # ------------------------------------------------------------------------------------------

    def run(self) -> None:
        """Play automatically (accepts a pending decision)."""
        self.awaiting_first_key = False
        steering = self._steering_live()
        if steering is not None:
            steering.run()

    def first_key(self) -> None:
        """A person pressed a game key: a real-time game waiting for it starts its clock."""
        if self.awaiting_first_key:
            self.awaiting_first_key = False
            self.run()

    def pause(self) -> None:
        self.awaiting_first_key = False  # paused by hand: Run (or Space) starts it again
        steering = self._steering_live()
        if steering is not None:
            steering.pause()

    def toggle_run(self) -> None:
        if self.running:
            self.pause()
        else:
            self.run()

    def step(self) -> None:
        """Play one step while paused (a pending decision is accepted)."""
        steering = self._steering_live()
        if steering is not None:
            steering.step()

    def ask(self) -> bool:
        """Ask the model to act (one decision, held for review while paused)."""
        steering = self._steering_live()
        return steering is not None and steering.ask()

    def accept(self) -> bool:
        steering = self._steering_live()
        return steering is not None and steering.accept()

    def reask(self) -> bool:
        steering = self._steering_live()
        return steering is not None and steering.reask()

    def override(self, action: str) -> bool:
        """Apply ``action`` instead of the pending model decision (must be legal)."""
        steering = self._steering_live()
        return steering is not None and steering.override(action)

    def cancel(self) -> bool:
        """Cancel the in-flight model call (Esc)."""
        return self.steering is not None and self.steering.cancel()

    def can_undo(self) -> bool:
        """Whether the person to move may take back the last move now."""
        match = self.episode.match if self.episode is not None and self.mode == "live" else None
        return match is not None and match.can_undo and self.waiting_human() is not None and self.following

    def undo(self) -> bool:
        """Take back the last move (a single-player game whose session allows it); recorded as an
        ``undo`` event. Returns whether it was taken back."""
        waiting = self.waiting_human()
        if waiting is None or not self.can_undo():
            return False
        return waiting[1].take_back()

    def board_action(self, action: str) -> bool:
        """An action chosen on the board: a human's move, or an override of a pending decision."""
        steering = self._steering_live()
        if steering is None or not self.following:
            return False
        return steering.play(action)

    def take_over(self, seat: Seat | None = None) -> bool:
        """Seat a person in place of the model (``seat`` default: the model to act, else the first)."""
        steering = self._steering_live()
        if steering is None or not steering.take_over(seat):
            return False
        self._set_status("You took over the seat — play on the board; Hand back returns it to the model")
        self.sig_session_changed.emit()
        self._controls_changed()
        return True

    def hand_back(self, seat: Seat | None = None) -> bool:
        """Return a taken-over seat to its model."""
        steering = self._steering_live()
        if steering is None or not steering.hand_back(seat):
            return False
        self.sig_session_changed.emit()
        self._controls_changed()
        return True

    def set_tick_scale(self, scale: float) -> float:
        """Give people more (``scale`` > 1) or less time per tick of a real-time game; kept for the
        next games. Returns the scale applied."""
        self.tick_scale = max(0.125, min(8.0, float(scale)))
        if self.steering is not None:
            self.steering.set_tick_scale(self.tick_scale)
        return self.tick_scale

    def set_speed(self, delay: float) -> None:
        if self.steering is not None:
            self.steering.set_speed(delay)
        if self.setup is not None:
            self.setup.delay = max(0.0, float(delay))

    # -- viewing --------------------------------------------------------------------------------

    def scrub(self, step: int) -> None:
        """Show ``step`` (the head of a live game means following it again)."""
        step = max(self.base, min(int(step), self.head))
        if self.mode == "live" and step == self.head:
            self._view = None
            self._inspector_step = self.doc.latest_active_step()
            target = self._inspector_step
        else:
            self._view = step
            target = step
        self.sig_view_changed.emit()
        self.sig_step_records.emit(target)
        self._controls_changed()

    def go_live(self) -> None:
        self.scrub(self.head)

    def scrub_by(self, delta: int) -> None:
        self.scrub(self.view_step + delta)

    # -- fork and export ------------------------------------------------------------------------

    def history_until(self, step: int) -> list[StepRecord]:
        """The applied steps before ``step`` (the history a fork starts with)."""
        if self.steering is not None and self.mode == "live":
            return [h for h in self.steering.match.history if h.step < step]
        return self.doc.history_until(step)

    async def fork(self, step: int | None = None) -> Path:
        """Start a new live session from the state at ``step`` (default: the step shown)."""
        if self.game is None or self.setup is None or self.folder is None:
            raise RuntimeError("open or start a session first")
        k = self.view_step if step is None else step
        state: State | None
        if self.steering is not None and self.mode == "live":
            try:
                point = self.steering.fork_point(k)
            except ValueError:
                raise RuntimeError(f"no state at step {k}") from None
            state, history = point.state, list(point.history)
        else:
            # Rebuilt through the game's own JSON reader, as a saved session would be.
            state, history = self.doc.saved_state(k), self.doc.history_until(k)
        if state is None:
            raise RuntimeError(f"no state at step {k}")
        source = self.folder.name
        # A fork is the person's own game, even from the demo's.
        seats = [dataclasses.replace(s) for s in self.setup.seats]
        setup = dataclasses.replace(self.setup, seats=seats, demo=False)
        setup.paused = True
        origin = {"session": source, "step": k}
        return await self.start(setup, state=state, history=history, forked_from=origin)

    def export(self, dest: Path | str) -> Path:
        """Write the open session as a zip archive."""
        import sessions

        if self.folder is None:
            raise RuntimeError("no session is open")
        return Path(sessions.export_zip(self.folder, Path(dest)))

    # -- status -----------------------------------------------------------------------------------

    def _set_status(self, text: str) -> None:
        self.status_text = text
        self.sig_status.emit(text)

    def _controls_changed(self) -> None:
        self.sig_controls_changed.emit()

    def spend(self) -> dict[str, Any]:
        """The session's model spend so far, summed over every seat's finished calls.

        Keys: ``usd`` (known costs), ``tokens`` (input + output, reasoning included), ``input_tokens``,
        ``output_tokens``, ``calls``, ``unknown`` (calls whose price is unknown), ``models`` (seats played
        by a model), ``simulated`` (True when every model seat is the simulated model).
        """
        info = self.doc.spend.as_dict()
        players = self.header_info().get("players") or []
        models = [p for p in players if p.get("kind") == MODEL]
        info["models"] = len(models)
        info["simulated"] = bool(models) and all(p.get("simulated") for p in models)
        return info

    def snapshot(self) -> StatusSnapshot:
        """What the status line needs to know, frozen now (see :func:`desktop.status.status_text`)."""
        if self.mode == "idle" or self.game is None:
            return StatusSnapshot()
        pending = self.pending if self.mode == "live" else None
        waiting = self.waiting_human() if self.following else None
        pacer = self.pacer
        shown = self.current_state() if self.following else self.state_at(self.view_step)
        notice = ""
        if shown is not None:
            with contextlib.suppress(Exception):  # a game's notice must never break the status line
                notice = str(shown.notice() or "")
        return StatusSnapshot(
            mode=self.mode,
            view_step=self.view_step,
            head=self.head,
            following=self.following,
            finished=self.finished_status or None,
            result=self.result_text() if self.finished_status else "",
            error=self.error,
            running=self.running,
            paused=bool(pacer is not None and not pacer.running),
            held_up=bool(pacer is not None and pacer.waiting),
            pending_label=str(pending["label"]) if pending else None,
            pending_action=str(pending["action"]) if pending else None,
            model_busy=self.busy,
            model_to_act=self.model_to_act() is not None,
            waiting_seat=self.game.seats[waiting[0]].name if waiting is not None else None,
            waiting_label=waiting[1].label if waiting is not None else None,
            key_hint=self.key_hint(),
            call_cancelled=bool(self.steering is not None and self.live and self.steering.waiting_to_resume),
            cut_off=self.mode == "replay" and self.doc.cut_off(),
            notice=notice,
        )

    def describe(self) -> str:
        """The status bar's sentence about the state (derived in one place: :func:`status_text`)."""
        return status_text(self.snapshot())

    def key_hint(self) -> str:
        """How a person plays this game, from its declaration (``Game.controls``)."""
        controls = self.game.controls if self.game else ""
        return controls or "click the board or use its keys"

    def result_text(self) -> str:
        state = self.current_state()
        if state is None or self.game is None:
            return ""
        if state.winner is not None:
            return f"{self.game.seats[state.winner].name} wins"
        scores = ", ".join(f"{s:g}" for s in state.scores)
        return f"score {scores}" if len(state.scores) == 1 else f"scores {scores}"

