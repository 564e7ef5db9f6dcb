"""Candy Crush speed and baseline: random play through the Gymnasium environment
``playtrace/candycrush-v0`` (steps per second, the text view in every step's info included), the
renderer's frame time at 1280x800, the greedy bot, the raw score of 30 random-play seeds against
LMGame-Bench's random baseline, and, side by side in the same run, tile-match-gym (the environment
LMGame-Bench's reference code plays) installed in its own virtualenv under the scratch folder, never in
PlayTrace's environment. Without network access that part says why and is skipped.

Random play is uniform over the 112 swaps on both sides. A swap that makes no line changes nothing in
PlayTrace's environment (an illegal action) and costs one of the 50 moves in tile-match-gym's, so the
random baseline is given both ways: uniform over the legal swaps (PlayTrace's ``random`` player, what
``playtrace baseline candycrush`` plays) and uniform over all 112 swaps with a swap that makes no line
wasting a move (the reference's rule, which is how LMGame-Bench's random runs were scored).

Rates are measured in the process's CPU time (``time.process_time``) on both sides, so other work on a
shared machine does not skew the ratios.

Run with ``.venv/bin/python benchmarks/bench_candycrush.py [--scratch DIR]`` from the repository root.
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
from engine.games.candycrush import ACTIONS  # noqa: E402
from engine.players import Observation  # noqa: E402

#: Seconds of random play (and of rendering) timed per environment.
BUDGET = 2.0
#: LMGame-Bench's random baseline for Candy Crush (Table 1: mean ± SD over 30 runs).
PAPER_RANDOM = (116.5, 51.5)
#: What the peer virtualenv installs.
PEER_PACKAGES = ["tile-match-gym>=1.0,<1.1"]

#: What the peer virtualenv runs: LMGame-Bench's settings (8x8, 4 colours, 50 moves, no specials),
#: uniform random play over the 112 swaps, rgb_array frames, then 30 scored random sessions.
#: (tile-match-gym's ``reset(seed=...)`` breaks its action space's ``seed``, so the swaps are drawn
#: from a ``random.Random`` of the script's own.)
PEER = """
import json, random, time
import gymnasium, tile_match_gym  # noqa: F401  (registers TileMatch-v0)
settings = dict(num_rows=8, num_cols=8, num_colours=4, num_moves=50, colourless_specials=[],
                colour_specials=[], render_mode="rgb_array")
env = gymnasium.make("TileMatch-v0", seed=1, **settings)
rng = random.Random(0)
env.reset(seed=0)
steps = episodes = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    obs, r, term, trunc, info = env.step(rng.randrange(112)); steps += 1
    if term or trunc:
        env.reset(); episodes += 1
rate = steps / (time.process_time() - started)
frame = env.render(); frames = 0; started = time.process_time()
while time.process_time() - started < %(budget)s / 2:
    frame = env.render(); frames += 1
fps = frames / (time.process_time() - started)
scores = []
for seed in range(30):
    play = random.Random(seed); env.reset(seed=seed); total = 0; done = False
    while not done:
        obs, r, done, trunc, info = env.step(play.randrange(112)); total += r
    scores.append(float(total))
print(json.dumps({"steps": rate, "episodes": episodes, "fps": fps, "shape": list(frame.shape),
                  "scores": scores}))
"""


def env_steps_per_second(budget: float = BUDGET, legal_only: bool = False) -> tuple[float, int]:
    """Uniform random play through ``gymnasium.make("playtrace/candycrush-v0")`` over the 112 swaps
    (or, with ``legal_only``, over the legal ones in ``info["legal"]``): steps per second and
    episodes finished."""
    env = gymnasium.make("playtrace/candycrush-v0")
    _obs, info = env.reset(seed=0)
    env.action_space.seed(0)
    rng = random.Random(0)
    index = {a: i for i, a in enumerate(ACTIONS)}
    steps = episodes = 0
    started = time.process_time()
    while time.process_time() - started < budget:
        action = index[rng.choice(info["legal"])] if legal_only else env.action_space.sample()
        _obs, _r, terminated, truncated, info = env.step(action)
        assert "text" in info
        steps += 1
        if terminated or truncated:
            _obs, info = env.reset()
            episodes += 1
    return steps / (time.process_time() - started), episodes


def frames_per_second(width: int, height: int, budget: float = BUDGET / 2) -> float:
    """``rgb_array`` frames per second through the environment's ``render`` at ``width`` x ``height``."""
    env = gymnasium.make("playtrace/candycrush-v0", render_mode="rgb_array", render_size=(width, height))
    _obs, info = env.reset(seed=0)
    for _ in range(3):
        _obs, _r, _t, _tr, info = env.step(ACTIONS.index(info["legal"][0]))
    env.render()  # the first frame imports the renderers and draws the candies and the board once
    frames = 0
    started = time.process_time()
    while time.process_time() - started < budget:
        env.render()
        frames += 1
    return frames / (time.process_time() - started)


def session(states: int = 50) -> list[Any]:
    """Every state of a session the greedy bot plays from seed 1."""
    game = engine.make("candycrush")
    bot = game.make_bot("greedy", 1)
    state = game.initial_state(seed=1)
    played = []
    while not state.is_over and len(played) < states:
        played.append(state)
        decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions()))))
        state = state.apply(decision.action)
    return played


def render_ms(width: int, height: int) -> tuple[float, float]:
    """Mean and worst milliseconds the renderer takes per picture at ``width`` x ``height``, over
    every state of a played session (each drawn once, so nothing of one state's picture is reused)."""
    import renderers

    played = session()
    renderer = renderers.get("candycrush")
    renderer.render(played[0], width, height)
    times = []
    for shown in played:
        started = time.process_time()
        renderer.render(shown, width, height)
        times.append((time.process_time() - started) * 1000)
    return statistics.mean(times), max(times)


def session_frames_per_second(width: int, height: int) -> float:
    """``rgb_array`` frames (picture and array, as ``env.render`` makes them) per second when every
    frame shows a new state of a played session."""
    from engine.frames import frame

    played = session()
    frame("candycrush", played[0], width, height)
    started = time.process_time()
    for shown in played:
        frame("candycrush", shown, width, height)
    return len(played) / (time.process_time() - started)


def random_scores(episodes: int = 30, wasted: bool = False) -> list[int]:
    """The raw score (candies cleared) of ``episodes`` seeds of uniform random play: over the legal
    swaps, or (``wasted``) over all 112 swaps with a swap that makes no line costing a move."""
    game = engine.make("candycrush")
    scores = []
    for seed in range(episodes):
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        moves = 0
        while not state.is_over and moves < game.max_moves:
            if wasted:
                action = rng.choice(ACTIONS)
                moves += 1
                if action in state.legal_actions():
                    state = state.apply(action)
            else:
                state = game.play_random(state, rng)
        scores.append(int(state.metrics()["candies_cleared"]))
    return scores


def greedy_scores(episodes: int = 10) -> list[int]:
    """The raw score of the greedy bot over ``episodes`` seeds."""
    game = engine.make("candycrush")
    scores = []
    for seed in range(episodes):
        bot = game.make_bot("greedy", seed)
        state = game.initial_state(seed=seed)
        while not state.is_over:
            decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions()))))
            state = state.apply(decision.action)
        scores.append(state.score)
    return scores


def peer(scratch: pathlib.Path) -> dict[str, Any] | None:
    """tile-match-gym's random-play rate, rgb_array frame rate and 30 random scores, in a virtualenv
    under ``scratch``; ``None`` (saying why) when it cannot be installed or run."""
    # tile-match-gym draws with pygame: no window and no sound device on a headless machine.
    return run_peer(scratch, packages=PEER_PACKAGES, probe="tile_match_gym", script=PEER % {"budget": BUDGET},
                    name="tile-match-gym", env={"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})


def _summary(scores: list[int] | list[float]) -> str:
    mean, sd = statistics.mean(scores), statistics.stdev(scores)
    return f"{mean:.1f} ± {sd:.1f} (min {min(scores):g}, max {max(scores):g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = pathlib.Path(tempfile.gettempdir()) / "playtrace-bench-tile-match-gym"
    parser.add_argument("--scratch", type=pathlib.Path, default=scratch, help="the peer virtualenv's folder")
    parser.add_argument("--no-peer", action="store_true", help="skip tile-match-gym")
    args = parser.parse_args()

    rate, episodes = env_steps_per_second()
    print(f"Random play through playtrace/candycrush-v0, uniform over the 112 swaps: {rate:,.0f} steps/s "
          f"({episodes} sessions finished)")
    legal_rate, legal_episodes = env_steps_per_second(legal_only=True)
    print(f"  uniform over the legal swaps only (every step clears candies): {legal_rate:,.0f} steps/s "
          f"({legal_episodes} sessions finished)")
    mean_ms, worst_ms = render_ms(1280, 800)
    print(f"Renderer at 1280x800 over a played session: mean {mean_ms:.2f} ms, worst {worst_ms:.2f} ms "
          "per picture (goal <= 8 ms)")
    ms = 1000 / frames_per_second(1280, 800)
    print(f"rgb_array frame at 1280x800 through the environment (picture and array): {ms:.2f} ms")
    legal = random_scores()
    wasted = random_scores(wasted=True)
    print("Raw score (candies cleared) of 30 random-play seeds:")
    print(f"  uniform over the legal swaps (playtrace baseline candycrush): {_summary(legal)}")
    print(f"  uniform over all 112 swaps, a swap without a line wasting a move: {_summary(wasted)}")
    print(f"  LMGame-Bench's random baseline (tile-match-gym, the second rule): "
          f"{PAPER_RANDOM[0]} ± {PAPER_RANDOM[1]}")
    greedy = greedy_scores()
    print(f"Greedy bot over 10 seeds: {_summary(greedy)}")
    if args.no_peer:
        return
    print(f"tile-match-gym in {args.scratch}:")
    other = peer(args.scratch)
    if other is None:
        return
    print(f"  its random baseline over 30 seeds, same rule: {_summary(other['scores'])}")
    print(f"  random play: PlayTrace {rate:,.0f} steps/s   tile-match-gym {other['steps']:,.0f} steps/s   "
          f"ratio {rate / other['steps']:.2f} (goal >= 2)")
    print(f"  random play over legal swaps only: PlayTrace {legal_rate:,.0f} steps/s   "
          f"ratio {legal_rate / other['steps']:.2f}")
    height, width = int(other["shape"][0]), int(other["shape"][1])
    mine = frames_per_second(width, height)
    print(f"  rgb_array at {width}x{height}, one state drawn again and again (as timed on both sides): "
          f"PlayTrace {mine:,.0f} fps   tile-match-gym {other['fps']:,.0f} fps   "
          f"ratio {mine / other['fps']:.2f} (goal >= 2)")
    fresh = session_frames_per_second(width, height)
    print(f"  rgb_array at {width}x{height}, a new state every frame: PlayTrace {fresh:,.0f} fps   "
          f"ratio {fresh / other['fps']:.2f} (tile-match-gym redraws everything every frame)")


if __name__ == "__main__":
    main()
