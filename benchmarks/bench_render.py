"""Time the renderers: frames per second per game, and what encoding the model's PNG costs.

Run from the repository root::

    .venv/bin/python benchmarks/bench_render.py [--frames 300] [--size 600]

Drawing happens every time the board changes on screen and once per model call with image
perception, so both numbers should stay well below a frame (16 ms). Where a peer project's renderer
of the same game is installed, it is timed in the same run at its own frame size, and ours at that
size too, with the ratio (the goal is at least 2x every peer). Peers are not dependencies of
PlayTrace; install one into the venv for the benchmark only, for example::

    .venv/bin/pip install --no-deps gymnasium-2048 pygame

(``--no-deps``: gymnasium-2048 pins an older gymnasium than PlayTrace uses, and runs with ours.)
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.metadata
import io
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import engine  # noqa: E402
import renderers  # noqa: E402

#: The frames/s a renderer must reach, as a multiple of every peer's.
GOAL_RATIO = 2.0


def _states(game_id: str, count: int = 60) -> list[Any]:
    """Real states of a game from seeded random play, from the start to a busy mid-game."""
    game = engine.make(game_id)
    rng = random.Random(1)
    state = game.initial_state(seed=1)
    states = [state]
    while len(states) < count and not state.is_over:
        state = game.play_random(state, rng)
        states.append(state)
    return states


def _median_ms(action: Callable[[], object], frames: int, rounds: int = 5) -> float:
    """Milliseconds per call: the median of ``rounds`` batches (a shared machine's bursts drop out)."""
    action()
    per_round = max(1, frames // rounds)
    batches = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(per_round):
            action()
        batches.append((time.perf_counter() - start) * 1000 / per_round)
    return statistics.median(batches)


def _cycling(render: Callable[[Any], object], states: Sequence[Any]) -> Callable[[], object]:
    """A call that draws the next state each time (a real game's frames, not one frame redrawn)."""
    counter = iter(range(10**12))
    return lambda: render(states[next(counter) % len(states)])


def _encode_at_qt_default(image: Any) -> bytes:
    """The PNG as Qt writes it by default (zlib level 6), to show what the chosen level saves."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


# -- peers ---------------------------------------------------------------------------------------------


def _gymnasium_2048(states: Sequence[Any], frames: int) -> tuple[str, tuple[int, int], float] | None:
    """gymnasium-2048's ``rgb_array`` frames per second on the same boards, or ``None`` if absent."""
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            import numpy as np

            # A peer measured when installed by hand, never a dependency of PlayTrace: imported by name.
            peer = importlib.import_module("gymnasium_2048.envs")
    except ImportError:
        return None
    env = peer.TwentyFortyEightEnv(render_mode="rgb_array")
    env.reset(seed=1)
    # Its board holds exponents (2 ** value), ours the tile values.
    boards = [
        np.array([[int(v).bit_length() - 1 if v else 0 for v in row] for row in s.board], dtype=np.uint8)
        for s in states
    ]

    def draw(board: Any) -> object:
        env.board = board
        return env.render()

    frame = draw(boards[-1])
    ms = _median_ms(_cycling(draw, boards), frames)
    env.close()
    version = importlib.metadata.version("gymnasium-2048")
    height, width = frame.shape[:2]
    return f"gymnasium-2048 {version}", (width, height), 1000 / ms


#: Peer renderers per game: each returns (name, frame size, frames/s) or ``None`` when not installed.
PEERS: dict[str, tuple[tuple[str, Callable[[Sequence[Any], int], Any]], ...]] = {
    "2048": (("gymnasium-2048 (pip install --no-deps gymnasium-2048 pygame)", _gymnasium_2048),),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Print frames/s and milliseconds per game, and each installed peer's frames/s with the ratio."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--frames", type=int, default=300, help="timed repetitions per measurement")
    parser.add_argument("--size", type=int, default=600, help="width and height in pixels")
    args = parser.parse_args(argv)
    renderers.ensure_gui_app()
    size = args.size
    print(f"{size}x{size} frames; PNG at the model's 512x512 with labels, as perception sends it")
    print(
        f"{'game':<10} {'frames/s':>9} {'render ms':>10} {'labels+hl ms':>13} "
        f"{'png encode ms':>14} {'(Qt default)':>12} {'png KiB':>8}"
    )
    comparisons: list[str] = []
    worst_ratio: float | None = None
    for game_id in engine.list_games():
        renderer = renderers.get(game_id)
        states = _states(game_id)
        # Point at a legal move of the first position, as the app does with a model's choice.
        first = states[0]
        highlight = tuple(first.legal_actions(first.to_act[0])[:1]) if first.to_act else ()
        plain = functools.partial(renderer.render, width=size, height=size)
        decorated = functools.partial(plain, highlight=highlight, grid_labels=True)
        render_ms = _median_ms(_cycling(plain, states), args.frames)
        decorated_ms = _median_ms(_cycling(decorated, states), args.frames)
        image = renderer.render(states[-1], 512, 512, grid_labels=True)
        encode_ms = _median_ms(lambda im=image: renderers.encode_png(im), args.frames // 4)
        default_ms = _median_ms(lambda im=image: _encode_at_qt_default(im), args.frames // 4)
        kib = len(renderers.encode_png(image)) / 1024
        print(
            f"{game_id:<10} {1000 / render_ms:>9,.0f} {render_ms:>10.3f} {decorated_ms:>13.3f} "
            f"{encode_ms:>14.2f} {default_ms:>12.2f} {kib:>8.1f}"
        )
        for label, measure in PEERS.get(game_id, ()):
            peer = measure(states, args.frames)
            if peer is None:
                comparisons.append(f"{game_id}: peer {label} is not installed; not compared")
                continue
            name, (width, height), peer_fps = peer
            at_peer_size = functools.partial(renderer.render, width=width, height=height)
            ours_ms = _median_ms(_cycling(at_peer_size, states), args.frames)
            ratio = (1000 / ours_ms) / peer_fps
            worst_ratio = ratio if worst_ratio is None else min(worst_ratio, ratio)
            comparisons.append(
                f"{game_id}: ours {1000 / ours_ms:,.0f} frames/s, {name} {peer_fps:,.0f} frames/s "
                f"at its {width}x{height} frame: {ratio:.2f}x (goal >= {GOAL_RATIO:g}x)"
            )
    if comparisons:
        print("\npeer renderers, same run, same boards:")
        print("\n".join(comparisons))
    if worst_ratio is not None:
        verdict = "met" if worst_ratio >= GOAL_RATIO else "NOT met"
        print(f"goal {verdict}: slowest ratio to a peer {worst_ratio:.2f}x (goal >= {GOAL_RATIO:g}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
