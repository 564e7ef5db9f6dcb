"""Session layer benchmark: write throughput with per-step fsync, load and seek on a long session,
the memory it takes to open, and catalogue listing.

Run from the repository root::

    .venv/bin/python benchmarks/bench_sessions.py [--steps 10000]

Everything happens in a temporary folder with the real :class:`sessions.SessionWriter`.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine import events as ev  # noqa: E402
from engine.events import Event  # noqa: E402
from sessions import Catalogue, SessionWriter, load_session  # noqa: E402

PLAYER = {"seat": 0, "spec": "random", "label": "Random", "kind": "bot"}


def _2048_states(n: int, seed: int = 0) -> list[tuple[str, dict]]:
    """``n`` (action, state JSON) pairs from real random 2048 games, one game after another."""
    game = engine.make("2048")
    rng = random.Random(seed)
    out: list[tuple[str, dict]] = []
    state = game.initial_state(seed=seed)
    while len(out) < n:
        if state.is_over:
            state = game.initial_state(seed=len(out))
        action = rng.choice(state.legal_actions())
        state = state.apply(action)
        out.append((action, state.to_json()))
    return out


def write_session(root: Path, steps: int, fsync_budget_s: float = 30.0) -> tuple[Path, int, float, int]:
    """Write a ``steps``-step session (3 events per step).

    Returns the folder, the events written with per-step fsync, the seconds they took, and how many
    steps were fsynced. On a very slow disk, fsync stops after ``fsync_budget_s`` so that the
    benchmark stays short; the throughput is then measured on the fsynced part only.
    """
    moves = _2048_states(steps)
    initial = engine.make("2048").initial_state(seed=0).to_json()
    t0 = time.perf_counter()
    writer = SessionWriter.create(root, game="2048", players=[PLAYER], seed=0, options={}, title="bench")
    writer.append(
        Event(
            ev.SESSION_STARTED,
            {"game": "2048", "options": {}, "seed": 0, "players": [PLAYER], "state": initial},
            step=0,
        )
    )
    legal = {"0": ["up", "down", "left", "right"]}
    fsynced, fsync_events, fsync_secs = steps, 0, 0.0
    for k, (action, state) in enumerate(moves):
        writer.append(Event(ev.TURN_STARTED, {"seats": [0], "legal": legal}, step=k))
        writer.append(
            Event(
                ev.DECISION,
                {"action": action, "source": "bot", "rationale": "uniform over 4"},
                step=k,
                seat=0,
                call=k + 1,
            )
        )
        writer.append(
            Event(
                ev.ACTION_APPLIED,
                {
                    "actions": {"0": action},
                    "rewards": [0],
                    "scores": [state["merged_sum"]],
                    "state": state,
                    "changed": True,
                    "is_over": False,
                },
                step=k,
            )
        )
        if writer.fsync and k % 100 == 99 and time.perf_counter() - t0 > fsync_budget_s:
            fsynced, fsync_events, fsync_secs = k + 1, writer.seq, time.perf_counter() - t0
            writer.fsync = False
    writer.append(
        Event(
            ev.SESSION_FINISHED,
            {"status": "max_steps", "scores": [0], "winner": None, "steps": steps},
            step=steps,
        )
    )
    writer.close()
    if fsynced == steps:
        fsync_events, fsync_secs = writer.seq, time.perf_counter() - t0
    return writer.path, fsync_events, fsync_secs, fsynced


def show_memory(folder: Path) -> int:
    """Peak traced memory of what ``playtrace show`` does with ``folder``: open it, summarise it,
    go through every event once and seek a few steps."""
    tracemalloc.start()
    try:
        session = load_session(folder)
        session.summary()
        for _event in session.events:
            pass
        for k in range(0, session.num_steps, max(1, session.num_steps // 10)):
            session.events_for_step(k)
            session.state_json_at(k)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=2_000, help="manifests for the catalogue figure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="playtrace-bench-") as tmp:
        root = Path(tmp) / "sessions"
        folder, n_events, secs, fsynced = write_session(root, args.steps)
        size = (folder / "events.jsonl").stat().st_size
        print(
            f"write : {n_events} events ({fsynced} steps, fsync per step on the sync thread, "
            "drained at close) "
            f"in {secs:.2f} s = {n_events / secs:,.0f} events/s, {fsynced / secs:,.0f} steps/s; "
            f"events.jsonl {size / 1e6:.1f} MB"
        )
        if fsynced < args.steps:
            print(
                f"        (slow disk: the remaining {args.steps - fsynced} steps were written without fsync)"
            )

        loads = []
        for _ in range(3):
            t0 = time.perf_counter()
            session = load_session(folder)
            loads.append(time.perf_counter() - t0)
        rng = random.Random(1)
        targets = [rng.randint(0, session.num_steps) for _ in range(100)]
        t0 = time.perf_counter()
        for k in targets:
            session.state_json_at(k)
            session.events_for_step(k)
        seek = (time.perf_counter() - t0) / len(targets)
        t0 = time.perf_counter()
        game = session.game()
        for k in targets:
            game.state_from_json(session.state_json_at(k))
        seek_state = (time.perf_counter() - t0) / len(targets)
        print(
            f"load  : {session.num_steps} steps, {len(session.events)} events "
            f"in {statistics.median(loads):.3f} s "
            f"(median of 3)"
        )
        print(
            f"seek  : state_json_at + events_for_step {seek * 1e6:.1f} us/seek, "
            f"engine State rebuilt {seek_state * 1e6:.1f} us/seek (average of 100 random steps)"
        )

        # Free the big session first, so the listing is not charged for garbage-collecting it.
        del session, game
        gc.collect()
        print(f"memory: {show_memory(folder) / 1e6:.1f} MB peak to open, summarise and read every event "
              f"of the {size / 1e6:.1f} MB log (traced Python allocations; goal < 200 MB at 169 MB)")
        gc.collect()
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
        for i in range(args.sessions):
            f = root / f"20260101-000000_2048_{i:04x}"
            f.mkdir()
            manifest.update(id=f.name, created_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z")
            (f / "manifest.json").write_text(json.dumps(manifest), "utf-8")
            # The same log, linked: a listing checks its size against the manifest, not its content.
            (f / "events.jsonl").hardlink_to(folder / "events.jsonl")
        cat = Catalogue(root)
        t0 = time.perf_counter()
        rows = cat.list()
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        cat.list()
        warm = time.perf_counter() - t0
        print(
            f"list  : {len(rows)} sessions in {cold * 1e3:.0f} ms (no index), "
            f"{warm * 1e3:.0f} ms (cached index)"
        )


if __name__ == "__main__":
    main()
