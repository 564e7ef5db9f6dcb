"""A game's picture as a numpy array, for the Gymnasium and PettingZoo adapters' ``rgb_array`` frames.

The picture is the one the app shows and a vision model gets: the game's own renderer draws it. The
renderers need Qt, which the engine never imports; they are looked up only when a frame is asked for,
through :mod:`importlib`, and Qt is reached through the returned image object alone.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from engine.core import State

__all__ = ["DEFAULT_FRAME_WIDTH", "frame", "frame_size", "renderer"]

#: Width of an ``rgb_array`` frame unless the adapter is given a size; the height follows the
#: renderer's aspect.
DEFAULT_FRAME_WIDTH = 512


def renderer(game_id: str) -> Any:
    """The game's renderer (``renderers.get``), imported on first use."""
    try:
        module = importlib.import_module("renderers")
    except ImportError as exc:
        raise RuntimeError(f"rgb_array frames need PlayTrace's renderers (PySide6): {exc}") from exc
    return module.get(game_id)


def frame_size(game_id: str, size: tuple[int, int] | None = None) -> tuple[int, int]:
    """``(width, height)`` of a frame: ``size`` when given, else the default width at the renderer's
    aspect."""
    if size is not None:
        return int(size[0]), int(size[1])
    aspect = float(getattr(renderer(game_id), "aspect", 1.0)) or 1.0
    return DEFAULT_FRAME_WIDTH, max(1, round(DEFAULT_FRAME_WIDTH / aspect))


def frame(game_id: str, state: State, width: int, height: int, out: np.ndarray | None = None) -> np.ndarray:
    """``state`` drawn by its game's renderer as a ``height x width x 3`` uint8 array.

    With ``out`` (a C-contiguous ``height x width x 3`` uint8 array, such as the last frame once it
    has been used) the picture is drawn into it and it is returned: no frame-sized memory is
    allocated. Without, a new array is returned.

    Raises:
        ValueError: ``out`` does not have that shape and type.
    """
    if out is None:
        out = np.empty((height, width, 3), dtype=np.uint8)
    elif out.shape != (height, width, 3):
        raise ValueError(f"out has shape {out.shape}, not ({height}, {width}, 3)")
    result: np.ndarray = renderer(game_id).render_rgb(state, out)
    return result
