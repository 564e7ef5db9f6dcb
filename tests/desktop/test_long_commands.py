"""Long commands lose nothing and stop alike: ``tasks eval`` keeps each answer as it comes and resumes
after a kill; SIGTERM and Ctrl+C print what was done and exit 143/130; a refused key stops a task
evaluation as a run error; two ``study simulate`` into one folder never run the same participant.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop import cli
from tests.loopback import Answer, Fail, LoopbackServer, Slow

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    return env


@pytest.fixture(scope="module")
def task_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tasks") / "set"
    assert cli.main(["tasks", "generate", "tictactoe", "--task", "perceive", "--n", "6", "--size", "64x64",
                     "--out", str(folder)]) == 0
    return folder


def _copy(src: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(src, dest)
    return dest


def _wait_for(predicate: object, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_tasks_eval_keeps_answers_when_stopped_and_resumes(
    sig: int, code: int, task_set: Path, tmp_path: Path, loopback: LoopbackServer
) -> None:
    folder = _copy(task_set, tmp_path / "set")
    # Two quick answers, then a server that stays silent: the run is stopped while it waits.
    loopback.script(Answer(content="x"), Answer(content="x"))
    loopback.default = Slow(delay_s=60)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop.cli", "tasks", "eval", str(folder), "-p", spec, "-j", "1"],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    log = folder / "results" / ".local-loop-model.answers.jsonl"
    _wait_for(lambda: log.exists() and len(log.read_text().splitlines()) >= 3)
    _wait_for(lambda: len(loopback.posts()) >= 3)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "2 of 6 items answered and kept" in err
    assert "Traceback" not in err
    # Resumed: only the four items not answered are asked.
    loopback.default = Answer(content="x")
    asked = len(loopback.posts())
    assert cli.main(["tasks", "eval", str(folder), "-p", spec, "--json"]) == 0
    assert len(loopback.posts()) - asked == 4
    results = json.loads((folder / "results" / "local-loop-model.json").read_text())
    assert len(results["items"]) == 6
    assert not log.exists()


def test_tasks_eval_survives_sigkill(task_set: Path, tmp_path: Path, loopback: LoopbackServer) -> None:
    folder = _copy(task_set, tmp_path / "set")
    loopback.script(Answer(content="x"), Answer(content="x"), Answer(content="x"))
    loopback.default = Slow(delay_s=60)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop.cli", "tasks", "eval", str(folder), "-p", spec, "-j", "1"],
        env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_for(lambda: len(loopback.posts()) >= 4)
    proc.kill()
    proc.wait(timeout=10)
    loopback.default = Answer(content="x")
    asked = len(loopback.posts())
    assert cli.main(["tasks", "eval", str(folder), "-p", spec]) == 0
    assert len(loopback.posts()) - asked == 3


@pytest.mark.parametrize("status", [401, 403, 404])
def test_tasks_eval_stops_on_a_refused_key(
    status: int, task_set: Path, tmp_path: Path, loopback: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(task_set, tmp_path / "set")
    loopback.default = Fail(status, message="no")
    spec = f"local:loop-model@{loopback.openai_base_url}"
    code = cli.main(["tasks", "eval", str(folder), "-p", spec, "-j", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"HTTP {status}" in err and "run error" in err
    assert not (folder / "results" / "local-loop-model.json").exists()  # nothing scored
    assert len(loopback.posts()) == 1


def test_a_fifty_megabyte_answer_is_cut_and_marked(
    task_set: Path, tmp_path: Path, loopback: LoopbackServer
) -> None:
    folder = _copy(task_set, tmp_path / "set")
    loopback.default = Answer(content="x" * (5 * 1024 * 1024), pieces=5)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    assert cli.main(["tasks", "eval", str(folder), "-p", spec, "--limit", "1"]) == 0
    results = json.loads((folder / "results" / "local-loop-model.json").read_text())
    answer = results["items"][0]["answer"]
    assert len(answer) < 100_000 and "[cut:" in answer
    assert cli.main(["tasks", "report", str(folder)]) == 0


def test_two_study_simulations_never_share_a_participant(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    assert cli.main(["study", "init", str(study)]) == 0
    out = tmp_path / "results"
    argv = [sys.executable, "-m", "desktop.cli", "study", "simulate", str(study), "--participants", "3",
            "--out", str(out)]
    procs = [subprocess.Popen(argv, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for proc in procs:
        _out, err = proc.communicate(timeout=100)
        assert proc.returncode == 0, err
    participants = sorted(p.name for p in (out / "participants").glob("*.json"))
    assert participants == ["P001.json", "P002.json", "P003.json"]
    recorded = {json.loads(p.read_text())["index"] for p in (out / "participants").glob("*.json")}
    assert recorded == {0, 1, 2}  # each took its own row of the order
    listed = set()
    for p in (out / "participants").glob("*.json"):
        for block in json.loads(p.read_text())["blocks"]:
            if block.get("session"):
                listed.add(block["session"])
    on_disk = {d.name for d in (out / "sessions").iterdir() if (d / "manifest.json").exists()}
    assert on_disk == listed  # no orphaned session


def test_a_huge_model_answer_is_cut_and_the_session_reads_back(
    tmp_path: Path, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sessions
    from sessions import _eventlog

    # The reader's limit, lowered for speed: an answer bigger than it (as 50 MB is bigger than 64 MiB
    # once escaped) must still be written as a line the reader takes back.
    monkeypatch.setattr(_eventlog, "MAX_LINE_BYTES", 4 * 1024 * 1024)
    loopback.default = Answer(content="move: left\n" + "é" * (5 * 1024 * 1024), pieces=4)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    code = cli.main(["run", "2048", "-p", spec, "--max-steps", "1", "--no-reflection", "--memory", "0",
                     "--out", str(tmp_path)])
    assert code == 0
    folder = next(p for p in tmp_path.iterdir() if (p / "events.jsonl").exists())
    session = sessions.load_session(folder)
    assert session.damage == []
    answer = next(e["data"]["text"] for e in session.events if e["type"] == "answer")
    assert answer.startswith("move: left") and "[cut by PlayTrace:" in answer


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_commands_without_a_loop_stop_alike_on_both_signals(sig: int, code: int, tmp_path: Path) -> None:
    out = tmp_path / "set"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop.cli", "tasks", "generate", "tictactoe", "--task", "perceive",
         "--n", "2000", "--out", str(out)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    _wait_for(lambda: (out / "images").is_dir() and any((out / "images").iterdir()))
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "Traceback" not in err and len([line for line in err.splitlines() if line.strip()]) == 1


def test_two_evaluations_of_one_player_on_one_set_do_not_mix(
    task_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sessions import FileLock

    folder = _copy(task_set, tmp_path / "set")
    (folder / "results").mkdir(exist_ok=True)
    with FileLock(folder / "results" / ".sim.answers.jsonl.lock") as other:  # another eval is running
        assert other.held
        assert cli.main(["tasks", "eval", str(folder), "-p", "sim"]) == 1
        assert "another playtrace is evaluating" in capsys.readouterr().err
    assert cli.main(["tasks", "eval", str(folder), "-p", "sim"]) == 0


def test_study_simulate_stops_on_sigterm_with_a_summary(tmp_path: Path, loopback: LoopbackServer) -> None:
    study = tmp_path / "study.toml"
    assert cli.main(["study", "init", str(study)]) == 0
    loopback.default = Slow(delay_s=60)  # the simulated participant's model never answers
    spec = f"local:loop-model@{loopback.openai_base_url}"
    out = tmp_path / "results"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop.cli", "study", "simulate", str(study), "--participants", "2",
         "--player", spec, "--out", str(out)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    _wait_for(lambda: len(loopback.posts()) >= 1)
    proc.send_signal(signal.SIGTERM)
    stdout, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "stopped:" in stdout and "Traceback" not in err
    assert (out / "participants" / "P001.json").exists()  # the participant resumes next time
