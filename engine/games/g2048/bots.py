"""2048 bots: depth-limited expectimax and a greedy baseline.

Expectimax alternates the player's move (take the best) with the tile spawn (average over empty
cells, a 2 with probability 0.9, a 4 with 0.1). Positions at the search horizon are scored by a
heuristic that is a sum over every row and column of a per-line score:

* empty cells (room to move),
* merges (equal neighbours: a smooth board keeps merges available),
* monotonicity (tiles increasing towards one end of the line, so big tiles gather at an edge),
* a penalty on the total of large tiles (they are hard to combine), and
* a bonus for the biggest tile sitting in a corner.

The per-line weights follow the well-known heuristic of nneonneo's 2048 AI. Line scores are cached,
so one decision at depth 2 takes a few milliseconds in pure Python.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Game
from engine.games.g2048.rules import (
    ACTIONS,
    FOUR_PROBABILITY,
    Board,
    State2048,
    empty_cells,
    move_board,
    place,
    transpose,
)
from engine.players import Observation

LOST_PENALTY = 200_000.0
MONOTONICITY_POWER = 4.0
MONOTONICITY_WEIGHT = 47.0
SUM_POWER = 3.5
SUM_WEIGHT = 11.0
MERGES_WEIGHT = 700.0
EMPTY_WEIGHT = 270.0
CORNER_WEIGHT = 1_000.0
#: The value of a position where no move is possible: far below any live position.
DEAD = 0.0


@functools.lru_cache(maxsize=65536)
def line_score(line: tuple[int, ...]) -> float:
    """The heuristic score of one row or column of tile values (higher is better)."""
    ranks = [int(math.log2(v)) if v else 0 for v in line]
    total = 0.0
    empty = 0
    merges = 0
    prev = 0
    run = 0
    for rank in ranks:
        total += rank**SUM_POWER
        if rank == 0:
            empty += 1
            continue
        if rank == prev:
            run += 1
        elif run:
            merges += 1 + run
            run = 0
        prev = rank
    if run:
        merges += 1 + run
    mono_left = mono_right = 0.0
    for a, b in zip(ranks, ranks[1:], strict=False):
        if a > b:
            mono_left += a**MONOTONICITY_POWER - b**MONOTONICITY_POWER
        else:
            mono_right += b**MONOTONICITY_POWER - a**MONOTONICITY_POWER
    return (
        LOST_PENALTY
        + EMPTY_WEIGHT * empty
        + MERGES_WEIGHT * merges
        - MONOTONICITY_WEIGHT * min(mono_left, mono_right)
        - SUM_WEIGHT * total
    )


def heuristic(board: Board) -> float:
    """The heuristic value of a board: line scores of all rows and columns plus the corner bonus."""
    score = sum(line_score(row) for row in board) + sum(line_score(col) for col in transpose(board))
    top = max(max(row) for row in board)
    n = len(board) - 1
    if top and top in (board[0][0], board[0][n], board[n][0], board[n][n]):
        score += CORNER_WEIGHT * math.log2(top)
    return score


class ExpectimaxBot(SearchBot):
    """Depth-limited expectimax over moves and tile spawns.

    Args:
        depth: own moves searched (1 = score each move's result; 2 = also every spawn and reply).
        max_cells: chance nodes average over at most this many empty cells (a seeded sample), which
            bounds the time per move on open boards.
    """

    spec = "expectimax"
    label = "Expectimax"

    def __init__(self, game: Game, seed: int | None = None, *, depth: int = 2, max_cells: int = 8) -> None:
        super().__init__(game, seed)
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self.depth = depth
        self.max_cells = max_cells
        self._memo: dict[tuple[Board, int], float] = {}

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, State2048)
        self._memo.clear()
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            moved, _ = move_board(state.board, action)
            # A move that changes nothing only wastes a turn towards stagnation: never a candidate.
            if moved != state.board:
                values[action] = self._after_move(moved, self.depth)
        return values

    def _after_move(self, board: Board, depth: int) -> float:
        return heuristic(board) if depth <= 1 else self._chance(board, depth - 1)

    def _best(self, board: Board, depth: int) -> float:
        key = (board, depth)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        best = DEAD
        for action in ACTIONS:
            moved, _ = move_board(board, action)
            if moved != board:
                best = max(best, self._after_move(moved, depth))
        self._memo[key] = best
        return best

    def _chance(self, board: Board, depth: int) -> float:
        cells = empty_cells(board)
        if not cells:
            return self._best(board, depth)
        if len(cells) > self.max_cells:
            cells = self._rng.sample(cells, self.max_cells)
        total = 0.0
        for cell in cells:
            total += (1 - FOUR_PROBABILITY) * self._best(place(board, cell, 2), depth)
            total += FOUR_PROBABILITY * self._best(place(board, cell, 4), depth)
        return total / len(cells)

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        others = sorted((v for a, v in values.items() if a != action), reverse=True)
        margin = f", {values[action] - others[0]:.0f} ahead of the next move" if others else ", the only move"
        skipped = len(observation.legal_actions) - len(values)
        note = f"; {skipped} move(s) would not change the board" if skipped else ""
        return f"{action}: best expected heuristic at depth {self.depth}{margin}{note}"


class GreedyBot(SearchBot):
    """Plays the move with the largest immediate merged sum (ties broken by the seeded RNG)."""

    spec = "greedy"
    label = "Greedy"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, State2048)
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            moved, gain = move_board(state.board, action)
            if moved != state.board:
                values[action] = float(gain)
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        return f"{action} merges the most right now (+{values[action]:.0f})"
