"""What keeps a batch's CPU per step small: shared clients, grouped fsyncs, a progress display that reads
the outcome a few times a second instead of working per event, and redaction that skips the regular
expression on text that cannot hold a key.

Everything runs against the loopback server (127.0.0.1) or in memory, in a temporary folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop import cli
from desktop.cli import run as cli_run
from engine import events as ev
from engine.batch import BatchOutcome, BatchPlan, BatchRunner, EpisodeStats
from engine.events import Event
from engine.llm.pool import ClientPool, SharedClient
from sessions import writer as writer_module
from sessions.redact import _VALUE_RE, MASK, Redactor
from sessions.writer import SessionWriter
from tests.loopback import Answer, LoopbackServer

PLAYER = {"seat": 0, "spec": "random", "label": "Random", "kind": "bot"}


def moves_server(server: LoopbackServer) -> None:
    """Answer every call with a valid two-line 2048 answer, cycling the moves."""
    moves = iter(["left", "down", "right", "up"] * 100)

    def next_answer() -> Any:
        return Answer(f"thought: corner.\nmove: {next(moves)}")

    server._next = next_answer  # type: ignore[method-assign]


# -- one client per server, shared by every episode ---------------------------------------------------


def test_a_batch_shares_one_client_per_server_and_closes_it(loopback: LoopbackServer) -> None:
    moves_server(loopback)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    plan = BatchPlan("2048", specs=[spec], episodes=6, concurrency=3, max_steps=2,
                     model_options={"reflection": False})
    seen: list[Any] = []

    def record(match: Any) -> Any:
        seen.append(match.players[0].client)
        return _NullRecorder()

    outcome = asyncio.run(BatchRunner(plan, record=record).run())
    assert [s.status for s in outcome.stats] == ["max_steps"] * 6
    assert all(isinstance(c, SharedClient) for c in seen)
    inner = {id(c.inner) for c in seen}
    assert len(inner) == 1  # six episodes, one SDK client (one TLS context, one connection pool)
    assert seen[0].inner._closed  # closed with the batch
    assert len(plan.clients) == 0
    assert len(loopback.posts()) == 12


def test_plans_given_one_pool_share_it_and_leave_it_open(loopback: LoopbackServer) -> None:
    moves_server(loopback)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    pool = ClientPool()
    plans = [BatchPlan("2048", specs=[spec], episodes=1, seed=i, max_steps=1, client_pool=pool,
                       model_options={"reflection": False}) for i in range(3)]

    async def main() -> list[Any]:
        outcomes = await asyncio.gather(*(BatchRunner(plan).run() for plan in plans))
        assert len(pool) == 1 and not pool.clients[0]._closed  # one client for the three plans, still open
        await pool.aclose()
        return outcomes

    outcomes = asyncio.run(main())
    assert [o.stats[0].status for o in outcomes] == ["max_steps"] * 3
    assert len(loopback.posts()) == 3


def test_the_pool_opens_a_new_lane_only_when_the_others_are_full() -> None:
    made: list[Any] = []

    class Fake:
        provider, simulated = "local", False

        async def aclose(self) -> None:
            self.closed = True

    def make(spec: str, **opts: Any) -> tuple[Any, str]:
        made.append(Fake())
        return made[-1], "m"

    pool = ClientPool(make=make, lane_size=2)
    spec = "local:m@http://127.0.0.1:9/v1"
    leases = [pool.lease(spec)[0] for _ in range(5)]
    assert len(made) == 3 and len(pool) == 3
    assert [sum(lease.inner is c for lease in leases) for c in made] == [2, 2, 1]

    async def finish() -> None:
        await leases[0].aclose()
        await leases[0].aclose()  # closing a lease twice frees one place only
        again = pool.lease(spec)[0]
        assert again.inner is made[0] and len(made) == 3
        other = pool.lease(spec, timeout_s=5.0)[0]  # other transport options: another client
        assert other.inner is made[3]
        await pool.aclose()

    asyncio.run(finish())
    assert all(getattr(c, "closed", False) for c in made) and len(pool) == 0
    with pytest.raises(ValueError, match="not pooled"):
        pool.lease("sim")


def test_a_lease_never_shows_the_key(loopback: LoopbackServer) -> None:
    key = "sk-live-" + "7" * 32
    pool = ClientPool()
    lease, model = pool.lease(f"local:loop-model@{loopback.openai_base_url}", api_key=key)
    assert model == "loop-model"
    for text in (repr(lease), str(lease), repr(pool.clients), repr(lease.limiter)):
        assert key not in text
    asyncio.run(pool.aclose())


def test_share_clients_off_gives_every_player_its_own(loopback: LoopbackServer) -> None:
    plan = BatchPlan("2048", specs=[f"local:loop-model@{loopback.openai_base_url}"], episodes=2,
                     share_clients=False)
    first, second = plan.build_players(0), plan.build_players(1)
    assert not isinstance(first[0].client, SharedClient)
    assert first[0].client is not second[0].client
    asyncio.run(first[0].client.aclose())
    asyncio.run(second[0].client.aclose())


class _NullRecorder:
    path = None

    def listener(self, event: Event) -> None:
        pass

    def close(self, status: str) -> None:
        pass


# -- group commit -------------------------------------------------------------------------------------


def _step(writer: SessionWriter, step: int) -> None:
    writer.append(Event(ev.TURN_STARTED, step=step, seat=0, data={}))
    writer.append(Event(ev.ACTION_APPLIED, step=step, seat=0, data={"action": "left", "scores": [step]}))


def test_fsyncs_of_many_sessions_are_grouped_and_close_waits_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    entered = threading.Event()
    synced: list[int] = []
    real_fsync = os.fsync

    def slow_first_fsync(fd: int) -> None:
        if threading.current_thread().name == "playtrace-session-sync":
            entered.set()
            assert gate.wait(10)
            synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(writer_module.os, "fsync", slow_first_fsync)
    writers = [SessionWriter.create(tmp_path, game="2048", players=[PLAYER], seed=i, options={})
               for i in range(3)]
    _step(writers[0], 0)
    assert entered.wait(10)  # the sync thread is busy with a round (held by the gate)
    requests = 0
    for step in range(1, 6):
        for w in writers:
            _step(w, step)
            requests += 1
    # Every line is in the operating system's hands already: a killed process would lose none.
    for w in writers:
        lines = (w.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == w.seq and json.loads(lines[-1])["type"] == ev.ACTION_APPLIED
    assert writers[1].durable_seq == -1  # ...but nothing of it is known to be on disk yet
    gate.set()
    for w in writers:
        assert w.wait_durable(10)
        assert w.durable_seq == w.seq - 1
    event_fds = {w._fd for w in writers}
    # 15 step syncs asked for while the thread was busy became one sync per file.
    assert sum(1 for fd in synced if fd in event_fds) <= 1 + len(writers)
    assert requests == 15
    for w in writers:
        _step(w, 9)
        w.close()  # returns at once: the last sync and the closing of the log are the sync thread's
        assert w.closed
    assert writer_module.wait_for_syncs(10)
    assert all(w._fh.closed and w.durable_seq == w.seq - 1 for w in writers)


def test_close_rewrites_the_manifest_only_when_something_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = SessionWriter.create(tmp_path, game="2048", players=[PLAYER], seed=1, options={})
    _step(writer, 0)
    writer.append(Event(ev.SESSION_FINISHED, data={"status": "completed", "scores": [0], "steps": 1}))
    writes: list[Path] = []
    real = writer_module._atomic_write_json

    def spy(path: Path, data: Any, *, sync_dir: bool) -> None:
        writes.append(path)
        real(path, data, sync_dir=sync_dir)

    monkeypatch.setattr(writer_module, "_atomic_write_json", spy)
    writer.close("completed")
    assert writes == []  # session_finished wrote this very summary already
    manifest = json.loads((writer.path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "completed" and manifest["steps"] == 1
    other = SessionWriter.create(tmp_path, game="2048", players=[PLAYER], seed=2, options={})
    other.append(Event(ev.SESSION_FINISHED, data={"status": "completed", "scores": [0], "steps": 0}))
    writes.clear()
    other.close("aborted")  # a different status is written
    assert writes == [other.path / "manifest.json"]
    assert json.loads(writes[0].read_text(encoding="utf-8"))["status"] == "aborted"


# -- the progress display -----------------------------------------------------------------------------


def test_progress_reads_the_outcome_at_each_redraw_not_per_event() -> None:
    plan = BatchPlan("2048", episodes=3)
    outcome = BatchOutcome(plan=plan, stats=[EpisodeStats(index=i, seed=i, num_seats=1) for i in range(3)])
    progress = cli_run._Progress(3, show_cost=True, enabled=True)
    progress.follow(outcome)
    with progress:
        bar = progress._progress
        assert bar.live.refresh_per_second == cli_run._Progress.REFRESH_PER_SECOND <= 5
        outcome.stats[0].status, outcome.stats[0].steps, outcome.stats[0].cost_usd = "completed", 7, 0.5
        outcome.stats[1].steps = 3
        bar.get_renderable()  # what rich's refresh thread does a few times a second
        task = bar.tasks[0]
        assert task.completed == 1 and task.fields["steps"] == 10 and task.fields["cost"] == "$0.5000"


def test_run_follows_no_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    made: list[dict[str, Any]] = []
    real = cli_run.BatchRunner

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(cli_run, "BatchRunner", spy)
    code = cli.main(["run", "2048", "--player", "random", "--episodes", "2", "--max-steps", "3",
                     "--out", str(tmp_path)])
    assert code == 0
    assert len(made) == 1 and made[0].get("on_event") is None and made[0].get("on_episode") is None
    assert "finished 2/2" in capsys.readouterr().out


# -- redaction skips the expression on text that cannot hold a key -------------------------------------

_PIECES = st.sampled_from(["sk-", "SK-", "ant-", "AIza", "gsk_", "xai-", "hf_", "ghp_", "github_pat_",
                           "Bearer ", "bearer ", "Authorization: ", "api_key=", "API-KEY:", "apikey ",
                           "token=", "ToKeN: ", "secret=", "password:", "ſecret=", "apİ_key=", "\u212aey",
                           "toKen=", "ı", "x", "0123456789abcdef", "_", "-", " ", "=", "\n", "é"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_redaction_with_hints_equals_the_full_expression(text: str) -> None:
    redactor = Redactor()
    expected = text
    for literal in redactor._literals:
        expected = expected.replace(literal, MASK)
    expected = _VALUE_RE.sub(MASK, expected)
    assert redactor.text(text) == expected


def test_a_long_prompt_with_a_key_is_still_masked() -> None:
    prompt = "Rules of 2048. " * 300 + "and the key sk-proj-abcdefghijklmnop0123 at the end"
    out = Redactor().text(prompt)
    assert "sk-proj" not in out and out.endswith(f"key {MASK} at the end")


# -- records made off the event loop ------------------------------------------------------------------


class _ThreadRecorder(_NullRecorder):
    def __init__(self, closed: list[str], done: asyncio.Event, loop: asyncio.AbstractEventLoop) -> None:
        self.thread = threading.current_thread().name
        self._closed, self._done, self._loop = closed, done, loop

    def close(self, status: str) -> None:
        self._closed.append(status)
        self._done.set()


def test_records_are_made_on_a_worker_thread() -> None:
    made: list[_ThreadRecorder] = []
    closed: list[str] = []

    async def main() -> BatchOutcome:
        done = asyncio.Event()
        loop = asyncio.get_running_loop()

        def record(match: Any) -> _ThreadRecorder:
            made.append(_ThreadRecorder(closed, done, loop))
            return made[-1]

        plan = BatchPlan("2048", episodes=3, concurrency=3, max_steps=2)
        return await BatchRunner(plan, record=record, record_in_thread=True).run()

    outcome = asyncio.run(main())
    assert [s.status for s in outcome.stats] == ["max_steps"] * 3
    assert len(made) == 3 and all(r.thread != threading.main_thread().name for r in made)
    assert closed == ["max_steps"] * 3


def test_a_record_still_being_made_when_the_batch_is_cancelled_is_closed_as_aborted() -> None:
    entered, gate = threading.Event(), threading.Event()
    closed: list[str] = []

    async def main() -> None:
        done = asyncio.Event()
        loop = asyncio.get_running_loop()

        def record(match: Any) -> _ThreadRecorder:
            entered.set()
            assert gate.wait(10)
            return _ThreadRecorder(closed, done, loop)

        runner = BatchRunner(BatchPlan("2048", episodes=1, max_steps=2), record=record, record_in_thread=True)
        task = asyncio.create_task(runner.run())
        assert await loop.run_in_executor(None, entered.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert closed == []  # the record is not made yet
        gate.set()
        await asyncio.wait_for(done.wait(), 10)
        assert runner.outcome.interrupted

    asyncio.run(main())
    assert closed == ["aborted"]


def test_a_sweeps_episodes_share_one_client(loopback: LoopbackServer, tmp_path: Path) -> None:
    from engine.llm.pool import SharedClient as Shared
    from engine.sweep.run import SweepRunner
    from engine.sweep.spec import parse_sweep

    moves_server(loopback)
    sweep = parse_sweep(
        f'seeds = [0, 1, 2, 3]\nmax_steps = 2\nplayers = ["local:loop-model@{loopback.openai_base_url}"]\n'
        '[[games]]\nid = "2048"\n[harness]\nreflection = false\n'
    )
    seen: list[Any] = []

    def record(root: Path, **_extra: Any) -> Any:
        def make(match: Any) -> Any:
            seen.append(match.players[0].client)
            return _NullRecorder()

        return make

    outcome = asyncio.run(SweepRunner(sweep, tmp_path / "out", record=record, concurrency=4).run())
    assert outcome.done + outcome.failed == 4
    assert len(seen) == 4 and all(isinstance(c, Shared) for c in seen)
    assert len({id(c.inner) for c in seen}) == 1  # four episodes, one SDK client
    assert seen[0].inner._closed  # closed when the sweep ends
