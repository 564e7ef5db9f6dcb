"""rgb_array frames drawn into a kept array (Renderer.render_rgb, engine.frames.frame with ``out``)
are the renderer's picture, pixel for pixel, in the memory they were given."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtGui import QImage

import engine
import renderers
from engine.frames import frame


def _rgb(image: QImage) -> np.ndarray:
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height = rgb.width(), rgb.height()
    raw = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=rgb.sizeInBytes())
    return raw.reshape(height, rgb.bytesPerLine())[:, : width * 3].reshape(height, width, 3).copy()


@pytest.mark.parametrize("game_id", ["connect4", "chess", "tictactoe", "2048"])
def test_frames_into_one_array_are_the_rendered_pictures(game_id: str) -> None:
    game = engine.make(game_id)
    state, rng = game.initial_state(seed=3), random.Random(3)
    out = np.zeros((150, 203, 3), dtype=np.uint8)
    for _ in range(5):
        drawn = frame(game_id, state, 203, 150, out=out)
        assert drawn is out
        assert np.array_equal(out, _rgb(renderers.get(game_id).render(state, 203, 150)))
        fresh = frame(game_id, state, 203, 150)
        assert fresh is not out and np.array_equal(fresh, out)
        if state.is_over:
            break
        state = game.play_random(state, rng)


def test_a_wrong_array_is_refused_in_one_line() -> None:
    state = engine.make("tictactoe").initial_state(seed=0)
    with pytest.raises(ValueError, match="shape"):
        frame("tictactoe", state, 40, 30, out=np.zeros((40, 30, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        renderers.get("tictactoe").render_rgb(state, np.zeros((30, 40, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        renderers.get("tictactoe").render_rgb(state, np.zeros((30, 40, 3), dtype=np.uint8, order="F"))
