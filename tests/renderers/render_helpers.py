"""Helpers for the renderer tests: real game states and pixel access."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtGui import QImage

import engine
from engine.games.g2048 import State2048
from engine.games.tictactoe import TicTacToeState


def ttt_state(*moves: str) -> TicTacToeState:
    """A tic-tac-toe state after ``moves`` from the start."""
    state = engine.make("tictactoe").initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, TicTacToeState)
    return state


def g2048_state(seed: int, moves: Sequence[str] = ()) -> State2048:
    """A 2048 state from ``seed`` after ``moves``."""
    state = engine.make("2048").initial_state(seed=seed)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, State2048)
    return state


def g2048_board(rows: Sequence[Sequence[int]], spawned: tuple[int, int] | None = None) -> State2048:
    """A 2048 state with a chosen board, read through the engine's own JSON loader."""
    game = engine.make("2048", size=len(rows))
    data = {
        "game": "2048",
        "board": [list(r) for r in rows],
        "merged_sum": 0,
        "stagnant": 0,
        "last_action": "left" if spawned else None,
        "spawned": list(spawned) if spawned else None,
        "seed": 0,
        "step": 1 if spawned else 0,
    }
    state = game.state_from_json(data)
    assert isinstance(state, State2048)
    return state


def pixels(image: QImage) -> np.ndarray:
    """The image as a ``height x width x 3`` uint8 RGB array (a copy)."""
    rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)
    w, h = rgba.width(), rgba.height()
    raw = np.frombuffer(rgba.constBits(), dtype=np.uint8, count=rgba.sizeInBytes())
    return raw.reshape(h, rgba.bytesPerLine())[:, : w * 4].reshape(h, w, 4)[..., :3].copy()


def changed_mask(a: QImage, b: QImage) -> np.ndarray:
    """Boolean ``height x width`` mask of pixels that differ between two same-sized images."""
    pa, pb = pixels(a), pixels(b)
    assert pa.shape == pb.shape
    return np.any(pa != pb, axis=2)
