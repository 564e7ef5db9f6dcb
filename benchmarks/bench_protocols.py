"""A protocol run against a plain sweep of the same episodes: what ``playtrace reproduce`` adds.

``playtrace reproduce`` makes each run of a protocol into a sweep file and plays it with the sweep
machinery; the only extra work is reading the protocol and planning its runs. This benchmark plays
the same episodes both ways, alternately, each into a fresh results folder with every session
recorded, and prints the wall and CPU time of each and their ratio (protocol / sweep; the issue asks
for at most 1.05):

- *sweep*: the planned run's sweep text written to a file, read back with
  :func:`engine.sweep.load_sweep` and played by :class:`engine.sweep.SweepRunner`, as
  ``playtrace sweep FILE`` does;
- *protocol*: :func:`engine.protocols.load_protocol` and :func:`engine.protocols.plan` from the shipped
  file, then :func:`desktop.cli.reproduce.play_run`, as ``playtrace reproduce`` does.

Usage::

    python benchmarks/bench_protocols.py [--protocol lmgame-bench] [--games 2048,candycrush]
                                         [--player sim] [--episodes 3] [--max-steps 30] [--rounds 3]

The default plays LMGame-Bench's 2048 and Candy Crush with the simulated model (four harness variants)
and the random baseline: 2 games × 5 lineups and settings × N episodes per round and side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _clock() -> tuple[float, float]:
    t = os.times()
    return time.perf_counter(), t.user + t.system


def play_sweep(texts: list[tuple[str, str]], out: Path) -> int:
    """Play sweep files as ``playtrace sweep`` does; returns the episodes played."""
    from desktop.cli.sweep import board_png
    from desktop.episode import session_recorder
    from engine.sweep import SweepRunner, load_sweep

    played = 0
    for name, text in texts:
        path = out / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        sweep = load_sweep(path)
        runner = SweepRunner(sweep, out / name, record=session_recorder, render=board_png)
        try:
            outcome = asyncio.run(runner.run())
        finally:
            runner.close()
        played += outcome.done
    return played


def play_protocol(args: argparse.Namespace, out: Path) -> int:
    """Read, plan and play the protocol as ``playtrace reproduce`` does; returns the episodes played."""
    from desktop.cli.reproduce import play_run
    from engine.protocols import load_protocol, plan

    protocol = load_protocol(args.protocol)
    the_plan = plan(protocol, player=args.player, games=args.games.split(","), episodes=args.episodes,
                    max_steps=args.max_steps)
    played = 0
    for planned in the_plan.runs:
        missing = play_run(planned, out / planned.run.name)
        played += len(planned.sweep.episodes) - missing
    return played


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", default="lmgame-bench")
    parser.add_argument("--games", default="2048,candycrush")
    parser.add_argument("--player", default="sim")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from engine.protocols import load_protocol, plan

    the_plan = plan(load_protocol(args.protocol), player=args.player, games=args.games.split(","),
                    episodes=args.episodes, max_steps=args.max_steps)
    texts = [(p.run.name, p.text) for p in the_plan.runs]
    print(f"{args.protocol}, games {args.games}, player {args.player}: {the_plan.episodes} episodes per "
          f"side and round (max {args.max_steps} steps), {args.rounds} rounds, alternating")
    times: dict[str, list[tuple[float, float]]] = {"sweep": [], "protocol": []}
    for r in range(args.rounds):
        order = ("sweep", "protocol") if r % 2 == 0 else ("protocol", "sweep")
        for side in order:
            with tempfile.TemporaryDirectory(prefix=f"bench-{side}-") as tmp:
                wall0, cpu0 = _clock()
                n = play_sweep(texts, Path(tmp)) if side == "sweep" else play_protocol(args, Path(tmp))
                wall1, cpu1 = _clock()
            if n != the_plan.episodes:
                print(f"  {side}: only {n} of {the_plan.episodes} episodes counted", file=sys.stderr)
            times[side].append((wall1 - wall0, cpu1 - cpu0))
            print(f"  round {r + 1} {side:8s}: wall {wall1 - wall0:6.2f} s, cpu {cpu1 - cpu0:6.2f} s")
    sweep_wall = statistics.median(t[0] for t in times["sweep"])
    proto_wall = statistics.median(t[0] for t in times["protocol"])
    sweep_cpu = statistics.median(t[1] for t in times["sweep"])
    proto_cpu = statistics.median(t[1] for t in times["protocol"])
    print(f"median wall: sweep {sweep_wall:.2f} s, protocol {proto_wall:.2f} s, "
          f"ratio {proto_wall / sweep_wall:.3f}")
    print(f"median cpu:  sweep {sweep_cpu:.2f} s, protocol {proto_cpu:.2f} s, "
          f"ratio {proto_cpu / sweep_cpu:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
