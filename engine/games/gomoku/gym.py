"""Gomoku as a Gymnasium / PettingZoo observation: two 15x15 planes, the seat's own stones and the
opponent's (the layout of PettingZoo's classic board games, seen from the seat)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.gomoku.rules import SIZE, STONES, GomokuState


class BoardObservation:
    """``(15, 15, 2)`` int8: plane 0 holds the seat's stones, plane 1 the opponent's."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=1, shape=(SIZE, SIZE, 2), dtype=np.int8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, GomokuState)
        cells = np.array(view.cells, dtype=object).reshape(SIZE, SIZE)
        mine, theirs = STONES[seat], STONES[1 - seat]
        return np.stack([cells == mine, cells == theirs], axis=-1).astype(np.int8)
