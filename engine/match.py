"""The one asynchronous match loop.

It drives single-player episodes, alternating two-player games and simultaneous-move games alike,
in the app (under qasync) and in the command line (under asyncio). Every fact is handed to the
``on_event`` listeners as an :class:`~engine.events.Event`; the loop never touches disk or Qt.

Pacing belongs to the caller: a :class:`Pacer` decides when the next non-human step may start
(Step / Run / Pause and a speed in the app, "as fast as possible" in the command line). A ``review``
hook lets the app hold a model's decision for Accept / Override / Re-ask before it is applied.

Every seat is asked with its own :class:`~engine.players.Observation`: the state as that seat sees it
(:meth:`~engine.core.State.observe`) and its own view of the history. The events keep the full state,
for replay and for oracles.

Real time: a game that declares a tick (``Game.tick_s``) gives each human that long to act; a seat
that has not answered by its deadline plays the game's default action, recorded as a ``decision``
with source ``"default"``. Models and bots play turn by turn unless the caller sets a deadline for
them too (``deadline_s``). The ticks keep a fixed schedule (:class:`TickSchedule`): each tick closes one
tick after the previous one closed, whatever the step's own work took, and a tick a person answered
early still lasts its tick, so a game ticking every 1/60 s plays 60 ticks a second when the machine can.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.core import Action, Game, IllegalActionError, Seat, State
from engine.events import Event, EventSink
from engine.players import DEFAULT, HUMAN, Decision, Observation, Player, SeatHistory, StepRecord

Review = Callable[[Observation, Player, Decision], Awaitable[Decision]]

log = logging.getLogger(__name__)

#: How many ticks the real-time schedule may fall behind before it starts again from now; less is
#: caught up tick by tick, more would be a burst of ticks played at once.
CATCH_UP_TICKS = 3
#: Turns of the event loop a player gets after its deadline for an answer it had ready at once.
_GRACE_TURNS = 8


class TickSchedule:
    """When the ticks of a real-time game open and close, on a fixed schedule.

    Tick *k + 1* opens when tick *k* was due to close, not when its step's work ended, so the work of
    a step does not lengthen the tick; a tick answered early still lasts its full tick (the next one
    waits for its time), so pressing keys does not speed the game up. A schedule that has fallen more
    than ``catch_up`` ticks behind (a slow step, a busy machine) starts again from now instead of
    playing the missed ticks in a burst, and says so in a debug log.

    Times are read from ``clock`` (seconds; the event loop's clock in a match), so the schedule can be
    driven by any clock.
    """

    def __init__(self, clock: Callable[[], float], *, catch_up: int = CATCH_UP_TICKS) -> None:
        if catch_up < 0:
            raise ValueError(f"catch_up is a number of ticks (0 or more), not {catch_up!r}")
        self._clock = clock
        self.catch_up = catch_up
        self._due: float | None = None
        #: How many times the schedule started again because it had fallen behind.
        self.restarts = 0

    @property
    def due(self) -> float | None:
        """When the last opened tick closes (the next one opens then), or ``None`` before any tick."""
        return self._due

    def open(self, tick: float) -> tuple[float, float]:
        """Open the next tick of ``tick`` seconds: returns when it opens and when it closes.

        It opens when the previous tick closes (possibly in the past, when a step ran late; possibly in
        the future, when the previous tick was answered early: wait until then before asking).
        """
        if tick <= 0:
            raise ValueError(f"a tick is a positive number of seconds, not {tick!r}")
        now = self._clock()
        opens = now if self._due is None else self._due
        behind = now - opens
        if behind > self.catch_up * tick:
            self.restarts += 1
            log.debug(
                "real-time ticks fell %.1f ticks (%.0f ms) behind; the schedule starts again from now",
                behind / tick, behind * 1000,
            )
            opens = now
        self._due = opens + tick
        return opens, self._due

    def extend(self, closes: float) -> None:
        """The open tick now closes at ``closes`` (later: the clock was held meanwhile)."""
        if self._due is None or closes > self._due:
            self._due = closes

    def reset(self) -> None:
        """Forget the schedule: the next tick opens when it is asked for."""
        self._due = None


class Pacer:
    """Decides when the next automatic step may start.

    ``running`` with ``delay`` seconds between steps, or paused until :meth:`step_once`.
    The default pacer runs as fast as possible (command line, tests, benchmarks).
    """

    def __init__(self, *, running: bool = True, delay: float = 0.0) -> None:
        self.running = running
        self.delay = delay
        self._wake = asyncio.Event()
        self._budget = 0

    def run(self) -> None:
        self.running = True
        self._wake.set()

    def pause(self) -> None:
        self.running = False
        self._budget = 0

    def step_once(self) -> None:
        """Allow exactly one more step while paused (ignored while running)."""
        if self.running:
            return
        self._budget += 1
        self._wake.set()

    async def wait(self) -> None:
        if self.running:
            # Even at full speed, yield once so the event loop (and the UI under qasync) breathes.
            await asyncio.sleep(self.delay)
        while not self.running:
            if self._budget > 0:
                self._budget -= 1
                return
            self._wake.clear()
            await self._wake.wait()


@dataclasses.dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended; ``steps`` counts the actions this match applied (a fork's inherited
    history excluded), as its session records them."""

    status: str  # "completed" | "max_steps" | "forfeit" | "aborted" | "error"
    steps: int
    scores: tuple[float, ...]
    winner: Seat | None
    final_state: State
    #: The seats that gave up (status ``"forfeit"``), in seat order.
    forfeited: tuple[Seat, ...] = ()


class Match:
    """One game between the given players, from ``state`` (default: the seeded initial state)."""

    def __init__(
        self,
        game: Game,
        players: Sequence[Player],
        *,
        seed: int | None = None,
        state: State | None = None,
        history: Sequence[StepRecord] = (),
        max_steps: int | None = None,
        pacer: Pacer | None = None,
        review: Review | None = None,
        render: Callable[..., bytes] | None = None,
        forked_from: Mapping[str, Any] | None = None,
        deadline_s: float | None = None,
        undo: bool = False,
    ) -> None:
        if len(players) != game.num_seats:
            raise ValueError(f"{game.id} needs {game.num_seats} player(s), got {len(players)}")
        self.game = game
        self.players: list[Player] = list(players)
        self.seed = seed
        self.state: State = state if state is not None else game.initial_state(seed=seed)
        self.history: list[StepRecord] = list(history)
        # A fork starts with the original's history; the session it records holds only the steps
        # played from here, so that is what ``steps`` reports (the reader counts the same way).
        self._base_steps = len(self.history)
        self.max_steps = max_steps
        self.pacer = pacer or Pacer()
        self.review = review
        self.render = render
        self.forked_from = dict(forked_from) if forked_from else None
        if deadline_s is not None and deadline_s <= 0:
            raise ValueError(f"a deadline is a positive number of seconds, not {deadline_s!r}")
        #: Seconds a bot or model seat has to answer (``None``: as long as it takes).
        self.deadline_s = deadline_s
        #: Whether a person may take back moves (single-player games only; off in study sessions).
        self.allow_undo = undo
        #: How many game ticks a person gets per tick of a real-time game (2.0: half speed); the app's
        #: tick-speed control sets it, and it applies from the next observation on.
        self.tick_scale = 1.0
        # The clock of real-time deadlines: held while the user pauses, so nobody times out then.
        self._clock_free = asyncio.Event()
        self._clock_free.set()
        self._clock_held = asyncio.Event()
        #: The fixed schedule of real-time ticks (on the event loop's clock).
        self.ticks = TickSchedule(lambda: asyncio.get_running_loop().time())
        self._forfeited: list[Seat] = []
        self._started = False
        self._listeners: list[EventSink] = []
        self._call = 0
        self.result: MatchResult | None = None

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: EventSink) -> None:
        self._listeners.append(listener)

    def emit(self, event: Event) -> None:
        """Hand ``event`` to every listener; a failing listener (a session writer on a full disk)
        does not keep the event from the others, and its error is raised once all have had it."""
        error: Exception | None = None
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:
                if error is None:
                    error = exc
        if error is not None:
            raise error

    def _emit(self, type_: str, data: dict[str, Any], *, seat: Seat | None = None) -> None:
        self.emit(Event(type_, data, step=self.state.step, seat=seat))

    # -- seats -------------------------------------------------------------------------------

    def player_info(self, seat: Seat) -> dict[str, Any]:
        p = self.players[seat]
        return {"seat": seat, "spec": p.spec, "label": p.label, "kind": p.kind}

    def attach(self, *, pacer: Pacer | None = None, review: Review | None = None) -> None:
        """Hand pacing and review to a steering layer (:mod:`engine.steering`) before the match starts.

        Raises:
            RuntimeError: the match has already started.
        """
        self._check_not_started("attach a pacer or a review hook")
        if pacer is not None:
            self.pacer = pacer
        if review is not None:
            self.review = review

    def seat(self, seat: Seat, player: Player) -> None:
        """Put ``player`` in ``seat`` before the match starts (a wrapper around the player set up with
        it); nothing is recorded, since the session has not begun. Use :meth:`replace_player` later.

        Raises:
            RuntimeError: the match has already started.
        """
        self._check_not_started("seat a player silently")
        self.players[seat] = player

    def _check_not_started(self, what: str) -> None:
        if self._started:
            raise RuntimeError(f"cannot {what} once the match has started")

    def replace_player(self, seat: Seat, player: Player) -> None:
        """Seat a different player (take over / hand back); recorded as ``player_changed``."""
        self.players[seat] = player
        self._emit(ev.PLAYER_CHANGED, self.player_info(seat), seat=seat)

    def next_call(self) -> int:
        """A fresh call number, grouping the events of one decision attempt."""
        self._call += 1
        return self._call

    def deadline_for(self, seat: Seat) -> float | None:
        """How long ``seat`` may take now: a human gets the game's tick in a real-time game; bots and
        models get :attr:`deadline_s` (and only in a game with a default action to apply)."""
        if self.game.default_action is None:
            return None
        if self.players[seat].kind == HUMAN:
            return self.game.tick_s * self.tick_scale if self.game.tick_s is not None else None
        return self.deadline_s

    def hold_clock(self) -> None:
        """Stop the real-time clock: a seat waiting for its deadline keeps the time it has left."""
        self._clock_free.clear()
        self._clock_held.set()

    def release_clock(self) -> None:
        """Start the real-time clock again after :meth:`hold_clock`."""
        self._clock_held.clear()
        self._clock_free.set()
        # A paused game has not fallen behind: the next tick is timed from now (a tick open while the
        # clock was held closes as late as the pause lasted, see _act_by_deadline).
        self.ticks.reset()

    @property
    def clock_held(self) -> bool:
        return not self._clock_free.is_set()

    def observation(self, seat: Seat, *, call: int | None = None) -> Observation:
        """What ``seat`` gets when it must act: its own view of the state and of the history."""
        return Observation(
            game=self.game,
            state=self.state.observe(seat),
            seat=seat,
            legal_actions=tuple(self.state.legal_actions(seat)),
            history=SeatHistory(self.history, seat),
            emit=self.emit,
            render=self.render,
            call=self.next_call() if call is None else call,
            deadline_s=self.deadline_for(seat),
        )

    # -- the loop ----------------------------------------------------------------------------

    def start_event(self) -> Event:
        data: dict[str, Any] = {
            "game": self.game.id,
            "options": dict(self.game.options),
            "seed": self.seed,
            "players": [self.player_info(s) for s in range(self.game.num_seats)],
            "state": self.state.to_json(),
        }
        if self.forked_from:
            data["forked_from"] = self.forked_from
        return Event(ev.SESSION_STARTED, data, step=self.state.step)

    async def run(self) -> MatchResult:
        """Play until the game ends, ``max_steps`` is reached, or a player forfeits.

        Cancelling the task that runs this records ``session_finished`` with status ``aborted``
        and re-raises :class:`asyncio.CancelledError`.
        """
        self._started = True
        self.emit(self.start_event())
        status = "completed"
        try:
            while not self.state.is_over:
                if self.max_steps is not None and len(self.history) >= self.max_steps:
                    status = "max_steps"
                    break
                if not await self.play_step():
                    status = "forfeit"
                    break
        except asyncio.CancelledError:
            # A listener failing here must not turn the cancellation into another error.
            with contextlib.suppress(Exception):
                self._finish("aborted")
            raise
        except Exception as exc:  # a bug in a game or player: record it, keep what was played
            # The original error is the one to raise, even when a listener (the writer whose failure
            # this may be) fails again on these last events; the other listeners still get them.
            with contextlib.suppress(Exception):
                self._emit(ev.ERROR, {"message": f"{type(exc).__name__}: {exc}", "where": "match"})
            with contextlib.suppress(Exception):
                self._finish("error")
            raise
        finally:
            await self._release_players()
        return self._finish(status)

    async def _release_players(self) -> None:
        """Let players that hold a resource (Stockfish's process) release it now the match is over,
        off the event loop when they can; such a player starts it again if it plays on (a fork)."""
        for player in self.players:
            aclose, close = getattr(player, "aclose", None), getattr(player, "close", None)
            # Releasing must never hide how the match ended.
            with contextlib.suppress(Exception, asyncio.CancelledError):
                if callable(aclose):
                    await aclose()
                elif callable(close):
                    close()

    async def play_step(self) -> bool:
        """Ask every seat that acts now, apply the joint action; ``False`` when a seat forfeits."""
        state = self.state
        seats = state.to_act
        self._emit(
            ev.TURN_STARTED, {"seats": list(seats), "legal": {str(s): state.legal_actions(s) for s in seats}}
        )
        if any(self.players[s].kind != HUMAN for s in seats):
            await self.pacer.wait()
        closes = await self._open_tick(seats)
        tasks = [asyncio.ensure_future(self._decide(s, closes)) for s in seats]
        try:
            decisions = await asyncio.gather(*tasks)
        except Exception:
            # One seat failed: gather leaves the others running, and they would go on recording
            # (model calls, decisions) after the session is finished. Stop them first.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        if any(d.undo for d in decisions):
            if self.can_undo:
                self.undo()
            else:  # ask again; a refused undo is a note, not the end of the game
                why = "nothing to take back" if self.allow_undo else "undo is off in this session"
                self._emit(ev.ERROR, {"message": f"the move was not taken back: {why}", "where": "undo"})
            return True
        actions: dict[Seat, Action] = {}
        for seat, decision in zip(seats, decisions, strict=True):
            if decision.forfeit or decision.action is None:
                self._forfeited.append(seat)
            else:
                actions[seat] = decision.action
        if self._forfeited:
            return False
        self.apply(actions)
        return True

    async def _open_tick(self, seats: Sequence[Seat]) -> float | None:
        """Open the next real-time tick when a person acts in it on the game's tick: wait until the
        tick opens (the previous one was answered early) and return when it closes; else ``None``."""
        tick = next(
            (t for s in seats if self.players[s].kind == HUMAN and (t := self.deadline_for(s)) is not None),
            None,
        )
        if tick is None:
            self.ticks.reset()
            return None
        opens, closes = self.ticks.open(tick)
        wait = opens - asyncio.get_running_loop().time()
        if wait > 0:
            await asyncio.sleep(wait)
        return closes

    async def _decide(self, seat: Seat, closes: float | None = None) -> Decision:
        player = self.players[seat]
        obs = self.observation(seat)
        if obs.deadline_s is None:
            decision = await player.act(obs)
        else:
            decision = await self._act_by_deadline(player, obs, closes if player.kind == HUMAN else None)
        if decision.undo:
            return decision  # not a move: the ``undo`` event (or the note refusing it) records it
        if (
            self.review is not None
            and player.kind != HUMAN
            and not decision.forfeit
            and decision.source != DEFAULT
        ):
            decision = await self.review(obs, player, decision)
        if decision.action is not None and decision.action not in obs.legal_actions:
            raise IllegalActionError(
                f"{player.label} in seat {seat} chose {decision.action!r}, which is not legal"
            )
        # A re-asked decision is the answer of a later call at the same step: the event names that call.
        call = decision.call if decision.call is not None else obs.call
        self.emit(Event(ev.DECISION, decision.to_data(), step=obs.step, seat=seat, call=call))
        return decision

    async def _act_by_deadline(
        self, player: Player, obs: Observation, closes: float | None = None
    ) -> Decision:
        """``player.act(obs)``, or the game's default action once the deadline has passed: at
        ``closes`` on the loop's clock (a real-time tick), else ``obs.deadline_s`` from now."""
        task = asyncio.ensure_future(player.act(obs))
        try:
            return await self._await_by_deadline(task, closes, obs, player)
        except BaseException:
            # The match was cancelled (a new game, the app closing) while the player was still to act:
            # the player's own wait goes with it rather than lingering as a pending task.
            task.cancel()  # a no-op when it is done; not awaited: a player may take a while to stop
            raise

    async def _await_by_deadline(
        self, task: asyncio.Future[Decision], closes: float | None, obs: Observation, player: Player
    ) -> Decision:
        loop = asyncio.get_running_loop()
        scheduled = closes is not None
        if closes is None:
            closes = loop.time() + float(obs.deadline_s or 0.0)
        while True:
            if not self._clock_free.is_set():
                # Paused: the deadline waits too (by as long as the pause lasts); the player may still
                # answer meanwhile.
                held = loop.time()
                await _first(task, self._clock_free.wait())
                closes += loop.time() - held
                if scheduled:
                    self.ticks.extend(closes)
                if task.done():
                    return task.result()
            remaining = closes - loop.time()
            if remaining <= 1e-3:
                break
            await _first(task, self._clock_held.wait(), timeout=remaining)
            if task.done():
                return task.result()
        # A deadline that passed while the event loop was busy (a tick opened late) does not beat an
        # answer that is ready at once (a key held down, a move chosen before the tick): it gets a few
        # turns of the loop to arrive.
        for _ in range(_GRACE_TURNS):
            if task.done():
                return task.result()
            await asyncio.sleep(0)
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        default = self.game.default_action
        assert default is not None  # deadline_for gives no deadline without one
        if default not in obs.legal_actions:
            raise IllegalActionError(f"{self.game.title}'s default action {default!r} is not legal here")
        return Decision(
            default,
            source=DEFAULT,
            rationale=f"no answer within {obs.deadline_s:.3g} s; the game's default action was played",
            extra={"timed_out": True, "deadline_s": obs.deadline_s, "player": player.kind},
        )

    @property
    def can_undo(self) -> bool:
        """Whether the last step can be taken back now: a single-player game whose match allows it,
        with a step of its own to undo (a fork's inherited steps stay)."""
        return self.allow_undo and self.game.num_seats == 1 and len(self.history) > self._base_steps

    def undo(self) -> None:
        """Take back the last step, recorded as an ``undo`` event (the session keeps what was played).

        Raises:
            IllegalActionError: undo is not allowed here, or there is nothing to take back.
        """
        if not self.can_undo:
            why = "nothing to take back" if self.allow_undo else "undo is off in this session"
            raise IllegalActionError(why)
        record = self.history.pop()
        self.state = record.state
        data = {
            "actions": {str(s): a for s, a in record.actions.items()},
            "state": record.state.to_json(),
            "scores": list(record.state.scores),
        }
        self.emit(Event(ev.UNDO, data, step=record.step))

    def apply(self, actions: Mapping[Seat, Action]) -> None:
        """Apply a joint action to the current state and record it."""
        before = self.state
        move: Action | Mapping[Seat, Action]
        move = self.game.move(actions)
        after = before.apply(move)
        transition = self.game.transition(before, after)
        self.history.append(StepRecord(before.step, before, dict(actions), transition.rewards, after))
        self.state = after
        self.emit(
            Event(
                ev.ACTION_APPLIED,
                {
                    "actions": {str(s): a for s, a in actions.items()},
                    "rewards": list(transition.rewards),
                    "scores": list(after.scores),
                    "state": after.to_json(),
                    "changed": transition.changed,
                    "is_over": after.is_over,
                },
                step=before.step,
            )
        )

    def _finish(self, status: str) -> MatchResult:
        winner = self.state.winner
        forfeited = tuple(sorted(self._forfeited))
        if status == "forfeit" and forfeited:
            winner = self.game.forfeit_result(self.state, forfeited)
        steps = len(self.history) - self._base_steps
        self.result = MatchResult(status, steps, tuple(self.state.scores), winner, self.state, forfeited)
        data: dict[str, Any] = {
            "status": status,
            "scores": list(self.state.scores),
            "winner": winner,
            "steps": steps,
        }
        if forfeited:
            data["forfeited"] = list(forfeited)
        try:
            metrics = {str(k): float(v) for k, v in self.state.metrics().items()}
        except Exception:  # a game's figures must never stop the session from closing
            metrics = {}
        if metrics:
            data["metrics"] = metrics
        self._emit(ev.SESSION_FINISHED, data)
        return self.result


async def _first(task: asyncio.Future[Any], other: Any, timeout: float | None = None) -> None:
    """Wait until ``task`` or the coroutine ``other`` finishes, or ``timeout`` passes; ``other`` is
    cancelled afterwards (``task`` is left running)."""
    waiter = asyncio.ensure_future(other)
    try:
        await asyncio.wait({task, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
