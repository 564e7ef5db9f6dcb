"""Opening and showing a long model session costs memory for its number of events, not for the
megabytes of prompts and reasoning they hold (issue 7: 169 MB of events took 800 MB)."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from pathlib import Path

from desktop.cli.sessions import session_report
from engine import events as ev
from engine.events import Event
from sessions import SessionWriter, load_session

PLAYER = {"seat": 0, "spec": "sim:test", "label": "Sim", "kind": "model"}
#: Prompt and reasoning text per step, as a model session holds (about 17 KB a step in the issue).
_TEXT_PER_STEP = 16_000


def write_model_session(root: Path, steps: int) -> Path:
    """A synthetic model session: per step a prompt, a model call, reasoning, a decision, the action."""
    rng = random.Random(steps)
    words = [f"w{i}" for i in range(500)]
    pool = [" ".join(rng.choice(words) for _ in range(_TEXT_PER_STEP // 8)) for _ in range(8)]

    def text(n: int) -> str:
        return f"{rng.random()} {rng.choice(pool)}"[:n]

    writer = SessionWriter.create(root, game="fake", players=[PLAYER], seed=1, options={}, fsync=False)
    writer.close("completed")
    # The lines are written as the writer writes them, without its secret scrubbing (which would
    # make this test slow for nothing it checks).
    seq = 0

    def line(e: Event) -> str:
        nonlocal seq
        seq += 1
        return (
            json.dumps(
                {
                    "v": 1,
                    "seq": seq - 1,
                    "ts": "2026-01-01T00:00:00.000Z",
                    "type": e.type,
                    "step": e.step,
                    "seat": e.seat,
                    "call": e.call,
                    "data": e.data,
                }
            )
            + "\n"
        )

    with open(writer.path / "events.jsonl", "w", encoding="utf-8") as fh:
        fh.write(
            line(
                Event(
                    ev.SESSION_STARTED,
                    {"game": "fake", "options": {}, "seed": 1, "players": [PLAYER], "state": {"n": 0}},
                    step=0,
                )
            )
        )
        for k in range(steps):
            fh.write(line(Event(ev.TURN_STARTED, {"seats": [0], "legal": {"0": ["inc"]}}, step=k)))
            fh.write(
                line(Event(ev.PROMPT_BUILT, {"text": text(_TEXT_PER_STEP // 2)}, step=k, seat=0, call=k))
            )
            fh.write(
                line(
                    Event(
                        ev.MODEL_CALL_FINISHED,
                        {"input_tokens": 900, "output_tokens": 300, "cost_usd": 0.001},
                        step=k,
                        seat=0,
                        call=k,
                    )
                )
            )
            fh.write(line(Event(ev.REASONING, {"text": text(_TEXT_PER_STEP // 2)}, step=k, seat=0, call=k)))
            fh.write(line(Event(ev.DECISION, {"action": "inc", "source": "model"}, step=k, seat=0, call=k)))
            fh.write(
                line(
                    Event(
                        ev.ACTION_APPLIED,
                        {
                            "actions": {"0": "inc"},
                            "rewards": [1],
                            "scores": [k + 1],
                            "state": {"n": k + 1},
                            "changed": True,
                            "is_over": False,
                        },
                        step=k,
                    )
                )
            )
        fh.write(
            line(
                Event(
                    ev.SESSION_FINISHED,
                    {"status": "completed", "scores": [steps], "winner": None, "steps": steps},
                    step=steps,
                )
            )
        )
    return writer.path


def show_peak(folder: Path) -> tuple[int, dict]:
    """Peak traced memory of what `playtrace show` does: load, summarise, tally the model calls,
    and look at a few steps."""
    gc.collect()
    tracemalloc.start()
    try:
        session = load_session(folder)
        report = session_report(session)
        for k in (0, session.num_steps // 2, session.num_steps - 1):
            session.events_for_step(k)
            session.state_json_at(k)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, report


def test_show_memory_stays_near_one_step_not_the_whole_log(root: Path) -> None:
    small, large = write_model_session(root, 100), write_model_session(root, 800)
    size = (large / "events.jsonl").stat().st_size
    assert size > 700 * _TEXT_PER_STEP  # about 13 MB of events
    peak_small, _ = show_peak(small)
    peak_large, report = show_peak(large)
    assert report["steps"] == 800 and report["model"]["0"]["calls"] == 800
    # Parsed whole, the log took several times its size; now it costs a small index per event.
    assert peak_large < size / 8
    # 700 more steps cost less than 700 bytes each beyond the index: no step's text stays resident.
    assert peak_large - peak_small < 700 * 6 * 200
