"""2048's Gymnasium speed: random play through ``playtrace/2048-v0`` (the board as the observation and,
in every step's info, the text view a model is given, the legal moves and the metrics), where a step's
time goes, and, side by side in the same run, gymnasium-2048 (``TwentyFortyEight-v0``, the
environment LMGame-Bench's reference code plays) installed in its own virtualenv under the scratch
folder, never in PlayTrace's environment. Without network access that part says why and is skipped.

Both environments are made with ``gymnasium.make`` (so both carry Gymnasium's checking wrappers) and
played uniformly at random. Rates are measured in the process's CPU time (``time.process_time``) on
both sides, so other work on a shared machine does not skew the ratio.

Run with ``.venv/bin/python benchmarks/bench_2048_gym.py [--scratch DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402

import engine  # noqa: E402
import engine.games.g2048.rules  # noqa: E402
import engine.gym  # noqa: E402,F401  (registers the environments)
from benchmarks._peers import run_peer  # noqa: E402

#: Seconds of random play timed per environment (the best of ``ROUNDS`` rounds is kept).
BUDGET = 1.5
ROUNDS = 3
#: What the peer virtualenv installs.
PEER_PACKAGES = ["gymnasium-2048>=0.1,<0.2"]

#: What the peer virtualenv runs: uniform random play through ``gymnasium.make``, best of the rounds.
PEER = """
import json, time
import gymnasium, gymnasium_2048  # noqa: F401  (registers TwentyFortyEight-v0)
env = gymnasium.make("gymnasium_2048/TwentyFortyEight-v0")
env.reset(seed=0); env.action_space.seed(0)
best = 0.0
for _ in range(%(rounds)s):
    steps = 0; started = time.process_time()
    while time.process_time() - started < %(budget)s:
        obs, r, term, trunc, info = env.step(env.action_space.sample()); steps += 1
        if term or trunc:
            env.reset()
    best = max(best, steps / (time.process_time() - started))
print(json.dumps({"steps": best}))
"""


def env_steps_per_second(budget: float = BUDGET, rounds: int = ROUNDS) -> float:
    """Uniform random play through ``gymnasium.make("playtrace/2048-v0")``: steps per second (the
    best of ``rounds`` rounds of ``budget`` CPU seconds)."""
    env = gymnasium.make("playtrace/2048-v0")
    env.reset(seed=0)
    env.action_space.seed(0)
    best = 0.0
    for _ in range(rounds):
        steps = 0
        started = time.process_time()
        while time.process_time() - started < budget:
            _obs, _r, terminated, truncated, info = env.step(env.action_space.sample())
            assert "text" in info
            steps += 1
            if terminated or truncated:
                env.reset()
        best = max(best, steps / (time.process_time() - started))
    return best


def _per_state_us(work: Callable[[Any], Any], states: list[Any]) -> float:
    """Microseconds per call of ``work`` on each of ``states`` in turn (each state once, as a step
    meets it: what is cached per board or row is reused only as often as play repeats it)."""
    started = time.process_time()
    for state in states:
        work(state)
    return (time.process_time() - started) / len(states) * 1e6


def breakdown(count: int = 20000) -> list[tuple[str, float]]:
    """Microseconds per call of what one step does, over the states of random games."""
    game = engine.make("2048")
    rng = random.Random(3)
    states, moves = [], []
    state = game.initial_state(seed=3)
    while len(states) < count:
        if state.is_over:
            state = game.initial_state(seed=len(states))
        move = rng.choice(state.legal_actions())
        states.append(state)
        moves.append(move)
        state = state.apply(move)
    env = engine.gym.PlayTraceEnv("2048")
    env.reset(seed=0)
    pairs = iter(moves)

    def observe(s: Any) -> Any:
        env.state = s
        return env._observe()

    def info(s: Any) -> Any:
        env.state = s
        return env._info()

    figures = [
        ("the move (slide, merge, seeded tile spawn)", _per_state_us(lambda s: s.apply(next(pairs)), states)),
        (
            "  of which seeding the spawn's generator",
            _per_state_us(lambda s: random.Random(f"{s.seed}:{s.step}"), states),
        ),
    ]
    # The views of fresh states: the caches of the loop above are emptied first.
    for cached in (engine.games.g2048.rules._tallies, engine.games.g2048.rules._row_text):
        cached.cache_clear()
    figures += [
        ("the text view (info['text'])", _per_state_us(lambda s: s.text(), states)),
        ("the metrics", _per_state_us(lambda s: s.metrics(), states)),
        ("the legal moves", _per_state_us(lambda s: s.legal_actions(), states)),
        ("the board as an array (observation)", _per_state_us(observe, states)),
        ("the whole info dict (views cached by now)", _per_state_us(info, states)),
    ]
    return figures


def peer(scratch: pathlib.Path) -> dict[str, Any] | None:
    """gymnasium-2048's random-play rate, in a virtualenv under ``scratch``; ``None`` (saying why)
    when it cannot be installed or run."""
    return run_peer(scratch, packages=PEER_PACKAGES, probe="gymnasium_2048",
                    script=PEER % {"budget": BUDGET, "rounds": ROUNDS}, name="gymnasium-2048")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = pathlib.Path(tempfile.gettempdir()) / "playtrace-bench-gymnasium-2048"
    parser.add_argument("--scratch", type=pathlib.Path, default=scratch, help="the peer virtualenv's folder")
    parser.add_argument("--no-peer", action="store_true", help="skip gymnasium-2048")
    args = parser.parse_args()

    rate = env_steps_per_second()
    print(f"Random play through playtrace/2048-v0 (text view in every info): {rate:,.0f} steps/s")
    print("Where a step's time goes (microseconds per call):")
    for label, us in breakdown():
        print(f"  {label:<45} {us:7.2f}")
    if args.no_peer:
        return
    print(f"gymnasium-2048 in {args.scratch}:")
    other = peer(args.scratch)
    if other is None:
        return
    print(f"  random play: PlayTrace {rate:,.0f} steps/s   gymnasium-2048 {other['steps']:,.0f} steps/s   "
          f"ratio {rate / other['steps']:.2f} (goal >= 2)")


if __name__ == "__main__":
    main()
