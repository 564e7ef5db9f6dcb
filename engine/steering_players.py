"""The seat wrappers and the pacer behind :class:`engine.steering.Steering`.

* :class:`SteerablePlayer` wraps a model player so that one call can be cancelled without ending the
  match: the seat then waits until the person asks again (a new call number at the same step) or
  takes the seat over.
* :class:`SteeredHuman` is a person at the board who tells the steering when it starts waiting.
* :class:`TakeoverHuman` is the person who took a model's seat; handing the seat back lets the model
  answer the turn that was waiting for the person.
* :class:`SteeringPacer` is a :class:`~engine.match.Pacer` that says when the match waits for it.

These classes are driven by a :class:`~engine.steering.Steering` and are not meant to be used alone.
Qt-free: they run under any asyncio loop (plain ``asyncio.run`` or qasync).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from engine.core import Seat
from engine.match import Pacer
from engine.players import Decision, HumanPlayer, Observation, Player

__all__ = ["SteerablePlayer", "SteeredHuman", "SteeringHost", "SteeringPacer", "TakeoverHuman"]


class SteeringHost(Protocol):
    """What the seat wrappers need from the :class:`~engine.steering.Steering` that owns them."""

    def _changed(self) -> None: ...

    def _call_cancelled(self, obs: Observation) -> None: ...

    async def _wait_resume(self) -> None: ...

    def seated(self, seat: Seat) -> Player: ...

    def observation(self, seat: Seat) -> Observation: ...

    async def review(self, obs: Observation, player: Player, decision: Decision) -> Decision: ...


class SteeringPacer(Pacer):
    """A pacer that reports when the match waits for it (paused: "press Step" or "Ask")."""

    def __init__(self, on_change: Callable[[], None], *, running: bool, delay: float) -> None:
        super().__init__(running=running, delay=delay)
        #: Whether the match is waiting for the pacer now.
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
    """A model player whose in-flight call can be cancelled without ending the match.

    Every decision it returns names the call that produced it (:attr:`Decision.call`): after a
    cancelled call the answer comes from a later call at the same step.
    """

    def __init__(self, inner: Player, steering: SteeringHost, seat: Seat) -> None:
        self.inner = inner
        self.seat = seat
        self._steering = steering
        #: The task of the call in flight, if any.
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

    @property
    def busy(self) -> bool:
        """Whether a call is in flight."""
        return self.task is not None and not self.task.done()

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
        steering = self._steering
        while True:
            self.cancelled_by_user = False
            self.last_observation = obs
            self.task = asyncio.ensure_future(self.inner.act(obs))
            steering._changed()
            decision: Decision | None = None
            try:
                decision = await self.task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not self.cancelled_by_user or (current is not None and current.cancelling()):
                    raise
            finally:
                self.task = None
                steering._changed()
            if decision is not None:
                if decision.call is None:
                    decision.call = obs.call  # the attempt whose answer this is
                return decision
            steering._call_cancelled(obs)
            seated = steering.seated(self.seat)
            if seated is self:
                # Wait for the person: Ask / Step / Run tries again, Take over seats them instead.
                await steering._wait_resume()
                seated = steering.seated(self.seat)
            # Taken over (the cancel came from Take over, or it happened while waiting): the person
            # answers this turn at once; nobody would ask again for a seat that is no longer the model's.
            if seated is not self:
                return await seated.act(obs)
            obs = steering.observation(self.seat)


class SteeredHuman(HumanPlayer):
    """A person at the board who tells the steering when their turn begins.

    :attr:`on_waiting` is set by the :class:`~engine.steering.Steering` the player is seated under.
    """

    def __init__(self, label: str = "Human") -> None:
        super().__init__(label=label)
        self.on_waiting: Callable[[SteeredHuman], None] | None = None

    async def act(self, observation: Observation) -> Decision:
        inner = asyncio.ensure_future(HumanPlayer.act(self, observation))
        try:
            # One turn of the loop lets the inner coroutine create its future before it is announced.
            await asyncio.sleep(0)
            if self.on_waiting is not None:
                self.on_waiting(self)
            return await inner
        except asyncio.CancelledError:
            inner.cancel()
            raise


class TakeoverHuman(SteeredHuman):
    """The person who took a model's seat; :meth:`hand_back` lets the model answer the waiting turn."""

    def __init__(
        self, model: SteerablePlayer, steering: SteeringHost, label: str = "Human (took over)"
    ) -> None:
        super().__init__(label=label)
        self.model = model
        self._steering = steering
        self._handed_back = asyncio.Event()

    def hand_back(self) -> None:
        self._handed_back.set()

    async def act(self, observation: Observation) -> Decision:
        human = asyncio.ensure_future(SteeredHuman.act(self, observation))
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
        # Handed back while the person was to move: the model answers this turn, held like any other.
        obs = self._steering.observation(observation.seat)
        decision = await self.model.act(obs)
        return await self._steering.review(obs, self.model, decision)
