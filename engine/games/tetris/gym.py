"""Tetris as a Gymnasium observation: the board, the falling piece, the preview and the held piece.

* ``board``: ``20 x 10`` settled blocks, 0 empty, 1..7 the piece that left them (``KINDS`` order);
* ``piece``: ``20 x 10``, the falling piece's code on its cells, 0 elsewhere;
* ``queue``: the next pieces' codes, soonest first (``preview`` long);
* ``hold``: the held piece's code, 0 when nothing is held.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.tetris.pieces import KINDS
from engine.games.tetris.rules import HEIGHT, WIDTH, TetrisState

_CODES = {k: i + 1 for i, k in enumerate(KINDS)}


class BoardObservation:
    """The position as integer arrays in a ``Dict`` space."""

    def __init__(self, game: Game) -> None:
        self.preview = int(game.options["preview"])
        kinds = len(KINDS)
        self.space: spaces.Space[Any] = spaces.Dict(
            {
                "board": spaces.Box(0, kinds, shape=(HEIGHT, WIDTH), dtype=np.uint8),
                "piece": spaces.Box(0, kinds, shape=(HEIGHT, WIDTH), dtype=np.uint8),
                "queue": spaces.Box(1, kinds, shape=(self.preview,), dtype=np.uint8),
                "hold": spaces.Discrete(kinds + 1),
            }
        )

    def encode(self, view: State, seat: Seat) -> dict[str, Any]:
        assert isinstance(view, TetrisState)
        board = np.frombuffer(view.board, dtype=np.uint8).reshape(HEIGHT, WIDTH).copy()
        piece = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
        code = _CODES[view.piece]
        for r, c in view.cells():
            piece[r, c] = code
        queue = np.array([_CODES[k] for k in view.queue], dtype=np.uint8)
        return {"board": board, "piece": piece, "queue": queue, "hold": _CODES.get(view.hold, 0)}
