"""What GVGAI's statistical forward planners share: a budget per move, a forward model, a player.

A planner here searches single-player games through nothing but the game contract: ``apply`` (or, where
a step has several outcomes, one of :meth:`~engine.core.State.outcomes` drawn with the planner's own
seeded generator, so it never reads the seed the game state carries). The budget is a time per move
(GVGAI's competitions give 40 ms) or a fixed number of iterations, which makes a seeded search
reproducible. :meth:`Planner.act` searches in slices and yields to the event loop between them, so a long
search never freezes the app.

Subclasses (:mod:`engine.bots.rhea`, :mod:`engine.bots.olets`) implement :meth:`Planner.start`, which
returns a :class:`Search` that does one iteration per :meth:`Search.iterate` and reports a
:class:`PlanResult`.
"""

from __future__ import annotations

import abc
import asyncio
import random
import time
from dataclasses import dataclass, field

from engine.core import Action, Game, Seat, State
from engine.players import BOT, Decision, Observation

__all__ = ["DEFAULT_TIME_S", "PlanResult", "Planner", "Search", "win_score"]

#: GVGAI's per-move budget in its planning competitions.
DEFAULT_TIME_S = 0.04
#: How long one slice of search runs before yielding to the event loop.
SLICE_S = 0.02
#: GVGAI's ``WinScoreHeuristic``: a lost game is worth this much less than any score, a won one more.
WIN_VALUE = 1000.0


def win_score(state: State, seat: Seat) -> float:
    """GVGAI's win-score heuristic: ``-1000`` for a game lost, ``+1000`` for one won, else the score."""
    if state.is_over:
        return WIN_VALUE if state.winner == seat else -WIN_VALUE
    return float(state.scores[seat])


@dataclass(frozen=True)
class PlanResult:
    """What one search found: the move, a value per root action it tried, the effort, the plan."""

    action: Action | None
    values: dict[Action, float] = field(default_factory=dict)
    iterations: int = 0
    elapsed_s: float = 0.0
    #: The planned line of play from the root (its first action is ``action``).
    line: tuple[Action, ...] = ()
    #: One line on why ``action`` (shown as the decision's rationale).
    why: str = ""


class Search(abc.ABC):
    """One search in progress from a root state."""

    def __init__(self, planner: Planner, state: State, seat: Seat) -> None:
        self.planner = planner
        self.root = state
        self.seat = seat
        self.rng = planner.rng
        self.actions = list(state.legal_actions(seat))

    def step(self, state: State, action: Action) -> State:
        """The state after ``action``: the one outcome, or one drawn with the planner's generator."""
        outcomes = state.outcomes(action)
        if len(outcomes) == 1:
            return outcomes[0][1]
        return self.rng.choices([s for _, s in outcomes], weights=[p for p, _ in outcomes])[0]

    def legal(self, state: State, gene: int) -> Action:
        """The action a plan's ``gene`` (an index into the root's actions) stands for in ``state``:
        itself where legal, else the legal action at the same index modulo their number."""
        action = self.actions[gene % len(self.actions)]
        legal = state.legal_actions(self.seat)
        return action if action in legal else legal[gene % len(legal)]

    @abc.abstractmethod
    def iterate(self) -> None:
        """One unit of search (an evaluated plan, a tree descent)."""

    @abc.abstractmethod
    def result(self, iterations: int, elapsed_s: float) -> PlanResult:
        """The move to play now."""


class Planner(abc.ABC):
    """A budgeted single-player planner (see the module docstring).

    Args:
        game: The game; it must have one seat.
        seed: Seeds every random choice of the search.
        time_s: Search time per move (ignored when ``iterations`` is given).
        iterations: A fixed number of iterations per move instead of a time budget (reproducible).
    """

    kind = BOT
    spec = "planner"
    label = "Planner"

    def __init__(self, game: Game, seed: int | None = None, *, time_s: float = DEFAULT_TIME_S,
                 iterations: int | None = None) -> None:
        if game.num_seats != 1:
            raise ValueError(
                f"{game.title} has {game.num_seats} seats; {self.label} plays single-player games")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if iterations is None and time_s <= 0:
            raise ValueError("time_s must be positive")
        self.game = game
        self.seed = seed
        self.time_s = time_s
        self.iterations = iterations
        self.rng = random.Random(seed)

    @abc.abstractmethod
    def start(self, state: State, seat: Seat) -> Search:
        """A new search from ``state`` for ``seat``."""

    def search(self, state: State, seat: Seat = 0) -> PlanResult:
        """Search from ``state`` until the budget is spent (blocking; :meth:`act` does not block)."""
        run = _Budget(self, self.start(state, seat), self.time_s)
        run.advance(None)
        return run.result()

    async def act(self, observation: Observation) -> Decision:
        started = time.perf_counter()
        time_s = self.time_s
        if observation.deadline_s is not None and self.iterations is None:
            time_s = min(time_s, observation.deadline_s / 2)
        run = _Budget(self, self.start(observation.state, observation.seat), time_s)
        while not run.advance(SLICE_S):
            await asyncio.sleep(0)
        result = run.result()
        action = result.action if result.action is not None else observation.legal_actions[0]
        latency = (time.perf_counter() - started) * 1000
        return Decision(action, source=BOT, rationale=result.why or f"{action}: the planner's choice",
                        values=dict(result.values),
                        extra={"latency_ms": round(latency, 2), "iterations": result.iterations,
                               "line": list(result.line)})


class _Budget:
    """A search run against its budget, resumable in slices."""

    def __init__(self, planner: Planner, search: Search, time_s: float) -> None:
        self.planner = planner
        self.search = search
        self.time_s = time_s
        self.done = 0
        self.elapsed = 0.0

    def finished(self) -> bool:
        if self.planner.iterations is not None:
            return self.done >= self.planner.iterations
        return self.elapsed >= self.time_s

    def advance(self, slice_s: float | None) -> bool:
        """Iterate for at most ``slice_s`` seconds (``None``: to the end of the budget); ``True`` when
        the search is over. Only time spent searching counts against a time budget."""
        if not self.search.actions:
            return True
        start = time.perf_counter()
        while not self.finished():
            t0 = time.perf_counter()
            self.search.iterate()
            self.done += 1
            t1 = time.perf_counter()
            self.elapsed += t1 - t0
            if slice_s is not None and t1 - start >= slice_s and not self.finished():
                return False
        return True

    def result(self) -> PlanResult:
        if not self.search.actions:
            return PlanResult(action=None)
        return self.search.result(self.done, self.elapsed)
