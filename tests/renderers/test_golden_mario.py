"""Super Mario Bros' renderer: golden images of its layout (on a generated test picture, so no frame of
the game's ROM is stored in the repository), nearest-neighbour scaling of the emulator's real frame,
and its speed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

import engine
import renderers
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def card_picture() -> np.ndarray:
    """A 240 x 256 test picture made here: colour bars over a grey ramp, a one-pixel checker corner."""
    rows, cols = np.mgrid[0:240, 0:256]
    card = np.zeros((240, 256, 3), dtype=np.uint8)
    bars = np.array([[236, 236, 236], [236, 212, 0], [0, 200, 212], [0, 200, 0],
                     [212, 0, 212], [212, 0, 0], [0, 0, 212], [24, 24, 24]], dtype=np.uint8)
    card[:160] = bars[cols[:160] // 32]
    card[160:] = cols[160:].astype(np.uint8)[..., None]
    checker = ((rows[:16, :16] + cols[:16, :16]) % 2 * 255).astype(np.uint8)
    card[:16, :16] = checker[..., None]
    return card


def fake_state(*, over: bool = False, step: int = 1234) -> Any:
    facts = SimpleNamespace(distance=1182, lives=0 if over else 2, passed=5, world=1, stage=2, over=over)
    screen = card_picture()
    return SimpleNamespace(screen=lambda: screen, facts=facts, step=step, frames=1)


CASES = [
    Case("mario-layout", "mario", fake_state, (512, 520)),
    Case("mario-layout-run-over-wide", "mario", lambda: fake_state(over=True), (640, 400)),
    Case("mario-layout-small", "mario", fake_state, (256, 260)),
]


def test_matches_golden() -> None:
    for case in CASES:
        check_golden(case.render(), case.name)


def test_the_emulator_frame_is_scaled_with_sharp_pixels() -> None:
    state = engine.make("mario").initial_state(seed=0)
    for _ in range(30):
        state = state.apply("right")
    image = pixels(renderers.get("mario").render(state, 512, 520))  # exactly twice the NES size
    expected = np.repeat(np.repeat(state.screen(), 2, axis=0), 2, axis=1)
    assert np.array_equal(image[:480, :512], expected)
    assert image[480:, :, :].mean() < 80  # the dark figures band under the picture


def test_the_figures_band_changes_with_the_numbers_only() -> None:
    r = renderers.get("mario")
    a, b = pixels(r.render(fake_state(), 512, 520)), pixels(r.render(fake_state(step=99), 512, 520))
    changed = np.flatnonzero((a != b).any(axis=2).any(axis=1))
    assert changed.size and changed.min() >= 480  # the picture itself is untouched
