"""The one asynchronous match loop.

It drives single-player episodes, alternating two-player games and simultaneous-move games alike,
in the app (under qasync) and in the command line (under asyncio). Every fact is handed to the
``on_event`` listeners as an :class:`~engine.events.Event`; the loop never touches disk or Qt.

Pacing belongs to the caller: a :class:`Pacer` decides when the next non-human step may start
(Step / Run / Pause and a speed in the app, "as fast as possible" in the command line). A ``review``
hook lets the app hold a model's decision for Accept / Override / Re-ask before it is applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.core import Action, Game, IllegalActionError, Seat, State
from engine.events import Event, EventSink
from engine.players import HUMAN, Decision, Observation, Player, StepRecord

Review = Callable[[Observation, Player, Decision], Awaitable[Decision]]


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

    def replace_player(self, seat: Seat, player: Player) -> None:
        """Seat a different player (take over / hand back); recorded as ``player_changed``."""
        self.players[seat] = player
        self._emit(ev.PLAYER_CHANGED, self.player_info(seat), seat=seat)

    def next_call(self) -> int:
        """A fresh call number, grouping the events of one decision attempt."""
        self._call += 1
        return self._call

    def observation(self, seat: Seat, *, call: int | None = None) -> Observation:
        return Observation(
            game=self.game,
            state=self.state,
            seat=seat,
            legal_actions=tuple(self.state.legal_actions(seat)),
            history=tuple(self.history),
            emit=self.emit,
            render=self.render,
            call=self.next_call() if call is None else call,
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
        return self._finish(status)

    async def play_step(self) -> bool:
        """Ask every seat that acts now, apply the joint action; ``False`` when a seat forfeits."""
        state = self.state
        seats = state.to_act
        self._emit(ev.TURN_STARTED, {"seats": list(seats), "legal": {str(s): state.legal_actions(s) for s in seats}})
        if any(self.players[s].kind != HUMAN for s in seats):
            await self.pacer.wait()
        tasks = [asyncio.ensure_future(self._decide(s)) for s in seats]
        try:
            decisions = await asyncio.gather(*tasks)
        except Exception:
            # One seat failed: gather leaves the others running, and they would go on recording
            # (model calls, decisions) after the session is finished. Stop them first.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        actions: dict[Seat, Action] = {}
        for seat, decision in zip(seats, decisions, strict=True):
            if decision.forfeit or decision.action is None:
                self._forfeit_seat = seat
                return False
            actions[seat] = decision.action
        self.apply(actions)
        return True

    async def _decide(self, seat: Seat) -> Decision:
        player = self.players[seat]
        obs = self.observation(seat)
        decision = await player.act(obs)
        if self.review is not None and player.kind != HUMAN and not decision.forfeit:
            decision = await self.review(obs, player, decision)
        if decision.action is not None and decision.action not in obs.legal_actions:
            raise IllegalActionError(
                f"{player.label} in seat {seat} chose {decision.action!r}, which is not legal"
            )
        self.emit(Event(ev.DECISION, decision.to_data(), step=obs.step, seat=seat, call=obs.call))
        return decision

    def apply(self, actions: Mapping[Seat, Action]) -> None:
        """Apply a joint action to the current state and record it."""
        before = self.state
        move: Action | Mapping[Seat, Action]
        move = dict(actions) if self.game.simultaneous else next(iter(actions.values()))
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

    _forfeit_seat: Seat | None = None

    def _finish(self, status: str) -> MatchResult:
        winner = self.state.winner
        if status == "forfeit" and self._forfeit_seat is not None and self.game.num_seats == 2:
            winner = 1 - self._forfeit_seat
        steps = len(self.history) - self._base_steps
        self.result = MatchResult(status, steps, tuple(self.state.scores), winner, self.state)
        self._emit(
            ev.SESSION_FINISHED,
            {"status": status, "scores": list(self.state.scores), "winner": winner, "steps": steps},
        )
        return self.result
