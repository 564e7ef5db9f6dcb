"""Batch runs: many episodes of one game between the same player specs, played concurrently.

A :class:`BatchPlan` says what to play (game and options, one player spec per seat, how many episodes
and from which seed, a step limit, how many at once, the model players' harness options, a spending cap
for the whole batch). A :class:`BatchRunner` plays it with asyncio, at most ``concurrency`` episodes at
a time, keeps an :class:`EpisodeStats` per episode from the match's events, stops starting (and cancels)
episodes once the batch budget is spent, and returns a :class:`BatchOutcome` with per-seat aggregates.

This module records nothing itself and prints nothing: a front end injects a *recorder factory*
(``record(match) -> Recorder``, e.g. one writing a session folder) and follows the run through
callbacks. The command line (``playtrace run``) and the app adapt it; a tournament can too.

Example::

    plan = BatchPlan("tictactoe", specs=["minimax", "random"], episodes=10, concurrency=4)
    outcome = await BatchRunner(plan).run()
    outcome.aggregate()["seats"][0]["wins"]
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from engine import events as ev
from engine.core import Game
from engine.events import Event
from engine.llm.base import ModelUnusable
from engine.llm.keys import redact
from engine.llm.limits import RateLimits
from engine.llm.pool import ClientPool
from engine.match import Match
from engine.players import Player
from engine.registry import make
from engine.roster import is_model_spec, make_player

__all__ = [
    "FINISHED_STATUSES",
    "BatchOutcome",
    "BatchPlan",
    "BatchRunner",
    "EpisodeStats",
    "RecordFactory",
    "Recorder",
    "build_players",
    "close_players",
    "run_batch",
]

log = logging.getLogger("playtrace.batch")

#: Match statuses after which an episode's scores count in the aggregates.
FINISHED_STATUSES = frozenset({"completed", "max_steps", "forfeit"})


def _one_line(exc: BaseException) -> str:
    """An exception as one redacted line (its message's first line, or its type when it has none)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(text)


def _money(value: float) -> str:
    return f"${value:.4f}"


# -- players -------------------------------------------------------------------------------------------


def build_players(
    game: Game,
    specs: Sequence[str],
    *,
    seed: int | None,
    model_options: Mapping[str, Any] | None = None,
    clients: ClientPool | None = None,
) -> list[Player]:
    """Players for every seat of ``game``; a single spec fills every seat of a multi-seat game.

    Seat ``s`` of an episode with seed ``n`` is seeded ``n * 1009 + s``, so a seed gives the same
    players' choices again. ``model_options`` (harness options) go to model players only. With
    ``clients``, real model players use a lease on the pool's shared client for their provider and
    server instead of a client of their own.

    Raises:
        ValueError: the number of specs fits neither one seat nor every seat, or a spec is unknown.
    """
    specs = list(specs) or ["random"]
    if len(specs) == 1 and game.num_seats > 1:
        specs = specs * game.num_seats
    if len(specs) != game.num_seats:
        raise ValueError(f"{game.title} has {game.num_seats} seat(s); got {len(specs)} player specs")
    players: list[Player] = []
    for seat, spec in enumerate(specs):
        seat_seed = None if seed is None else seed * 1009 + seat
        opts = dict(model_options or {}) if is_model_spec(spec) else {}
        if clients is not None and opts.get("client") is None and _pooled(spec):
            timeout_s = opts.get("timeout_s")
            opts["client"], opts["model"] = clients.lease(spec, timeout_s=timeout_s or DEFAULT_TIMEOUT_S)
            describer = str(opts.get("perception_model") or "").strip()
            if opts.get("perception") == "describe" and _pooled(describer) and describer != spec:
                # The model that describes the board shares the pool's clients too.
                opts["perception_client"], opts["perception_model_name"] = clients.lease(
                    describer, timeout_s=timeout_s or DEFAULT_TIMEOUT_S)
        players.append(make_player(spec, game, seed=seat_seed, **opts))
    return players


#: A model call's longest wait for the server when the harness options name none (the harness default).
DEFAULT_TIMEOUT_S = 60.0


def _pooled(spec: str) -> bool:
    """Whether a spec names a real model server (the simulated model has a client per player)."""
    return is_model_spec(spec) and spec.split(":", 1)[0] != "sim"


async def close_players(players: Sequence[Player]) -> None:
    """Close the connections of model players (their clients' ``aclose``); failures are only logged."""
    for player in players:
        client = getattr(player, "client", None)
        close = getattr(client, "aclose", None)
        if close is not None:
            try:
                await close()
            except Exception:  # noqa: BLE001  (closing a connection must not hide the episode's result)
                log.debug("closing the client of %s failed", player.spec, exc_info=True)


# -- recording ------------------------------------------------------------------------------------------


class Recorder(Protocol):
    """Records one episode (a session folder, a database row...); made by a :data:`RecordFactory`.

    The runner subscribes :meth:`listener` to the match before it starts and calls :meth:`close`
    exactly once when the episode ends, however it ends.
    """

    @property
    def path(self) -> Path | None:
        """Where the episode is recorded (reported in the stats), or ``None``."""
        ...

    def listener(self, event: Event) -> None:
        """Receive every event of the match, in order (``model_delta`` included)."""
        ...

    def close(self, status: str) -> None:
        """The episode ended with ``status`` (``completed``, ``max_steps``, ``forfeit``, ``aborted``,
        ``error``)."""
        ...


#: Makes the recorder of one episode from its match (not started yet). An exception fails that episode.
RecordFactory = Callable[[Match], Recorder]


# -- the plan -------------------------------------------------------------------------------------------


@dataclasses.dataclass
class BatchPlan:
    """What a batch plays. Episode ``i`` uses seed ``seed + i``.

    Attributes:
        game_id: The game's id (``engine.make(game_id, **options)`` makes each episode's game).
        specs: One player spec per seat, in seat order (one spec fills every seat).
        episodes: How many episodes to play (at least 1).
        seed: The first episode's seed.
        options: The game's options, already read against its schema.
        model_options: Harness options for the model players (ignored by bots).
        max_steps: Stop an episode after this many steps (``None``: play to the end).
        concurrency: Episodes played at once (default ``min(4, episodes)``).
        batch_budget: Stop the batch (cancel running episodes, start no more) once the model calls
            of all its episodes cost more than this many US dollars.
        render: The board as PNG bytes for vision models (``render(state, *, grid_labels=True)``).
        rate_limits: Requests and tokens per minute that the model calls of all episodes together
            keep to: one :class:`~engine.llm.limits.RateLimits` for every server, or a mapping from
            a provider name or a base URL to limits (see :class:`~engine.llm.pool.ClientPool`).
        share_clients: Real model players of all episodes share one client per provider and server
            (:attr:`clients`), closed when the batch ends; off, every player builds its own.
        client_pool: The clients to share, when they outlive the batch (several plans played at once
            share one pool, and with it its rate limits); its owner closes it, the batch does not.

    Raises:
        ValueError: a count or a budget out of range.
    """

    game_id: str
    specs: Sequence[str] = ("random",)
    episodes: int = 1
    seed: int = 0
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    model_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    max_steps: int | None = None
    concurrency: int | None = None
    batch_budget: float | None = None
    render: Callable[..., bytes] | None = None
    rate_limits: Mapping[str | None, RateLimits] | RateLimits | None = None
    share_clients: bool = True
    client_pool: ClientPool | None = None

    def __post_init__(self) -> None:
        self.specs = [s.strip() for s in self.specs] or ["random"]
        self.options = dict(self.options)
        self.model_options = dict(self.model_options)
        if self.episodes < 1:
            raise ValueError("a batch plays at least 1 episode")
        if self.concurrency is None:
            self.concurrency = min(4, self.episodes)
        if self.concurrency < 1:
            raise ValueError("a batch plays at least 1 episode at a time")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        budget = self.batch_budget
        if budget is not None and not (math.isfinite(budget) and budget >= 0):
            raise ValueError("the batch budget must be a number of dollars of at least 0")

    @functools.cached_property
    def game(self) -> Game:
        """The game as configured (made once; each episode makes its own with :meth:`make_game`)."""
        return self.make_game()

    def make_game(self) -> Game:
        """A fresh game with the plan's options (raises what :func:`engine.make` raises)."""
        return make(self.game_id, **dict(self.options))

    @property
    def seat_specs(self) -> list[str]:
        """One spec per seat (a single spec repeated for every seat)."""
        n = self.game.num_seats
        return list(self.specs) * n if len(self.specs) == 1 else list(self.specs)

    @property
    def seeds(self) -> list[int]:
        """The seed of every episode, in order."""
        return [self.seed + i for i in range(self.episodes)]

    @property
    def has_model(self) -> bool:
        """Whether a model player (simulated or real) takes part."""
        return any(is_model_spec(s) for s in self.specs)

    @functools.cached_property
    def clients(self) -> ClientPool:
        """The clients shared by the model players of every episode: :attr:`client_pool`, or a pool of
        the plan's own with its :attr:`rate_limits`."""
        return self.client_pool if self.client_pool is not None else ClientPool(self.rate_limits)

    def build_players(self, seed: int | None, game: Game | None = None) -> list[Player]:
        """The players of one episode (see :func:`build_players`), of ``game`` (default :attr:`game`)."""
        return build_players(
            game if game is not None else self.game,
            self.specs,
            seed=seed,
            model_options=self.model_options,
            clients=self.clients if self.share_clients else None,
        )

    async def close_clients(self) -> None:
        """Close the plan's own shared clients (a later episode would open new ones); a
        :attr:`client_pool` given to the plan stays open."""
        if self.client_pool is None and "clients" in self.__dict__:
            await self.clients.aclose()


# -- per-episode stats ------------------------------------------------------------------------------------


@dataclasses.dataclass
class EpisodeStats:
    """What the runner tracks of one episode while it plays (fed by the match's events).

    ``status`` is ``pending`` (waiting for its turn), ``running``, a match status (``completed``,
    ``max_steps``, ``forfeit``, ``aborted``, ``error``), ``skipped`` (never started: the batch was
    stopped) or ``not started`` (the batch was interrupted first).
    """

    index: int
    seed: int
    num_seats: int
    model_seats: frozenset[int] = frozenset()
    #: Where the recorder keeps the episode (``Recorder.path``).
    path: Path | None = None
    status: str = "pending"
    steps: int = 0
    scores: tuple[float, ...] = ()
    winner: int | None = None
    cost_usd: float = 0.0
    calls: int = 0
    failed_calls: int = 0
    #: Unparsable or illegal answers, per seat.
    invalid: dict[int, int] = dataclasses.field(default_factory=dict)
    #: Moves the harness chose for a model that gave no usable answer (random or no-op fallback).
    fallbacks: int = 0
    #: The same fallback moves, per seat.
    fallback_seats: dict[int, int] = dataclasses.field(default_factory=dict)
    #: Seats that forfeited because their model's calls kept failing (decision policy
    #: ``"failed_calls"``), with the harness's reason.
    failed_call_forfeits: dict[int, str] = dataclasses.field(default_factory=dict)
    error: str | None = None
    #: Why the episode ended early or what happened on the way (forfeit reason, budget).
    notes: list[str] = dataclasses.field(default_factory=list)
    last_failure: str | None = None
    #: Set before this episode's task is cancelled on purpose (:meth:`BatchRunner.stop`), so the
    #: cancellation is not taken for an interrupt.
    stop_reason: str | None = None

    def on_event(self, event: Event) -> None:
        """Match listener: keep the running counts (steps, scores, cost, failures, invalid answers)."""
        data = event.data
        if log.isEnabledFor(logging.DEBUG) and event.type != ev.MODEL_DELTA:
            log.debug("episode %d step %s seat %s: %s", self.index, event.step, event.seat, event.type)
        if event.type == ev.ACTION_APPLIED:
            self.steps += 1
            self.scores = tuple(data.get("scores", self.scores))
        elif event.type == ev.MODEL_CALL_FINISHED:
            self.calls += 1
            cost = data.get("cost_usd")
            if isinstance(cost, (int, float)) and math.isfinite(cost):
                self.cost_usd += float(cost)
        elif event.type == ev.MODEL_CALL_FAILED:
            # The harness retries or falls back after a failed call; it only matters if the episode ends.
            self.failed_calls += 1
            self.last_failure = redact(str(data.get("error", "model call failed")))
        elif event.type in (ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL) and event.seat is not None:
            self.invalid[event.seat] = self.invalid.get(event.seat, 0) + 1
        elif event.type == ev.DECISION and data.get("policy") in ("random", "noop"):
            self.fallbacks += 1
            if event.seat is not None:
                self.fallback_seats[event.seat] = self.fallback_seats.get(event.seat, 0) + 1
        elif event.type == ev.DECISION and data.get("forfeit") and data.get("policy") == "failed_calls":
            reason = data.get("fallback_reason") or data.get("reason") or "model calls kept failing"
            reason = redact(str(reason))
            if event.seat is not None:
                self.failed_call_forfeits[event.seat] = reason
            self.add_note(f"seat {event.seat}: {reason}")
        elif event.type == ev.DECISION and data.get("forfeit"):
            reason = data.get("fallback_reason") or data.get("reason") or data.get("rationale") or "forfeits"
            self.add_note(f"seat {event.seat}: {reason}")
        elif event.type == ev.ERROR:
            message = redact(str(data.get("message", "error")))
            if data.get("where") == "match":  # the match loop stopped on it
                self.error = message
            else:  # a warning recorded by a player (budget passed, unknown price...)
                self.add_note(message)
        elif event.type == ev.SESSION_FINISHED:
            self.status = str(data.get("status", self.status))
            self.scores = tuple(data.get("scores", self.scores))
            self.winner = data.get("winner")

    def add_note(self, note: str) -> None:
        """Add ``note`` once."""
        if note not in self.notes:
            self.notes.append(note)

    @property
    def finished(self) -> bool:
        """Whether the episode ended with scores that count (see :data:`FINISHED_STATUSES`)."""
        return self.status in FINISHED_STATUSES and bool(self.scores)

    def to_data(self) -> dict[str, Any]:
        """The episode as a JSON-compatible dict (what ``playtrace run --json`` lists)."""
        return {
            "index": self.index,
            "seed": self.seed,
            "steps": self.steps,
            "scores": list(self.scores),
            "winner": self.winner,
            "status": self.status,
            "cost_usd": round(self.cost_usd, 6),
            "invalid_answers": {str(k): v for k, v in sorted(self.invalid.items())},
            "error": self.error,
            "notes": self.notes,
            "failed_calls": self.failed_calls,
            "fallback_moves": self.fallbacks,
            "failed_call_forfeits": {str(k): v for k, v in sorted(self.failed_call_forfeits.items())},
            "last_model_error": self.last_failure,
            "session": str(self.path) if self.path else None,
        }


# -- the outcome ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class BatchOutcome:
    """The episodes of a batch as they stand (live while it runs, final once :meth:`BatchRunner.run`
    returns).

    Attributes:
        plan: What was played.
        stats: One entry per episode, in episode order.
        labels: The players' names, per seat (known once an episode's players are built).
        interrupted: The run was cancelled (Ctrl+C): running episodes were aborted.
        budget_stopped: The batch budget was exceeded.
        failed_calls_stopped: A model seat forfeited because its calls kept failing (the harness's
            ``max_failed_calls``), so the batch started no more episodes: why, as one sentence.
        model_unusable: A model cannot be used at all (a rejected key, an unknown model name): the
            provider's one line. The episodes it met ended in error (not scored) and no more started.
        stopped: Why :meth:`BatchRunner.stop` stopped the batch (``None`` if it was not stopped).
        elapsed_s: Wall time of the run.
    """

    plan: BatchPlan
    stats: list[EpisodeStats]
    labels: list[str] = dataclasses.field(default_factory=list)
    interrupted: bool = False
    budget_stopped: bool = False
    failed_calls_stopped: str | None = None
    model_unusable: str | None = None
    stopped: str | None = None
    elapsed_s: float = 0.0

    @property
    def cost_usd(self) -> float:
        """What the model calls of every episode cost so far."""
        return sum(s.cost_usd for s in self.stats)

    @property
    def steps(self) -> int:
        """Steps played so far, over every episode."""
        return sum(s.steps for s in self.stats)

    @property
    def done(self) -> int:
        """Episodes that will not play any more (ended, skipped or not started)."""
        return sum(1 for s in self.stats if s.status not in ("pending", "running"))

    @property
    def errors(self) -> int:
        """Episodes that ended in an error."""
        return sum(1 for s in self.stats if s.status == "error")

    def aggregate(self) -> dict[str, Any]:
        """Totals and per-seat aggregates over the finished episodes.

        Keys: ``episodes``, ``finished``, ``steps``, ``cost_usd`` and ``seats``, a list with per seat
        ``seat``, ``name``, ``player`` (label), ``spec``, ``episodes`` (finished), ``mean`` and ``sd``
        of the score (``None`` without a finished episode); in two-seat games ``wins``, ``losses``
        and ``draws`` (over completed and forfeited episodes); for model seats ``invalid_answers``.
        """
        game = self.plan.game
        specs = self.plan.seat_specs
        finished = [s for s in self.stats if s.finished]
        model_seats = self.stats[0].model_seats if self.stats else frozenset()
        seats: list[dict[str, Any]] = []
        for seat in range(game.num_seats):
            values = [float(s.scores[seat]) for s in finished if len(s.scores) > seat]
            entry: dict[str, Any] = {
                "seat": seat,
                "name": game.seats[seat].name,
                "player": self.labels[seat] if seat < len(self.labels) else "",
                "spec": specs[seat] if seat < len(specs) else "",
                "episodes": len(values),
                "mean": statistics.fmean(values) if values else None,
                "sd": statistics.stdev(values) if len(values) > 1 else (0.0 if values else None),
            }
            if game.num_seats == 2:
                decided = [s for s in finished if s.status in ("completed", "forfeit")]
                entry["wins"] = sum(1 for s in decided if s.winner == seat)
                entry["losses"] = sum(1 for s in decided if s.winner is not None and s.winner != seat)
                entry["draws"] = sum(1 for s in decided if s.winner is None)
            if seat in model_seats:
                entry["invalid_answers"] = sum(s.invalid.get(seat, 0) for s in self.stats)
                entry["fallback_moves"] = sum(s.fallback_seats.get(seat, 0) for s in self.stats)
                entry["failed_call_forfeits"] = sum(1 for s in self.stats if seat in s.failed_call_forfeits)
            seats.append(entry)
        return {
            "episodes": len(self.stats),
            "finished": len(finished),
            "steps": self.steps,
            "cost_usd": round(self.cost_usd, 6),
            "seats": seats,
        }


# -- the runner ----------------------------------------------------------------------------------------


class BatchRunner:
    """Plays a :class:`BatchPlan`: at most ``plan.concurrency`` episodes at once, each recorded by
    ``record(match)`` when a factory is given.

    Callbacks (all optional, called on the event loop, must not block):

    - ``on_event(stats, event)``: every event of every episode, after ``stats`` counted it;
    - ``on_episode(stats)``: an episode will not play any more (ended, skipped, cancelled);
    - ``on_notice(message)``: something a person should read now (a session budget warning, the
      batch budget stopping the run), as one line.

    ``players`` are the first episode's players when they were built already (for instance to check
    the specs before anything is recorded); the runner closes them with the episode.

    ``record_in_thread``: call ``record(match)`` on a worker thread, so that creating an episode's record
    (a session folder: files made and synced) never holds up the other episodes' event loop. Only for
    factories that touch nothing but their own record (``desktop.episode.session_recorder`` does).

    Errors of one episode (a provider error, a failing recorder) end that episode with status
    ``error`` and never the batch.
    """

    def __init__(
        self,
        plan: BatchPlan,
        *,
        record: RecordFactory | None = None,
        players: Sequence[Player] | None = None,
        on_event: Callable[[EpisodeStats, Event], None] | None = None,
        on_episode: Callable[[EpisodeStats], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
        record_in_thread: bool = False,
    ) -> None:
        self.plan = plan
        self.record = record
        self.record_in_thread = record_in_thread
        self._first_players = list(players) if players is not None else None
        self._on_event = on_event
        self._on_episode = on_episode
        self._on_notice = on_notice
        game = plan.game
        model_seats = frozenset(s for s, spec in enumerate(plan.seat_specs) if is_model_spec(spec))
        self.outcome = BatchOutcome(
            plan=plan,
            stats=[
                EpisodeStats(index=i, seed=seed, num_seats=game.num_seats, model_seats=model_seats)
                for i, seed in enumerate(plan.seeds)
            ],
        )
        if self._first_players is not None:
            self.outcome.labels = [p.label for p in self._first_players]
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._stop_reason: str | None = None
        self._started = False

    # -- control -------------------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stop_reason is not None

    def stop(self, reason: str, *, spare: int | None = None) -> None:
        """Stop the batch: start no more episodes and cancel the running ones (recorded as ``aborted``,
        with ``reason`` as a note), except episode ``spare``, which plays to its end.
        Not an interrupt: :meth:`run` still returns the outcome."""
        if self._stop_reason is not None:
            return
        self._stop_reason = reason
        self.outcome.stopped = reason
        for i, task in self._tasks.items():
            if i != spare and not task.done():
                self.outcome.stats[i].stop_reason = reason
                task.cancel()

    async def run(self) -> BatchOutcome:
        """Play every episode and return the outcome.

        Cancelling the task running this (Ctrl+C under :func:`asyncio.run`) cancels every episode
        (each match records ``session_finished`` with status ``aborted`` and its recorder is
        closed), marks :attr:`outcome` as interrupted and re-raises :class:`asyncio.CancelledError`;
        :attr:`outcome` still holds what was played.
        """
        if self._started:
            raise RuntimeError("a BatchRunner runs once; make another one")
        self._started = True
        loop = asyncio.get_running_loop()
        started = loop.time()
        sem = asyncio.Semaphore(self.plan.concurrency or 1)
        for stats in self.outcome.stats:
            task = asyncio.create_task(self._one(stats, sem), name=f"episode-{stats.index}")
            self._tasks[stats.index] = task
        try:
            await asyncio.wait(self._tasks.values())
        except asyncio.CancelledError:
            self.outcome.interrupted = True
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            for stats in self.outcome.stats:
                if stats.status == "pending":
                    stats.status = "not started"
            self.outcome.elapsed_s = loop.time() - started
            raise
        finally:
            if self._first_players is not None:  # never played (the batch stopped first): close them
                players, self._first_players = self._first_players, None
                await close_players(players)
            await self.plan.close_clients()
        self.outcome.elapsed_s = loop.time() - started
        for task in self._tasks.values():
            if not task.cancelled() and task.exception() is not None:  # a bug in this module: surface it
                raise task.exception()  # type: ignore[misc]
        return self.outcome

    # -- one episode ---------------------------------------------------------------------------

    def _notice(self, message: str) -> None:
        if self._on_notice is not None:
            self._on_notice(message)
        else:
            log.warning("%s", message)

    def _event(self, stats: EpisodeStats, event: Event) -> None:
        if event.type == ev.MODEL_DELTA:  # a piece of a streamed answer (dozens per call): counts nothing
            if self._on_event is not None:
                self._on_event(stats, event)
            return
        stats.on_event(event)
        if event.type == ev.ERROR and (event.data or {}).get("where") == "budget":
            self._notice(f"episode {stats.index}: {redact(str(event.data.get('message')))}")
        budget = self.plan.batch_budget
        if (
            event.type == ev.MODEL_CALL_FINISHED
            and budget is not None
            and not self.stopping
            and self.outcome.cost_usd > budget
        ):
            self.outcome.budget_stopped = True
            self._notice(f"batch budget {_money(budget)} exceeded: stopping")
            self.stop(f"batch budget {_money(budget)} exceeded")
        if (
            event.type == ev.DECISION
            and (event.data or {}).get("policy") == "failed_calls"
            and self.outcome.failed_calls_stopped is None
        ):
            # The model's server is not answering: every further episode would end the same way.
            why = (f"seat {event.seat} forfeited in the episode with seed {stats.seed} after its model "
                   "calls kept failing; the batch was stopped")
            self.outcome.failed_calls_stopped = why
            self._notice(why)
            self.stop(why, spare=stats.index)
        if self._on_event is not None:
            self._on_event(stats, event)

    async def _one(self, stats: EpisodeStats, sem: asyncio.Semaphore) -> None:
        try:
            async with sem:
                if self._stop_reason is not None:
                    stats.status = "skipped"
                    stats.add_note(self._stop_reason)
                    return
                players = self._first_players if stats.index == 0 else None
                if stats.index == 0:
                    self._first_players = None  # the episode owns (and closes) them now
                await self._play(stats, players)
        except asyncio.CancelledError:
            if stats.stop_reason is None:
                raise  # an interrupt: let it reach the batch
            if stats.status == "pending":  # cancelled while waiting for its turn
                stats.status = "skipped"
            stats.add_note(stats.stop_reason)
        finally:
            if self._on_episode is not None:
                self._on_episode(stats)

    async def _new_recorder(self, match: Match) -> Recorder:
        """``record(match)``, on a worker thread when :attr:`record_in_thread` says so."""
        assert self.record is not None
        if not self.record_in_thread:
            return self.record(match)
        future = asyncio.get_running_loop().run_in_executor(None, self.record, match)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            # The record is being made: once it is, it is closed as the episode's (which never played).
            future.add_done_callback(_close_unused_recorder)
            raise

    async def _play(self, stats: EpisodeStats, players: list[Player] | None) -> None:
        """Play one episode to its end and close its recorder; errors are recorded, never raised."""
        plan = self.plan
        recorder: Recorder | None = None
        try:
            game = plan.make_game()
            if players is None:
                players = plan.build_players(stats.seed, game)
            if not self.outcome.labels:
                self.outcome.labels = [p.label for p in players]
            match = Match(game, players, seed=stats.seed, max_steps=plan.max_steps, render=plan.render)
            if self.record is not None:
                recorder = await self._new_recorder(match)
                match.subscribe(recorder.listener)
        except asyncio.CancelledError:  # stopped while its record was being made
            if players is not None:
                await close_players(players)
            raise
        except Exception as exc:  # noqa: BLE001  (reported in the stats)
            stats.status, stats.error = "error", _one_line(exc)
            log.warning("episode %d could not start: %s", stats.index, stats.error)
            if players is not None:
                await close_players(players)
            return
        stats.path = recorder.path if recorder is not None else None
        stats.status = "running"
        match.subscribe(functools.partial(self._event, stats))
        log.info("episode %d (seed %d) started: %s", stats.index, stats.seed, stats.path or "not recorded")
        status = "error"
        try:
            result = await match.run()
            status = result.status
            stats.steps, stats.scores, stats.winner = result.steps, tuple(result.scores), result.winner
        except asyncio.CancelledError:
            status = "aborted"
            raise
        except ModelUnusable as exc:
            # A rejected key or an unknown model: every other episode would fail the same way.
            why = redact(_one_line(exc))
            stats.error = why
            if self.outcome.model_unusable is None:
                self.outcome.model_unusable = why
                self._notice(f"{why}: the batch was stopped (fix the key or model name and run again)")
                self.stop(why, spare=stats.index)
        except Exception as exc:  # noqa: BLE001  (a provider or game error ends this episode, not the batch)
            stats.error = stats.error or _one_line(exc)
            log.debug("episode %d failed", stats.index, exc_info=True)
        finally:
            stats.status = status
            if recorder is not None:
                try:
                    recorder.close(status)
                except Exception as exc:  # noqa: BLE001
                    log.warning("closing the record of episode %d failed: %s", stats.index, _one_line(exc))
            await close_players(players)
            log.info("episode %d finished: %s", stats.index, status)


def _close_unused_recorder(future: asyncio.Future[Recorder]) -> None:
    if future.cancelled() or future.exception() is not None:
        return
    try:
        future.result().close("aborted")
    except Exception as exc:  # noqa: BLE001
        log.warning("closing the record of a cancelled episode failed: %s", _one_line(exc))


async def run_batch(
    plan: BatchPlan,
    *,
    record: RecordFactory | None = None,
    on_event: Callable[[EpisodeStats, Event], None] | None = None,
    on_episode: Callable[[EpisodeStats], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    record_in_thread: bool = False,
) -> BatchOutcome:
    """Play ``plan`` with a :class:`BatchRunner` and return its outcome (see there for the callbacks and
    ``record_in_thread``)."""
    runner = BatchRunner(plan, record=record, on_event=on_event, on_episode=on_episode, on_notice=on_notice,
                         record_in_thread=record_in_thread)
    return await runner.run()
