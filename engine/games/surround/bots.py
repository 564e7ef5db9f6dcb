"""Surround's built-in bots: a space keeper and a territory hunter.

* ``survivor`` (the default opponent) floods the empty region behind each move and takes the move
  that keeps the most cells reachable (GameBot's own safety rule, taken further). It avoids cells the
  opponent could enter in the same tick (a head-on is a draw) when that costs nothing, and breaks
  ties by keeping away from the opponent.
* ``hunter`` splits the empty cells Voronoi-style: each cell belongs to whoever reaches it strictly
  first. It takes the move that leaves it the most territory over the opponent, which cuts the
  opponent off; once the two are walled apart it simply keeps the larger space.

Both evaluate the four turns only (``"straight"`` is one of them, under another name). A move into
a non-empty cell is worth :data:`CRASH`. A move takes a few milliseconds on the 20 x 40 grid.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.surround.board import (
    EMPTY,
    MOVES,
    WALL,
    Cell,
    flood_count,
    neighbour,
    territory,
    value_at,
)
from engine.games.surround.rules import SurroundState
from engine.players import Observation

__all__ = ["CRASH", "HunterBot", "SurvivorBot"]

#: The value of a move into a wall, a trail or a head.
CRASH = -1000.0
#: What risking a head-on (a draw) costs, in cells.
_CONTESTED = 0.75


def _distance(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class _SurroundBot(SearchBot):
    def _setup(
        self, observation: Observation
    ) -> tuple[SurroundState, list[list[int]], Cell, Cell, set[Cell]]:
        state = observation.state
        assert isinstance(state, SurroundState)
        seat = observation.seat
        matrix = state.matrix(seat)
        me, them = state.head(seat), state.head(1 - seat)
        their_next = {neighbour(them, m) for m in MOVES if value_at(matrix, neighbour(them, m)) == EMPTY}
        return state, matrix, me, them, their_next

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        """Every move's value: :data:`CRASH` into anything but an empty cell, else its :meth:`score`
        less the risk of a head-on where the opponent's head may move too, plus the score's tie-break."""
        _, matrix, me, them, their_next = self._setup(observation)
        values: dict[Action, float] = {}
        for move in MOVES:
            target = neighbour(me, move)
            if value_at(matrix, target) != EMPTY:
                values[move] = CRASH
                continue
            risk = _CONTESTED if target in their_next else 0.0
            value, tie_break = self.score(matrix, target, them, their_next)
            values[move] = value - risk + tie_break
        return values

    def score(
        self, matrix: list[list[int]], target: Cell, them: Cell, their_next: set[Cell]
    ) -> tuple[float, float]:
        """The value of moving the head to the empty cell ``target`` (in :attr:`measure`) and a
        tie-break worth less than one unit of it."""
        raise NotImplementedError

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        if values[action] <= CRASH:
            return f"every move crashes; Move {action.capitalize()}"
        ranked = sorted(values.items(), key=lambda kv: kv[1], reverse=True)
        others = ", ".join(f"{a} {v:.0f}" for a, v in ranked if a != action)
        return f"Move {action.capitalize()} scores {values[action]:.0f} ({self.measure}); others: {others}"

    measure = "cells"


class SurvivorBot(_SurroundBot):
    """Keeps the most space: the move whose empty region (flood fill from the destination) is largest."""

    spec = "survivor"
    label = "Survivor (flood fill)"
    measure = "cells reachable"

    def score(
        self, matrix: list[list[int]], target: Cell, them: Cell, their_next: set[Cell]
    ) -> tuple[float, float]:
        # The tie-break: further from the opponent's head is better.
        return flood_count(matrix, target), _distance(target, them) / 1000.0


class HunterBot(_SurroundBot):
    """Takes territory: the move after which it reaches the most empty cells before the opponent does."""

    spec = "hunter"
    label = "Hunter (territory)"
    measure = "territory lead"

    def score(
        self, matrix: list[list[int]], target: Cell, them: Cell, their_next: set[Cell]
    ) -> tuple[float, float]:
        after = [row[:] for row in matrix]
        after[target[0]][target[1]] = WALL
        theirs = [c for c in their_next if c != target] or [them]
        mine, others = territory(after, [target], theirs)
        own_space = flood_count(matrix, target)
        # Territory decides; a move into a pocket smaller than the lead it claims is not taken.
        return min(mine - others, own_space), _distance(target, them) / 10000.0
