"""VGDL speed: engine ticks per second under random play on GVGAI's six core games (read from the
shared GVGAI folder beside the repository when it is there) and on PlayTrace's own VGDL games, and
the search player's (MCTS) moves per second at GVGAI's 40 ms budget and at a fixed iteration count.

Each figure is the median of a few timed runs; episodes restart from the level's start when they end
(restarts are not timed).

Run with ``.venv/bin/python benchmarks/bench_vgdl.py [--seconds S] [--gvgai DIR]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import registry  # noqa: E402
from engine.bots.mcts import MctsBot  # noqa: E402

CORE = ("aliens", "boulderdash", "escape", "realsokoban", "sokoban", "zelda")
BUNDLED = ("barrage", "crates", "gems", "keyhunt", "pursuit", "rockfall")
RUNS = 3


def ticks_per_second(game: Any, seconds: float, seed: int) -> float:
    """Random-play ticks per second (median of :data:`RUNS` runs of ``seconds / RUNS`` each)."""
    rates = []
    rng = random.Random(seed)
    for run in range(RUNS):
        start = game.initial_state(seed=seed + run)
        state, ticks, spent = start, 0, 0.0
        while spent < seconds / RUNS:
            t = time.perf_counter()
            for _ in range(50):
                if state.is_over:
                    break
                state = state.apply(rng.choice(state.legal_actions()))
                ticks += 1
            spent += time.perf_counter() - t
            if state.is_over:
                state = start
        rates.append(ticks / spent)
    return statistics.median(rates)


def moves_per_second(game: Any, seconds: float, **budget: Any) -> float:
    """Search-player moves per second from the level's start (playing on as it chooses)."""
    bot = MctsBot(game, seed=1, **budget)
    start = game.initial_state(seed=1)
    state, moves, spent = start, 0, 0.0
    while spent < seconds:
        t = time.perf_counter()
        action = bot.search(state).action
        spent += time.perf_counter() - t
        moves += 1
        state = state.apply(action)
        if state.is_over:
            state = start
    return moves / spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds timed per figure (default 1)")
    shared = Path(__file__).resolve().parents[2] / "shared" / "gvgai"
    parser.add_argument("--gvgai", type=Path, default=shared,
                        help="the folder of GVGAI's game files (default: ../shared/gvgai)")
    args = parser.parse_args(argv)
    games: list[tuple[str, Any]] = []
    if args.gvgai.is_dir():
        for name in CORE:
            path = args.gvgai / f"{name}.txt"
            if path.is_file():
                games.append((name, registry.make("vgdl", game_file=str(path),
                                                  level_file=str(args.gvgai / f"{name}_lvl0.txt"))))
    else:
        print(f"{args.gvgai}: not there; the core GVGAI games are skipped")
    games += [(f"vgdl-{name}", registry.make(f"vgdl-{name}", level=0)) for name in BUNDLED]
    print(f"{'game (level 0)':<18} {'ticks/s':>9} {'MCTS 40ms mv/s':>15} {'MCTS 50it mv/s':>15}")
    tick_rates, move_rates = [], []
    for label, game in games:
        tps = ticks_per_second(game, args.seconds, seed=7)
        timed = moves_per_second(game, args.seconds / 2, time_s=0.04)
        fixed = moves_per_second(game, args.seconds / 2, iterations=50, rollout_depth=8)
        tick_rates.append(tps)
        move_rates.append(fixed)
        print(f"{label:<18} {tps:>9,.0f} {timed:>15.1f} {fixed:>15.1f}")
    print(f"summary: median {statistics.median(tick_rates):,.0f} ticks/s over {len(games)} games; "
          f"MCTS at 50 iterations: median {statistics.median(move_rates):.1f} moves/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
