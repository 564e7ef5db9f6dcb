"""Tic-tac-toe as a Gymnasium / PettingZoo observation: two 3x3 planes, the seat's own marks and the
opponent's (the layout of PettingZoo's ``tictactoe_v3``, seen from the seat)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.tictactoe.rules import TicTacToeState

#: The planes of every board seen by each seat, built once: a game has 5,478 positions.
# (cells, the seat's mark) -> the planes: the mark, not the seat number, decides which plane a cell is on.
_CACHE: dict[tuple[tuple[str, ...], str], np.ndarray] = {}


class BoardObservation:
    """``(3, 3, 2)`` int8: plane 0 holds the seat's marks, plane 1 the opponent's."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=1, shape=(3, 3, 2), dtype=np.int8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, TicTacToeState)
        key = (view.cells, view.marks[seat])
        planes = _CACHE.get(key)
        if planes is None:
            mine, theirs = view.marks[seat], view.marks[1 - seat]
            planes = np.array(
                [[[cell == mine, cell == theirs] for cell in view.cells[r * 3:r * 3 + 3]] for r in range(3)],
                dtype=np.int8,
            )
            planes.setflags(write=False)
            _CACHE[key] = planes
        return planes.copy()
