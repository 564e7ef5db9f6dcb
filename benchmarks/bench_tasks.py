"""LVLM-Playground task generation speed: items per second per game and task (boards, questions and
ground truth, as :func:`engine.tasks.generate` draws them), the images per second of the game's
renderer at the task-set size, and the scoring speed of the simulated model's replies.

Run with ``.venv/bin/python benchmarks/bench_tasks.py [--budget 1.0] [--json]`` from the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from engine import tasks  # noqa: E402


def items_per_second(game_id: str, task: str, budget: float) -> float:
    """Task items generated per second (no images), over at least ``budget`` seconds."""
    tasks.generate(game_id, task, 1, seed=0)  # load the definitions and warm the caches
    made, seed = 0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        made += tasks.generate(game_id, task, 20, seed=seed).n
        seed += 1
    return made / (time.perf_counter() - started)


def images_per_second(game_id: str, budget: float, size: tuple[int, int]) -> float:
    """PNG images of perceive boards drawn per second at ``size``."""
    import renderers

    ts = tasks.generate(game_id, "perceive", 20, seed=0)
    renderer = renderers.get(game_id)
    game = ts.make_game()
    states = [game.state_from_json(item.state) for item in ts.items]
    renderer.png(states[0], *size)
    drawn = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        renderer.png(states[drawn % len(states)], *size)
        drawn += 1
    return drawn / (time.perf_counter() - started)


def scores_per_second(game_id: str, task: str, budget: float) -> float:
    """Simulated replies written and scored per second."""
    ts = tasks.generate(game_id, task, 50, seed=0)
    rng = random.Random(0)
    done = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        item = ts.items[done % ts.n]
        tasks.score(ts, item, tasks.sim_answer(ts, item, rng))
        done += 1
    return done / (time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    """Task-set generation, drawing and scoring speed for every game with LVLM-Playground tasks."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds timed per measurement")
    parser.add_argument("--games", nargs="*", default=None, help="game ids (default: every game with tasks)")
    parser.add_argument("--no-images", action="store_true", help="skip the renderer measurement")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    games = args.games or tasks.games_with_tasks()
    out: dict[str, Any] = {}
    for game_id in games:
        row: dict[str, Any] = {
            f"{task}_items_s": round(items_per_second(game_id, task, args.budget), 1)
            for task in tasks.TASK_NAMES
        }
        row["score_items_s"] = round(scores_per_second(game_id, "perceive", args.budget / 2), 1)
        if not args.no_images:
            row["images_s"] = round(images_per_second(game_id, args.budget, tasks.DEFAULT_IMAGE_SIZE), 1)
        out[game_id] = row
        if not args.json:
            cells = "  ".join(f"{k} {v:>9,.1f}" for k, v in row.items())
            print(f"{game_id:<12} {cells}", flush=True)
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
