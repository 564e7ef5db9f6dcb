"""A rejected key (401/403) or an unknown model (404) is a run error in every command that calls a model:
exit code 1, the episodes are not scored (never a forfeit ranked last), and a sweep leaves them to be
played again once the key is fixed. A server that keeps a stream alive with SSE comments and never
answers times out at ``--timeout``. All against the loopback server; nothing leaves the machine.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import cli
from tests.loopback import Answer, Fail, KeepAlive, LoopbackServer

pytestmark = pytest.mark.timeout(60)

STATUSES = [401, 403, 404]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    # The loopback server's own thread reports a client that hung up (a stopped episode) between lines
    # of dashes: that is the test server speaking, not PlayTrace.
    err = re.sub(r"-{40}\nException occurred during processing of request.*?-{40}\n", "", err, flags=re.S)
    return code, out, err


def _sweep_file(tmp: Path, spec: str) -> Path:
    path = tmp / "sweep.toml"
    path.write_text(
        f'name = "s"\nseeds = [0, 1]\nmax_steps = 3\nconcurrency = 1\nplayers = [["{spec}", "random"]]\n'
        '[[games]]\nid = "tictactoe"\n[harness]\nreflection = false\nmemory = 0\ntimeout = 1\n'
    )
    return path


#: Every command that plays a model, as argv for the model spec ``spec`` (a loopback server).
MODEL_COMMANDS: dict[str, Callable[[str, Path], list[str]]] = {
    "run": lambda spec, tmp: ["run", "tictactoe", "-p", spec, "-p", "random", "-n", "2", "--no-reflection",
                              "--memory", "0", "--timeout", "1", "--out", str(tmp / "runs")],
    "tournament": lambda spec, tmp: ["tournament", "tictactoe", "--player", spec, "--player", "random",
                                     "--matches", "1", "--timeout", "1", "--out", str(tmp / "t")],
    "sweep": lambda spec, tmp: ["sweep", str(_sweep_file(tmp, spec)), "--out", str(tmp / "sw")],
    "check-model": lambda spec, tmp: ["check-model", spec, "--timeout", "1"],
    "tasks eval": lambda spec, tmp: ["tasks", "eval", str(_task_set(tmp)), "-p", spec, "--timeout", "1"],
}


def _task_set(tmp: Path) -> Path:
    folder = tmp / "set"
    if not folder.exists():
        assert cli.main(["tasks", "generate", "tictactoe", "--task", "perceive", "--n", "2",
                         "--size", "64x64", "--out", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("command", sorted(MODEL_COMMANDS))
def test_refused_key_or_unknown_model_is_a_run_error(
    command: str, status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    loopback.default = Fail(status, message="no such key or model")
    spec = f"local:loop-model@{loopback.openai_base_url}"
    code, out, err = run_cli(capsys, *MODEL_COMMANDS[command](spec, tmp_path))
    assert code == 1, out + err
    assert "Traceback" not in err
    text = out + err
    assert f"HTTP {status}" in text
    if command == "run":
        assert "forfeit" not in text.split("stopped:")[0].lower() or "0 forfeit" in text
        assert "stopped:" in text
    if command == "tournament":
        results = (tmp_path / "t" / "results.csv").read_text()
        assert ",0,0,0,0," in results or "forfeit" not in results  # nobody ranked on a refused key
    if command == "sweep":
        with sqlite3.connect(tmp_path / "sw" / "index.sqlite") as db:
            states = [r[0] for r in db.execute("SELECT state FROM episodes")]
        assert "done" not in states  # nothing counted: a resume plays them again
        # The key is fixed: the same command now plays every episode.
        loopback.default = Answer(content="move: b2")
        code, out, err = run_cli(capsys, *MODEL_COMMANDS[command](spec, tmp_path))
        assert code == 0, out + err
        with sqlite3.connect(tmp_path / "sw" / "index.sqlite") as db:
            states = [r[0] for r in db.execute("SELECT state FROM episodes")]
        assert states == ["done", "done"]


@pytest.mark.parametrize("command", sorted(MODEL_COMMANDS))
def test_a_keep_alive_drip_times_out_at_the_timeout(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    loopback.default = KeepAlive(every_s=0.1, for_s=25)
    spec = f"local:loop-model@{loopback.openai_base_url}"
    started = time.monotonic()
    code, out, err = run_cli(capsys, *MODEL_COMMANDS[command](spec, tmp_path))
    assert code != 0 or command in ("run", "tournament", "sweep"), out + err
    assert "Traceback" not in err
    assert time.monotonic() - started < 45


def test_run_json_names_the_run_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    loopback.default = Fail(401, message="bad key")
    spec = f"local:loop-model@{loopback.openai_base_url}"
    code, out, _err = run_cli(capsys, "run", "tictactoe", "-p", spec, "-p", "random", "-n", "3", "-j", "1",
                              "--json", "--out", str(tmp_path))
    assert code == 1
    report = json.loads(out)
    assert "HTTP 401" in report["model_unusable"]
    assert all(e["status"] != "forfeit" for e in report["episodes"])
    assert len(loopback.posts()) == 1  # the batch stopped at the first refusal
