"""Candy Crush as a Gymnasium observation: the board and the moves left.

* ``board``: ``8 x 8`` colour codes, 1 to the number of colours in :data:`COLOURS` order (1 green,
  2 cyan, 3 purple, 4 red; tile-match-gym numbers its colours from 1 the same way);
* ``moves_left``: the moves left in the session.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.candycrush.board import COLOURS, COLS, ROWS
from engine.games.candycrush.rules import CandyState

__all__ = ["BoardObservation"]

_CODES = bytes.maketrans(COLOURS.encode("ascii"), bytes(range(1, len(COLOURS) + 1)))


class BoardObservation:
    """The position in a ``Dict`` space of the board's colour codes and the moves left."""

    def __init__(self, game: Game) -> None:
        colours = int(game.options["colours"])
        moves = int(game.options["moves"])
        self.space: spaces.Space[Any] = spaces.Dict(
            {
                "board": spaces.Box(1, colours, shape=(ROWS, COLS), dtype=np.uint8),
                "moves_left": spaces.Discrete(moves + 1),
            }
        )

    def encode(self, view: State, seat: Seat) -> dict[str, Any]:
        assert isinstance(view, CandyState)
        codes = view.board.encode("ascii").translate(_CODES)
        board = np.frombuffer(codes, dtype=np.uint8).reshape(ROWS, COLS).copy()
        return {"board": board, "moves_left": view.moves_left}
