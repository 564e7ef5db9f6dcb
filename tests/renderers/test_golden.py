"""Golden-image tests: fixed states drawn at fixed sizes must match the reviewed PNGs in tests/golden/.

The comparison tolerates antialiasing noise (mean absolute channel difference below 2.0 and almost no
strongly changed pixels) but fails on a changed drawing. A missing golden file is written and the test
fails so a developer looks at it; ``PLAYTRACE_UPDATE_GOLDEN=1`` rewrites all golden files.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtGui import QImage

import renderers
from tests.renderers.render_helpers import g2048_board, g2048_state, pixels, ttt_state

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
#: Mean absolute per-channel difference (0-255) a matching image may have.
MAX_MEAN_DIFF = 2.0
#: A pixel is "strongly changed" when a channel differs by more than this.
STRONG_DIFF = 64
#: Share of strongly changed pixels a matching image may have (antialiased edges shifting a little).
MAX_STRONG_SHARE = 0.002


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    game: str
    state: Callable[[], Any]
    size: tuple[int, int]
    highlight: Sequence[str] = ()
    grid_labels: bool = False

    def render(self) -> QImage:
        return renderers.get(self.game).render(
            self.state(), *self.size, highlight=self.highlight, grid_labels=self.grid_labels
        )


CASES = [
    Case("tictactoe-empty", "tictactoe", lambda: ttt_state(), (320, 320)),
    Case(
        "tictactoe-x-wins",
        "tictactoe",
        lambda: ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)"),
        (320, 320),
    ),
    Case(
        "tictactoe-labels-highlight-wide",
        "tictactoe",
        lambda: ttt_state("(1,1)", "(0,0)", "(2,1)"),
        (400, 300),
        highlight=("(0,1)", "(2,2)"),
        grid_labels=True,
    ),
    Case(
        "2048-seed7-move12",
        "2048",
        lambda: g2048_state(7, ["left", "down", "right", "down"] * 3),
        (320, 320),
    ),
    Case(
        "2048-all-tiles",
        "2048",
        lambda: g2048_board(
            [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2048, 4096], [8192, 16384, 65536, 0]],
            spawned=(3, 3),
        ),
        (320, 320),
    ),
    Case(
        "2048-labels-arrow-tall",
        "2048",
        lambda: g2048_state(3, ["up", "left", "up", "left"]),
        (300, 400),
        highlight=("left",),
        grid_labels=True,
    ),
    # A game without a renderer of its own is drawn by the text fallback (its text view, monospaced).
    Case("text-fallback-grid", "(no renderer)", lambda: _Text(_DODGE), (320, 320)),
    Case("text-fallback-wide", "(no renderer)", lambda: _Text("You: C7\nSeat 2: ??\nMoves: bet"), (400, 240)),
]


_DODGE = "..o..\n.o...\n.....\n..A..\ntick 4 of 40"


@dataclasses.dataclass(frozen=True)
class _Text:
    """The one thing the text fallback reads of a state: its text view."""

    view: str

    def text(self, seat: int | None = None) -> str:
        return self.view


def compare(actual: QImage, expected: QImage) -> tuple[float, float]:
    """Mean absolute channel difference and share of strongly changed pixels (inf when sizes differ)."""
    if actual.size() != expected.size():
        return float("inf"), float("inf")
    diff = np.abs(pixels(actual).astype(np.int16) - pixels(expected).astype(np.int16))
    return float(diff.mean()), float((diff.max(axis=2) > STRONG_DIFF).mean())


def matches(actual: QImage, expected: QImage) -> bool:
    mean, strong = compare(actual, expected)
    return mean < MAX_MEAN_DIFF and strong < MAX_STRONG_SHARE


def check_golden(image: QImage, name: str) -> None:
    path = GOLDEN_DIR / f"{name}.png"
    if os.environ.get("PLAYTRACE_UPDATE_GOLDEN") == "1":
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_bytes(renderers.encode_png(image))
        assert matches(image, QImage(str(path))), f"rewritten golden {path.name} does not read back"
        return
    if not path.exists():
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_bytes(renderers.encode_png(image))
        pytest.fail(
            f"golden image {path.name} was missing and has been written to tests/golden/; "
            "look at it, and commit it if it is right"
        )
    expected = QImage(str(path))
    assert not expected.isNull(), f"{path.name} is not a readable PNG"
    mean, strong = compare(image, expected)
    assert mean < MAX_MEAN_DIFF and strong < MAX_STRONG_SHARE, (
        f"{name} differs from tests/golden/{path.name}: mean channel difference {mean:.2f} "
        f"(limit {MAX_MEAN_DIFF}), strongly changed pixels {strong:.2%} (limit {MAX_STRONG_SHARE:.2%}). "
        "If the change is intended, rerun with PLAYTRACE_UPDATE_GOLDEN=1 and review the new files."
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_comparison_rejects_a_changed_drawing() -> None:
    # Guards the tolerance: a small but real change (one more O, one tile's value) must not pass.
    win = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)")
    near = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)")
    r = renderers.get("tictactoe")
    assert not matches(r.render(near, 320, 320), r.render(win, 320, 320))
    board = [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2048, 4096], [8192, 16384, 65536, 0]]
    other = [row[:] for row in board]
    other[0][0] = 4
    g = renderers.get("2048")
    assert not matches(g.render(g2048_board(other), 320, 320), g.render(g2048_board(board), 320, 320))


def test_comparison_accepts_antialiasing_noise() -> None:
    image = renderers.get("tictactoe").render(ttt_state("(1,1)"), 320, 320)
    noisy = pixels(image).astype(np.int16)
    rng = np.random.default_rng(0)
    noisy = np.clip(noisy + rng.integers(-3, 4, noisy.shape), 0, 255).astype(np.uint8)
    rebuilt = QImage(noisy.tobytes(), 320, 320, 320 * 3, QImage.Format.Format_RGB888).copy()
    assert matches(rebuilt, image)
