"""GameBot suite speed: legal-move generation plus apply per second for every GameBot game, the per-move
time of each built-in bot, and random play through the PettingZoo adapter against PettingZoo's own
``connect_four_v3`` and ``tictactoe_v3`` (run in a separate virtualenv so PlayTrace's environment is
left alone; without network access that part says so and is skipped).

Run with ``.venv/bin/python benchmarks/bench_gamebot.py [--scratch DIR]`` from the repository root.
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

import engine  # noqa: E402
from benchmarks._peers import run_peer  # noqa: E402
from benchmarks.bench_engine import decision_times, random_steps_per_second, sample_states  # noqa: E402
from engine.roster import make_player  # noqa: E402

#: Seconds of random play timed per environment.
BUDGET = 1.0

#: What the peer virtualenv runs: random masked play through PettingZoo's own environments.
PEER = """
import json, sys, time, random
from pettingzoo.classic import connect_four_v3, tictactoe_v3
out = {}
for name, mod in (("connect4", connect_four_v3), ("tictactoe", tictactoe_v3)):
    env = mod.env(); rng = random.Random(0); steps = 0; env.reset(seed=0)
    started = time.perf_counter()
    while time.perf_counter() - started < %(budget)s:
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            if term or trunc:
                env.step(None); continue
            legal = [i for i, m in enumerate(obs["action_mask"]) if m]
            env.step(rng.choice(legal)); steps += 1
        env.reset()
    out[name] = steps / (time.perf_counter() - started)
print(json.dumps(out))
"""


def adapter_steps_per_second(game_id: str, budget: float = BUDGET) -> float:
    """Random masked play through :mod:`engine.pettingzoo`, in agent steps per second."""
    from engine import pettingzoo as ptz

    env = ptz.env(game_id)
    rng = random.Random(0)
    steps = 0
    env.reset(seed=0)
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        for _agent in env.agent_iter():
            obs, _r, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = [i for i, m in enumerate(obs["action_mask"]) if m]
            env.step(rng.choice(legal))
            steps += 1
        env.reset()
    return steps / (time.perf_counter() - started)


def holdem_hands_per_second(budget: float = BUDGET) -> tuple[float, float]:
    """Random hands of PlayTrace's hold'em (through the state API) and of pokerkit driven directly,
    hands per second each. Both play the same abstract choices: fold, check/call or a raise."""
    from pokerkit import Automation, NoLimitTexasHoldem

    game = engine.make("holdem")
    rng = random.Random(0)
    hands, seed = 0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))
        hands, seed = hands + 1, seed + 1
    ours = hands / (time.perf_counter() - started)

    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    hands = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        table = NoLimitTexasHoldem.create_state(automations, True, 0, (1, 2), 2, 100, 2)
        while table.status:
            choices = ["call"] + (["fold"] if table.can_fold() else [])
            if table.can_complete_bet_or_raise_to():
                choices.append("raise")
            pick = rng.choice(choices)
            if pick == "fold":
                table.fold()
            elif pick == "raise":
                low = table.min_completion_betting_or_raising_to_amount or 0
                high = table.max_completion_betting_or_raising_to_amount or low
                table.complete_bet_or_raise_to(rng.choice([low, (low + high) // 2, high]))
            else:
                table.check_or_call()
        hands += 1
    return ours, hands / (time.perf_counter() - started)


def frames_per_second(game_id: str, width: int, height: int, budget: float = BUDGET / 2) -> float:
    """``rgb_array`` frames per second of the game's renderer through the PettingZoo adapter."""
    from engine import pettingzoo as ptz

    env = ptz.env(game_id, render_mode="rgb_array", render_size=(width, height))
    env.reset(seed=0)
    env.render()  # the first frame imports the renderers (as the peer's first frame loads pygame)
    frames = 0
    started = time.perf_counter()
    while time.perf_counter() - started < budget:
        env.render()
        frames += 1
    return frames / (time.perf_counter() - started)


PEER_FRAMES = """
import json, time
from pettingzoo.classic import connect_four_v3, tictactoe_v3
out = {}
for name, mod in (("connect4", connect_four_v3), ("tictactoe", tictactoe_v3)):
    env = mod.env(render_mode="rgb_array"); env.reset(seed=0)
    frame = env.render(); frames = 0; started = time.perf_counter()
    while time.perf_counter() - started < %(budget)s:
        frame = env.render(); frames += 1
    out[name] = [frames / (time.perf_counter() - started), list(frame.shape)]
print(json.dumps(out))
"""


def peer_frames(scratch: pathlib.Path) -> dict[str, Any] | None:
    """PettingZoo's own ``rgb_array`` frame rate (pygame), in its virtualenv; ``None`` if absent."""
    return run_peer(scratch, packages=[], probe="pettingzoo", script=PEER_FRAMES % {"budget": BUDGET / 2},
                    name="peer frames", install=False)


def peer_steps_per_second(scratch: pathlib.Path) -> dict[str, float] | None:
    """PettingZoo's own classic environments, timed in a virtualenv under ``scratch``."""
    return run_peer(scratch, packages=["pettingzoo[classic]"], probe="pettingzoo.classic.connect_four_v3",
                    script=PEER % {"budget": BUDGET}, name="peer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = pathlib.Path(tempfile.gettempdir()) / "playtrace-bench-pettingzoo"
    parser.add_argument("--scratch", type=pathlib.Path, default=scratch, help="the peer virtualenv's folder")
    parser.add_argument("--positions", type=int, default=100, help="positions each bot is timed on")
    args = parser.parse_args()
    gamebot = [e.id for e in engine.entries(include_unavailable=False) if "gamebot" in e.cls.suites]
    print("Legal-move generation + apply (random play, steps per second):")
    for game_id in gamebot:
        try:
            rate, games = random_steps_per_second(engine.make(game_id), BUDGET / 2)
        except Exception as exc:  # one broken game must not hide the others' figures
            print(f"  {game_id:<11} failed: {type(exc).__name__}: {exc}")
            continue
        print(f"  {game_id:<11} {rate:>12,.0f} steps/s   ({games} games finished)")
    print(f"Built-in bots at default strength ({args.positions} positions from random play):")
    for game_id in gamebot:
        game = engine.make(game_id)
        for spec in game.bots:
            player = make_player(spec, game, seed=0)
            states = sample_states(game, args.positions)
            ms = [t * 1000 for t in asyncio.run(decision_times(player, game, states))]
            print(f"  {game_id:<11} {spec:<11} mean {statistics.mean(ms):8.2f} ms   "
                  f"median {statistics.median(ms):8.2f} ms   max {max(ms):8.2f} ms")
    print("Random play through PettingZoo (agent steps per second):")
    ours = {g: adapter_steps_per_second(g) for g in ("connect4", "tictactoe")}
    peer = peer_steps_per_second(args.scratch)
    for g, rate in ours.items():
        line = f"  {g:<11} PlayTrace adapter {rate:>10,.0f}"
        if peer and g in peer:
            line += f"   PettingZoo {g}: {peer[g]:>10,.0f}   ratio {rate / peer[g]:.2f}"
        print(line)
    print("Hold'em, random hands per second:")
    ours_hands, direct = holdem_hands_per_second()
    print(f"  PlayTrace {ours_hands:,.0f}   pokerkit driven directly {direct:,.0f}   "
          f"ratio {ours_hands / direct:.2f} (goal >= 0.9)")
    print("Renderers: frame time at 512x512 through the PettingZoo adapter (goal <= 8 ms):")
    for game_id in gamebot:
        rate = frames_per_second(game_id, 512, 512)
        print(f"  {game_id:<11} {1000 / rate:6.2f} ms per frame")
    frames = peer_frames(args.scratch)
    if frames:
        print("Renderers against PettingZoo's rgb_array at the same size (goal: ratio >= 2):")
        for game_id, (rate, shape) in frames.items():
            mine = frames_per_second(game_id, int(shape[1]), int(shape[0]))
            print(f"  {game_id:<11} PlayTrace {mine:8,.0f} fps   PettingZoo {rate:8,.0f} fps at "
                  f"{shape[1]}x{shape[0]}   ratio {mine / rate:.2f}")


if __name__ == "__main__":
    main()
