"""Engine speed: random-play steps per second for every registered game, and bot decision times.

Run with ``python benchmarks/bench_engine.py`` from the repository root (about 10-20 seconds).
"""

from __future__ import annotations

import asyncio
import pathlib
import random
import statistics
import sys
import time

# Allow running the script directly from a checkout without installing PlayTrace.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.core import Game, State  # noqa: E402
from engine.players import Observation, Player  # noqa: E402
from engine.roster import make_player  # noqa: E402

#: Seconds of random play measured per game.
RANDOM_BUDGET = 0.5


def random_steps_per_second(game: Game, budget: float = RANDOM_BUDGET) -> tuple[float, int]:
    """Steps per second of uniform random play (legal-move generation plus apply), and games played."""
    rng = random.Random(0)
    steps = games = 0
    seed = 0
    started = time.perf_counter()
    state = game.initial_state(seed=seed)
    while time.perf_counter() - started < budget:
        if state.is_over:
            games += 1
            seed += 1
            state = game.initial_state(seed=seed)
            continue
        if game.simultaneous:
            state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.to_act})
        else:
            state = state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return steps / (time.perf_counter() - started), games


async def decision_times(player: Player, game: Game, states: list[State]) -> list[float]:
    """Seconds per decision of ``player`` on each of ``states``."""
    times = []
    for state in states:
        seat = state.to_act[0] if state.to_act else 0
        obs = Observation(game, state, seat, tuple(state.legal_actions(seat)))
        started = time.perf_counter()
        await player.act(obs)
        times.append(time.perf_counter() - started)
    return times


def sample_states(game: Game, count: int, seed: int = 0) -> list[State]:
    """Non-terminal states from random playouts, to time bots on varied positions."""
    rng = random.Random(seed)
    states: list[State] = []
    state = game.initial_state(seed=seed)
    while len(states) < count:
        if state.is_over:
            seed += 1
            state = game.initial_state(seed=seed)
            continue
        states.append(state)
        state = game.play_random(state, rng)
    # A bot decides from its seat's view, as in a match.
    states = [s.observe(s.to_act[0]) for s in states]
    return states


def report_bot(game_id: str, spec: str, count: int) -> None:
    game = engine.make(game_id)
    player = make_player(spec, game, seed=0)
    states = sample_states(game, count)
    times = asyncio.run(decision_times(player, game, states))
    ms = [t * 1000 for t in times]
    print(
        f"  {game_id:<10} {spec:<11} {len(ms):>5} decisions   "
        f"mean {statistics.mean(ms):7.3f} ms   median {statistics.median(ms):7.3f} ms   max {max(ms):7.3f} ms"
    )


def main() -> None:
    print("Random play (steps per second, single thread):")
    for game_id in engine.list_games():
        try:
            rate, games = random_steps_per_second(engine.make(game_id))
        except Exception as exc:  # one broken game must not hide the others' figures
            print(f"  {game_id:<10} failed: {type(exc).__name__}: {exc}")
            continue
        print(f"  {game_id:<10} {rate:>12,.0f} steps/s   ({games} games finished)")
    print("Bot decision time (each game's own bots, on 400 positions from random play):")
    for game_id in engine.list_games():
        game = engine.make(game_id)
        if game.simultaneous:
            continue  # positions of simultaneous games have several seats to act; not timed here
        for spec in game.bots:
            report_bot(game_id, spec, 400)


if __name__ == "__main__":
    main()
