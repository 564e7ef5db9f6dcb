"""Sokoban speed: random play through PlayTrace's Gymnasium environment, room generation, frame time at
1280x800, and the same figures of gym-sokoban (``Sokoban-v0``) side by side, with the ratios.

gym-sokoban is installed in its own virtualenv under the scratch folder (a temporary folder by
default), never in PlayTrace's environment; without network access that part says why and is skipped.
Resets are left out of the steps-per-second figures on both sides (generation is timed on its own).

Run with ``.venv/bin/python benchmarks/bench_sokoban.py [--scratch DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import pathlib
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
from engine.games.sokoban import generate  # noqa: E402

#: Seconds of random play timed per environment.
BUDGET = 1.0
#: Rooms generated for the generation figures.
ROOMS = 40

#: What the peer virtualenv runs: random play through gym-sokoban's own environment, resets excluded.
PEER = """
import json, random, time, warnings
warnings.filterwarnings("ignore")
import gym, gym_sokoban
env = gym.make("Sokoban-v0").unwrapped
gen = []
for _ in range(%(resets)s):
    t = time.perf_counter(); env.reset(); gen.append(time.perf_counter() - t)
out = {"generate_s": gen}
for mode in ("rgb_array", "tiny_rgb_array"):
    rng = random.Random(0); steps = 0; spent = 0.0
    while spent < %(budget)s:
        t = time.perf_counter()
        result = env.step(rng.randrange(env.action_space.n), observation_mode=mode)
        spent += time.perf_counter() - t; steps += 1
        if result[2]:
            env.reset()
    out["steps_" + mode] = steps / spent
frames = 0; started = time.perf_counter()
while time.perf_counter() - started < %(budget)s / 2:
    frame = env.render(mode="rgb_array"); frames += 1
out["frame_ms"] = 1000 * (time.perf_counter() - started) / frames
out["frame_shape"] = list(frame.shape)
print(json.dumps(out))
"""


def env_steps_per_second(budget: float = BUDGET, **options: Any) -> float:
    """Random play through ``playtrace/sokoban-v0``, in steps per second (resets excluded)."""
    env = gymnasium.make("playtrace/sokoban-v0", **options)
    env.reset(seed=0)
    rng = env.action_space
    rng.seed(0)
    steps, spent, episode = 0, 0.0, 0
    while spent < budget:
        action = rng.sample()
        started = time.perf_counter()
        _obs, _r, terminated, truncated, _info = env.step(action)
        spent += time.perf_counter() - started
        steps += 1
        if terminated or truncated:
            episode += 1
            env.reset(seed=episode)
    env.close()
    return steps / spent


def generation_ms(rooms: int = ROOMS) -> list[float]:
    """Milliseconds to generate each of ``rooms`` 10x10 rooms with 3 boxes."""
    times = []
    for seed in range(rooms):
        started = time.perf_counter()
        generate(seed)
        times.append((time.perf_counter() - started) * 1000)
    return times


def frame_ms(width: int, height: int, budget: float = BUDGET / 2) -> float:
    """Milliseconds per ``rgb_array`` frame through the environment's ``render``."""
    env = gymnasium.make("playtrace/sokoban-v0", render_mode="rgb_array", render_size=(width, height))
    env.reset(seed=0)
    env.render()  # the first frame imports the renderers and draws the level's fixed layer
    frames = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        env.render()
        frames += 1
    env.close()
    return 1000 * (time.perf_counter() - started) / frames


def render_ms(width: int, height: int, budget: float = BUDGET / 2) -> float:
    """Milliseconds per picture (a ``QImage``) from the Sokoban renderer alone, on the bundled levels."""
    import renderers

    renderer = renderers.get("sokoban")
    game = engine.make("sokoban")
    states = [game.initial_state(seed=0)]
    states += [engine.make("sokoban", level=n).initial_state(seed=0) for n in (6, 11, 15)]
    for state in states:
        renderer.render(state, width, height)
    frames = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        renderer.render(states[frames % len(states)], width, height)
        frames += 1
    return 1000 * (time.perf_counter() - started) / frames


def peer_figures(scratch: pathlib.Path) -> dict[str, Any] | None:
    """gym-sokoban's figures, timed in a virtualenv under ``scratch``; ``None`` (with the reason
    printed) when it cannot be installed or run."""
    return run_peer(scratch, packages=["gym-sokoban"], probe="gym_sokoban",
                    script=PEER % {"budget": BUDGET, "resets": 3}, name="gym-sokoban")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = pathlib.Path(tempfile.gettempdir()) / "playtrace-bench-sokoban"
    parser.add_argument("--scratch", type=pathlib.Path, default=scratch, help="the peer virtualenv's folder")
    args = parser.parse_args()
    print("Random play through playtrace/sokoban-v0 (steps per second, resets excluded):")
    bundled = env_steps_per_second()
    generated = env_steps_per_second(levels="generated")
    print(f"  bundled levels            {bundled:>10,.0f}")
    print(f"  generated 10x10, 3 boxes  {generated:>10,.0f}")
    times = generation_ms()
    print(f"Room generation, 10x10 with 3 boxes ({len(times)} rooms; goal <= 50 ms):")
    print(
        f"  median {statistics.median(times):.1f} ms   mean {statistics.mean(times):.1f} ms   "
        f"max {max(times):.1f} ms"
    )
    print(f"Renderer at 1280x800, one picture (goal <= 8 ms): {render_ms(1280, 800):.2f} ms")
    print(
        f"rgb_array frame at 1280x800 through env.render (picture + numpy copy): {frame_ms(1280, 800):.2f} ms"
    )
    print("gym-sokoban Sokoban-v0 in its own virtualenv:")
    peer = peer_figures(args.scratch)
    if not peer:
        print("  no peer figures; PlayTrace's own are above")
        return
    peer_gen = statistics.mean(peer["generate_s"]) * 1000
    print(
        f"  random play: {peer['steps_rgb_array']:,.0f} steps/s (its default RGB observation), "
        f"{peer['steps_tiny_rgb_array']:,.0f} steps/s (its tiny RGB observation)"
    )
    print(f"  room generation (reset): mean {peer_gen:,.0f} ms over {len(peer['generate_s'])} rooms")
    shape = peer["frame_shape"]
    print(f"  frame: {peer['frame_ms']:.2f} ms at {shape[1]}x{shape[0]}")
    print("Ratios (PlayTrace / gym-sokoban; goal: steps >= 2):")
    rgb, tiny = peer["steps_rgb_array"], peer["steps_tiny_rgb_array"]
    print(f"  steps/s, generated rooms vs its RGB observation        {generated / rgb:8.1f}x")
    print(f"  steps/s, generated rooms vs its tiny RGB observation   {generated / tiny:8.1f}x")
    speedup = peer_gen / statistics.mean(times)
    print(f"  room generation                                        {speedup:8.1f}x")
    mine_small = frame_ms(int(shape[1]), int(shape[0]))
    label = f"frames at {shape[1]}x{shape[0]} ({mine_small:.2f} ms against {peer['frame_ms']:.2f} ms)"
    print(f"  {label:<55}{peer['frame_ms'] / mine_small:8.1f}x")


if __name__ == "__main__":
    main()
