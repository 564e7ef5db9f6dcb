"""Tetris speed and baseline: random play through the Gymnasium environment ``playtrace/tetris-v0``
(steps per second, the text view in every step's info included), the renderer's frame time at
1280x800, the Dellacherie bot's time per decision, the raw score of 30 random-play seeds against
LMGame-Bench's random baseline, and, side by side in the same run, tetris-gymnasium (the environment
LMGame-Bench's reference code plays) installed in its own virtualenv under the scratch folder, never
in PlayTrace's environment. Without network access that part says why and is skipped.

Rates are measured in the process's CPU time (``time.process_time``) on both sides, so other work on a
shared machine does not skew the ratios.

Run with ``.venv/bin/python benchmarks/bench_tetris.py [--scratch DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import random
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402

import engine  # noqa: E402
import engine.gym  # noqa: E402,F401  (registers the environments)
from benchmarks._peers import run_peer  # noqa: E402
from engine.players import Observation  # noqa: E402

#: Seconds of random play (and of rendering) timed per environment.
BUDGET = 2.0
#: LMGame-Bench's random baseline for Tetris (Table 1: mean ± SD over 30 runs).
PAPER_RANDOM = (10.2, 1.8)
#: What the peer virtualenv installs. tetris-gymnasium 0.3 draws its rgb_array frames with
#: ``astype(np.integer)``, which NumPy refuses from 2.3 on, so NumPy is held below that there.
PEER_PACKAGES = ["tetris-gymnasium>=0.3,<0.4", "numpy<2.3"]

#: What the peer virtualenv runs: uniform random play through ``gymnasium.make``, then frames.
PEER = """
import json, time
import gymnasium
import tetris_gymnasium.envs  # noqa: F401  (registers tetris_gymnasium/Tetris)
env = gymnasium.make("tetris_gymnasium/Tetris", render_mode="rgb_array")
env.reset(seed=0); env.action_space.seed(0)
steps = episodes = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    obs, r, term, trunc, info = env.step(env.action_space.sample()); steps += 1
    if term or trunc:
        env.reset(); episodes += 1
rate = steps / (time.process_time() - started)
frame = env.render(); frames = 0; started = time.process_time()
while time.process_time() - started < %(budget)s / 2:
    frame = env.render(); frames += 1
print(json.dumps({"steps": rate, "episodes": episodes, "fps": frames / (time.process_time() - started),
                  "shape": list(frame.shape)}))
"""


def env_steps_per_second(budget: float = BUDGET) -> tuple[float, int]:
    """Uniform random play through ``gymnasium.make("playtrace/tetris-v0")``: steps per second and
    episodes finished."""
    env = gymnasium.make("playtrace/tetris-v0")
    env.reset(seed=0)
    env.action_space.seed(0)
    steps = episodes = 0
    started = time.process_time()
    while time.process_time() - started < budget:
        _obs, _r, terminated, truncated, info = env.step(env.action_space.sample())
        assert "text" in info
        steps += 1
        if terminated or truncated:
            env.reset()
            episodes += 1
    return steps / (time.process_time() - started), episodes


def frames_per_second(width: int, height: int, budget: float = BUDGET / 2) -> float:
    """``rgb_array`` frames per second through the environment's ``render`` at ``width`` x ``height``."""
    env = gymnasium.make("playtrace/tetris-v0", render_mode="rgb_array", render_size=(width, height))
    env.reset(seed=0)
    hard_drop = engine.make("tetris").actions.index("hard_drop")
    for _ in range(6):  # a few pieces on the board
        env.step(hard_drop)
    env.render()  # the first frame imports the renderers and draws the cached panels
    frames = 0
    started = time.process_time()
    while time.process_time() - started < budget:
        env.render()
        frames += 1
    return frames / (time.process_time() - started)


def render_ms(width: int, height: int, states: int = 150) -> tuple[float, float]:
    """Mean and worst milliseconds the renderer takes per picture at ``width`` x ``height``, each state
    of a game the Dellacherie bot plays drawn once (so every lock redraws the settled blocks)."""
    import renderers

    game = engine.make("tetris")
    bot = game.make_bot("dellacherie", 1)
    state = game.initial_state(seed=1)
    played = []
    for _ in range(states):
        played.append(state)
        decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions()))))
        state = state.apply(decision.action)
    renderer = renderers.get("tetris")
    renderer.render(played[0], width, height)
    times = []
    for shown in played:
        started = time.process_time()
        renderer.render(shown, width, height)
        times.append((time.process_time() - started) * 1000)
    return statistics.mean(times), max(times)


def random_baseline(episodes: int = 30) -> list[int]:
    """The raw score (pieces + 10 x lines) of ``episodes`` seeds of uniform random play."""
    game = engine.make("tetris")
    scores = []
    for seed in range(episodes):
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))
        scores.append(int(state.metrics()["raw_score"]))
    return scores


def bot_decision_ms(decisions: int = 200) -> list[float]:
    """Milliseconds per decision of the Dellacherie bot over a game it plays."""
    game = engine.make("tetris")
    bot = game.make_bot("dellacherie", 0)
    state = game.initial_state(seed=0)
    times = []
    for _ in range(decisions):
        if state.is_over:
            break
        started = time.process_time()
        decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions()))))
        times.append((time.process_time() - started) * 1000)
        state = state.apply(decision.action)
    return times


def peer(scratch: pathlib.Path) -> dict[str, Any] | None:
    """tetris-gymnasium's random-play rate and rgb_array frame rate, in a virtualenv under
    ``scratch``; ``None`` (saying why) when it cannot be installed or run."""
    return run_peer(scratch, packages=PEER_PACKAGES, probe="tetris_gymnasium.envs",
                    script=PEER % {"budget": BUDGET}, name="tetris-gymnasium")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = pathlib.Path(tempfile.gettempdir()) / "playtrace-bench-tetris-gymnasium"
    parser.add_argument("--scratch", type=pathlib.Path, default=scratch, help="the peer virtualenv's folder")
    parser.add_argument("--no-peer", action="store_true", help="skip tetris-gymnasium")
    args = parser.parse_args()

    rate, episodes = env_steps_per_second()
    print(f"Random play through playtrace/tetris-v0: {rate:,.0f} steps/s ({episodes} episodes finished)")
    mean_ms, worst_ms = render_ms(1280, 800)
    print(f"Renderer at 1280x800 over a played game: mean {mean_ms:.2f} ms, worst {worst_ms:.2f} ms "
          "per picture (goal <= 8 ms)")
    ms = 1000 / frames_per_second(1280, 800)
    print(f"rgb_array frame at 1280x800 through the environment (picture and array): {ms:.2f} ms")
    times = bot_decision_ms()
    print(f"Dellacherie bot: mean {statistics.mean(times):.2f} ms, max {max(times):.2f} ms per decision")
    scores = random_baseline()
    mean, sd = statistics.mean(scores), statistics.stdev(scores)
    print(f"Raw score of 30 random-play seeds: {mean:.1f} ± {sd:.1f} (min {min(scores)}, max {max(scores)}); "
          f"LMGame-Bench's random baseline: {PAPER_RANDOM[0]} ± {PAPER_RANDOM[1]}")
    if args.no_peer:
        return
    print(f"tetris-gymnasium in {args.scratch}:")
    other = peer(args.scratch)
    if other is None:
        return
    print(f"  random play: PlayTrace {rate:,.0f} steps/s   tetris-gymnasium {other['steps']:,.0f} steps/s   "
          f"ratio {rate / other['steps']:.2f} (goal >= 2)")
    height, width = int(other["shape"][0]), int(other["shape"][1])
    mine = frames_per_second(width, height)
    print(f"  rgb_array at {width}x{height}: PlayTrace {mine:,.0f} fps   "
          f"tetris-gymnasium {other['fps']:,.0f} fps   ratio {mine / other['fps']:.2f} (goal >= 2)")


if __name__ == "__main__":
    main()
