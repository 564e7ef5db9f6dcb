"""Othello as a Gymnasium observation: the board as an 8x8 ``int8`` array, LVLM-Playground's encoding
(0 empty, 1 black, 2 white; row 0 is row 1, column 0 is column A)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.othello.rules import OthelloState

_CODES = {"": 0, "B": 1, "W": 2}


class BoardObservation:
    """The board, 8 x 8 integers."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=2, shape=(8, 8), dtype=np.int8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, OthelloState)
        return np.asarray([_CODES[c] for c in view.cells], dtype=np.int8).reshape(8, 8)
