"""VGDL speed: engine ticks per second under random play on GVGAI's six core games (read from the
shared GVGAI folder beside the repository when it is there) and on PlayTrace's own VGDL games, and
the search player's (MCTS) moves per second at GVGAI's 40 ms budget and at a fixed iteration count.

Each figure is the median of a few timed runs; episodes restart from the level's start when they end
(restarts are not timed).

Run with ``.venv/bin/python benchmarks/bench_vgdl.py [--seconds S] [--gvgai DIR]`` from the
repository root. ``--against REV`` also times the engine of another git revision (``924f234``, the
engine before the speed work) on the six core games, run for run alternately with this one in fresh
processes under the same load, and prints both and the speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
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


#: Ticks per second of one game in a fresh process, with the engine found first on ``sys.path``
#: (the same code for both revisions: random play, restarts not timed, median of RUNS runs).
_TICKS = """
import json, random, statistics, sys, time
from engine import registry
game_file, level_file, seconds, runs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
game = registry.make("vgdl", game_file=game_file, level_file=level_file)
rates = []
rng = random.Random(7)
for run in range(runs):
    start = game.initial_state(seed=7 + run)
    state, ticks, spent = start, 0, 0.0
    while spent < seconds / runs:
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
print(json.dumps(statistics.median(rates)))
"""


def _checkout(rev: str, into: Path) -> Path:
    """The tree of git revision ``rev`` of this repository, extracted under ``into``."""
    root = Path(__file__).resolve().parent.parent
    archive = into / "rev.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(root), "archive", rev], stdout=out, check=True)
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def _ticks_in(tree: Path, game_file: Path, seconds: float) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _TICKS, str(game_file), str(game_file.with_name(f"{game_file.stem}_lvl0.txt")),
         str(seconds), str(RUNS)],
        env=env, cwd=tree, capture_output=True, text=True, check=True,
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def compare(rev: str, gvgai: Path, seconds: float, rounds: int = 3) -> None:
    """Print ticks/s of revision ``rev`` and of this tree on the six core games, measured alternately."""
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as scratch:
        before_tree = _checkout(rev, Path(scratch))
        print(f"{'core game (level 0)':<20} {rev[:10] + ' ticks/s':>18} {'now ticks/s':>12} {'speed-up':>9}")
        ratios = []
        for name in CORE:
            path = gvgai / f"{name}.txt"
            before, after = [], []
            for _ in range(rounds):
                before.append(_ticks_in(before_tree, path, seconds))
                after.append(_ticks_in(here, path, seconds))
            b, a = statistics.median(before), statistics.median(after)
            ratios.append(a / b)
            print(f"{name:<20} {b:>18,.0f} {a:>12,.0f} {a / b:>8.1f}x")
        print(f"speed-up on the six core games: median {statistics.median(ratios):.1f}x, "
              f"least {min(ratios):.1f}x ({rounds} alternating rounds of {seconds:g} s each)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds timed per figure (default 1)")
    shared = Path(__file__).resolve().parents[2] / "shared" / "gvgai"
    parser.add_argument("--gvgai", type=Path, default=shared,
                        help="the folder of GVGAI's game files (default: ../shared/gvgai)")
    parser.add_argument("--against", metavar="REV",
                        help="also time the engine of this git revision on the core games (e.g. 924f234)")
    args = parser.parse_args(argv)
    if args.against:
        if not args.gvgai.is_dir():
            print(f"{args.gvgai}: not there; --against needs the core GVGAI games")
            return 2
        compare(args.against, args.gvgai, args.seconds)
        print()
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
