"""Time the renderers: mean milliseconds to draw each game at 600x600 and to encode the PNG.

Run from the repository root::

    .venv/bin/python benchmarks/bench_render.py [--frames 200] [--size 600]

Drawing happens every time the board changes on screen and once per model call with image
perception, so both numbers should stay well below a frame (16 ms).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import engine  # noqa: E402
import renderers  # noqa: E402


def _states(game_id: str, count: int = 60) -> list[Any]:
    """Real states of a game from seeded random play, from the start to a busy mid-game."""
    game = engine.make(game_id)
    rng = random.Random(1)
    state = game.initial_state(seed=1)
    states = [state]
    while len(states) < count and not state.is_over:
        seats = state.to_act
        choice = {s: rng.choice(state.legal_actions(s)) for s in seats}
        state = state.apply(choice if game.simultaneous else choice[seats[0]])
        states.append(state)
    return states


def _mean_ms(action: Callable[[], object], frames: int) -> float:
    samples = []
    for _ in range(frames):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.fmean(samples)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the mean render and PNG-encode times per game."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--frames", type=int, default=200, help="timed repetitions per measurement")
    parser.add_argument("--size", type=int, default=600, help="width and height in pixels")
    args = parser.parse_args(argv)
    renderers.ensure_gui_app()
    size = args.size
    print(f"{'game':<10} {'render ms':>10} {'labels+hl ms':>13} {'png encode ms':>14} {'png KiB':>8}")
    for game_id in engine.list_games():
        renderer = renderers.get(game_id)
        states = _states(game_id)
        # Point at a legal move of the first position, as the app does with a model's choice.
        first = states[0]
        highlight = first.legal_actions(first.to_act[0])[:1] if first.to_act else []
        renderer.render(states[-1], size, size)  # warm-up: fonts, glyph caches
        cycle = iter(range(10**9))

        def draw(
            renderer: Any = renderer, states: list[Any] = states, cycle: Any = cycle, **kw: Any
        ) -> object:
            return renderer.render(states[next(cycle) % len(states)], size, size, **kw)

        render_ms = _mean_ms(draw, args.frames)
        decorated_ms = _mean_ms(lambda h=highlight: draw(highlight=h, grid_labels=True), args.frames)
        image = renderer.render(states[-1], size, size)
        encode_ms = _mean_ms(lambda im=image: renderers.encode_png(im), args.frames)
        kib = len(renderers.encode_png(image)) / 1024
        print(f"{game_id:<10} {render_ms:>10.2f} {decorated_ms:>13.2f} {encode_ms:>14.2f} {kib:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
