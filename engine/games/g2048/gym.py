"""2048 as a Gymnasium observation: the board as an ``int64`` array of tile values (0 = empty)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.g2048.rules import State2048


class BoardObservation:
    """The board, ``size`` x ``size`` integers."""

    def __init__(self, game: Game) -> None:
        size = int(game.options["size"])
        # The largest tile a board of n*n cells can hold is 2**(n*n + 1) (131072 on 4x4). From 8x8 on
        # that exceeds int64 (Box would refuse it), and no tile that large can be reached in practice.
        high = min(2 ** (size * size + 1), int(np.iinfo(np.int64).max))
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=high, shape=(size, size), dtype=np.int64)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, State2048)
        return np.asarray(view.board, dtype=np.int64)
