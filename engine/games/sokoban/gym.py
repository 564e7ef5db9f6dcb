"""Sokoban as a Gymnasium observation: the board as a grid of small integers.

Codes: 0 outside the walls, 1 wall, 2 floor, 3 goal, 4 box, 5 box on a goal, 6 player, 7 player on a
goal. The grid has the size of the course's largest level; smaller levels sit in its top-left corner,
padded with 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.sokoban.levels import Level
from engine.games.sokoban.rules import Sokoban, SokobanState

__all__ = ["CODES", "GridObservation"]

#: What each number of the grid means.
CODES = ("outside", "wall", "floor", "goal", "box", "box on goal", "player", "player on goal")


class GridObservation:
    """The board as ``height x width`` ``uint8`` codes (see :data:`CODES`)."""

    def __init__(self, game: Game) -> None:
        if not isinstance(game, Sokoban):
            raise TypeError(f"the Sokoban grid observation encodes Sokoban, not {game.id!r}")
        width, height = game.course.dimensions()
        self.shape = (height, width)
        self.space: spaces.Space[Any] = spaces.Box(
            low=0, high=len(CODES) - 1, shape=self.shape, dtype=np.uint8
        )
        self._base: dict[Level, np.ndarray] = {}

    def _layout(self, state: SokobanState) -> np.ndarray:
        """Walls, floor and goals of the level (cached per level)."""
        level = state.level
        found = self._base.get(level)
        if found is None:
            grid = np.zeros(self.shape, dtype=np.uint8)
            flat = np.zeros(level.width * level.height, dtype=np.uint8)
            flat[list(level.walls)] = 1
            flat[list(level.inside)] = 2
            flat[list(level.goals)] = 3
            grid[: level.height, : level.width] = flat.reshape(level.height, level.width)
            if len(self._base) > 64:
                self._base.clear()
            self._base[level] = grid
            found = grid
        return found

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, SokobanState)
        grid = self._layout(view).copy()
        w = view.level.width
        for b in view.boxes:
            r, c = divmod(b, w)
            grid[r, c] = 5 if grid[r, c] == 3 else 4
        r, c = divmod(view.player, w)
        grid[r, c] = 7 if grid[r, c] == 3 else 6
        return grid
