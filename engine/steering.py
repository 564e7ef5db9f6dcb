"""Steering a match from outside: the human in the loop, without Qt.

A :class:`Steering` attaches to a :class:`~engine.match.Match` before it runs and gives a person (in
the app, in the command line, in a plain asyncio program) control over it:

* **pacing**: :meth:`~Steering.run`, :meth:`~Steering.pause`, :meth:`~Steering.step` and
  :meth:`~Steering.set_speed`;
* **hold**: a model's decision is held for review (by default while paused) instead of being
  applied; :attr:`~Steering.pending` describes it;
* **Ask** (:meth:`~Steering.ask`) lets a paused model think now; **Re-ask**
  (:meth:`~Steering.reask`) asks the same player again at the same state, a new call whose events
  are recorded beside the earlier ones; **Accept** (:meth:`~Steering.accept`) plays the held answer;
  **Override** (:meth:`~Steering.override`) plays a person's legal action instead;
* **cancel** (:meth:`~Steering.cancel`) stops the model call in flight without ending the match (the
  seat waits until asked again);
* **Take over** / **Hand back** (:meth:`~Steering.take_over`, :meth:`~Steering.hand_back`) seat a
  person in a model's place and give the seat back;
* **Fork** (:meth:`~Steering.fork_point`, :meth:`~Steering.fork`): the state and history at any step,
  as the engine sees them, to start a new match from;
* the **spend meter** (:attr:`~Steering.spend`) sums the match's model calls.

How the steered decisions are recorded (``decision`` and ``override`` events):

* the ``decision`` event names the call whose answer is played (:attr:`Decision.call`): after a
  Re-ask it is the re-asked call, and an accepted held decision carries ``accepted_call``;
* an Override is the person's action: an ``override`` event ``{"proposed", "action", "by": "human",
  "rejected_call"}`` on the rejected call, then a ``decision`` with source ``"human"`` that keeps the
  model's rejected answer (``proposed``) and its call (``rejected_call``) and is recorded on that call.

Front ends listen through plain callbacks: :attr:`~Steering.on_changed` (anything a view shows may
have changed), :attr:`~Steering.on_notice` (a message for the person, with a code) and the match's
own event listeners (:meth:`~Steering.subscribe`). :meth:`~Steering.wait_for` awaits a condition.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.core import Action, Seat, State
from engine.events import Event, EventSink
from engine.match import Match
from engine.players import HUMAN, MODEL, Decision, HumanPlayer, Observation, Player, StepRecord
from engine.steering_players import SteerablePlayer, SteeredHuman, SteeringPacer, TakeoverHuman

__all__ = [
    "CALL_CANCELLED",
    "DECISION_HELD",
    "HOLD_ALWAYS",
    "HOLD_NEVER",
    "HOLD_PAUSED",
    "ILLEGAL_ACTION",
    "NO_MODEL",
    "REASKING",
    "ForkPoint",
    "HeldDecision",
    "SpendMeter",
    "SteerablePlayer",
    "SteeredHuman",
    "Steering",
    "SteeringPacer",
    "TakeoverHuman",
]

#: Hold a model's decision for review only while paused (the app's behaviour).
HOLD_PAUSED = "paused"
#: Hold every model decision, running or not.
HOLD_ALWAYS = "always"
#: Never hold: decisions are applied as they come.
HOLD_NEVER = "never"
_HOLDS = (HOLD_PAUSED, HOLD_ALWAYS, HOLD_NEVER)

# Notice codes (``on_notice(code, text)``): front ends may word them their own way.
#: A model call was cancelled; the seat waits until asked again (or taken over).
CALL_CANCELLED = "call_cancelled"
#: A command was refused because a decision is held: accept, override or re-ask it first.
DECISION_HELD = "decision_held"
#: Ask was refused: no model is to act now.
NO_MODEL = "no_model"
#: The held decision's model is being asked again.
REASKING = "reasking"
#: An override or a move was refused: the action is not legal here.
ILLEGAL_ACTION = "illegal_action"

_NOTICE_TEXT = {
    CALL_CANCELLED: "Model call cancelled — ask again, or take over the seat",
    DECISION_HELD: "A decision is waiting: Accept, Override or Re-ask it",
    NO_MODEL: "No model is to act now",
    REASKING: "Asking the model again…",
}

# What the person answered a held decision with.
_ACCEPT, _OVERRIDE, _REASK, _TAKEOVER = "accept", "override", "reask", "takeover"

#: Match events after which what a view shows (turn, seats, held call, step) may have changed.
_STRUCTURAL = frozenset(
    {
        ev.TURN_STARTED,
        ev.DECISION,
        ev.OVERRIDE,
        ev.ACTION_APPLIED,
        ev.PLAYER_CHANGED,
        ev.MODEL_CALL_FAILED,
        ev.SESSION_FINISHED,
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class HeldDecision:
    """A model's decision held for review: which seat, at which step, from which call."""

    seat: Seat
    step: int
    call: int
    action: Action | None
    rationale: str
    label: str

    def as_dict(self) -> dict[str, Any]:
        """``{"seat", "step", "call", "action", "rationale", "label"}``."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class ForkPoint:
    """Where a fork starts: the state at ``step`` and the steps applied before it."""

    step: int
    state: State
    history: tuple[StepRecord, ...]


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
        """``usd``, ``tokens`` (input + output), ``input_tokens``, ``output_tokens``, ``calls`` and
        ``unknown`` (calls whose price is unknown)."""
        return {
            "usd": self.usd,
            "tokens": self.input_tokens + self.output_tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": self.calls,
            "unknown": self.unknown,
        }


class Steering:
    """Human-in-the-loop control of one match (see the module docstring).

    Create it on a match that has not started running: it becomes the match's pacer and review hook,
    wraps every model seat in a :class:`SteerablePlayer` and every plain :class:`HumanPlayer` seat in a
    :class:`SteeredHuman` (play their moves with :meth:`play`). Everything runs on the match's event
    loop; no method blocks.

    Args:
        match: The match to steer.
        running: Start playing automatically (``False``: paused, step by hand).
        delay: Seconds between automatic steps.
        hold: When to hold a model's decision for review: :data:`HOLD_PAUSED` (while paused),
            :data:`HOLD_ALWAYS` or :data:`HOLD_NEVER`.
        takeover_label: The label of the person who takes a model's seat.
    """

    def __init__(
        self,
        match: Match,
        *,
        running: bool = True,
        delay: float = 0.0,
        hold: str = HOLD_PAUSED,
        takeover_label: str = "Human (took over)",
    ) -> None:
        if hold not in _HOLDS:
            raise ValueError(f"hold is one of {', '.join(_HOLDS)}, not {hold!r}")
        self.match = match
        self.hold = hold
        self.takeover_label = takeover_label
        #: Called (with no argument) whenever something a view shows may have changed.
        self.on_changed: list[Callable[[], None]] = []
        #: Called with ``(code, text)`` for a message to the person (see the notice codes).
        self.on_notice: list[Callable[[str, str], None]] = []
        #: The running totals of this match's model calls.
        self.spend = SpendMeter()
        self.pacer = SteeringPacer(self._changed, running=running, delay=max(0.0, float(delay)))
        if not running:
            match.hold_clock()  # a game that starts paused starts with its real-time clock held
        self._models: dict[Seat, SteerablePlayer] = {}
        self._takeovers: dict[Seat, TakeoverHuman] = {}
        self._pending: HeldDecision | None = None
        self._review_future: asyncio.Future[tuple[str, Any]] | None = None
        self._resume = asyncio.Event()
        self._resume_waiters = 0
        self._queued: tuple[Seat, Action] | None = None
        #: The decision the review hook answered last (see :meth:`review`).
        self._reviewed: Decision | None = None
        self._failed_calls: set[tuple[Seat | None, int | None]] = set()
        self._closed = False
        for seat, player in enumerate(match.players):
            # Seated silently: the match has not started, so no ``player_changed`` is recorded.
            if player.kind == MODEL and not isinstance(player, SteerablePlayer):
                match.seat(seat, SteerablePlayer(player, self, seat))
                self._models[seat] = match.players[seat]  # type: ignore[assignment]
            elif isinstance(player, SteerablePlayer):
                self._models[seat] = player
            elif type(player) is HumanPlayer:
                human = SteeredHuman(player.label)
                match.seat(seat, human)
                human.on_waiting = self._human_waiting
            elif isinstance(player, SteeredHuman):
                player.on_waiting = self._human_waiting
        match.attach(pacer=self.pacer, review=self.review)
        match.subscribe(self._on_event)

    # -- listening --------------------------------------------------------------------------------

    def subscribe(self, listener: EventSink) -> None:
        """Listen to the match's events (prompts, calls, decisions, overrides, applied actions...)."""
        self.match.subscribe(listener)

    async def wait_for(self, predicate: Callable[[], Any], timeout: float | None = None) -> None:
        """Wait until ``predicate()`` is true, checking it whenever the steering state changes or the
        match records a structural event (a turn, a decision, an applied action, the end).

        Raises:
            TimeoutError: ``timeout`` seconds passed first.
        """
        wake = asyncio.Event()
        self.on_changed.append(wake.set)
        try:
            async with asyncio.timeout(timeout):
                while not predicate():
                    wake.clear()
                    await wake.wait()
        finally:
            self.on_changed.remove(wake.set)

    def _changed(self) -> None:
        for listener in list(self.on_changed):
            listener()

    def _notice(self, code: str, text: str | None = None) -> None:
        message = text if text is not None else _NOTICE_TEXT.get(code, code)
        for listener in list(self.on_notice):
            listener(code, message)

    def _on_event(self, event: Event) -> None:
        if event.type == ev.MODEL_CALL_FINISHED:
            self.spend.add(event.data)
        elif event.type == ev.MODEL_CALL_FAILED:
            self._failed_calls.add((event.seat, event.call))
        if event.type in _STRUCTURAL:
            self._changed()

    # -- what is going on -------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Whether the match has ended (or the steering was closed)."""
        return self._closed or self.match.result is not None

    @property
    def running(self) -> bool:
        """Whether the match plays automatically (not paused)."""
        return self.pacer.running

    @property
    def delay(self) -> float:
        return self.pacer.delay

    @property
    def pending(self) -> HeldDecision | None:
        """The model decision held for review, or ``None``."""
        return self._pending

    @property
    def busy(self) -> bool:
        """Whether a model call is in flight."""
        return any(p.busy for p in self._models.values())

    @property
    def waiting_to_resume(self) -> bool:
        """Whether a model seat waits to be asked again after its call was cancelled."""
        return self._resume_waiters > 0

    @property
    def models(self) -> Mapping[Seat, SteerablePlayer]:
        """The model seats and their (cancellable) players, also while a person holds the seat."""
        return dict(self._models)

    def model_seats(self) -> list[Seat]:
        return sorted(self._models)

    def seated(self, seat: Seat) -> Player:
        """Who plays ``seat`` now (a :class:`TakeoverHuman` while taken over)."""
        return self.match.players[seat]

    def taken_over(self, seat: Seat) -> bool:
        """Whether a person holds model seat ``seat``."""
        return self._takeovers.get(seat) is not None and self.seated(seat) is self._takeovers[seat]

    def observation(self, seat: Seat) -> Observation:
        """A fresh observation for ``seat`` at the current state (a new call number)."""
        return self.match.observation(seat)

    def model_to_act(self) -> Seat | None:
        """The model seat that acts next, if any."""
        state = self.match.state
        if self.finished or state.is_over:
            return None
        return next((s for s in state.to_act if self.seated(s).kind == MODEL), None)

    def human_to_act(self) -> Seat | None:
        """The human seat that acts next, if any."""
        state = self.match.state
        if self.finished or state.is_over:
            return None
        return next((s for s in state.to_act if isinstance(self.seated(s), HumanPlayer)), None)

    def waiting_human(self) -> tuple[Seat, HumanPlayer] | None:
        """The human player the match waits for now, if any."""
        if self.finished:
            return None
        for seat, player in enumerate(self.match.players):
            if isinstance(player, HumanPlayer) and player.waiting is not None:
                return seat, player
        return None

    def legal_for_person(self) -> list[Action]:
        """Actions a person may choose now: an override of the held decision, or a human's move."""
        if self.finished:
            return []
        seat = self._pending.seat if self._pending is not None else self.human_to_act()
        return list(self.match.state.legal_actions(seat)) if seat is not None else []

    # -- pacing -----------------------------------------------------------------------------------

    def run(self) -> None:
        """Play automatically (a held decision is accepted, a cancelled call asked again)."""
        if self.finished:
            return
        self.pacer.run()
        self.match.release_clock()
        self._resolve_review(_ACCEPT)
        self._resume.set()
        self._changed()

    def pause(self) -> None:
        """Stop before the next automatic step (and hold a real-time game's clock)."""
        if self.finished:
            return
        self.pacer.pause()
        self.match.hold_clock()
        self._changed()

    def step(self) -> None:
        """Play one step while paused (a held decision is accepted, a cancelled call asked again)."""
        if self.finished:
            return
        if self.running:
            self.pacer.pause()
        self.match.release_clock()  # a real-time game's clock runs again: a step is wanted
        if self._resolve_review(_ACCEPT) or self._resume_waiting():
            return
        if self.pacer.waiting:
            self.pacer.step_once()
        self._changed()

    def set_tick_scale(self, scale: float) -> None:
        """How many ticks a person gets per game tick in a real-time game (2.0: half speed)."""
        self.match.tick_scale = max(0.125, min(8.0, float(scale)))

    def set_speed(self, delay: float) -> None:
        """Seconds between automatic steps."""
        self.pacer.delay = max(0.0, float(delay))

    # -- the held decision ------------------------------------------------------------------------

    def ask(self) -> bool:
        """Let the model to act think now (its decision is held for review while paused)."""
        if self.finished:
            return False
        if self._pending is not None:
            self._notice(DECISION_HELD)
            return False
        if self.busy:
            return False
        if self._resume_waiting():
            return True
        if self.model_to_act() is None:
            self._notice(NO_MODEL)
            return False
        if self.running:
            self.pacer.pause()
        if self.pacer.waiting:
            self.pacer.step_once()
        self._changed()
        return True

    def accept(self) -> bool:
        """Play the held decision."""
        return self._resolve_review(_ACCEPT)

    def reask(self) -> bool:
        """Ask the held decision's model again at the same state (a new call; both are recorded)."""
        if self._resolve_review(_REASK):
            self._notice(REASKING)
            return True
        return False

    def override(self, action: Action) -> bool:
        """Play ``action`` (legal for the held decision's seat) instead of the held decision."""
        if self._pending is None:
            return False
        if action not in self.legal_for_person():
            self._notice(ILLEGAL_ACTION, f"{action!r} is not a legal move here")
            return False
        return self._resolve_review(_OVERRIDE, action)

    def cancel(self) -> bool:
        """Cancel the model call in flight (the match goes on; the seat waits to be asked again)."""
        cancelled = False
        for model in self._models.values():
            cancelled = model.cancel_call() or cancelled
        return cancelled

    def play(self, action: Action) -> bool:
        """An action chosen by a person: an override of the held decision, else the move of the
        human to act (kept for their turn if it has not begun yet). Returns whether it was taken."""
        if self.finished:
            return False
        if self._pending is not None:
            return self.override(action)
        waiting = self.waiting_human()
        if waiting is not None:
            return waiting[1].submit(action)
        seat = self.human_to_act()
        if seat is None or action not in self.match.state.legal_actions(seat):
            return False
        # The human's turn has begun but its player has not started waiting yet: keep the move.
        self._queued = (seat, action)
        return True

    # -- seats ------------------------------------------------------------------------------------

    def take_over(self, seat: Seat | None = None) -> bool:
        """Seat a person in place of a model (``seat`` default: the model to act, else the first).

        A held decision or a call in flight for that seat gives way: the person answers the turn.
        """
        if self.finished:
            return False
        if seat is None:
            seat = self.model_to_act()
            if seat is None:
                seat = next((s for s in self.model_seats() if not self.taken_over(s)), None)
        if seat is None or seat not in self._models or self.taken_over(seat):
            return False
        model = self._models[seat]
        human = TakeoverHuman(model, self, label=self.takeover_label)
        human.on_waiting = self._human_waiting
        self._takeovers[seat] = human
        self.match.replace_player(seat, human)
        if not self._resolve_review(_TAKEOVER) and not model.cancel_call():
            if self.waiting_to_resume:
                self._resume.set()
            elif self.pacer.waiting and not self.pacer.running:
                # Paused before the turn: a person's turn does not wait for the pacer.
                if all(self.seated(s).kind == HUMAN for s in self.match.state.to_act):
                    self.pacer.step_once()
        self._changed()
        return True

    def hand_back(self, seat: Seat | None = None) -> bool:
        """Return a taken-over seat to its model (which answers the turn the person was waiting on)."""
        if self.finished:
            return False
        if seat is None:
            seat = next((s for s in sorted(self._takeovers) if self.taken_over(s)), None)
        if seat is None or not self.taken_over(seat):
            return False
        human = self._takeovers.pop(seat)
        self.match.replace_player(seat, self._models[seat])
        human.hand_back()
        self._changed()
        return True

    # -- fork -------------------------------------------------------------------------------------

    def fork_point(self, step: int | None = None) -> ForkPoint:
        """The state at ``step`` (default: the current one) and the steps applied before it.

        Raises:
            ValueError: the match has no state at ``step``.
        """
        match = self.match
        k = match.state.step if step is None else step
        if k == match.state.step:
            state = match.state
        else:
            found = next((r.state for r in match.history if r.step == k), None)
            if found is None:
                raise ValueError(f"no state at step {k}")
            state = found
        return ForkPoint(k, state, tuple(r for r in match.history if r.step < k))

    def fork(
        self,
        players: Sequence[Player],
        *,
        step: int | None = None,
        forked_from: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Match:
        """A new match from :meth:`fork_point` ``(step)`` with ``players`` (not started).

        ``forked_from`` (e.g. the source session's id) is recorded with the step in the new match's
        ``session_started`` event; ``options`` go to :class:`~engine.match.Match` (``max_steps``...).
        """
        point = self.fork_point(step)
        origin = {**dict(forked_from or {}), "step": point.step}
        options.setdefault("seed", self.match.seed)
        return Match(
            self.match.game, players, state=point.state, history=point.history, forked_from=origin, **options
        )

    # -- ending -----------------------------------------------------------------------------------

    def close(self) -> None:
        """Give up what waits for the person (a held decision, a queued move); the match's own task
        is the caller's to cancel."""
        self._closed = True
        if self._review_future is not None and not self._review_future.done():
            self._review_future.cancel()
        self._pending = None
        # A move clicked for this game's next turn must never be played anywhere else.
        self._queued = None

    # -- the review hook (the match calls it) -----------------------------------------------------

    async def review(self, obs: Observation, player: Player, decision: Decision) -> Decision:
        """The match's review hook: hold a model's decision until the person answers it."""
        if decision is self._reviewed:
            # Already held and answered on the hand-back path (a take-over during the call); the match's
            # own review of the same decision must not hold it a second time.
            return decision
        result = await self._hold(obs, player, decision)
        self._reviewed = result
        return result

    def _holds(self, player: Player, decision: Decision) -> bool:
        if player.kind != MODEL or decision.source != MODEL or self.hold == HOLD_NEVER:
            return False
        return self.hold == HOLD_ALWAYS or not self.running

    async def _hold(self, obs: Observation, player: Player, decision: Decision) -> Decision:
        if not self._holds(player, decision):
            return decision
        seat = obs.seat
        call = decision.call if decision.call is not None else obs.call
        loop = asyncio.get_running_loop()
        while True:
            held = HeldDecision(seat, obs.step, call, decision.action, decision.rationale, player.label)
            self._pending = held
            self._review_future = loop.create_future()
            self._changed()
            try:
                command, arg = await self._review_future
            finally:
                self._pending = None
                self._review_future = None
                self._changed()
            if command == _ACCEPT:
                decision.call = call
                decision.extra.setdefault("accepted_call", call)
                return decision
            if command == _OVERRIDE:
                return self._overridden(obs, seat, call, decision, arg)
            if command == _TAKEOVER:
                return await self.seated(seat).act(obs)
            # Re-ask: the same player at the same state, a new call number.
            model = self._models.get(seat, player)
            obs = self.observation(seat)
            decision = await model.act(obs)
            if decision.source != MODEL:
                return decision  # the seat was taken over (or the policy fell back) meanwhile
            if not self._holds(model, decision):
                return decision  # Run was pressed while the model thought
            call = decision.call if decision.call is not None else obs.call

    def _overridden(
        self, obs: Observation, seat: Seat, call: int, rejected: Decision, action: Action
    ) -> Decision:
        """Record an override of call ``call`` and return the person's decision replacing it."""
        self.match.emit(
            Event(
                ev.OVERRIDE,
                {"proposed": rejected.action, "action": action, "by": HUMAN, "rejected_call": call},
                step=obs.step,
                seat=seat,
                call=call,
            )
        )
        extra = {"proposed": rejected.action, "rejected_call": call}
        return Decision(action, source=HUMAN, call=call, extra=extra)

    def _resolve_review(self, command: str, arg: Any = None) -> bool:
        fut = self._review_future
        if fut is None or fut.done():
            return False
        fut.set_result((command, arg))
        self._pending = None  # answered: no longer held, even before the match takes the answer
        self._changed()
        return True

    # -- called by the seat wrappers --------------------------------------------------------------

    async def _wait_resume(self) -> None:
        self._resume.clear()
        self._resume_waiters += 1
        self._changed()
        try:
            await self._resume.wait()
        finally:
            self._resume_waiters -= 1

    def _resume_waiting(self) -> bool:
        """Wake a model seat that waits after a cancelled call; returns whether one was waiting."""
        if self.waiting_to_resume:
            self._resume.set()
            return True
        return False

    def _call_cancelled(self, obs: Observation) -> None:
        model = self._models.get(obs.seat)
        taken_over = model is not None and self.seated(obs.seat) is not model
        if not taken_over:
            self.pacer.pause()
        if (obs.seat, obs.call) not in self._failed_calls and not self._closed:
            self.match.emit(
                Event(
                    ev.MODEL_CALL_FAILED,
                    {"error": "cancelled by the user", "kind": "cancelled"},
                    step=obs.step,
                    seat=obs.seat,
                    call=obs.call,
                )
            )
        if not taken_over:
            self._notice(CALL_CANCELLED)

    def _human_waiting(self, player: SteeredHuman) -> None:
        queued, self._queued = self._queued, None
        waiting = player.waiting
        if queued is not None and waiting is not None and waiting.seat == queued[0]:
            if player.submit(queued[1]):
                return
        self._changed()
