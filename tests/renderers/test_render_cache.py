"""What the 2048 renderer caches and what it must not change: a frame built from cached boards and
tiles has exactly the pixels of the same frame drawn shape by shape, and the same tile is drawn once.
Also: text outlines are cached without the cache being disturbed by callers, and PNGs are written with
zlib's fastest level."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

import engine
import renderers
from renderers import base, g2048
from tests.renderers.render_helpers import g2048_board, g2048_state, pixels

_ALL_TILES = [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2048, 4096], [8192, 16384, 65536, 0]]


def _clear_caches() -> None:
    for cached in (g2048._board_layer, g2048._tile_layer, g2048._ring_layer):
        cached.cache_clear()


def _uncached(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the renderer draw every shape, as it does on a scaled (high-dpi) painter."""
    monkeypatch.setattr(g2048, "_blits_exactly", lambda painter: False)


@pytest.mark.parametrize(
    ("size", "kw"),
    [
        ((600, 600), {}),
        ((320, 320), {"grid_labels": True, "highlight": ("left",)}),
        ((301, 419), {}),  # a board at a fractional offset
        ((160, 203), {"grid_labels": True}),
    ],
)
def test_cached_frames_have_the_pixels_of_drawn_frames(
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int], kw: dict[str, object]
) -> None:
    r = renderers.get("2048")
    states = [g2048_board(_ALL_TILES, spawned=(3, 3)), g2048_state(7, ["left", "down", "right", "down"] * 3)]
    _clear_caches()
    cached = [pixels(r.render(s, *size, **kw)) for s in states]
    assert g2048._tile_layer.cache_info().currsize > 0, "the frames were not built from cached tiles"
    _uncached(monkeypatch)
    drawn = [pixels(r.render(s, *size, **kw)) for s in states]
    for a, b in zip(cached, drawn, strict=True):
        assert np.array_equal(a, b)


def test_each_tile_and_the_board_are_drawn_once_per_size() -> None:
    r = renderers.get("2048")
    state = g2048_board([[2, 2, 4, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], spawned=(0, 2))
    _clear_caches()
    first = pixels(r.render(state, 400, 400))
    tiles, boards = g2048._tile_layer.cache_info(), g2048._board_layer.cache_info()
    # Two 2s in different columns may sit at different sub-pixel offsets: at most one drawing each.
    assert tiles.misses <= 3 and boards.misses == 1
    again = pixels(r.render(state, 400, 400))
    assert g2048._tile_layer.cache_info().misses == tiles.misses
    assert g2048._tile_layer.cache_info().hits == tiles.hits + 3
    assert g2048._board_layer.cache_info().misses == 1
    assert g2048._ring_layer.cache_info().misses == 1
    assert np.array_equal(first, again)
    # Another size is another layout: drawn afresh, not stretched from the first.
    r.render(state, 200, 200)
    assert g2048._board_layer.cache_info().misses == 2


def test_a_scaled_painter_gets_shapes_not_stretched_images() -> None:
    r = renderers.get("2048")
    state = g2048_state(3, ["up", "left"])
    _clear_caches()
    image = QImage(400, 400, QImage.Format.Format_RGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.scale(2, 2)  # what a widget on a high-dpi screen does
    r.paint(painter, state, QRectF(0, 0, 200, 200))
    painter.end()
    assert g2048._tile_layer.cache_info().currsize == 0
    assert g2048._board_layer.cache_info().currsize == 0


def test_text_outlines_are_cached_and_callers_cannot_move_them() -> None:
    f = base.font(40, bold=True)
    first = base.text_path("2048", f)
    first.translate(100, 100)  # a caller moves its copy
    second = base.text_path("2048", f)
    assert second.boundingRect() != first.boundingRect()
    assert second.boundingRect() == base.text_path("2048", base.font(40, bold=True)).boundingRect()
    key = ("2048", f.toString(), f.hintingPreference().value, f.styleStrategy().value)
    assert key in base._TEXT_PATHS
    # A font that differs only in hinting is a different outline, not a cache hit.
    other = base.font(40, bold=True)
    other.setHintingPreference(other.HintingPreference.PreferFullHinting)
    base.text_path("2048", other)
    assert ("2048", other.toString(), other.hintingPreference().value, other.styleStrategy().value) in (
        base._TEXT_PATHS
    )


def test_png_is_one_fast_zlib_stream() -> None:
    data = renderers.get("2048").png(engine.make("2048").initial_state(seed=1), 256, 256)
    idat = data.index(b"IDAT") + 4
    # A zlib header (deflate, 32 KiB window, check bits) whose level bits say "fastest" (0) or
    # "fast" (1), never zlib's default level 6 (2).
    assert data[idat] == 0x78 and (data[idat] * 256 + data[idat + 1]) % 31 == 0
    assert data[idat + 1] >> 6 in (0, 1)
    decoded = QImage.fromData(data, "PNG")
    assert decoded.width() == 256 and not decoded.isNull()
