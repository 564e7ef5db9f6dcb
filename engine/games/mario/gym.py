"""Super Mario Bros as a Gymnasium observation: the emulator's picture, as LMGame-Bench's unharnessed
agents see it (a 240 x 256 RGB array). The text view stays in ``info["text"]``."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.mario.rules import MarioState

__all__ = ["FrameObservation"]


class FrameObservation:
    """The NES picture of the state, ``240 x 256 x 3`` ``uint8``."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=255, shape=(240, 256, 3), dtype=np.uint8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        assert isinstance(view, MarioState)
        return view.screen()
