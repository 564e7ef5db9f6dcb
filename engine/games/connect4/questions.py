"""Connect Four's intermediate questions (GameBot): every winning move for me, and for my opponent,
among the cells that can be played now (the lowest empty cell of each column).

The oracle looks at the board only, whoever is to move: "the opponent's winning moves" are the cells
the opponent would win with if it were its turn. Both are sets scored by F1, as in the paper (winning
moves are rare, so accuracy would flatter a model that always answers None).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.core import Action, Seat, State
from engine.games.connect4.rules import (
    ACTIONS,
    COLS,
    DIRECTIONS,
    MARKS,
    ConnectFourState,
    cell_of,
    line_through,
    playable,
    run_length,
    winning_moves,
)
from engine.questions import F1, Question

__all__ = ["QUESTIONS", "floating_threats", "near_misses", "phantom_cells"]


def _board(state: State) -> ConnectFourState:
    if not isinstance(state, ConnectFourState):
        raise TypeError(f"not a Connect Four state: {type(state).__name__}")
    return state


def mine(state: State, seat: Seat) -> list[str]:
    """The playable cells that complete four in a row for ``seat``."""
    return winning_moves(_board(state), MARKS[seat])


def theirs(state: State, seat: Seat) -> list[str]:
    """The playable cells that would complete four in a row for ``seat``'s opponent."""
    return winning_moves(_board(state), MARKS[1 - seat])


def floating_threats(cells: Sequence[str], mark: str) -> list[Action]:
    """Empty cells that would complete four for ``mark`` but cannot be played yet (the cell below is
    empty): the cells a model that forgets gravity lists as winning moves."""
    now = set(playable(cells))
    found = []
    for i, v in enumerate(cells):
        if v or ACTIONS[i] in now:
            continue
        if line_through(cells, i // COLS, i % COLS, mark) is not None:
            found.append(ACTIONS[i])
    return found


def near_misses(cells: Sequence[str], mark: str) -> list[Action]:
    """Playable cells next to a run of two ``mark`` discs whose far end is open: a model that miscounts
    the run (or counts across the gap) believes such a cell completes four."""
    found = []
    for action in playable(cells):
        r, c = cell_of(action)
        for dr, dc in DIRECTIONS:
            if run_length(cells, r, c, mark, dr, dc) + run_length(cells, r, c, mark, -dr, -dc) == 2:
                found.append(action)
                break
    return found


def phantom_cells(cells: Sequence[str], mark: str) -> list[Action]:
    """Cells a model plausibly but wrongly lists as ``mark``'s winning moves, most plausible first."""
    truth = set(winning_moves(cells, mark))
    out = [a for a in (*floating_threats(cells, mark), *near_misses(cells, mark)) if a not in truth]
    return list(dict.fromkeys(out))


def _wrong(key: int) -> Any:
    def wrong(truth: list[str], view: State, seat: Seat, rng: random.Random) -> list[str]:
        """A real winning cell missed, or a phantom one seen (a floating cell, a miscounted run)."""
        mark = MARKS[seat] if key == 1 else MARKS[1 - seat]
        ghosts = phantom_cells(_board(view).cells, mark)
        ways = (["missed"] if truth else []) + (["phantom"] if ghosts else [])
        if not ways:
            return list(truth)
        if rng.choice(ways) == "missed":
            lost = rng.choice(truth)
            return [a for a in truth if a != lost]
        seen = {*truth, ghosts[0] if rng.random() < 0.6 else rng.choice(ghosts)}
        return [a for a in ACTIONS if a in seen]

    return wrong


QUESTIONS = (
    Question(1, "my winning moves", mine, kind="set", metric=F1, wrong=_wrong(1)),
    Question(2, "opponent's winning moves", theirs, kind="set", metric=F1, wrong=_wrong(2)),
)
