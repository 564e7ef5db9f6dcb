"""PlayTrace beside every Python peer, on the same work, in one run: the table of issue 24.

Each peer is installed as its users install it (``pip install``), in a virtualenv of its own under the
scratch folder (:mod:`benchmarks._peers`), never in PlayTrace's environment. Both sides run
interleaved, round after round (PlayTrace's figure, then the peer's, then again), and each is timed
in its process's CPU time (``time.process_time``), so other work on a shared machine skews the
ratios less than it skews the rates; the ratio printed is the median of the rounds' ratios. The
machine's load (``os.getloadavg``) is printed before and after: on a busy machine the figures are
lower bounds of both sides and the ratios noisier.

Rows (PlayTrace / peer, higher is better for PlayTrace):

* chess plies/s, uniform random play (``Game.play_random``) against python-chess driven directly
  (``list(board.legal_moves)``, ``push``, ``is_game_over``); a second row plays through
  ``legal_actions()`` and ``apply`` (which writes every legal move's SAN, what a prompt lists);
* 2048 steps/s through ``gymnasium.make`` against gymnasium-2048's ``TwentyFortyEight-v0``;
* Connect Four ``rgb_array`` frames/s through the PettingZoo adapter against PettingZoo's
  ``connect_four_v3`` at its frame size;
* Candy Crush ``rgb_array`` frames/s, a new state of a played session every frame, against
  tile-match-gym's frames at its size;
* Hold'em hands/s of random masked play through the PettingZoo adapter against PettingZoo's
  ``texas_holdem_no_limit_v6``, and of PlayTrace's engine against pokerkit driven directly;
* OpenSpiel's C++ games (``open_spiel``): random play steps/s of chess, Connect Four, 2048 and
  tic-tac-toe, the ceiling (no goal).

And PlayTrace's own figures with no peer: the board image a vision model gets (draw + PNG, fresh
states, 512x512 with labels, per game and the median; and a repeated state through the model's image
path, which caches by state), and a 1000x1000 ``rgb_array`` frame drawn into a kept array
(``engine.frames.frame(..., out=)``) against a fresh one, with the page faults each costs.

Run with ``.venv/bin/python benchmarks/bench_peers.py [--rounds 3] [--budget 1.0] [--scratch DIR]``
from the repository root. ``--only chess,2048`` runs some rows; ``--no-install`` uses only peers
already installed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import engine  # noqa: E402
from benchmarks._peers import run_peer  # noqa: E402

#: Environment for peers that draw with pygame: no window, no sound device.
HEADLESS = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


@dataclasses.dataclass(frozen=True)
class Peer:
    """A peer project: what ``pip install`` puts in its virtualenv and the script timing it (one
    round; ``%(budget)s`` CPU seconds per figure; prints one JSON object of figures)."""

    name: str
    packages: tuple[str, ...]
    probe: str
    script: str
    env: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the table: PlayTrace's rate against the peer's figure ``key``."""

    label: str
    peer: str
    key: str
    ours: Callable[[float, dict[str, Any]], float]
    goal: float | None
    unit: str


# -- the peers' sides ------------------------------------------------------------------------------

PYTHON_CHESS = Peer(
    "python-chess",
    ("chess>=1.10,<2",),
    "chess",
    """
import json, random, time, chess
rng = random.Random(0); board = chess.Board(); plies = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    if board.is_game_over():
        board = chess.Board(); continue
    board.push(rng.choice(list(board.legal_moves))); plies += 1
print(json.dumps({"plies": plies / (time.process_time() - started)}))
""",
)

GYMNASIUM_2048 = Peer(
    "gymnasium-2048",
    ("gymnasium-2048>=0.1,<0.2",),
    "gymnasium_2048",
    """
import json, time
import gymnasium, gymnasium_2048  # noqa: F401  (registers TwentyFortyEight-v0)
env = gymnasium.make("gymnasium_2048/TwentyFortyEight-v0")
env.reset(seed=0); env.action_space.seed(0)
steps = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    obs, r, term, trunc, info = env.step(env.action_space.sample()); steps += 1
    if term or trunc:
        env.reset()
print(json.dumps({"steps": steps / (time.process_time() - started)}))
""",
)

PETTINGZOO = Peer(
    "pettingzoo",
    ("pettingzoo[classic]>=1.24,<2",),
    "pettingzoo.classic.texas_holdem_no_limit_v6",
    """
import json, random, time
from pettingzoo.classic import connect_four_v3, texas_holdem_no_limit_v6
env = connect_four_v3.env(render_mode="rgb_array"); env.reset(seed=0)
rng = random.Random(0)
for _ in range(9):  # a position with discs on the board
    obs, r, term, trunc, info = env.last()
    env.step(rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
frame = env.render(); frames = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    frame = env.render(); frames += 1
fps = frames / (time.process_time() - started)
env = texas_holdem_no_limit_v6.env(); hands = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    env.reset(seed=hands)
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None); continue
        env.step(rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
    hands += 1
print(json.dumps({"c4_fps": fps, "c4_shape": list(frame.shape),
                  "holdem_hands": hands / (time.process_time() - started)}))
""",
    HEADLESS,
)

TILE_MATCH_GYM = Peer(
    "tile-match-gym",
    ("tile-match-gym>=1.0,<1.1",),
    "tile_match_gym",
    """
import json, time
import gymnasium, tile_match_gym  # noqa: F401  (registers TileMatch-v0)
env = gymnasium.make("TileMatch-v0", seed=1, num_rows=8, num_cols=8, num_colours=4, num_moves=50,
                     colourless_specials=[], colour_specials=[], render_mode="rgb_array")
env.reset(seed=0)
frame = env.render(); frames = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
    frame = env.render(); frames += 1
print(json.dumps({"fps": frames / (time.process_time() - started), "shape": list(frame.shape)}))
""",
    HEADLESS,
)

POKERKIT = Peer(
    "pokerkit",
    ("pokerkit>=0.7,<0.8",),
    "pokerkit",
    """
import json, random, time
from pokerkit import Automation, NoLimitTexasHoldem
automations = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
rng = random.Random(0); hands = 0; started = time.process_time()
while time.process_time() - started < %(budget)s:
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
print(json.dumps({"hands": hands / (time.process_time() - started)}))
""",
)

#: OpenSpiel's game names for PlayTrace's.
SPIEL_GAMES = {"chess": "chess", "connect4": "connect_four", "2048": "2048", "tictactoe": "tic_tac_toe"}

OPEN_SPIEL = Peer(
    "open_spiel",
    ("open_spiel",),
    "pyspiel",
    """
import json, random, time
import pyspiel
rng = random.Random(0); out = {}
for ours, name in %(games)r.items():
    game = pyspiel.load_game(name); steps = 0; started = time.process_time()
    state = game.new_initial_state()
    while time.process_time() - started < %(budget)s / 2:
        if state.is_terminal():
            state = game.new_initial_state(); continue
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0]); continue
        state.apply_action(rng.choice(state.legal_actions())); steps += 1
    out[ours] = steps / (time.process_time() - started)
print(json.dumps(out))
""",
)

PEERS = {p.name: p for p in (PYTHON_CHESS, GYMNASIUM_2048, PETTINGZOO, TILE_MATCH_GYM, POKERKIT, OPEN_SPIEL)}


# -- PlayTrace's side ------------------------------------------------------------------------------


def _rate(step: Callable[[], object], budget: float) -> float:
    """Calls of ``step`` per CPU second over ``budget`` CPU seconds."""
    count = 0
    started = time.process_time()
    while time.process_time() - started < budget:
        step()
        count += 1
    return count / (time.process_time() - started)


def random_play(game_id: str, *, notation: bool = False) -> Callable[[float, dict[str, Any]], float]:
    """Steps per second of uniform random play through ``Game.play_random`` (or, with ``notation``,
    ``legal_actions()`` and ``apply``), a new game from the next seed whenever one ends."""

    def measure(budget: float, _peer: dict[str, Any]) -> float:
        game = engine.make(game_id)
        rng = random.Random(0)
        state = game.initial_state(seed=0)
        seeds = iter(range(1, 10**9))

        def step() -> None:
            nonlocal state
            if state.is_over:
                state = game.initial_state(seed=next(seeds))
            if notation:
                state = state.apply(rng.choice(state.legal_actions()))
            else:
                state = game.play_random(state, rng)

        return _rate(step, budget)

    return measure


def gym_2048(budget: float, _peer: dict[str, Any]) -> float:
    """Steps per second of uniform random play through ``gymnasium.make("playtrace/2048-v0")``."""
    import gymnasium

    import engine.gym  # noqa: F401  (registers the environments)

    env = gymnasium.make("playtrace/2048-v0")
    env.reset(seed=0)
    env.action_space.seed(0)

    def step() -> None:
        _obs, _r, terminated, truncated, _info = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()

    return _rate(step, budget)


def connect4_frames(budget: float, peer: dict[str, Any]) -> float:
    """``rgb_array`` frames per second through the PettingZoo adapter at the peer's frame size."""
    from engine import pettingzoo as ptz

    height, width = int(peer["c4_shape"][0]), int(peer["c4_shape"][1])
    env = ptz.env("connect4", render_mode="rgb_array", render_size=(width, height))
    env.reset(seed=0)
    rng = random.Random(0)
    for _ in range(9):  # a position with discs on the board, as on the peer's side
        obs = env.last()[0]
        env.step(rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
    env.render()
    return _rate(env.render, budget)


def candycrush_frames(budget: float, peer: dict[str, Any]) -> float:
    """``rgb_array`` frames per second at the peer's size, each frame a new state of a played
    session (the greedy bot's, from seed 1), drawn as ``env.render`` draws them."""
    from engine.frames import frame

    height, width = int(peer["shape"][0]), int(peer["shape"][1])
    game = engine.make("candycrush")
    rng = random.Random(1)
    states = [game.initial_state(seed=1)]
    while len(states) < 50:
        states.append(
            game.initial_state(seed=len(states)) if states[-1].is_over else game.play_random(states[-1], rng)
        )
    shown = iter(range(10**12))
    frame("candycrush", states[0], width, height)
    return _rate(lambda: frame("candycrush", states[next(shown) % len(states)], width, height), budget)


def holdem_adapter(budget: float, _peer: dict[str, Any]) -> float:
    """Hands per second of random masked play through the PettingZoo adapter."""
    from engine import pettingzoo as ptz

    env = ptz.env("holdem")
    rng = random.Random(0)
    hands = iter(range(10**9))

    def hand() -> None:
        env.reset(seed=next(hands))
        for _agent in env.agent_iter():
            obs, _r, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))

    return _rate(hand, budget)


def holdem_engine(budget: float, _peer: dict[str, Any]) -> float:
    """Hands per second of random play through the state API."""
    game = engine.make("holdem")
    rng = random.Random(0)
    seeds = iter(range(10**9))

    def hand() -> None:
        state = game.initial_state(seed=next(seeds))
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))

    return _rate(hand, budget)


ROWS = (
    Row(
        "chess plies/s vs python-chess driven directly",
        "python-chess",
        "plies",
        random_play("chess"),
        0.8,
        "plies/s",
    ),
    Row(
        "  (through legal_actions + apply: every move's SAN)",
        "python-chess",
        "plies",
        random_play("chess", notation=True),
        None,
        "plies/s",
    ),
    Row("2048 through Gymnasium vs gymnasium-2048", "gymnasium-2048", "steps", gym_2048, 2.0, "steps/s"),
    Row("Connect Four rgb frames vs PettingZoo", "pettingzoo", "c4_fps", connect4_frames, 2.0, "frames/s"),
    Row(
        "Candy Crush frames, a new state each, vs tile-match-gym",
        "tile-match-gym",
        "fps",
        candycrush_frames,
        2.0,
        "frames/s",
    ),
    Row(
        "Hold'em via PettingZoo adapter vs PettingZoo no-limit",
        "pettingzoo",
        "holdem_hands",
        holdem_adapter,
        1.0,
        "hands/s",
    ),
    Row("Hold'em engine vs pokerkit driven directly", "pokerkit", "hands", holdem_engine, 0.9, "hands/s"),
    *(
        Row(
            f"OpenSpiel (C++) {game_id} random play (ceiling)",
            "open_spiel",
            game_id,
            random_play(game_id),
            None,
            "steps/s",
        )
        for game_id in SPIEL_GAMES
    ),
)


# -- PlayTrace's own figures -------------------------------------------------------------------------


def model_images(rounds: int = 5) -> tuple[dict[str, float], float, float]:
    """Milliseconds of the board image a vision model gets (512x512 with labels, drawn and encoded
    as PNG) per game on fresh states (the median of ``rounds`` passes over 20 states of random
    play), their median over the games, and the median over the games of a repeated state through
    the model's image path (``desktop.episode.png_renderer``, which caches by state)."""
    import renderers
    from desktop.episode import png_renderer

    renderers.ensure_gui_app()
    fresh: dict[str, float] = {}
    again: list[float] = []
    for game_id in engine.list_games():
        game = engine.make(game_id)
        rng = random.Random(1)
        states = [game.initial_state(seed=1)]
        while len(states) < 20 and not states[-1].is_over:
            states.append(game.play_random(states[-1], rng))
        renderer = renderers.get(game_id)
        renderer.png(states[0], 512, 512, grid_labels=True)  # the sizes' pictures drawn once, fonts loaded
        passes = []
        for _ in range(rounds):
            started = time.process_time()
            for state in states:
                renderer.png(state, 512, 512, grid_labels=True)
            passes.append((time.process_time() - started) * 1000 / len(states))
        fresh[game_id] = statistics.median(passes)
        render = png_renderer(game_id, 512)
        if render is not None:
            render(states[-1])
            started = time.process_time()
            for _ in range(200):
                render(states[-1])
            again.append((time.process_time() - started) * 1000 / 200)
    return fresh, statistics.median(fresh.values()), statistics.median(again) if again else float("nan")


def thrown_away_frames(size: int = 1000, count: int = 60) -> dict[str, tuple[float, float]]:
    """Milliseconds and minor page faults per ``size`` x ``size`` Connect Four frame: drawn into a
    kept array (``out=``) and as a fresh array each time."""
    import numpy as np

    from engine.frames import frame

    game = engine.make("connect4")
    state, rng = game.initial_state(seed=0), random.Random(0)
    for _ in range(9):
        state = game.play_random(state, rng)
    out = np.empty((size, size, 3), dtype=np.uint8)
    results = {}
    for label, draw in (
        ("into a kept array (out=)", lambda: frame("connect4", state, size, size, out=out)),
        ("a fresh array each frame", lambda: frame("connect4", state, size, size)),
    ):
        draw()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        started = time.process_time()
        for _ in range(count):
            draw()
        ms = (time.process_time() - started) * 1000 / count
        results[label] = (ms, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / count)
    return results


# -- the run -----------------------------------------------------------------------------------------


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scratch",
        type=pathlib.Path,
        default=pathlib.Path(tempfile.gettempdir()) / "playtrace-peers",
        help="where each peer's virtualenv is made (one folder per peer)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per row (median ratio)")
    parser.add_argument("--budget", type=float, default=1.0, help="CPU seconds per figure per round")
    parser.add_argument("--only", default="", help="comma-separated peers to run (default: all)")
    parser.add_argument("--no-install", action="store_true", help="use only peers already installed")
    parser.add_argument("--no-own", action="store_true", help="skip PlayTrace's own figures")
    args = parser.parse_args(argv)
    wanted = {p.strip() for p in args.only.split(",") if p.strip()} or set(PEERS)
    print(f"Before: {_load()}")
    ratios: dict[str, list[float]] = {}
    rates: dict[str, list[tuple[float, float]]] = {}
    missing: set[str] = set()
    for round_ in range(args.rounds):
        for name, peer in PEERS.items():
            if name not in wanted or name in missing:
                continue
            rows = [row for row in ROWS if row.peer == name]
            # Interleaved: the peer's round, then PlayTrace's (some of ours run at the peer's frame size).
            figures = run_peer(
                args.scratch / name,
                packages=list(peer.packages),
                probe=peer.probe,
                script=peer.script % {"budget": args.budget, "games": SPIEL_GAMES},
                name=name,
                env=peer.env,
                install=not args.no_install,
            )
            if figures is None:
                missing.add(name)
                print(f"  {name}: not available; its rows are skipped")
                continue
            for row in rows:
                ours = row.ours(args.budget, figures)
                theirs = float(figures[row.key])
                ratios.setdefault(row.label, []).append(ours / theirs)
                rates.setdefault(row.label, []).append((ours, theirs))
        print(f"  round {round_ + 1} of {args.rounds} done ({_load()})", flush=True)
    print()
    print(f"| figure | PlayTrace | peer | ratio (median of {args.rounds}) | goal |")
    print("|---|---|---|---|---|")
    for row in ROWS:
        if row.label not in ratios:
            continue
        ours = statistics.median(r[0] for r in rates[row.label])
        theirs = statistics.median(r[1] for r in rates[row.label])
        ratio = statistics.median(ratios[row.label])
        goal = "—" if row.goal is None else f"≥ {row.goal:g}× ({'met' if ratio >= row.goal else 'not met'})"
        print(f"| {row.label} | {ours:,.0f} {row.unit} | {theirs:,.0f} | {ratio:.2f}× | {goal} |")
    if not args.no_own:
        print()
        fresh, median_fresh, median_again = model_images()
        print("Board image for a vision model, 512x512 with labels, draw + PNG, ms (fresh states):")
        print("  " + ", ".join(f"{g} {ms:.2f}" for g, ms in fresh.items()))
        print(
            f"  median over {len(fresh)} games: {median_fresh:.2f} ms (goal ≤ 1 ms); a repeated state "
            f"through the model's image path (cached by state): {median_again:.3f} ms"
        )
        print("A 1000x1000 Connect Four rgb_array frame:")
        for label, (ms, faults) in thrown_away_frames().items():
            print(f"  {label:<26} {ms:6.2f} ms   {faults:7.1f} page faults per frame")
    print(f"After: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
