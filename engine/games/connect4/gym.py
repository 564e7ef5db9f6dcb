"""Connect Four as a Gymnasium / PettingZoo observation: two 6x7 planes, the seat's own discs and the
opponent's, row 0 at the bottom (the layout of PettingZoo's ``connect_four_v3``, seen from the seat)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.connect4.rules import COLS, MARKS, ROWS, ConnectFourState


class BoardObservation:
    """``(6, 7, 2)`` int8: plane 0 holds the seat's discs, plane 1 the opponent's."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=1, shape=(ROWS, COLS, 2), dtype=np.int8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, ConnectFourState)
        mine, theirs = MARKS[seat], MARKS[1 - seat]
        flat = [(cell == mine, cell == theirs) for cell in view.cells]
        return np.array(flat, dtype=np.int8).reshape(ROWS, COLS, 2)
