"""The PNG a vision model gets (renderers.encode_png) is a standard PNG that decodes, in Qt and in
Pillow, to exactly the pixels the renderer drew."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QColor, QImage

import engine
import renderers


def _rgba(image: QImage) -> np.ndarray:
    rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)
    raw = np.frombuffer(rgba.constBits(), dtype=np.uint8, count=rgba.sizeInBytes())
    return raw.reshape(rgba.height(), rgba.bytesPerLine())[:, : rgba.width() * 4].copy()


@pytest.mark.parametrize("game_id", ["connect4", "chess", "2048"])
@pytest.mark.parametrize("size", [(512, 512), (333, 201)])
def test_a_board_reads_back_pixel_for_pixel(game_id: str, size: tuple[int, int]) -> None:
    game = engine.make(game_id)
    state, rng = game.initial_state(seed=2), random.Random(2)
    for _ in range(6):
        if not state.is_over:
            state = game.play_random(state, rng)
    image = renderers.get(game_id).render(state, *size, grid_labels=True)
    data = renderers.encode_png(image)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    decoded = QImage.fromData(data, "PNG")
    assert decoded.size() == image.size() and not decoded.hasAlphaChannel()
    assert np.array_equal(_rgba(decoded), _rgba(image))
    with Image.open(io.BytesIO(data)) as pil:
        pil.verify()  # checks the chunks' CRCs
    with Image.open(io.BytesIO(data)) as pil:
        assert pil.mode == "RGB" and pil.size == size
        assert np.array_equal(np.asarray(pil), _rgba(image).reshape(size[1], size[0], 4)[:, :, :3])


def test_transparency_is_kept() -> None:
    image = QImage(7, 5, QImage.Format.Format_ARGB32)
    image.fill(QColor(10, 200, 30, 0))
    image.setPixelColor(3, 2, QColor(250, 20, 90, 128))
    decoded = QImage.fromData(renderers.encode_png(image), "PNG")
    assert decoded.hasAlphaChannel()
    assert decoded.pixelColor(3, 2) == QColor(250, 20, 90, 128) and decoded.pixelColor(0, 0).alpha() == 0


def test_a_null_image_is_refused() -> None:
    with pytest.raises(RuntimeError, match="null"):
        renderers.encode_png(QImage())
