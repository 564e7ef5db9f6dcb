"""Sweeps on a real local Ray cluster: the same sessions as a local run, provider limits across the
cluster, lost workers retried without a second session, keys that reach workers in memory only."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from desktop.cli import main
from desktop.episode import session_recorder
from engine.sweep import SweepIndex, SweepRunner, parse_sweep
from engine.sweep.ray_runner import _install_keys, _key_holder, run_on_ray
from engine.sweep.run import EpisodeJob

SWEEP = """\
name = "ray-check"
seeds = [3, 4]
max_steps = 8
concurrency = 2
players = ["random", "sim"]

[[games]]
id = "tictactoe"
players = ["random", "minimax", "sim"]

[[games]]
id = "2048"
max_steps = 6
players = ["random", "greedy", "sim:careless"]

[harness]
sim_latency = 0.0
reflection = false
memory = [0, 2]
"""


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, resources={"model_server": 2}, log_to_driver=False)
    # The crashing recorder below is defined here; workers get it by value, not by importing tests.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        yield
    finally:
        ray.shutdown()


def _moves(folder: Path) -> dict[tuple[str, int], list[Any]]:
    """Every episode's applied moves and scores, by (cell, seed), read from its session."""
    out = {}
    with SweepIndex(folder, create=False) as index:
        for row in index.rows():
            events = [json.loads(line) for line in
                      (folder / row["session"] / "events.jsonl").read_text(encoding="utf-8").splitlines()]
            out[(row["cell"], row["seed"])] = [(e["data"]["actions"], e["data"]["scores"])
                                               for e in events if e["type"] == "action_applied"]
    return out


def test_ray_gives_the_local_sessions_move_for_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "grid.toml"
    path.write_text(SWEEP, encoding="utf-8")
    local = tmp_path / "local"
    runner = SweepRunner(parse_sweep(SWEEP), local, record=session_recorder)
    assert asyncio.run(runner.run()).done == 24
    assert main(["sweep", str(path), "--out", str(tmp_path / "ray"), "--ray", "local"]) == 0
    assert "24/24 done" in capsys.readouterr().err
    here, there = _moves(local), _moves(tmp_path / "ray")
    assert len(here) == 24 and here.keys() == there.keys()
    for key in here:
        assert here[key] == there[key], key
    assert any(len(moves) > 3 for moves in here.values())
    # Streamed back instead of written by the workers: the same again.
    streamed = tmp_path / "stream"
    stream = parse_sweep(SWEEP + '\n[ray]\nsessions = "stream"\n')
    runner = SweepRunner(stream, streamed, record=session_recorder)
    outcome = run_on_ray(runner, "local")
    assert outcome.done == 24 and not outcome.moved
    assert _moves(streamed) == here
    assert len(list((streamed / "sessions").iterdir())) == 24


def test_provider_limits_hold_across_the_cluster(tmp_path: Path) -> None:
    text = SWEEP.replace("seeds = [3, 4]", "seeds = [1, 2, 3]") + (
        '\n[limits]\nsim = 1\n\n[ray.tags]\nsim = { resources = { model_server = 1 } }\n')
    sweep = parse_sweep(text)
    sim_cells = {c.key for c in sweep.cells if "sim" in c.lineup.specs}
    sim_cell = next(c for c in sweep.cells if c.key in sim_cells)
    assert sweep.ray.resources_for(sim_cell) == (1.0, {"model_server": 1.0})
    runner = SweepRunner(sweep, tmp_path, record=session_recorder)
    assert run_on_ray(runner, "local").done == 36
    spans = []
    for row in SweepIndex(tmp_path, create=False).rows():
        if row["cell"] in sim_cells:
            manifest = json.loads((tmp_path / row["session"] / "manifest.json").read_text(encoding="utf-8"))
            spans.append((manifest["created_at"], manifest["finished_at"]))
    spans.sort()
    assert len(spans) == 6
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:], strict=False)), spans


def crashing_recorder(root: Path, extra: Any = None) -> Any:
    """Records as usual, except that the first episode with seed 3 kills its worker after its session
    folder was created (a machine lost half-way)."""
    inner = session_recorder(root, extra=extra)

    def record(match: Any) -> Any:
        recorder = inner(match)
        results = next(p for p in Path(root).parents if (p / "index.sqlite").exists())
        marker = results / "lost-a-worker"
        if match.seed == 3 and not marker.exists():
            marker.write_text("once", encoding="utf-8")
            os._exit(1)
        return recorder

    return record


def test_a_lost_worker_is_retried_without_a_second_session(tmp_path: Path) -> None:
    text = SWEEP.replace("seeds = [3, 4]", "seeds = [3]") + "\n[ray]\nmax_retries = 2\n"
    runner = SweepRunner(parse_sweep(text), tmp_path, record=crashing_recorder)
    outcome = run_on_ray(runner, "local")
    assert (tmp_path / "lost-a-worker").exists()
    assert outcome.done == 12 and outcome.failed == 0
    index = SweepIndex(tmp_path, create=False)
    rows = index.rows(None)
    assert len(rows) == 12 and {r["state"] for r in rows} == {"done"}
    assert sorted(p.name for p in (tmp_path / "sessions").iterdir()) == sorted(
        Path(r["session"]).name for r in rows)
    # The lost attempt's session was moved aside, not counted.
    assert len(outcome.moved) == 1 and len(index.moved()) == 1
    assert (tmp_path / outcome.moved[0]).is_dir()


def test_keys_reach_workers_in_memory_only(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-" + "k" * 32
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    job = EpisodeJob("c", 0, "tictactoe", {}, ("openai:gpt-4o",), {}, None, False, ("openai",))
    holder = _key_holder(ray, [job])
    assert holder is not None

    @ray.remote(runtime_env={"env_vars": {"OPENAI_API_KEY": ""}})
    def worker_sees(holder: Any) -> tuple[str, str]:
        before = os.environ.get("OPENAI_API_KEY", "")
        _install_keys(holder, ["openai"])
        return before, os.environ.get("OPENAI_API_KEY", "")

    before, after = ray.get(worker_sees.remote(holder))
    assert before == "" and after == secret
    ray.kill(holder)
    bots = EpisodeJob("c", 0, "tictactoe", {}, ("random",), {}, None, False, ())
    assert _key_holder(ray, [bots]) is None


def test_a_task_lost_for_good_leaves_its_episode_missing_until_the_next_run(tmp_path: Path) -> None:
    text = SWEEP.replace("seeds = [3, 4]", "seeds = [3]") + "\n[ray]\nmax_retries = 0\n"
    runner = SweepRunner(parse_sweep(text), tmp_path, record=crashing_recorder)
    outcome = run_on_ray(runner, "local")
    assert outcome.done == 11 and outcome.failed == 1
    assert "the Ray task failed" in outcome.errors[0]
    assert len(outcome.moved) == 1  # the lost attempt's session
    runner.close()
    again = SweepRunner(parse_sweep(text), tmp_path, record=session_recorder)
    outcome = run_on_ray(again, "local")
    assert outcome.played == 1 and outcome.done == 1
    rows = SweepIndex(tmp_path, create=False).rows(None)
    assert len(rows) == 12 and {r["state"] for r in rows} == {"done"}
