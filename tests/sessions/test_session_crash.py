"""A writer process killed with SIGKILL mid-game loses no completed step."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import engine
from sessions import Catalogue, load_session

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    import engine
    from engine import events as ev
    from engine.match import Match, Pacer
    from engine.players import RandomPlayer
    from sessions import SessionWriter

    match = Match(engine.make("2048"), [RandomPlayer(3)], seed=3, pacer=Pacer(delay=0.004))
    writer = SessionWriter.for_match(Path(sys.argv[1]), match)  # subscribed first: fsync before print
    print("PATH", writer.path, flush=True)

    def report(event):
        if event.type == ev.ACTION_APPLIED:
            print("STEP", event.step + 1, flush=True)

    match.subscribe(report)
    asyncio.run(match.run())
    print("OVER", flush=True)
    """
)

KILL_AFTER = 25


def test_sigkill_mid_game_keeps_every_completed_step(root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    assert proc.stdout is not None
    folder: Path | None = None
    last = 0
    try:
        for line in proc.stdout:
            kind, _, value = line.strip().partition(" ")
            if kind == "PATH":
                folder = Path(value)
            elif kind == "STEP":
                last = int(value)
                if last >= KILL_AFTER:
                    proc.kill()  # SIGKILL: no finally blocks, no atexit, no flush
                    break
            elif kind == "OVER":
                break
        proc.wait(timeout=20)
        # Lines already in the pipe were printed after their step was fsynced: they count too.
        for line in proc.stdout:
            if line.startswith("STEP"):
                last = int(line.split()[1])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    assert proc.returncode == -9, "the writer finished before it could be killed"
    assert folder is not None and last >= KILL_AFTER

    session = load_session(folder)
    assert session.num_steps >= last
    assert session.summary()["status"] == "interrupted"
    assert any("interrupted" in w for w in session.warnings)
    # Every recorded state is the one the game computes from the recorded actions.
    game = engine.make("2048")
    state = game.initial_state(seed=3)
    assert game.state_from_json(session.state_json_at(0)) == state
    for k, step in enumerate(session.steps, start=1):
        state = state.apply(step["data"]["actions"]["0"])
        assert game.state_from_json(session.state_json_at(k)) == state
    # The browser lists it as interrupted too (the dead process holds no lock).
    (summary,) = Catalogue(root).list()
    assert summary.status == "interrupted" and summary.steps == session.num_steps


def test_a_failed_manifest_write_releases_the_writer(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On a full disk the first manifest write fails; the half-made writer must not keep its sync
    # thread, its log file and its lock (the folder would look "still being recorded" for ever).
    import threading

    from sessions import SessionError, SessionWriter
    from sessions import writer as writer_module
    from sessions._lock import is_being_written

    def full_disk(path: Path, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer_module, "atomic_write_json", full_disk)
    before = {t for t in threading.enumerate() if t.name == "playtrace-session-sync"}
    with pytest.raises(SessionError, match="No space left"):
        SessionWriter.create(root, game="2048", players=[], seed=1, options={})
    after = {t for t in threading.enumerate() if t.name == "playtrace-session-sync"}
    assert after == before
    # Nothing is left: a session folder appears whole or not at all.
    assert [p for p in root.iterdir()] == []
    assert not any(is_being_written(p) for p in root.iterdir())
