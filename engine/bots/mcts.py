"""Monte Carlo tree search for single-player games, over nothing but the game contract.

UCT (UCB1 applied to trees) with uniformly random rollouts of bounded depth, as GVGAI's sample MCTS
player does. The tree is *open loop*: a node is a sequence of actions from the root, and each
iteration replays the actions from the root state. Where every step so far had a single outcome
(:meth:`~engine.core.State.outcomes`), the node keeps its state and the replay is skipped; where a
step has several outcomes (a tile spawn), the search samples one with its own seeded generator, so it
never reads the seed the game state carries.

A leaf is valued by the seat's score gain since the root (squashed into ``(-0.5, 0.5)``) plus 1 for a
win and -1 for a finished game that was not won, discounted by depth so sooner is better; values are
then mapped to ``[0, 1]`` for UCB1. The move played is the most visited root action.

The budget is a time per move (GVGAI's competition gives 40 ms) or a fixed number of iterations, which
makes a seeded search reproducible. :meth:`MctsBot.act` searches in slices and yields to the event loop
between them, so a long search never freezes the app.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from dataclasses import dataclass, field

from engine.core import Action, Game, Seat, State
from engine.players import BOT, Decision, Observation

__all__ = ["MctsBot", "SearchResult"]

#: GVGAI's per-move budget in its planning competitions.
DEFAULT_TIME_S = 0.04
#: How long one slice of search runs before yielding to the event loop.
SLICE_S = 0.02


class _Node:
    __slots__ = ("children", "visits", "total", "state", "untried")

    def __init__(self, state: State | None) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        #: The state this node stands for when every step to it was deterministic, else ``None``.
        self.state = state
        self.untried: list[Action] | None = None


@dataclass(frozen=True)
class SearchResult:
    """What one search found: the move, each root action's visits and mean value, and the effort."""

    action: Action | None
    visits: dict[Action, int] = field(default_factory=dict)
    values: dict[Action, float] = field(default_factory=dict)
    iterations: int = 0
    elapsed_s: float = 0.0
    #: The most visited line of play from the root (its first action is ``action``).
    line: tuple[Action, ...] = ()


class MctsBot:
    """UCT with random rollouts for a single-player game (player spec ``search``).

    Args:
        game: The game; it must have one seat.
        seed: Seeds rollouts, sampled chance outcomes and tie-breaks.
        time_s: Search time per move (ignored when ``iterations`` is given).
        iterations: A fixed number of iterations per move instead of a time budget (reproducible).
        rollout_depth: Random actions played after leaving the tree.
        exploration: The UCB1 constant.
        discount: Per-step discount of a leaf's value, so that sooner gains rank higher.
    """

    kind = BOT
    spec = "search"
    label = "MCTS"

    def __init__(self, game: Game, seed: int | None = None, *, time_s: float = DEFAULT_TIME_S,
                 iterations: int | None = None, rollout_depth: int = 10,
                 exploration: float = math.sqrt(2), discount: float = 0.99) -> None:
        if game.num_seats != 1:
            raise ValueError(f"{game.title} has {game.num_seats} seats; MCTS plays single-player games")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if iterations is None and time_s <= 0:
            raise ValueError("time_s must be positive")
        if rollout_depth < 0:
            raise ValueError("rollout_depth cannot be negative")
        self.game = game
        self.seed = seed
        self.time_s = time_s
        self.iterations = iterations
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        self.discount = discount
        self._rng = random.Random(seed)

    # -- the search ------------------------------------------------------------------------------

    def search(self, state: State, seat: Seat = 0) -> SearchResult:
        """Search from ``state`` until the budget is spent (blocking; :meth:`act` does not block)."""
        run = _Run(self, state, seat)
        run.advance(None)
        return run.result()

    def _value(self, state: State, seat: Seat, base: float, depth: int) -> float:
        gain = state.scores[seat] - base
        value = 0.5 * math.tanh(gain / 5.0)
        if state.is_over:
            value += 1.0 if state.winner == seat else -1.0
        return value * self.discount ** depth

    # -- the player contract ---------------------------------------------------------------------

    async def act(self, observation: Observation) -> Decision:
        started = time.perf_counter()
        run = _Run(self, observation.state, observation.seat)
        if observation.deadline_s is not None and self.iterations is None:
            run.time_s = min(run.time_s, observation.deadline_s / 2)
        while not run.advance(SLICE_S):
            await asyncio.sleep(0)
        result = run.result()
        latency = (time.perf_counter() - started) * 1000
        return Decision(result.action, source=BOT, rationale=self.explain(result),
                        values=dict(result.values),
                        extra={"latency_ms": round(latency, 2), "iterations": result.iterations,
                               "visits": dict(result.visits), "line": list(result.line)})

    def explain(self, result: SearchResult) -> str:
        if result.action is None:
            return "no legal action to search"
        visits = result.visits.get(result.action, 0)
        line = " ".join(str(a) for a in result.line[:6])
        return (f"{result.action}: most visited ({visits} of {result.iterations} simulations, mean value "
                f"{result.values.get(result.action, 0.0):.3f}); expected line {line}")


class _Run:
    """One search in progress, resumable in slices."""

    def __init__(self, bot: MctsBot, state: State, seat: Seat) -> None:
        self.bot = bot
        self.seat = seat
        self.root_state = state
        self.base = state.scores[seat]
        self.root = _Node(state)
        self.time_s = bot.time_s
        self.done = 0
        self.elapsed = 0.0

    def finished(self) -> bool:
        if self.bot.iterations is not None:
            return self.done >= self.bot.iterations
        return self.elapsed >= self.time_s

    def advance(self, slice_s: float | None) -> bool:
        """Run iterations for at most ``slice_s`` seconds (``None``: to the end of the budget);
        ``True`` when the search is over. Only time spent searching counts against a time budget."""
        if not self.root_state.legal_actions(self.seat):
            return True
        start = time.perf_counter()
        while not self.finished():
            t0 = time.perf_counter()
            self._iterate()
            self.done += 1
            t1 = time.perf_counter()
            self.elapsed += t1 - t0
            if slice_s is not None and t1 - start >= slice_s and not self.finished():
                return False
        return True

    def _step(self, node: _Node, child: _Node, state: State, action: Action) -> State:
        if child.state is not None:
            return child.state
        outcomes = state.outcomes(action)
        if len(outcomes) == 1:
            after = outcomes[0][1]
            if node.state is not None:
                child.state = after
            return after
        weights = [p for p, _ in outcomes]
        return self.bot._rng.choices([s for _, s in outcomes], weights=weights)[0]

    def _iterate(self) -> None:
        bot, rng, seat = self.bot, self.bot._rng, self.seat
        node, state, depth = self.root, self.root_state, 0
        path = [node]
        while not state.is_over:
            if node.untried is None:
                node.untried = list(state.legal_actions(seat))
                rng.shuffle(node.untried)
            if node.untried:
                action = node.untried.pop()
                child = node.children[action] = _Node(None)
                state = self._step(node, child, state, action)
                path.append(child)
                depth += 1
                break
            action = self._select(node)
            child = node.children[action]
            state = self._step(node, child, state, action)
            node = child
            path.append(node)
            depth += 1
        for _ in range(bot.rollout_depth):
            if state.is_over:
                break
            actions = state.legal_actions(seat)
            if not actions:
                break
            action = rng.choice(actions)
            outcomes = state.outcomes(action)
            state = outcomes[0][1] if len(outcomes) == 1 else rng.choices(
                [s for _, s in outcomes], weights=[p for p, _ in outcomes])[0]
            depth += 1
        value = (bot._value(state, seat, self.base, depth) + 1.5) / 3.0  # into [0, 1]
        for n in path:
            n.visits += 1
            n.total += value

    def _select(self, node: _Node) -> Action:
        log_n = math.log(node.visits)
        c = self.bot.exploration
        best, best_ucb = None, -math.inf
        for action, child in node.children.items():
            ucb = child.total / child.visits + c * math.sqrt(log_n / child.visits)
            ucb += self.bot._rng.random() * 1e-6  # seeded tie-break
            if ucb > best_ucb:
                best, best_ucb = action, ucb
        assert best is not None
        return best

    def result(self) -> SearchResult:
        children = self.root.children
        legal = self.root_state.legal_actions(self.seat)
        if not children:
            return SearchResult(action=legal[0] if legal else None, iterations=self.done)
        visits = {a: c.visits for a, c in children.items()}
        values = {a: (c.total / c.visits) * 3.0 - 1.5 for a, c in children.items() if c.visits}
        action = max(children, key=lambda a: (visits[a], values.get(a, -math.inf)))
        line: list[Action] = [action]
        node = children[action]
        while node.children and len(line) < 20:
            nxt = max(node.children, key=lambda a: node.children[a].visits)
            line.append(nxt)
            node = node.children[nxt]
        return SearchResult(action=action, visits=visits, values=values, iterations=self.done,
                            elapsed_s=self.elapsed, line=tuple(line))

