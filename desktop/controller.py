"""The session controller: one live match (or one replayed session) and everything the window shows.

It owns the :class:`~desktop.episode.Episode` (match + players + session writer), the pacer behind
Step / Run / Pause, the asyncio task that runs the match on the qasync loop, the human players, and the
per-step event records the timeline and the model panel display. Views only call its methods and
listen to its signals; nothing here blocks the event loop.

Model stepping by hand (while paused):

* **Ask** lets one decision happen; the model's choice is held as *pending* (the ``review`` hook);
* **Accept** applies it, **Override** applies a person's move instead (recorded as an ``override``
  event and a ``human-override`` decision), **Re-ask** asks the same player again at the same state
  (a new call number; every call of the step stays visible side by side);
* **Take over** seats a person in the model's place and **Hand back** returns the seat to the model;
* **Esc** cancels an in-flight model call without ending the game (the call is asked again on Ask).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

import engine
from desktop.episode import Episode, png_renderer, start_episode
from engine import events as ev
from engine.core import Game, Seat, State
from engine.events import Event
from engine.match import Pacer
from engine.players import HUMAN, MODEL, Decision, HumanPlayer, Observation, Player, StepRecord
from engine.roster import make_player

#: Harness options a model player accepts (a fork or a re-opened session reuses them).
MODEL_OPTION_KEYS = (
    "perception",
    "image_labels",
    "memory",
    "reflection",
    "thinking",
    "thinking_budget",
    "effort",
    "temperature",
    "max_tokens",
    "prompt_variant",
    "invalid_policy",
    "budget_soft_usd",
    "budget_hard_usd",
    "timeout_s",
    "latency",
    "format_error_rate",
    "illegal_rate",
    "wrong_ir_rate",
    "api_error_rate",
)

_ATTACHMENT_NAME = re.compile(r"sha256-[0-9a-f]{16,128}(\.[A-Za-z0-9]{1,10})?")

#: How many recent attachments a live session keeps in memory (older ones are read from disk).
_BLOB_CACHE = 16

#: Event types that do not start a new step in the model panel while following a live game.
_PASSIVE_TYPES = frozenset({ev.TURN_STARTED, ev.SESSION_FINISHED, ev.ACTION_APPLIED, ev.PLAYER_CHANGED})


@dataclasses.dataclass
class SeatSetup:
    """Who sits in one seat: a player spec and, for model players, the harness options."""

    spec: str
    options: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class GameSetup:
    """Everything needed to start a live game (what the New game dialog produces)."""

    game_id: str
    seats: list[SeatSetup]
    seed: int | None = None
    max_steps: int | None = None
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    title: str | None = None
    #: Start paused (step by hand) instead of playing automatically.
    paused: bool = False
    #: Seconds between automatic steps.
    delay: float = 0.5

    @staticmethod
    def random_seed() -> int:
        return random.randrange(1, 1_000_000)


def record_of(event: Event, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An event as a record for the panels: ``{"type", "step", "seat", "call", "data"}``."""
    return {
        "type": event.type,
        "step": event.step,
        "seat": event.seat,
        "call": event.call,
        "data": dict(event.data if data is None else data),
    }


class SpendMeter:
    """Running totals of a session's model calls (from ``model_call_finished`` events)."""

    def __init__(self) -> None:
        self.usd = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        self.calls = 0
        self.unknown = 0

    def add(self, data: Mapping[str, Any]) -> None:
        """Count one finished call; a missing ``cost_usd`` means its price is unknown."""
        self.calls += 1
        cost = data.get("cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.usd += float(cost)
        else:
            self.unknown += 1
        for attr in ("input_tokens", "output_tokens"):
            value = data.get(attr)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, attr, getattr(self, attr) + value)

    def as_dict(self) -> dict[str, Any]:
        return {
            "usd": self.usd,
            "tokens": self.input_tokens + self.output_tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": self.calls,
            "unknown": self.unknown,
        }


def retry_text(data: Mapping[str, Any]) -> str:
    """The status-bar line for a transport retry: "Rate limited — retrying in 2 s…"."""
    reason = str(data.get("reason") or "connection problem").strip()
    # "rate limited (429)" -> "Rate limited": the status code helps in the session, not in the bar.
    reason = re.sub(r"\s*\(\d{3}\)$", "", reason) or "Connection problem"
    reason = reason[:1].upper() + reason[1:]
    wait = data.get("wait_s")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait > 0:
        seconds = f"{wait:.0f}" if wait >= 1 else f"{wait:.1f}"
        return f"{reason} — retrying in {seconds} s…"
    return f"{reason} — retrying…"


def is_simulated(player: Any) -> bool:
    """Whether a player is the offline simulated model."""
    client = getattr(player, "client", None)
    if client is not None and getattr(client, "simulated", False):
        return True
    return str(getattr(player, "spec", "")).split(":", 1)[0] == "sim"


def kind_key(kind: str, spec: str) -> str:
    """The badge key of a player: ``human``, ``bot``, ``model`` or ``sim``."""
    if kind == MODEL and spec.split(":", 1)[0] == "sim":
        return "sim"
    return kind if kind in (HUMAN, MODEL) else "bot"


class _UiPacer(Pacer):
    """A pacer that tells the controller when the match waits for it (paused ⇒ "press Step")."""

    def __init__(self, on_change: Callable[[], None], *, running: bool, delay: float) -> None:
        super().__init__(running=running, delay=delay)
        self.waiting = False
        self._on_change = on_change

    async def wait(self) -> None:
        self.waiting = True
        self._on_change()
        try:
            await super().wait()
        finally:
            self.waiting = False
            self._on_change()


class SteerablePlayer:
    """Wraps a model player so one call can be cancelled (Esc) without ending the match.

    After a cancelled call the seat waits until the person asks again (or takes the seat over); the
    new attempt is a new call number at the same step.
    """

    def __init__(self, inner: Player, controller: SessionController, seat: Seat) -> None:
        self.inner = inner
        self._ctl = controller
        self.seat = seat
        self.task: asyncio.Task[Decision] | None = None
        self.cancelled_by_user = False
        #: The observation of the latest attempt (a retry after a cancel has a new call number).
        self.last_observation: Observation | None = None

    @property
    def kind(self) -> str:
        return self.inner.kind

    @property
    def spec(self) -> str:
        return self.inner.spec

    @property
    def label(self) -> str:
        return self.inner.label

    def __getattr__(self, name: str) -> Any:
        # harness_config(), client, ... come from the wrapped player.
        return getattr(self.inner, name)

    def cancel_call(self) -> bool:
        """Cancel the in-flight call, if any; returns whether one was cancelled."""
        if self.task is None or self.task.done():
            return False
        self.cancelled_by_user = True
        self.task.cancel()
        return True

    async def act(self, observation: Observation) -> Decision:
        obs = observation
        while True:
            self.cancelled_by_user = False
            self.last_observation = obs
            self.task = asyncio.ensure_future(self.inner.act(obs))
            self._ctl._calls_changed()
            try:
                return await self.task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not self.cancelled_by_user or (current is not None and current.cancelling()):
                    raise
            finally:
                self.task = None
                self._ctl._calls_changed()
            self._ctl._call_cancelled(obs)
            seated = self._ctl.seated(self.seat)
            if seated is self:
                # Wait for the person: Ask / Step / Run tries again, Take over seats them instead.
                await self._ctl._wait_resume()
                seated = self._ctl.seated(self.seat)
            # Taken over (the cancel came from Take over, or it happened while waiting): the person
            # answers this turn at once; nobody would press Ask for a seat that is no longer the model's.
            if seated is not self:
                return await seated.act(obs)
            obs = self._ctl.new_observation(self.seat)


class UiHumanPlayer(HumanPlayer):
    """A person at the window's board: tells the controller when it starts waiting for a move."""

    def __init__(self, controller: SessionController, label: str = "You") -> None:
        super().__init__(label=label)
        self._ctl = controller

    async def act(self, observation: Observation) -> Decision:
        inner = asyncio.ensure_future(HumanPlayer.act(self, observation))
        try:
            # One turn of the loop lets the inner coroutine create its future before we announce it.
            await asyncio.sleep(0)
            self._ctl._human_waiting(self)
            return await inner
        except asyncio.CancelledError:
            inner.cancel()
            raise


class TakeoverHuman(UiHumanPlayer):
    """The person who took a model's seat; handing back lets the model answer the waiting turn."""

    def __init__(self, model: SteerablePlayer, controller: SessionController) -> None:
        super().__init__(controller, label="You (took over)")
        self.model = model
        self._handed_back = asyncio.Event()

    def hand_back(self) -> None:
        self._handed_back.set()

    async def act(self, observation: Observation) -> Decision:
        human = asyncio.ensure_future(UiHumanPlayer.act(self, observation))
        back = asyncio.ensure_future(self._handed_back.wait())
        try:
            done, _ = await asyncio.wait({human, back}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            # asyncio.wait does not cancel what it waits for: a closed game must not leave a turn open.
            human.cancel()
            raise
        finally:
            if not back.done():
                back.cancel()
        if human in done:
            return human.result()
        human.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await human
        obs = self._ctl.new_observation(observation.seat)
        decision = await self.model.act(obs)
        return await self._ctl._review(obs, self.model, decision)  # type: ignore[arg-type]


async def _close_clients(players: Sequence[Any]) -> None:
    """Close the provider clients of players that will never play (a superseded start)."""
    for player in players:
        with contextlib.suppress(Exception):
            client = getattr(getattr(player, "inner", player), "client", None)
            if client is not None and hasattr(client, "aclose"):
                await client.aclose()


class SessionController(QObject):
    """Owns the open session (live or replay) and answers the window's requests.

    Signals:
        sig_session_changed(): a session was started or opened (reset every view).
        sig_view_changed(): the step shown (board, timeline, plot marker) changed.
        sig_step_records(int): show the records of this step in the model panel (``show_step``).
        sig_live_record(dict): a record for the step the model panel follows (``append_live``).
        sig_controls_changed(): running / pending / busy / waiting changed.
        sig_score(int, list): scores after this many steps (a new plot point).
        sig_status(str): what is happening, for the status bar.
        sig_error(str): something failed (shown in the status bar and a banner).
        sig_finished(str): the live game ended with this status.
        sig_spend(dict): the session's model spend so far changed (see :meth:`spend`).
        sig_budget(str, str): a seat passed a budget cap: ``("soft" | "hard" | "", message)``.
    """

    sig_session_changed = Signal()
    sig_view_changed = Signal()
    sig_step_records = Signal(int)
    sig_live_record = Signal(object)
    sig_controls_changed = Signal()
    sig_score = Signal(int, object)
    sig_status = Signal(str)
    sig_error = Signal(str)
    sig_finished = Signal(str)
    sig_spend = Signal(object)
    sig_budget = Signal(str, str)

    def __init__(self, root: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if root is None:
            from sessions.paths import default_root

            root = default_root()
        self.root = Path(root)
        self.mode = "idle"  # "idle" | "live" | "replay"
        self.game: Game | None = None
        self.episode: Episode | None = None
        self.session: Any = None  # sessions.Session in replay mode
        self.setup: GameSetup | None = None
        self.pacer: _UiPacer | None = None
        self.task: asyncio.Task[Any] | None = None
        self.status_text = ""
        self.finished_status: str | None = None
        self.warnings: list[str] = []
        self.error: str | None = None
        self._records: dict[int, list[dict[str, Any]]] = {}
        self._states: list[State | None] = []
        self._state_json: list[dict[str, Any] | None] = []
        self._base = 0
        self._view: int | None = None  # None = following the live head
        self._inspector_step = 0
        self._blobs: dict[str, bytes] = {}
        self._folder: Path | None = None
        self._pending: dict[str, Any] | None = None
        self._review_future: asyncio.Future[tuple[str, Any]] | None = None
        self._resume = asyncio.Event()
        self._resume_waiter_count = 0
        self._queued_action: str | None = None
        #: The decision the review hook answered last (see :meth:`_review`).
        self._reviewed: Decision | None = None
        self._models: dict[Seat, SteerablePlayer] = {}
        self._takeovers: dict[Seat, TakeoverHuman] = {}
        self._scores: list[tuple[int, list[float]]] = []
        self._generation = 0
        #: Counts start / open requests (and closes): the latest request wins over slower earlier ones.
        self._requests = 0
        self._spend = SpendMeter()

    # ------------------------------------------------------------------------------------------
    # Queries used by the views
    # ------------------------------------------------------------------------------------------

    @property
    def base(self) -> int:
        """The step number of the first state (0, or the step a fork started from)."""
        return self._base

    @property
    def count(self) -> int:
        """How many steps have been applied (the timeline runs from ``base`` to ``base + count``)."""
        return max(0, len(self._states) - 1)

    @property
    def head(self) -> int:
        return self._base + self.count

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
        return self._folder

    @property
    def pending(self) -> dict[str, Any] | None:
        """The model decision held for review, or ``None``."""
        return dict(self._pending) if self._pending else None

    @property
    def running(self) -> bool:
        return bool(self.pacer and self.pacer.running)

    @property
    def live(self) -> bool:
        return self.mode == "live" and self.task is not None and not self.task.done()

    @property
    def busy(self) -> bool:
        """Whether a model call is in flight."""
        return any(p.task is not None and not p.task.done() for p in self._models.values())

    @property
    def scores(self) -> list[tuple[int, list[float]]]:
        return list(self._scores)

    def records_for(self, step: int) -> list[dict[str, Any]]:
        return list(self._records.get(step, ()))

    def all_records(self) -> list[dict[str, Any]]:
        return [r for k in sorted(self._records) for r in self._records[k]]

    def state_at(self, step: int) -> State | None:
        """The state at ``step`` (after ``step - base`` applied actions)."""
        i = step - self._base
        if self.game is None or not 0 <= i < len(self._states):
            return None
        state = self._states[i]
        if state is None:
            data = self._state_json[i]
            if data is None and self.session is not None:
                try:
                    data = self.session.state_json_at(i)
                except IndexError:  # a torn session may not have recorded it: nothing to show
                    return None
                self._state_json[i] = data
            if data is None:
                return None
            state = self.game.state_from_json(data)
            self._states[i] = state
        return state

    def current_state(self) -> State | None:
        if self.episode is not None and self.mode == "live":
            return self.episode.match.state
        return self.state_at(self.head)

    def seated(self, seat: Seat) -> Player:
        assert self.episode is not None
        return self.episode.match.players[seat]

    def players(self) -> list[Player]:
        return list(self.episode.match.players) if self.episode else []

    def waiting_human(self) -> tuple[Seat, HumanPlayer] | None:
        """The human player the live game waits for, if any."""
        if self.episode is None or not self.live:
            return None
        for seat, player in enumerate(self.episode.match.players):
            if isinstance(player, HumanPlayer) and player.waiting is not None:
                return seat, player
        return None

    def model_to_act(self) -> Seat | None:
        """The model seat that acts next at the live head, if any."""
        state = self.current_state()
        if self.episode is None or state is None or state.is_over or not self.live:
            return None
        for seat in state.to_act:
            if self.seated(seat).kind == MODEL:
                return seat
        return None

    def model_seats(self) -> list[Seat]:
        return sorted(self._models)

    def taken_over(self, seat: Seat) -> bool:
        return self.episode is not None and self.seated(seat) is self._takeovers.get(seat)

    def interactive_legal(self) -> list[str]:
        """Actions a person may choose on the board now (a human's turn or overriding a proposal)."""
        if not self.following or not self.live:
            return []
        if self._pending is not None:
            state = self.current_state()
            return state.legal_actions(self._pending["seat"]) if state else []
        seat = self.human_to_act()
        state = self.current_state()
        return state.legal_actions(seat) if seat is not None and state is not None else []

    def human_to_act(self) -> Seat | None:
        """The human seat that acts next at the live head, if any."""
        state = self.current_state()
        if self.episode is None or state is None or state.is_over or not self.live:
            return None
        for seat in state.to_act:
            if isinstance(self.seated(seat), HumanPlayer):
                return seat
        return None

    def header_info(self) -> dict[str, Any]:
        """What the session header and the model panel header show."""
        if self.game is None:
            return {}
        info: dict[str, Any] = {
            "game": self.game.id,
            "title": self.game.title,
            "mode": self.mode,
            "session_id": self._folder.name if self._folder else None,
            "status": self.status_label(),
        }
        players: list[dict[str, Any]] = []
        harness: dict[str, Any] = {}
        if self.episode is not None:
            info["seed"] = self.episode.match.seed
            for seat, player in enumerate(self.episode.match.players):
                sim = is_simulated(player)
                players.append(
                    {
                        "seat": seat,
                        "seat_name": self.game.seats[seat].name,
                        "spec": player.spec,
                        "label": player.label,
                        "kind": player.kind,
                        "badge": kind_key(player.kind, player.spec),
                        "simulated": sim and player.kind == MODEL,
                    }
                )
                config = getattr(player, "harness_config", None)
                if player.kind == MODEL and callable(config):
                    with contextlib.suppress(Exception):
                        harness[str(seat)] = config()
            info["forked_from"] = self.episode.match.forked_from
        elif self.session is not None:
            manifest = self.session.manifest
            info["seed"] = manifest.get("seed")
            for p in manifest.get("players") or []:
                seat = int(p.get("seat", len(players)))
                kind = str(p.get("kind", "bot"))
                spec = str(p.get("spec", ""))
                players.append(
                    {
                        "seat": seat,
                        "seat_name": self.game.seats[seat].name if seat < len(self.game.seats) else str(seat),
                        "spec": spec,
                        "label": p.get("label", spec),
                        "kind": kind,
                        "badge": kind_key(kind, spec),
                        "simulated": kind == MODEL and spec.split(":", 1)[0] == "sim",
                    }
                )
            harness = dict(manifest.get("harness") or {})
            info["forked_from"] = (manifest.get("extra") or {}).get("forked_from")
        info["players"] = players
        info["harness"] = harness
        info["simulated"] = any(p["simulated"] for p in players)
        if self._scores:
            info["scores"] = self._scores[-1][1]
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
        if ref in self._blobs:
            return self._blobs[ref]
        name = ref.removeprefix("attachment://")
        if self._folder is None or not _ATTACHMENT_NAME.fullmatch(name):
            return None
        path = self._folder / "attachments" / name
        try:
            return path.read_bytes()
        except OSError:
            return None

    # ------------------------------------------------------------------------------------------
    # Starting and opening sessions
    # ------------------------------------------------------------------------------------------

    def build_players(self, game: Game, setup: GameSetup) -> list[Player]:
        """Players for ``setup``; model players are wrapped so their calls can be cancelled."""
        humans = sum(1 for s in setup.seats if s.spec == HUMAN)
        players: list[Player] = []
        for seat, seat_setup in enumerate(setup.seats):
            seat_seed = None if setup.seed is None else setup.seed * 1009 + seat
            if seat_setup.spec == HUMAN:
                name = game.seats[seat].name
                players.append(UiHumanPlayer(self, label="You" if humans == 1 else f"You ({name})"))
                continue
            player = make_player(seat_setup.spec, game, seed=seat_seed, **dict(seat_setup.options))
            if player.kind == MODEL:
                players.append(SteerablePlayer(player, self, seat))  # type: ignore[arg-type]
            else:
                players.append(player)
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
        needs_png = any(str(s.options.get("perception", "text")) in ("image", "both") for s in setup.seats)
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
        pacer = _UiPacer(self._controls_changed, running=not setup.paused, delay=setup.delay)
        self._models = {}
        self._takeovers = {}

        def create() -> Episode:
            return start_episode(
                setup.game_id,
                [p.spec for p in players],
                root=self.root,
                seed=setup.seed,
                options=setup.options,
                max_steps=setup.max_steps,
                pacer=pacer,
                review=self._review,
                render=render,
                players=players,
                state=state,
                history=history,
                forked_from=forked_from,
                title=setup.title,
            )

        episode = await asyncio.to_thread(create)
        if generation != self._generation:
            # Another start or open won the race while this one was being built.
            episode.writer.close("aborted")
            return episode.path
        self.pacer = pacer
        self._models = {s: p for s, p in enumerate(players) if isinstance(p, SteerablePlayer)}
        self.setup = setup
        self.mode = "live"
        self.game = episode.game
        self.episode = episode
        self.session = None
        self._folder = episode.path
        self.finished_status = None
        self.error = None
        self.warnings = []
        self._records = {}
        self._blobs = {}
        self._scores = []
        self._spend = SpendMeter()
        start_state = episode.match.state
        self._base = start_state.step
        self._states = [start_state]
        self._state_json = [None]
        self._view = None
        self._inspector_step = self._base
        self._pending = None
        self._resume = asyncio.Event()
        self._resume_waiter_count = 0
        episode.match.subscribe(lambda event: self._on_event(event, generation))
        self._scores.append((self._base, [float(s) for s in start_state.scores]))
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
                self._pending = None
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
        self.game = game
        self.episode = None
        self.session = loaded
        self.setup = self._setup_from_manifest(manifest)
        self._folder = Path(loaded.path)
        # The reader's status is reconciled with the events: a manifest still saying "running" after a
        # crash is reported as "interrupted" (or as the outcome its last event recorded).
        self.finished_status = str(getattr(loaded, "status", None) or manifest.get("status") or "")
        self.warnings = list(getattr(loaded, "warnings", []) or [])
        self.error = None
        self._records = {}
        self._blobs = {}
        self._pending = None
        self._models = {}
        self._takeovers = {}
        events = list(loaded.events)
        started = next((e for e in events if e.get("type") == ev.SESSION_STARTED), None)
        self._base = int(started.get("step") or 0) if started else 0
        steps = [e for e in events if e.get("type") == ev.ACTION_APPLIED]
        self._states = [None] * (len(steps) + 1)
        self._state_json = [None] * (len(steps) + 1)
        if started is not None and isinstance(started.get("data", {}).get("state"), dict):
            self._state_json[0] = started["data"]["state"]
        for i, e in enumerate(steps):
            data = e.get("data") or {}
            if isinstance(data.get("state"), dict):
                self._state_json[i + 1] = data["state"]
        self._spend = SpendMeter()
        for e in events:
            step = e.get("step")
            key = int(step) if isinstance(step, int) else self._base
            self._records.setdefault(key, []).append(
                {k: e.get(k) for k in ("type", "step", "seat", "call", "data")}
            )
            if e.get("type") == ev.MODEL_CALL_FINISHED:
                self._spend.add(e.get("data") or {})
        first = self.state_at(self._base)
        self._scores = []
        if first is not None:
            self._scores.append((self._base, [float(s) for s in first.scores]))
        for i, e in enumerate(steps):
            scores = (e.get("data") or {}).get("scores")
            if isinstance(scores, list):
                self._scores.append((self._base + i + 1, [float(s) for s in scores]))
        self._view = self._base
        self._inspector_step = self._base
        self.sig_session_changed.emit()
        self._controls_changed()
        self.scrub(self._base)

    def _setup_from_manifest(self, manifest: Mapping[str, Any]) -> GameSetup:
        harness = manifest.get("harness") or {}
        seats: list[SeatSetup] = []
        for p in manifest.get("players") or []:
            seat = str(p.get("seat", len(seats)))
            config = harness.get(seat) or {}
            options = {k: v for k, v in config.items() if k in MODEL_OPTION_KEYS}
            seats.append(SeatSetup(str(p.get("spec", "random")), options))
        seed = manifest.get("seed")
        return GameSetup(
            game_id=str(manifest["game"]),
            seats=seats,
            seed=seed if isinstance(seed, int) else None,
            options=dict(manifest.get("options") or {}),
        )

    async def close(self) -> None:
        """Stop the live game (recorded as aborted if unfinished) and forget the open session."""
        self._generation += 1
        self._requests += 1  # a start or open still on its way must not reopen anything
        task, self.task = self.task, None
        if self._review_future is not None and not self._review_future.done():
            self._review_future.cancel()
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for model in self._models.values():
            with contextlib.suppress(Exception):
                client = getattr(model.inner, "client", None)
                if client is not None and hasattr(client, "aclose"):
                    await client.aclose()
        self._pending = None
        # A move clicked for the closed game's next turn must never be played in the next game.
        self._queued_action = None

    # ------------------------------------------------------------------------------------------
    # Live events
    # ------------------------------------------------------------------------------------------

    def _on_event(self, event: Event, generation: int) -> None:
        if generation != self._generation or self.episode is None:
            return
        if event.type == ev.MODEL_DELTA:
            # Not while the person reviews an earlier step: the panel shows that step, not the stream.
            if self.following and event.step == self._inspector_step:
                self.sig_live_record.emit(record_of(event))
            return
        data = dict(event.data)
        if event.blobs:
            writer = self.episode.writer
            for key, blob in event.blobs.items():
                try:
                    ref = writer.add_attachment(blob.data, blob.extension)
                except Exception:  # the writer reports its own failures; the panel can live without
                    continue
                self._blobs[ref] = blob.data
                # Only the latest images stay in memory (the panel shows the step being played); the
                # rest are on disk already, and ``resolve`` reads them back: a long game must not
                # keep every board image it ever sent.
                while len(self._blobs) > _BLOB_CACHE:
                    del self._blobs[next(iter(self._blobs))]
                data[key] = ref
        record = record_of(event, data)
        step = event.step if event.step is not None else self.head
        self._records.setdefault(step, []).append(record)

        if event.type == ev.ACTION_APPLIED:
            state = self.episode.match.state
            self._states.append(state)
            self._state_json.append(None)
            scores = [float(s) for s in data.get("scores", state.scores)]
            self._scores.append((state.step, scores))
            self.sig_score.emit(state.step, scores)
        elif event.type == ev.MODEL_CALL_FINISHED:
            self._spend.add(data)
            self.sig_spend.emit(self.spend())
        elif event.type == ev.MODEL_RETRY:
            self._set_status(retry_text(data))
        elif event.type == ev.ERROR:
            if data.get("where") == "budget":
                # A spending cap is not a failure of the app: it gets its own, clearer presentation.
                self.sig_budget.emit(str(data.get("cap") or ""), str(data.get("message", "budget")))
            else:
                self.sig_error.emit(str(data.get("message", "error")))

        if self.following:
            if step > self._inspector_step and event.type not in _PASSIVE_TYPES:
                self._inspector_step = step
                self.sig_step_records.emit(step)
            elif step == self._inspector_step:
                self.sig_live_record.emit(record)
        if event.type in (ev.ACTION_APPLIED, ev.TURN_STARTED, ev.PLAYER_CHANGED, ev.SESSION_FINISHED):
            if self.following:
                self.sig_view_changed.emit()
            self._controls_changed()

    # ------------------------------------------------------------------------------------------
    # Review hook: hold a model's decision while stepping by hand
    # ------------------------------------------------------------------------------------------

    async def _review(self, obs: Observation, player: Player, decision: Decision) -> Decision:
        if decision is self._reviewed:
            # Already held and answered on the hand-back path (a take-over during the call); the match's
            # own review of the same decision must not hold it a second time.
            return decision
        result = await self._hold(obs, player, decision)
        self._reviewed = result
        return result

    async def _hold(self, obs: Observation, player: Player, decision: Decision) -> Decision:
        if player.kind != MODEL or decision.source != MODEL or self.running:
            return decision
        latest = getattr(player, "last_observation", None)
        if isinstance(latest, Observation) and latest.step == obs.step and latest.seat == obs.seat:
            obs = latest  # the decision came from a retried call
        seat, call = obs.seat, obs.call
        loop = asyncio.get_running_loop()
        while True:
            self._pending = {
                "seat": seat,
                "step": obs.step,
                "call": call,
                "action": decision.action,
                "rationale": decision.rationale,
                "label": player.label,
            }
            self._review_future = loop.create_future()
            self._controls_changed()
            try:
                command, arg = await self._review_future
            finally:
                self._pending = None
                self._review_future = None
                self._controls_changed()
            if command == "accept":
                decision.extra.setdefault("accepted_call", call)
                return decision
            if command == "override":
                assert self.episode is not None
                self.episode.match.emit(
                    Event(
                        ev.OVERRIDE,
                        {"proposed": decision.action, "action": arg, "by": "human"},
                        step=obs.step,
                        seat=seat,
                        call=call,
                    )
                )
                return Decision(arg, source="human-override", extra={"proposed": decision.action})
            if command == "takeover":
                return await self.seated(seat).act(obs)
            # "reask": same player, same state, a new call number.
            model = self._models.get(seat, player)
            obs2 = self.new_observation(seat)
            new = await model.act(obs2)
            if new.source != MODEL:
                return new
            latest = getattr(model, "last_observation", None)
            if isinstance(latest, Observation) and latest.step == obs2.step and latest.seat == seat:
                obs2 = latest  # the re-ask was cancelled and asked again: the answer is the newer call's
            obs, decision, call = obs2, new, obs2.call

    def new_observation(self, seat: Seat) -> Observation:
        assert self.episode is not None
        return self.episode.match.observation(seat)

    def _resolve_review(self, command: str, arg: Any = None) -> bool:
        fut = self._review_future
        if fut is None or fut.done():
            return False
        fut.set_result((command, arg))
        return True

    async def _wait_resume(self) -> None:
        self._resume.clear()
        self._resume_waiter_count += 1
        self._controls_changed()
        try:
            await self._resume.wait()
        finally:
            self._resume_waiter_count -= 1

    def _call_cancelled(self, obs: Observation) -> None:
        model = self._models.get(obs.seat)
        taken_over = self.episode is not None and model is not None and self.seated(obs.seat) is not model
        if self.pacer is not None and not taken_over:
            self.pacer.pause()
        already = any(
            r["type"] == ev.MODEL_CALL_FAILED and r["call"] == obs.call for r in self._records.get(obs.step, ())
        )
        if not already and self.episode is not None:
            self.episode.match.emit(
                Event(
                    ev.MODEL_CALL_FAILED,
                    {"error": "cancelled by the user", "kind": "cancelled"},
                    step=obs.step,
                    seat=obs.seat,
                    call=obs.call,
                )
            )
        if not taken_over:
            self._set_status("Model call cancelled — press Ctrl+Enter to ask again, or take over the seat")

    def _calls_changed(self) -> None:
        self._controls_changed()

    def _human_waiting(self, player: HumanPlayer) -> None:
        queued, self._queued_action = self._queued_action, None
        if queued is not None and player.submit(queued):
            return
        self._controls_changed()

    # ------------------------------------------------------------------------------------------
    # Commands from the window
    # ------------------------------------------------------------------------------------------

    def run(self) -> None:
        """Play automatically (accepts a pending decision)."""
        if self.pacer is None or not self.live:
            return
        self.pacer.run()
        self._resolve_review("accept")
        self._resume.set()
        self._controls_changed()

    def pause(self) -> None:
        if self.pacer is None or not self.live:
            return
        self.pacer.pause()
        self._controls_changed()

    def toggle_run(self) -> None:
        if self.running:
            self.pause()
        else:
            self.run()

    def step(self) -> None:
        """Play one step while paused (a pending decision is accepted)."""
        if self.pacer is None or not self.live:
            return
        if self.running:
            self.pacer.pause()
        if self._resolve_review("accept"):
            return
        if self._resume_waiting():
            return
        if self.pacer.waiting:
            self.pacer.step_once()
        self._controls_changed()

    def ask(self) -> bool:
        """Ask the model to act (one decision, held for review while paused)."""
        if not self.live or self.pacer is None:
            return False
        if self._pending is not None:
            self._set_status("A decision is waiting: Accept, Override or Re-ask it")
            return False
        if self.busy:
            return False
        if self._resume_waiting():
            return True
        if self.model_to_act() is None:
            self._set_status("No model is to act now")
            return False
        if self.running:
            self.pacer.pause()
        if self.pacer.waiting:
            self.pacer.step_once()
        self._controls_changed()
        return True

    def _resume_waiting(self) -> bool:
        """Wake a model seat that waits after a cancelled call; returns whether one was waiting."""
        if self._resume_waiters():
            self._resume.set()
            return True
        return False

    def _resume_waiters(self) -> bool:
        return self._resume_waiter_count > 0

    def accept(self) -> bool:
        return self._resolve_review("accept")

    def reask(self) -> bool:
        if self._resolve_review("reask"):
            self._set_status("Asking the model again…")
            return True
        return False

    def override(self, action: str) -> bool:
        """Apply ``action`` instead of the pending model decision (must be legal)."""
        if self._pending is None:
            return False
        if action not in self.interactive_legal():
            self._set_status(f"{action!r} is not a legal move here")
            return False
        return self._resolve_review("override", action)

    def cancel(self) -> bool:
        """Cancel the in-flight model call (Esc)."""
        cancelled = False
        for model in self._models.values():
            cancelled = model.cancel_call() or cancelled
        return cancelled

    def board_action(self, action: str) -> bool:
        """An action chosen on the board: a human's move, or an override of a pending decision."""
        if not self.live or not self.following:
            return False
        if self._pending is not None:
            return self.override(action)
        waiting = self.waiting_human()
        if waiting is None:
            seat = self.human_to_act()
            if seat is None or action not in self.interactive_legal():
                return False
            # The human's turn has begun but its player has not started waiting yet: keep the move.
            self._queued_action = action
            return True
        return waiting[1].submit(action)

    def take_over(self, seat: Seat | None = None) -> bool:
        """Seat a person in place of the model (``seat`` default: the model to act, else the first)."""
        if not self.live or self.episode is None:
            return False
        if seat is None:
            seat = self.model_to_act()
            if seat is None:
                candidates = [s for s in self._models if not self.taken_over(s)]
                seat = candidates[0] if candidates else None
        if seat is None or seat not in self._models or self.taken_over(seat):
            return False
        human = TakeoverHuman(self._models[seat], self)
        self._takeovers[seat] = human
        self.episode.match.replace_player(seat, human)
        model = self._models[seat]
        if not self._resolve_review("takeover"):
            if model.cancel_call():
                pass
            elif self._resume_waiters():
                self._resume.set()
            elif self.pacer is not None and self.pacer.waiting and not self.pacer.running:
                state = self.current_state()
                if state is not None and all(self.seated(s).kind == HUMAN for s in state.to_act):
                    self.pacer.step_once()
        self._set_status("You took over the seat — play on the board; Hand back returns it to the model")
        self.sig_session_changed.emit()
        self._controls_changed()
        return True

    def hand_back(self, seat: Seat | None = None) -> bool:
        """Return a taken-over seat to its model."""
        if not self.live or self.episode is None:
            return False
        if seat is None:
            seats = [s for s in self._takeovers if self.taken_over(s)]
            seat = seats[0] if seats else None
        if seat is None or not self.taken_over(seat):
            return False
        human = self._takeovers.pop(seat)
        self.episode.match.replace_player(seat, self._models[seat])
        human.hand_back()
        self.sig_session_changed.emit()
        self._controls_changed()
        return True

    def set_speed(self, delay: float) -> None:
        if self.pacer is not None:
            self.pacer.delay = max(0.0, float(delay))
        if self.setup is not None:
            self.setup.delay = max(0.0, float(delay))

    # -- viewing --------------------------------------------------------------------------------

    def scrub(self, step: int) -> None:
        """Show ``step`` (the head of a live game means following it again)."""
        step = max(self._base, min(int(step), self.head))
        if self.mode == "live" and step == self.head:
            self._view = None
            self._inspector_step = max(
                [k for k in self._records if k <= self.head and self._has_activity(k)] or [self.head]
            )
            target = self._inspector_step
        else:
            self._view = step
            target = step
        self.sig_view_changed.emit()
        self.sig_step_records.emit(target)
        self._controls_changed()

    def _has_activity(self, step: int) -> bool:
        return any(r["type"] not in _PASSIVE_TYPES for r in self._records.get(step, ()))

    def go_live(self) -> None:
        self.scrub(self.head)

    def scrub_by(self, delta: int) -> None:
        self.scrub(self.view_step + delta)

    # -- fork and export ------------------------------------------------------------------------

    def history_until(self, step: int) -> list[StepRecord]:
        """The applied steps before ``step`` (the history a fork starts with)."""
        if self.episode is not None and self.mode == "live":
            return [h for h in self.episode.match.history if h.step < step]
        out: list[StepRecord] = []
        if self.session is None:
            return out
        applied = [e for e in self.session.events if e.get("type") == ev.ACTION_APPLIED]
        for i, e in enumerate(applied):
            k = self._base + i
            if k >= step:
                break
            before, after = self.state_at(k), self.state_at(k + 1)
            if before is None or after is None:
                break
            data = e.get("data") or {}
            actions = {int(s): a for s, a in (data.get("actions") or {}).items()}
            out.append(StepRecord(k, before, actions, tuple(data.get("rewards") or ()), after))
        return out

    async def fork(self, step: int | None = None) -> Path:
        """Start a new live session from the state at ``step`` (default: the step shown)."""
        if self.game is None or self.setup is None or self._folder is None:
            raise RuntimeError("open or start a session first")
        k = self.view_step if step is None else step
        state = self.state_at(k)
        if state is None:
            raise RuntimeError(f"no state at step {k}")
        if self.mode == "replay":
            # Rebuild the state through the game's own JSON reader, as a saved session would be.
            state = self.game.state_from_json(self.session.state_json_at(k - self._base))
        history = self.history_until(k)
        source = self._folder.name
        setup = dataclasses.replace(self.setup, seats=[dataclasses.replace(s) for s in self.setup.seats])
        setup.paused = True
        return await self.start(setup, state=state, history=history, forked_from={"session": source, "step": k})

    def export(self, dest: Path | str) -> Path:
        """Write the open session as a zip archive."""
        import sessions

        if self._folder is None:
            raise RuntimeError("no session is open")
        return Path(sessions.export_zip(self._folder, Path(dest)))

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
        info = self._spend.as_dict()
        players = self.header_info().get("players") or []
        models = [p for p in players if p.get("kind") == MODEL]
        info["models"] = len(models)
        info["simulated"] = bool(models) and all(p.get("simulated") for p in models)
        return info

    def describe(self) -> str:
        """A sentence for the status bar about what the live game waits for."""
        if self.mode == "idle" or self.game is None:
            return "Start a new game (Ctrl+N) or open a session (Ctrl+O)"
        if self.mode == "replay":
            return f"Replay — step {self.view_step} of {self.head}; [ and ] to scrub, Fork to play on from here"
        if self.error:
            return self.error
        if self.finished_status:
            return f"Game over ({self.finished_status}) — {self.result_text()}"
        if not self.following:
            return f"Reviewing step {self.view_step} while the game goes on — press End to follow it"
        if self._pending is not None:
            p = self._pending
            return (
                f"{p['label']} proposes {p['action']} — Accept, Override (click the board) or Re-ask; Step accepts"
            )
        if self.busy:
            return "Model thinking… Esc to cancel"
        waiting = self.waiting_human()
        if waiting is not None:
            seat, human = waiting
            return f"Waiting for {self.game.seats[seat].name} ({human.label.lower()}) — {self.key_hint()}"
        if self.pacer is not None and self.pacer.waiting and not self.pacer.running:
            if self.model_to_act() is not None:
                return "Paused — Ctrl+Enter asks the model for one decision; Space runs"
            return "Paused — Step plays one move; Space runs"
        if self._resume_waiters():
            return "Model call cancelled — Ctrl+Enter asks again"
        return "Playing…"

    def key_hint(self) -> str:
        keys = set(self.game.keymap) if self.game else set()
        if {"up", "down", "left", "right"} <= keys:
            return "use the arrow keys or WASD"
        if {"1", "9"} <= keys:
            return "click a cell or press 1–9"
        return "click the board"

    def result_text(self) -> str:
        state = self.current_state()
        if state is None or self.game is None:
            return ""
        if state.winner is not None:
            return f"{self.game.seats[state.winner].name} wins"
        scores = ", ".join(f"{s:g}" for s in state.scores)
        return f"score {scores}" if len(state.scores) == 1 else f"scores {scores}"
