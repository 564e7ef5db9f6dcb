"""Open Loop Expectimax Tree Search (OLETS) for single-player games, over the game contract.

OLETS (Perez, Samothrakis and Lucas; the winner of the first GVGAI competition) is a tree search without
rollouts. The tree is *open loop*: a node is a sequence of actions from the root, replayed from the
root state on every descent. Each descent walks down the tree (ε-greedy over the children's OLE value
plus an exploration bonus, minus a *taboo* bias for positions the avatar occupied recently) until it
adds one new node, and values the state it reached:

* the score, if the game goes on;
* the score plus ``100 × (1 + |score|)`` for a win;
* the score minus ``2000 / (1 + depth)² × (1 + |score|)`` for a loss (sooner losses are worse).

A node's *Open Loop Expectimax* value mixes the mean value of the descents that ended at it with the best
value among its children, weighted by how often descents ended there. The move played is the most
visited root action; the subtree under it is kept for the next move, its statistics scaled down to one
visit. One iteration of the budget is one descent.

The taboo bias needs the avatar's position; a state that has one (:class:`HasAvatar`, e.g. a VGDL
state) gets it, other games search without it.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

from engine.bots.planning import DEFAULT_TIME_S, Planner, PlanResult, Search
from engine.core import Action, Game, Seat, State

__all__ = ["HasAvatar", "OletsBot"]

#: How many of the avatar's past positions the taboo bias remembers.
MEMORY = 15
#: Penalty on a node whose state puts the avatar on a remembered position.
TABOO = 0.5
#: Probability of a uniformly random child during the descent.
EPSILON = 0.05
#: The exploration constant.
K = math.sqrt(2)


@runtime_checkable
class HasAvatar(Protocol):
    """A state with an avatar on a grid (the taboo bias reads it)."""

    @property
    def avatar_pos(self) -> tuple[int, int] | None: ...


class _Node:
    __slots__ = ("parent", "action", "depth", "children", "visits", "total", "exits", "exit_total",
                 "ole", "taboo", "generated")

    def __init__(self, parent: _Node | None, action: Action | None, depth: int, taboo: float = 0.0) -> None:
        self.parent = parent
        self.action = action
        self.depth = depth
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.exits = 0
        self.exit_total = 0.0
        #: The Open Loop Expectimax value.
        self.ole = 0.0
        self.taboo = taboo
        #: Descents through this node since the tree was (re)rooted here.
        self.generated = 0

    def rescale(self, depth: int) -> None:
        """Keep the subtree for the next move: every node counts as visited once, its means kept."""
        self.depth = depth
        for child in self.children.values():
            child.total = child.total / child.visits if child.visits else 0.0
            child.visits = 1 if child.visits else 0
            child.ole = child.total
            child.exit_total = child.exit_total / child.exits if child.exits else 0.0
            child.exits = 1 if child.exits else 0
            child.generated = 0
            child.rescale(depth + 1)


class OletsBot(Planner):
    """Open Loop Expectimax Tree Search (player spec ``olets``).

    Args:
        game: The game; it must have one seat.
        seed: Seeds the descents' random choices and sampled chance outcomes.
        time_s: Search time per move (ignored when ``iterations`` is given).
        iterations: Descents per move instead of a time budget (reproducible).
        keep_tree: Keep the chosen subtree for the next move, as GVGAI's OLETS does.
    """

    spec = "olets"
    label = "OLETS"

    def __init__(self, game: Game, seed: int | None = None, *, time_s: float = DEFAULT_TIME_S,
                 iterations: int | None = None, keep_tree: bool = True) -> None:
        super().__init__(game, seed, time_s=time_s, iterations=iterations)
        self.keep_tree = keep_tree
        self._kept: _Node | None = None
        #: The step (``State.step``) the kept subtree stands for.
        self._kept_step: int | None = None
        self._positions: list[tuple[int, int]] = []

    def start(self, state: State, seat: Seat) -> Search:
        root: _Node | None = None
        if self.keep_tree and self._kept is not None and self._kept_step == state.step:
            root = self._kept
            root.parent = None
        if root is None:
            self._positions = []
        pos = state.avatar_pos if isinstance(state, HasAvatar) else None
        if pos is not None:
            self._positions = [*self._positions, pos][-MEMORY:]
        return _Descents(self, state, seat, root or _Node(None, None, 0))

    def keep(self, node: _Node | None, step: int) -> None:
        self._kept, self._kept_step = node, step


class _Descents(Search):
    def __init__(self, bot: OletsBot, state: State, seat: Seat, root: _Node) -> None:
        super().__init__(bot, state, seat)
        self.bot = bot
        self.tree = root
        # Children for actions no longer legal (another game's kept tree) are dropped.
        for action in [a for a in root.children if a not in self.actions]:
            del root.children[action]

    def _taboo(self, state: State) -> float:
        if not isinstance(state, HasAvatar):
            return 0.0
        pos = state.avatar_pos
        return TABOO if pos is not None and pos in self.bot._positions else 0.0

    def _score(self, node: _Node) -> float:
        assert node.parent is not None
        bonus = K * math.sqrt(math.log(node.parent.visits + 1) / (node.visits + 1e-4))
        return node.ole + bonus - node.taboo

    def _select(self, node: _Node) -> _Node:
        if self.rng.random() < EPSILON:
            return self.rng.choice(list(node.children.values()))
        return max(node.children.values(), key=lambda c: (self._score(c), self.rng.random()))

    def iterate(self) -> None:
        node, state, depth = self.tree, self.root, 0
        while not state.is_over:
            legal = state.legal_actions(self.seat)
            untried = [a for a in legal if a not in node.children]
            if untried:
                action = self.rng.choice(untried)
                state = self.step(state, action)
                child = node.children[action] = _Node(node, action, node.depth + 1, self._taboo(state))
                node = child
                break
            node = self._select(node)
            assert node.action is not None
            state = self.step(state, node.action if node.action in legal else legal[0])
            if node.generated == 0:
                node.taboo = self._taboo(state)
                if depth == 0:
                    break
            depth += 1
        self._back_up(node, self._value(state, node.depth - self.tree.depth))

    def _value(self, state: State, depth: int) -> float:
        score = float(state.scores[self.seat])
        if state.is_over:
            if state.winner == self.seat:
                return score + 100.0 * (1.0 + abs(score))
            return score - 2000.0 / (1.0 + depth) ** 2 * (1.0 + abs(score))
        return score

    def _back_up(self, leaf: _Node, value: float) -> None:
        node: _Node | None = leaf
        while node is not None:
            node.visits += 1
            node.generated += 1
            node.total += value
            if node is leaf:
                node.exits += 1
                node.exit_total += value
            best = max((c.ole for c in node.children.values()), default=0.0)
            ended = node.exits / node.visits
            node.ole = ended * (node.exit_total / node.exits if node.exits else 0.0) + (1.0 - ended) * best
            if node is self.tree:
                break
            node = node.parent

    def result(self, iterations: int, elapsed_s: float) -> PlanResult:
        children = self.tree.children
        if not children:
            return PlanResult(action=self.actions[0], iterations=iterations, elapsed_s=elapsed_s)
        most = max(c.visits for c in children.values())
        tied = [a for a, c in children.items() if c.visits == most]
        if len(tied) > 1:
            action = max(tied, key=lambda a: (children[a].total, self.rng.random()))
        else:
            action = tied[0]
        line: list[Action] = [action]
        node = children[action]
        while node.children and len(line) < 20:
            node = max(node.children.values(), key=lambda c: c.visits)
            assert node.action is not None
            line.append(node.action)
        chosen = children[action]
        if self.bot.keep_tree:
            chosen.rescale(0)
            chosen.parent = None
            self.bot.keep(chosen, self.root.step + 1)
        values = {a: c.ole for a, c in children.items()}
        why = (f"{action}: most visited ({most} of {iterations} descents, OLE value {values[action]:.4g}); "
               f"expected line {' '.join(line[:6])}")
        return PlanResult(action=action, values=values, iterations=iterations, elapsed_s=elapsed_s,
                          line=tuple(line), why=why)
