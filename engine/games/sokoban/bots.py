"""The Sokoban bot: it follows the solver's plan, and says which box it is taking to which goal.

:func:`plan` solves the position (A* over pushes, :mod:`.solver`) and remembers every position along
the solution, so following it costs one search per level. Where the solver finds no solution (a
position that is dead in a way the deadlock tests do not see, or a search that gave up), the bot
prefers moves that change the board and avoid a detected deadlock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Game
from engine.games.sokoban.levels import Level
from engine.games.sokoban.rules import ACTIONS, SokobanState
from engine.games.sokoban.solver import solve
from engine.players import Observation

__all__ = ["Plan", "SolverBot", "plan"]

_LETTER = {"u": "up", "d": "down", "l": "left", "r": "right"}
_CACHE_LIMIT = 20_000
#: Nodes and seconds the bot's search may spend per position (the bundled levels take well under a
#: second; a large generated room may go unsolved, and the bot then plays safe moves).
NODE_LIMIT = 60_000
TIME_LIMIT = 3.0


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """The rest of a solution from a position.

    Attributes:
        moves: The LURD moves left (``""``: solved); ``None`` when no solution was found.
        box: The cell of the box the next push moves, or ``None``.
        goal: The goal that box ends on, or ``None``.
    """

    moves: str | None
    box: int | None = None
    goal: int | None = None

    @property
    def action(self) -> Action | None:
        """The next move, or ``None``."""
        return _LETTER[self.moves[0].lower()] if self.moves else None

    @property
    def pushes(self) -> int:
        return sum(1 for ch in self.moves or "" if ch.isupper())


_PLANS: dict[tuple[Level, frozenset[int], int], Plan] = {}


def plan(state: SokobanState) -> Plan:
    """The solver's plan from ``state`` (cached along the solution)."""
    key = (state.level, state.boxes, state.player)
    found = _PLANS.get(key)
    if found is not None:
        return found
    moves = solve(state.level, state.boxes, state.player, node_limit=NODE_LIMIT, time_limit=TIME_LIMIT)
    if moves is None:
        result = Plan(None)
        _remember(key, result)
        return result
    _store(state.level, state.boxes, state.player, moves)
    return _PLANS[key]


def _remember(key: tuple[Level, frozenset[int], int], value: Plan) -> None:
    if len(_PLANS) >= _CACHE_LIMIT:
        _PLANS.clear()
    _PLANS[key] = value


def _store(level: Level, boxes: frozenset[int], player: int, moves: str) -> None:
    """Remember the plan at every position along ``moves``, with the box and goal each next push is
    about (boxes are followed by identity, so the goal a box ends on can be named in advance)."""
    w = level.width
    deltas = {"u": -w, "d": w, "l": -1, "r": 1}
    cell_of = {n: b for n, b in enumerate(sorted(boxes))}
    at = player
    snapshots: list[tuple[frozenset[int], int, dict[int, int]]] = []
    pushed: list[int | None] = []  # the number of the box each move pushes, or None
    for ch in moves:
        snapshots.append((frozenset(cell_of.values()), at, dict(cell_of)))
        to = at + deltas[ch.lower()]
        n = next((k for k, v in cell_of.items() if v == to), None)
        if n is not None:
            cell_of[n] = to + deltas[ch.lower()]
        pushed.append(n)
        at = to
    upcoming: int | None = None
    for i in range(len(moves) - 1, -1, -1):
        if pushed[i] is not None:
            upcoming = pushed[i]
        layout, where, cells = snapshots[i]
        box = cells[upcoming] if upcoming is not None else None
        goal = cell_of[upcoming] if upcoming is not None else None
        _remember((level, layout, where), Plan(moves[i:], box, goal))
    _remember((level, frozenset(cell_of.values()), at), Plan(""))


class SolverBot(SearchBot):
    """Plays the solver's plan; a position without one gets the least harmful move."""

    spec = "solver"
    label = "Solver"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, SokobanState)
        legal = [a for a in ACTIONS if a in observation.legal_actions]
        found = plan(state)
        values: dict[Action, float] = {}
        for action in legal:
            note = state.annotate(action)
            if found.action == action:
                values[action] = 1.0
            elif "deadlock" in note:
                values[action] = -1.0
            elif note:
                values[action] = -0.5
            else:
                values[action] = 0.0
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, SokobanState)
        found = plan(state)
        if found.moves is None:
            return f"no solution found from here; {action} avoids a wasted move and a detected deadlock"
        if found.box is None or found.goal is None:
            return f"{action} follows the solution"
        level = state.level
        br, bc = level.coords(found.box)
        gr, gc = level.coords(found.goal)
        return (
            f"{action}: working on the box at (row {br}, col {bc}), which goes to the goal at "
            f"(row {gr}, col {gc}); {found.pushes} pushes left in this level"
        )
