"""The player contract: everything that can sit in a seat implements ``async act(observation) -> Decision``.

Humans, random play, search bots, Stockfish, language models and the offline simulated model are
interchangeable to the match loop. A :class:`HumanPlayer` awaits a future that the app (or a test)
resolves with :meth:`HumanPlayer.submit`.

This module holds the contract only and imports nothing above :mod:`engine.core`; building players
from specs (``"minimax"``, ``"sim"``, ``"openai:gpt-4.1"``) is :mod:`engine.roster`'s job.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from engine.core import Action, Game, Seat, State
from engine.events import Event, EventSink, ignore_event

HUMAN = "human"
BOT = "bot"
MODEL = "model"
#: The source of a decision the match made for a seat that did not answer in time.
DEFAULT = "default"


@dataclasses.dataclass(frozen=True, slots=True)
class StepRecord:
    """One applied step, as remembered by the match (and by the model harness's memory module).

    In an :class:`Observation`'s history the states are the observing seat's views. Actions are
    public once applied.
    """

    step: int
    state: State
    actions: Mapping[Seat, Action]
    rewards: tuple[float, ...]
    next_state: State

    def seen_by(self, seat: Seat) -> StepRecord:
        """This step as ``seat`` saw it (its views of the states before and after)."""
        before, after = self.state.observe(seat), self.next_state.observe(seat)
        if before is self.state and after is self.next_state:
            return self
        return StepRecord(self.step, before, self.actions, self.rewards, after)


def since_move(history: Sequence[StepRecord], seat: Seat) -> list[StepRecord]:
    """The steps from ``seat``'s own last move to now (empty before its first move).

    Searched from the end: the seat's last move is near it, and copying or scanning the whole history
    at every decision would make a long episode quadratic.
    """
    for i in range(len(history) - 1, -1, -1):
        if seat in history[i].actions:
            return [history[j] for j in range(i, len(history))]
    return []


class SeatHistory(Sequence[StepRecord]):
    """The history of a match as one seat saw it, computed lazily: a memory window of ten steps
    reads ten records, however long the match (and a perfect-information game costs nothing)."""

    __slots__ = ("_records", "_seat", "_length")

    def __init__(self, records: Sequence[StepRecord], seat: Seat) -> None:
        self._records = records
        self._seat = seat
        self._length = len(records)  # a snapshot: steps applied later are not part of it

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("history index out of range")
        return self._records[index].seen_by(self._seat)


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    """What a player receives when it must act: nothing but what its seat may know.

    ``state`` is the state as this seat sees it (:meth:`engine.core.State.observe`), never the full
    state of a game with hidden information; ``history`` holds this seat's views too. ``emit``
    records facts into the session (prompts, reasoning, parse chain) and the live panels;
    ``render(state, *, grid_labels=True)`` draws a state to PNG bytes with the same renderer the screen
    uses (optionally with row/column labels around the board), when one is there.
    """

    game: Game
    state: State
    seat: Seat
    legal_actions: tuple[Action, ...]
    history: Sequence[StepRecord] = ()
    emit: EventSink = ignore_event
    render: Callable[..., bytes] | None = None
    call: int = 0
    #: Seconds this seat has to answer (real-time play), or ``None`` for no limit.
    deadline_s: float | None = None

    @property
    def step(self) -> int:
        return self.state.step

    def record(self, type_: str, data: Mapping[str, Any] | None = None, **kw: Any) -> None:
        """Emit an event stamped with this observation's step, seat and call."""
        self.emit(Event(type_, dict(data or {}), step=self.step, seat=self.seat, call=self.call, **kw))


@dataclasses.dataclass(slots=True)
class Decision:
    """A player's choice and why: ``values`` holds what a search bot computed per action."""

    action: Action | None
    source: str = BOT
    rationale: str = ""
    values: dict[Action, float] | None = None
    #: Set when the player gives up (a model that exhausted its invalid-answer policy, a human resign).
    forfeit: bool = False
    #: Extra facts for the ``decision`` event (policy applied, call counts...).
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The call whose answer this decision plays, when it is not the observation's own call (an
    #: answer to a re-ask is a later call at the same step); the ``decision`` event names it.
    call: int | None = None
    #: A person asks to take back their last move instead of playing (single-player games whose match
    #: allows it); recorded as an ``undo`` event, never as a move.
    undo: bool = False

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "source": self.source}
        if self.rationale:
            data["rationale"] = self.rationale
        if self.values is not None:
            data["values"] = {a: round(v, 6) for a, v in self.values.items()}
        if self.forfeit:
            data["forfeit"] = True
        data.update(self.extra)
        return data


@runtime_checkable
class Player(Protocol):
    """Anything that can sit in a seat.

    ``kind``, ``spec`` and ``label`` are read-only for the match: a plain attribute satisfies them, and
    so does a property (a wrapper such as :class:`engine.steering_players.SteerablePlayer` reports its
    inner player's).
    """

    @property
    def kind(self) -> str:
        """``"human"``, ``"bot"`` or ``"model"``."""

    @property
    def spec(self) -> str:
        """The spec it was made from (``"random"``, ``"minimax"``, ``"sim"``, ``"openai:gpt-4.1-mini"``)."""

    @property
    def label(self) -> str:
        """A short name for people (``"Random"``, ``"Minimax"``, ``"Simulated model"``)."""

    async def act(self, observation: Observation) -> Decision: ...


class RandomPlayer:
    """Uniform random choice over the legal actions (the papers' random baseline)."""

    kind = BOT
    spec = "random"
    label = "Random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    async def act(self, observation: Observation) -> Decision:
        action = self._rng.choice(observation.legal_actions)
        return Decision(action, rationale=f"uniform over {len(observation.legal_actions)} legal actions")


class HumanPlayer:
    """A person at the board: :meth:`act` waits until :meth:`submit` is called with a legal action."""

    kind = HUMAN
    spec = "human"

    def __init__(self, label: str = "Human") -> None:
        self.label = label
        self._future: asyncio.Future[Action | None] | None = None
        self._observation: Observation | None = None

    @property
    def waiting(self) -> Observation | None:
        """The observation the human is asked to act on, or ``None`` when it is not their turn."""
        return self._observation if self._future is not None and not self._future.done() else None

    async def act(self, observation: Observation) -> Decision:
        loop = asyncio.get_running_loop()
        self._future = loop.create_future()
        self._observation = observation
        started = loop.time()
        try:
            action = await self._future
        finally:
            self._observation = None
        latency = {"latency_ms": round((loop.time() - started) * 1000)}
        if action is None:
            return Decision(None, source=HUMAN, rationale="takes back the last move", undo=True,
                            extra=latency)
        return Decision(action, source=HUMAN, extra=latency)

    def submit(self, action: Action) -> bool:
        """Play ``action`` if the human is to move and it is legal; returns whether it was taken."""
        obs = self.waiting
        if obs is None or self._future is None or action not in obs.legal_actions:
            return False
        self._future.set_result(action)
        return True

    def take_back(self) -> bool:
        """Ask to undo the last move while it is the human's turn; whether the match allows it is the
        match's call (:attr:`engine.match.Match.can_undo`). Returns whether the request was made."""
        if self.waiting is None or self._future is None:
            return False
        self._future.set_result(None)
        return True
