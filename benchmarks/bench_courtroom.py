"""Courtroom speed and baselines: random-play steps per second, the raw and progress scores of random
play over 30 seeds (LMGame-Bench's random baseline), the answer key's score, and the time to draw a
1280 x 800 frame (each state of a played trial drawn once, and the same state drawn again).

Run with ``python benchmarks/bench_courtroom.py`` from the repository root (a few seconds).
"""

from __future__ import annotations

import pathlib
import random
import statistics
import sys
import time

# Allow running the script directly from a checkout without installing PlayTrace.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.core import Game, State  # noqa: E402
from engine.games.courtroom.bots import key_move  # noqa: E402  (the answer key's next action)

#: Seconds of random play measured.
RANDOM_BUDGET = 1.0
#: Random runs for the baseline (LMGame-Bench Appx B.1 uses 30).
RUNS = 30


def random_steps_per_second(game: Game, budget: float = RANDOM_BUDGET) -> float:
    rng = random.Random(0)
    steps, seed = 0, 0
    state = game.initial_state(seed=seed)
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        if state.is_over:
            seed += 1
            state = game.initial_state(seed=seed)
            continue
        state = game.play_random(state, rng)
        steps += 1
    return steps / (time.perf_counter() - started)


def random_run(game: Game, seed: int) -> State:
    rng = random.Random(seed)
    state = game.initial_state(seed=seed)
    while not state.is_over:
        state = game.play_random(state, rng)
    return state


def key_run(game: Game) -> State:
    state = game.initial_state(seed=0)
    while not state.is_over:
        state = state.apply(key_move(state)[0])  # type: ignore[arg-type]
    return state


def frame_times(
    game: Game, width: int = 1280, height: int = 800
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds per frame: every state of a played trial drawn once (wall clock, and this
    process's CPU time, which other programs on a busy machine do not inflate), then one state drawn
    again."""
    import renderers  # Qt only for this part

    renderer = renderers.get(game.id)
    states = []
    state = game.initial_state(seed=0)
    rng = random.Random(1)
    while not state.is_over:
        states.append(state)
        moves = [a for a in state.legal_actions() if not a.startswith("present")]
        action = key_move(state)[0] if rng.random() < 0.5 or not moves else rng.choice(moves)  # type: ignore[arg-type]
        state = state.apply(action)
    renderer.render(states[0], width, height)  # fonts and the backdrop
    fresh, cpu = [], []
    for s in states:
        started, used = time.perf_counter(), time.process_time()
        renderer.render(s, width, height)
        fresh.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    again = []
    for _ in range(50):
        started = time.perf_counter()
        renderer.render(states[-1], width, height)
        again.append((time.perf_counter() - started) * 1000)
    return fresh, cpu, again


def main() -> int:
    game = engine.make("courtroom")
    print(f"random play: {random_steps_per_second(game):,.0f} steps/s")
    finals = [random_run(game, seed) for seed in range(RUNS)]
    raw = [float(s.metrics()["correct_actions"]) for s in finals]
    progress = [float(s.metrics()["progress"]) for s in finals]
    steps = [s.step for s in finals]
    print(
        f"random raw score over {RUNS} seeds: {statistics.mean(raw):.2f} ± {statistics.stdev(raw):.2f} "
        f"(min {min(raw):.0f}, max {max(raw):.0f}); progress {statistics.mean(progress):.3f}; "
        f"{statistics.mean(steps):.1f} steps per trial"
    )
    print(f"raw scores: {' '.join(f'{x:.0f}' for x in raw)}")
    best = key_run(game)
    print(f"answer key: raw score {best.metrics()['correct_actions']:.0f}, {best.step} steps")
    fresh, cpu, again = frame_times(game)
    for label, times in (("wall clock", fresh), ("CPU time", cpu)):
        print(
            f"1280x800 frame, each state drawn once ({label}): median {statistics.median(times):.2f} ms, "
            f"p90 {sorted(times)[int(len(times) * 0.9)]:.2f} ms, max {max(times):.2f} ms "
            f"over {len(times)} states"
        )
    print(f"1280x800 frame, the same state again: median {statistics.median(again):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
