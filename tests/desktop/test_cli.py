"""The ``playtrace`` command line: run, show, list, export/import, games, check-model.

Most tests call :func:`desktop.cli.main` in-process; one smoke test and the Ctrl+C test run the real
console entry point in a subprocess. Nothing here touches the network.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import engine
import sessions
from desktop import cli
from desktop.cli import models as cli_models
from desktop.cli import run as cli_run
from tests.loopback import Answer, LoopbackServer

REPO = Path(__file__).resolve().parents[2]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def session_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "manifest.json").exists())


def final_state_winner(folder: Path) -> int | None:
    """The winner according to the engine, from the last recorded state (independent of the CLI)."""
    session = sessions.load_session(folder)
    game = engine.make(session.manifest["game"])
    return game.state_from_json(session.state_json_at(len(session.steps))).winner


# -- run -----------------------------------------------------------------------------------------------


def test_run_2048_random_three_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "run", "2048", "--player", "random", "--episodes", "3", "--seed", "5",
        "--out", str(tmp_path), "--max-steps", "25",
    )
    assert code == 0, err
    folders = session_dirs(tmp_path)
    assert len(folders) == 3
    seeds = sorted(json.loads((f / "manifest.json").read_text())["seed"] for f in folders)
    assert seeds == [5, 6, 7]  # episode i uses seed S+i
    for folder in folders:
        assert folder.name in out.split()  # the summary names every session by its id...
        assert sessions.load_session(folder).num_steps <= 25
    assert f"sessions in {tmp_path}" in out  # ...and the folder they are in
    assert "score" in out and "±" in out  # the aggregate line of the only seat
    # stderr is not a terminal here: no progress bar, one final line.
    assert err.strip().splitlines()[-1].startswith("playtrace run done: 3 episode(s)")


def test_run_tictactoe_minimax_vs_random_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "run", "tictactoe", "-p", "minimax", "-p", "random", "-n", "4", "--out", str(tmp_path),
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert [e["seed"] for e in report["episodes"]] == [0, 1, 2, 3]
    for ep in report["episodes"]:
        assert ep["status"] == "completed"
        assert ep["winner"] == final_state_winner(Path(ep["session"]))
    seats = report["aggregate"]["seats"]
    # Perfect play as X never loses to random play.
    assert seats[0]["losses"] == 0 and seats[1]["wins"] == 0
    assert seats[0]["wins"] + seats[0]["draws"] == 4
    assert seats[0]["wins"] == seats[1]["losses"]


def test_run_table_reports_wins_draws_losses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "tictactoe", "-p", "minimax", "-p", "random", "-n", "2",
                           "--out", str(tmp_path))
    assert code == 0
    assert "wins" in out and "draws" in out and "losses" in out
    assert "Minimax" in out and "Random" in out


def test_concurrency_three_overlaps_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Long enough that no episode can be over before the others' session folders exist (they are
    # created on a worker thread while the first episode already plays).
    code, _, err = run_cli(capsys, "run", "2048", "-p", "random", "-n", "3", "--concurrency", "3",
                           "--max-steps", "300", "--option", "size=6", "--out", str(tmp_path))
    assert code == 0, err
    folders = session_dirs(tmp_path)
    assert len(folders) == 3
    spans = []
    for folder in folders:
        events = sessions.load_session(folder).events
        spans.append((events[0]["ts"], events[-1]["ts"]))
        assert events[-1]["type"] == "session_finished"
    # Played at once: every episode started before any of them finished.
    assert max(start for start, _ in spans) <= min(end for _, end in spans)


def test_unknown_game_is_a_one_line_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "run", "chekers", "--out", str(tmp_path))
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "2048" in lines[0] and "tictactoe" in lines[0]
    assert not any(tmp_path.iterdir())


def test_bad_player_spec_lists_choices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "alphazero", "--out", str(tmp_path))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "minimax" in lines[0] and "random" in lines[0]
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "random", "-p", "random", "-p", "random",
                           "--out", str(tmp_path))
    assert code == 2 and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "run", "2048", "-p", "human", "--out", str(tmp_path))
    assert code == 2 and "app" in err
    assert not any(tmp_path.iterdir())


def test_provider_errors_are_reported_not_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The simulated model's server fails every call: the real retry and fallback path, no stand-in.
    # (With --fallback forfeit the episode ends instead: see the forfeit test below.)
    code, out, err = run_cli(capsys, "run", "tictactoe", "-p", "sim", "-p", "random", "-n", "2",
                             "--sim-api-error-rate", "1", "--retries", "1", "--out", str(tmp_path), "--json",
                             "--max-failed-calls", "0")
    assert code == 0, err  # without the failed-calls limit, the default policy plays on with random moves
    assert "Traceback" not in err and "Traceback" not in out
    report = json.loads(out)
    assert len(report["episodes"]) == 2
    for ep in report["episodes"]:
        session = sessions.load_session(Path(ep["session"]))
        assert ep["status"] == session.status == "completed"
        failed = [e["data"] for e in session.events if e["type"] == "model_call_failed"]
        model_moves = [e["data"] for e in session.events if e["type"] == "decision" and e["seat"] == 0]
        assert failed and all((f["kind"], f["status"]) == ("server", 503) for f in failed)
        # Every model decision asked twice (--retries 1), was refused twice and fell back.
        assert sum(f["purpose"] == "action" for f in failed) == 2 * len(model_moves)
        assert all(m["policy"] == "random" and "503" in m["fallback_reason"] for m in model_moves)
        # The summary counts what the session recorded and says why.
        assert ep["failed_calls"] == len(failed) and ep["fallback_moves"] == len(model_moves) > 0
        assert "503 Service Unavailable" in ep["last_model_error"]


def test_sim_api_error_rate_needs_a_simulated_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "random", "-p", "random",
                           "--sim-api-error-rate", "1", "--out", str(tmp_path))
    assert code == 2 and "simulated model" in err
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "sim", "-p", "random",
                           "--sim-api-error-rate", "1.5", "--out", str(tmp_path))
    assert code == 2 and "--sim-api-error-rate" in err
    assert not any(tmp_path.iterdir())


def test_run_with_sim_player_records_model_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "run", "2048", "-p", "sim", "-n", "1", "--max-steps", "4",
                             "--memory", "2", "--retries", "1", "--out", str(tmp_path))
    assert code == 0, err
    (folder,) = session_dirs(tmp_path)
    types = {e["type"] for e in sessions.load_session(folder).events}
    assert {"prompt_built", "model_call_finished", "answer"} <= types
    assert "cost" in out and "invalid" in out  # model columns in the summary
    code, out, _ = run_cli(capsys, "show", str(folder), "--json")
    assert code == 0
    report = json.loads(out)
    stats = report["model"]["0"]
    assert stats["calls"] >= 4 and stats["input_tokens"] > 0
    # The final state's named figures travel with the session (2048: its largest tile).
    state = sessions.load_session(folder).state_at(4)
    assert report["metrics"]["max_tile"] == state.metrics()["max_tile"] >= 4


# -- show ----------------------------------------------------------------------------------------------


@pytest.fixture()
def ttt_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "minimax", "-p", "random", "-n", "1",
                           "--seed", "3", "--out", str(tmp_path / "runs"))
    assert code == 0, err
    (folder,) = session_dirs(tmp_path / "runs")
    return folder


def test_show_json_has_required_keys_and_winner(
    ttt_session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "show", str(ttt_session), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert {"game", "players", "steps", "scores", "winner", "status", "warnings"} <= set(report)
    assert report["game"] == "tictactoe"
    assert [p["spec"] for p in report["players"]] == ["minimax", "random"]
    assert report["winner"] == final_state_winner(ttt_session)
    assert report["steps"] == sessions.load_session(ttt_session).num_steps
    assert len(report["scores"]) == 2 and report["status"] == "completed" and report["warnings"] == []


def test_show_human_form(ttt_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "show", str(ttt_session / "manifest.json"))
    assert code == 0 and err == ""
    assert "tictactoe" in out and "Minimax" in out and "completed" in out and "seed      3" in out


def test_show_torn_session_warns_and_still_shows(
    ttt_session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = ttt_session / "events.jsonl"
    data = events.read_bytes()
    events.write_bytes(data[: len(data) - 15])  # a crash in the middle of writing the last line
    code, out, err = run_cli(capsys, "show", str(ttt_session))
    assert code == 0
    assert "warning" in err.lower()
    assert "tictactoe" in out and "steps" in out
    code, out, _ = run_cli(capsys, "show", str(ttt_session), "--json")
    assert code == 0 and json.loads(out)["warnings"]


def test_show_killed_session_reports_unfinished(
    ttt_session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((ttt_session / "manifest.json").read_text())
    manifest["status"] = "running"
    (ttt_session / "manifest.json").write_text(json.dumps(manifest))
    lines = (ttt_session / "events.jsonl").read_text().splitlines()
    (ttt_session / "events.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:10])
    code, out, _ = run_cli(capsys, "show", str(ttt_session), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["status"] != "completed" and len(report["warnings"]) >= 2


def test_show_not_a_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("not a session\n")
    for target in (junk, tmp_path / "missing", tmp_path):
        code, out, err = run_cli(capsys, "show", str(target))
        assert code == 1
        assert out == ""
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# -- list, export/import, games, check-model, version ------------------------------------------------


def test_list_export_import(ttt_session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "list", "--out", str(ttt_session.parent))
    assert code == 0 and ttt_session.name in out
    zip_path = tmp_path / "one.zip"
    code, out, err = run_cli(capsys, "export", str(ttt_session), str(zip_path))
    assert code == 0, err
    assert zip_path.exists()
    code, out, err = run_cli(capsys, "import", str(zip_path), "--out", str(tmp_path / "imported"))
    assert code == 0, err
    imported = Path(out.strip())
    assert sessions.load_session(imported).num_steps == sessions.load_session(ttt_session).num_steps
    code, out, _ = run_cli(capsys, "list", "--out", str(tmp_path / "empty"))
    assert code == 0 and "no sessions" in out


def test_games_lists_ids_seats_and_bots(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "games")
    assert code == 0
    blocks = {line.split()[0]: line for line in out.split("\n") if line and not line.startswith(" ")}
    assert set(engine.list_games()) <= set(blocks)
    ttt = out[out.index("tictactoe  Tic-tac-toe"):]
    assert "turn-based" in ttt.splitlines()[1] and "seats: X, O" in ttt and "minimax" in ttt
    assert "--option size=" in out and "from 2 to 8" in out
    assert max(len(line) for line in out.splitlines()) <= 80  # reads in an 80-column terminal


def test_check_model_never_prints_a_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer
) -> None:
    code, out, _ = run_cli(capsys, "check-model", "sim")
    assert code == 0 and out.startswith("ok")
    code, out, _ = run_cli(capsys, "check-model", "anthropic:claude-sonnet-4-5")
    assert code == 1 and "ANTHROPIC_API_KEY" in out
    secret = "sk-test-0123456789abcdefghij"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code, out, err = run_cli(capsys, "--verbose", "check-model", "openai:gpt-4o-mini",
                             "--base-url", loopback.openai_base_url)
    assert code == 0 and out.startswith("ok")
    assert loopback.posts()  # a real call was made
    assert secret not in out + err
    code, out, err = run_cli(capsys, "check-model", "local:llama3@http://127.0.0.1:9/v1", "--timeout", "1")
    assert code == 1 and "cannot reach" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.startswith("playtrace ")


def test_no_subcommand_opens_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    calls: list[list[str]] = []
    fake = types.ModuleType("desktop.app")
    fake.main = lambda argv=None: calls.append(list(argv or [])) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "desktop.app", fake)
    monkeypatch.setattr(sys.modules["desktop"], "app", fake, raising=False)
    assert cli.main([]) == 0
    assert cli.main(["--open", "some/session", "--no-demo"]) == 0
    assert calls == [[], ["--open", str(Path("some/session")), "--no-demo"]]
    assert cli.main(["rnu", "2048"]) == 2  # a mistyped command is an error, not the app
    assert len(calls) == 2


# -- subprocess: the real entry point, and Ctrl+C ------------------------------------------------------


def _cli_cmd(*argv: str) -> list[str]:
    return [sys.executable, "-m", "desktop.cli", *argv]


def test_subprocess_smoke(tmp_path: Path) -> None:
    proc = subprocess.run(
        _cli_cmd("run", "tictactoe", "-p", "random", "-n", "2", "--out", str(tmp_path)),
        capture_output=True, text=True, timeout=60, cwd=REPO, env=os.environ.copy(),
    )
    assert proc.returncode == 0, proc.stderr
    assert len(session_dirs(tmp_path)) == 2
    assert "Tic-tac-toe" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1].startswith("playtrace run done")


def test_output_that_cannot_encode_a_path_does_not_crash(tmp_path: Path) -> None:
    # A console whose encoding lacks a character of the sessions folder (cp1252 and a CJK name).
    out = tmp_path / "parties 日本"
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run(
        _cli_cmd("run", "tictactoe", "-p", "random", "-n", "1", "--out", str(out)),
        capture_output=True, text=True, timeout=60, cwd=REPO, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "finished 1/1 episode(s)" in proc.stdout
    assert len(session_dirs(out)) == 1


def test_ctrl_c_while_starting_up_is_one_line_and_exit_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(verbose: bool) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_setup_logging", interrupted)
    code, out, err = run_cli(capsys, "games")
    assert code == 130
    assert err.strip() == "playtrace: interrupted"


def test_sigint_aborts_running_episodes(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        _cli_cmd("run", "2048", "-p", "random", "-n", "200", "-j", "2", "--out", str(tmp_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 30
        # Wait until episodes are being played (a few steps recorded), then press Ctrl+C.
        while time.monotonic() < deadline:
            logs = list(tmp_path.glob("*/events.jsonl"))
            if logs and sum(len(p.read_bytes()) for p in logs) > 20_000:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    folders = session_dirs(tmp_path)
    assert 0 < len(folders) < 200
    statuses = [sessions.load_session(f).status for f in folders]
    assert "aborted" in statuses
    assert set(statuses) <= {"aborted", "completed"}
    assert "interrupted" in out


def test_sim_server_errors_with_forfeit_policy_end_the_episode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys, "run", "tictactoe", "-p", "sim", "-p", "random", "-n", "1", "--sim-api-error-rate", "1",
        "--retries", "0", "--fallback", "forfeit", "--out", str(tmp_path),
    )
    assert code == 0, err  # a forfeit is a game result, not a failure of the command
    assert "Traceback" not in err
    (folder,) = session_dirs(tmp_path)
    row = next(line for line in out.splitlines() if folder.name in line)
    assert "O wins (forfeit)" in row  # who won...
    # ...and why.
    note = out[out.index("* seed 0:"):].split("\n  seed ")[0]  # a note may wrap onto indented lines
    assert "503" in note
    assert sessions.load_session(folder).status == "forfeit"


def test_sessions_folder_that_is_a_file_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "not-a-folder"
    target.write_text("x")
    code, out, err = run_cli(capsys, "run", "tictactoe", "-n", "5", "--out", str(target))
    assert code == 1
    assert out == ""
    assert err.strip().splitlines() == [f"playtrace: cannot write sessions into {target}: it is not a folder"]


def test_unwritable_sessions_folder_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    def refuse(*_: Any, **__: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    # Tests may run as root, for whom chmod does not take writing away; refuse at the first write instead.
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    target = tmp_path / "ro"
    code, out, err = run_cli(capsys, "run", "tictactoe", "-n", "5", "--out", str(target))
    assert code == 1
    assert out == ""
    assert err.strip().splitlines() == [f"playtrace: cannot write sessions into {target}: Permission denied"]


@pytest.mark.parametrize(
    "flag,value", [("--timeout", "0"), ("--timeout", "-1"), ("--timeout", "nan"), ("--batch-budget", "nan"),
                   ("--budget-hard", "nan")],
)
def test_nonsense_timeouts_and_budgets_are_usage_errors(
    flag: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "sim", "--out", str(tmp_path), flag, value)
    assert code == 2 and flag in err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("flag", ["--batch-budget", "--budget-hard"])
def test_spending_cap_on_an_unpriced_model_is_refused(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unknown price: every call costs None, so the cap would silently never trigger.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "openai:no-such-model-x", "--dry-run",
                           flag, "1.0", "--out", str(tmp_path))
    assert code == 2 and flag in err and "no-such-model-x" in err
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "openai:gpt-4o", "--dry-run",
                           flag, "1.0", "--out", str(tmp_path))
    assert code == 0, err


def test_sim_error_rate_needs_the_simulated_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", "2048", "-p", "random", "--sim-error-rate", "0.5",
                           "--out", str(tmp_path))
    assert code == 2 and "simulated" in err


def test_batch_budget_stops_the_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = cli_run._model_options
    # Give the simulated model a (steep) price so that the batch spends money.
    monkeypatch.setattr(cli_run, "_model_options", lambda args: {
        **real(args), "prices": {"input_per_mtok": 1000.0, "output_per_mtok": 1000.0}})
    code, out, err = run_cli(capsys, "run", "2048", "-p", "sim", "-n", "6", "-j", "2", "--max-steps", "50",
                             "--no-reflection", "--batch-budget", "0.5", "--json", "--out", str(tmp_path))
    assert code == 1, err
    report = json.loads(out)
    assert report["budget_stopped"] is True
    statuses = [e["status"] for e in report["episodes"]]
    assert statuses.count("skipped") == 4  # never started
    assert statuses[:2] == ["aborted", "aborted"]  # cancelled while running
    assert report["aggregate"]["cost_usd"] > 0.5
    assert len(session_dirs(tmp_path)) == 2
    assert all(sessions.load_session(f).status == "aborted" for f in session_dirs(tmp_path))


def test_dry_run_prints_plan_and_cost_estimate_without_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-abcdefghijklmnopqrstuv"
    code, _, err = run_cli(capsys, "run", "2048", "-p", "openai:gpt-4o-mini", "--out", str(tmp_path))
    assert code == 2 and "OPENAI_API_KEY" in err  # no key: refused before any session exists
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code, out, err = run_cli(capsys, "run", "2048", "-p", "openai:gpt-4o-mini", "-n", "10",
                             "--max-steps", "50", "--dry-run", "--out", str(tmp_path))
    assert code == 0, err
    assert "would play 10 episode(s) of 2048" in out
    estimate = next(line for line in err.splitlines()
                    if line.startswith("cost estimate for openai:gpt-4o-mini"))
    assert "$" in estimate and "500 model steps" in estimate  # 10 episodes x 50 steps
    assert secret not in out + err
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "spec,url,model",
    [("ollama:llama3", "http://localhost:11434/v1", "llama3"),
     ("local:qwen2.5:7b@lmstudio", "http://localhost:1234/v1", "qwen2.5:7b"),
     ("local:llama3", "http://localhost:11434/v1", "llama3")],
)
def test_check_model_understands_local_specs_as_run_does(
    spec: str, url: str, model: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    probed: list[tuple[str, str | None]] = []

    def probe(base_url: str, name: str | None, timeout: float) -> tuple[bool, str]:
        probed.append((base_url, name))
        return True, "fine"

    async def call(spec: str, base_url: str | None, timeout: float) -> tuple[bool, str]:
        return True, "answered"

    monkeypatch.setattr(cli_models, "_probe_server", probe)
    monkeypatch.setattr(cli_models, "_one_call", call)
    code, out, err = run_cli(capsys, "check-model", spec)
    assert code == 0, err
    assert probed == [(url, model)]


def test_check_model_accepts_ollamas_latest_tag(
    capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    code, out, _ = run_cli(capsys, "check-model", f"local:llava@{loopback.openai_base_url}")
    assert code == 0 and out.startswith("ok")


async def _answered(spec: str, base_url: str | None, timeout: float) -> tuple[bool, str]:
    return True, "answered"


def test_anthropic_auth_token_counts_as_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-0123456789abcdef")
    monkeypatch.setattr(cli_models, "_one_call", _answered)
    code, out, err = run_cli(capsys, "check-model", "anthropic:claude-haiku-4-5")
    assert code == 0 and out.startswith("ok") and "token-0123456789abcdef" not in out + err
    code, out, err = run_cli(capsys, "run", "tictactoe", "-p", "anthropic:claude-haiku-4-5", "--dry-run",
                             "--out", str(tmp_path))
    assert code == 0, err


def test_run_and_check_a_local_openai_compatible_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    base = loopback.openai_base_url
    code, out, _ = run_cli(capsys, "check-model", f"local:loop-model@{base}")
    assert code == 0 and out.startswith("ok") and "loop-model" in out
    assert len(loopback.posts()) == 1  # check-model makes one real call
    code, out, _ = run_cli(capsys, "check-model", "local:absent-model", "--base-url", base)
    assert code == 1 and "does not serve" in out
    checks = len(loopback.posts())
    loopback.default = Answer(content="thought: keep the corner.\nmove: left", input_tokens=40,
                              output_tokens=9)
    code, out, err = run_cli(capsys, "run", "2048", "-p", f"local:loop-model@{base}", "-n", "1",
                             "--max-steps", "3", "--no-reflection", "--memory", "0", "--out", str(tmp_path),
                             "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["episodes"][0]["steps"] == 3
    chat_calls = [r for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chat_calls) == checks + 3  # one model call per step, nothing else
    (folder,) = session_dirs(tmp_path)
    parsed = [e for e in sessions.load_session(folder).events if e["type"] == "action_parsed"]
    assert [e["data"]["matched"] for e in parsed] == ["left"] * 3
