"""Super Mario Bros speed: emulator frames per second through nes-py alone, through PlayTrace's states,
through the Gymnasium environment, through the match loop in real time (a person who never presses a
key, so every 1/60 s tick plays the default ``noop``), and the renderer's frame time.

Run with ``python benchmarks/bench_mario.py`` from the repository root (about 15 seconds). Needs the
``mario`` extra (``pip install 'playtrace[mario]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import sys
import time

# Allow running the script directly from a checkout without installing PlayTrace.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import engine  # noqa: E402


def raw_nes_py(seconds: float) -> float:
    """Frames per second of nes-py's emulator stepped directly (the ceiling for everything else)."""
    from engine.games.mario.compat import NESEnv, rom_path

    env = NESEnv(rom_path())
    env.reset()
    frames, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        env._frame_advance(0x80 if frames % 90 < 60 else 0x81)
        frames += 1
    rate = frames / (time.perf_counter() - started)
    env.close()
    return rate


def playtrace_states(seconds: float, frames: int) -> tuple[float, float]:
    """Actions and emulator frames per second through :class:`MarioState` (the emulator plus the
    memory reads after every action; deaths skip their animation inside one action)."""
    game = engine.make("mario", frames=frames)
    state = game.initial_state(seed=0)
    state.facts  # noqa: B018 (boots the emulator outside the timing)
    steps = ran = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        if state.is_over:
            state = game.initial_state(seed=steps)
        state = state.apply("right_a" if steps % 40 < 15 else "right")
        ran += state.facts.frames
        steps += 1
    elapsed = time.perf_counter() - started
    return steps / elapsed, ran / elapsed


def gymnasium_env(seconds: float) -> float:
    """Steps per second through ``gymnasium.make("playtrace/mario-v0")`` (frame observations)."""
    import gymnasium

    import engine.gym  # noqa: F401

    env = gymnasium.make("playtrace/mario-v0")
    env.reset(seed=0)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        _, _, terminated, truncated, _ = env.step(2 if steps % 40 < 15 else 1)
        steps += 1
        if terminated or truncated:
            env.reset(seed=steps)
    env.close()
    return steps / (time.perf_counter() - started)


class _Idle:
    """A person who never presses a key: every tick times out to the game's default action."""

    kind, spec, label = "human", "human", "Idle person"

    async def act(self, observation: object) -> object:
        await asyncio.Event().wait()


def match_real_time(seconds: float, *, record: bool) -> tuple[float, float]:
    """Ticks per second the match loop plays with a 1/60 s tick and an idle person (with the session
    recorded to a temporary folder when ``record``), and the share of ticks that kept the pace (a tick
    is late when the whole step took over 1.5 ticks)."""
    import tempfile

    from engine.match import Match
    from sessions import SessionWriter

    game = engine.make("mario")
    ticks = int(seconds * 60)
    match = Match(game, [_Idle()], seed=0, max_steps=ticks)  # type: ignore[list-item]
    match.state.facts  # noqa: B018
    stamps: list[float] = []
    match.subscribe(lambda e: stamps.append(time.perf_counter()) if e.type == "action_applied" else None)
    with tempfile.TemporaryDirectory() as folder:
        writer = SessionWriter.for_match(folder, match, title="bench") if record else None
        started = time.perf_counter()
        asyncio.run(match.run())
        elapsed = time.perf_counter() - started
        if writer is not None:
            writer.close()
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    on_time = sum(1 for g in gaps if g <= 1.5 / 60) / max(1, len(gaps))
    return len(stamps) / elapsed, on_time


def render_ms(count: int) -> float:
    """Milliseconds to draw a 1280 x 800 picture of a state just played."""
    import renderers

    renderer = renderers.get("mario")
    game = engine.make("mario")
    state = game.initial_state(seed=0)
    renderer.render(state, 1280, 800)  # fonts and the first frame outside the timing
    started = time.perf_counter()
    for _ in range(count):
        state = state.apply("right")
        renderer.render(state, 1280, 800)
    return (time.perf_counter() - started) * 1000 / count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time spent on each measurement")
    args = parser.parse_args(argv)
    if "mario" not in engine.list_games():
        print("Super Mario Bros is not installed here: pip install 'playtrace[mario]'")
        return 1
    s = args.seconds
    print(f"nes-py emulator alone          {raw_nes_py(s):8.0f} frames/s")
    for frames in (1, 4):
        actions, emulated = playtrace_states(s, frames)
        print(f"PlayTrace states, frames={frames}     {actions:8.0f} actions/s ({emulated:.0f} frames/s)")
    print(f"Gymnasium env (frame obs)      {gymnasium_env(s):8.0f} steps/s")
    for record in (False, True):
        rate, on_time = match_real_time(s, record=record)
        what = "match loop + session writer " if record else "match loop, 1/60 s ticks     "
        print(f"{what}  {rate:8.1f} ticks/s ({on_time:.0%} on time; the NES runs 60)")
    print(f"renderer, 1280 x 800           {render_ms(30):8.1f} ms a picture (apply included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
