"""Issue 7, the command line as a new user meets it: tables at 80 columns, numbers for people,
session ids everywhere, imports that say what they do, models that never answer, SIGTERM, and
usage errors instead of tracebacks. Nothing here touches the network or sleeps to synchronise.
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

import sessions
from desktop import cli
from desktop.cli import common as cli_common
from engine.agent.player import ModelPlayer

REPO = Path(__file__).resolve().parents[2]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def session_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "manifest.json").exists())


@pytest.fixture
def columns80(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An 80-column console (``$COLUMNS``, which rich honours too) and a private sessions folder."""
    monkeypatch.setenv("COLUMNS", "80")
    home = tmp_path / "home"
    monkeypatch.setenv("PLAYTRACE_HOME", str(home))
    return home / "sessions"


def assert_fits_80(out: str) -> None:
    for line in out.splitlines():
        if not line.startswith("sessions in "):  # a path is printed whole, however long
            assert len(line) <= 80, f"{len(line)} columns: {line!r}"
    assert "…" not in out  # nothing cut short with an ellipsis
    assert "e+0" not in out  # no exponent notation


# -- 1. tables for 80 columns, numbers for people -------------------------------------------------------


def test_numbers_are_written_for_people() -> None:
    assert cli_common.num(27054.3) == "27,050"
    assert cli_common.num(27054) == "27,054"
    assert cli_common.num(0.5) == "0.5"
    assert cli_common.num(3.0) == "3"
    assert cli_common.num(1 / 3) == "0.3333"
    assert cli_common.mean_sd(27054.3, 18876.2) == "27,050 ± 18,880"


def test_run_tables_fit_80_columns(columns80: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys,
        "run",
        "tictactoe",
        "-p",
        "sim",
        "-p",
        "minimax",
        "-n",
        "2",
        "--sim-api-error-rate",
        "0.5",
        "--max-failed-calls",
        "0",
        "--seed",
        "3",
    )
    assert code == 0, err
    assert_fits_80(out)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("seed "))
    for name in ("seed", "steps", "scores", "result", "invalid", "session"):
        assert name in header.split()
    for folder in session_dirs(columns80):
        assert folder.name in out.split()  # each session's whole id, as `show` accepts it
    assert f"sessions in {columns80}" in out
    # 2048 scores over a thousand: thousands separators, no exponent.
    code, out, err = run_cli(capsys, "run", "2048", "-p", "greedy", "-n", "2", "--seed", "1")
    assert code == 0, err
    assert_fits_80(out)
    assert any("," in line.split()[2] for line in out.splitlines() if line.strip()[:1].isdigit())
    assert "± " in out


def test_list_and_show_fit_80_columns(columns80: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "sim", "-p", "minimax", "-n", "2")
    assert code == 0, err
    code, _, err = run_cli(capsys, "run", "2048", "-p", "sim", "--max-steps", "5")
    assert code == 0, err
    code, out, err = run_cli(capsys, "list")
    assert code == 0, err
    assert_fits_80(out.split("\n", 1)[1])  # under the line naming the folder
    for folder in session_dirs(columns80):
        assert folder.name in out.split()
    assert "Simulated model (offline) vs Minimax" in " ".join(out.split())
    for head in ("session", "created", "steps", "status", "players", "result"):
        assert head in out
    code, out, err = run_cli(capsys, "show", str(session_dirs(columns80)[0]))
    assert code == 0, err
    for line in out.splitlines():
        if not line.startswith("path "):  # a path is printed whole, however long
            assert len(line) <= 80, line
    # --limit says how many are shown of how many there are.
    code, out, err = run_cli(capsys, "list", "--limit", "1")
    assert code == 0, err
    assert out.startswith(f"1 of 3 sessions in {columns80}")


# -- 2. session ids wherever a folder is accepted --------------------------------------------------------


def test_ids_from_list_work_for_show_export_and_open(
    columns80: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "minimax", "-p", "random")
    assert code == 0, err
    (folder,) = session_dirs(columns80)
    sid = folder.name
    code, out, _ = run_cli(capsys, "list")
    assert sid in out.split()
    code, out, err = run_cli(capsys, "show", sid, "--json")
    assert code == 0, err
    assert json.loads(out)["id"] == sid
    zip_path = tmp_path / "s.zip"
    code, out, err = run_cli(capsys, "export", sid, str(zip_path))
    assert code == 0, err
    assert zip_path.is_file()
    # --out names another sessions folder to look ids up in.
    other = tmp_path / "other"
    other.mkdir()
    folder.rename(other / sid)
    code, out, err = run_cli(capsys, "show", sid, "--out", str(other))
    assert code == 0, err
    code, out, err = run_cli(capsys, "show", "no-such-id")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "no-such-id" in err
    from desktop import app

    calls: list[list[str]] = []
    monkeypatch.setattr(app, "main", lambda argv: calls.append(list(argv)) or 0)
    (other / sid).rename(folder)
    assert cli.main(["--open", sid, "--no-demo"]) == 0
    assert calls == [["--open", str(folder), "--no-demo"]]


# -- 3. import says what it does ------------------------------------------------------------------------


def test_import_missing_file_and_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.zip"
    code, out, err = run_cli(capsys, "import", str(missing), "--out", str(tmp_path / "s"))
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [f"playtrace: {missing} does not exist"]
    src = tmp_path / "src"
    code, _, err = run_cli(capsys, "run", "tictactoe", "-p", "minimax", "-p", "random", "--out", str(src))
    assert code == 0, err
    (folder,) = session_dirs(src)
    zip_path = tmp_path / "s.zip"
    assert run_cli(capsys, "export", str(folder), str(zip_path))[0] == 0
    dest = tmp_path / "dest"
    code, out, err = run_cli(capsys, "import", str(zip_path), "--out", str(dest))
    assert code == 0, err
    assert out.strip() == str(dest / folder.name)
    code, out, err = run_cli(capsys, "import", str(zip_path), "--out", str(dest))
    assert code == 1 and out == ""
    (line,) = err.strip().splitlines()
    assert folder.name in line and "already" in line and "--copy" in line
    assert [p.name for p in dest.iterdir() if not p.name.startswith(".")] == [folder.name]
    code, out, err = run_cli(capsys, "import", str(zip_path), "--out", str(dest), "--copy")
    assert code == 0, err
    copy = Path(out.strip())
    assert copy != dest / folder.name and sessions.load_session(copy).num_steps > 0
    assert "copy" in err and copy.name in err


# -- 4. a model that never answers ----------------------------------------------------------------------


def test_max_failed_calls_reaches_the_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.cli import run as cli_run

    args = cli.build_parser().parse_args(
        ["run", "2048", "-p", "sim", "--max-failed-calls", "3", "--out", str(tmp_path)]
    )
    plan = cli_run._plan(args)
    assert plan.batch.model_options["max_failed_calls"] == 3
    (player,) = plan.first_players
    assert isinstance(player, ModelPlayer) and player.config.max_failed_calls == 3


def test_a_model_that_never_answers_stops_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys,
        "run",
        "tictactoe",
        "-p",
        "sim",
        "-p",
        "minimax",
        "-n",
        "3",
        "-j",
        "1",
        "--sim-api-error-rate",
        "1",
        "--max-failed-calls",
        "3",
        "--out",
        str(tmp_path),
    )
    assert code == 1, err
    assert "Traceback" not in err
    assert "stopped:" in out and "kept failing" in out  # the summary says why
    folders = session_dirs(tmp_path)
    assert len(folders) == 1  # no more episodes once the server is known to be down
    session = sessions.load_session(folders[0])
    assert session.status == "forfeit"
    decisions = [e for e in session.events if e["type"] == "decision" and e.get("seat") == 0]
    assert decisions[-1]["data"]["policy"] == "failed_calls"
    failed = [e for e in session.events if e["type"] == "model_call_failed"]
    assert len(failed) == 3
    # The default is 5.
    out2 = tmp_path / "default"
    code, _, err = run_cli(
        capsys,
        "run",
        "tictactoe",
        "-p",
        "sim",
        "-p",
        "minimax",
        "--sim-api-error-rate",
        "1",
        "--out",
        str(out2),
        "--json",
    )
    assert code == 1, err
    (folder,) = session_dirs(out2)
    failed = [e for e in sessions.load_session(folder).events if e["type"] == "model_call_failed"]
    assert len(failed) == 5


def test_fallback_moves_are_marked_in_run_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys,
        "run",
        "tictactoe",
        "-p",
        "sim",
        "-p",
        "minimax",
        "--seed",
        "4",
        "--sim-api-error-rate",
        "0.5",
        "--max-failed-calls",
        "0",
        "--out",
        str(tmp_path),
    )
    assert code == 0, err
    (folder,) = session_dirs(tmp_path)
    fallbacks = [
        e
        for e in sessions.load_session(folder).events
        if e["type"] == "decision" and e["data"].get("policy") == "random"
    ]
    assert fallbacks, "seed 4 has a fallback move"
    row = next(line for line in out.splitlines() if folder.name in line)
    assert "†" in row
    assert "fallback move" in out
    code, out, err = run_cli(capsys, "show", str(folder))
    assert code == 0, err
    assert "†" in next(line for line in out.splitlines() if line.startswith("scores"))
    assert f"{len(fallbacks)} fallback move" in out
    code, out, err = run_cli(capsys, "show", str(folder), "--json")
    assert json.loads(out)["model"]["0"]["fallback_moves"] == len(fallbacks)


# -- 5. SIGTERM is handled like Ctrl+C ---------------------------------------------------------------


def test_sigterm_aborts_running_episodes_and_prints_the_summary(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "run",
            "2048",
            "-p",
            "random",
            "-n",
            "200",
            "-j",
            "2",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list(tmp_path.glob("*/events.jsonl")):
            time.sleep(0.02)  # polling for the first session's file, not a synchronising sleep
        assert list(tmp_path.glob("*/events.jsonl")), "no session was started"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    folders = session_dirs(tmp_path)
    statuses = [sessions.load_session(f).status for f in folders]
    assert "aborted" in statuses
    assert "running" not in statuses
    assert set(statuses) <= {"aborted", "completed"}
    assert "interrupted" in out and "finished" in out  # the summary was printed


# -- 6. usage errors, not tracebacks or silence -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["2048", "--option", "size=9"], "size"),
        (["2048", "--option", "colour=red"], "colour"),
        (["2048", "-p", "sim", "--temperature", "nan"], "--temperature"),
        (["2048", "-p", "sim", "--temperature", "-1"], "--temperature"),
        (["2048", "-p", "sim", "--thinking-budget", "-100"], "--thinking-budget"),
        (["2048", "-p", "sim", "--max-failed-calls", "-1"], "--max-failed-calls"),
        (["2048", "-p", "sim", "--memory", "-2"], "--memory"),
        (["2048", "-p", "sim", "--retries", "-1"], "--retries"),
    ],
)
def test_bad_values_are_one_line_usage_errors(
    argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "run", *argv, "--out", str(tmp_path))
    assert code == 2, err
    assert out == "" and "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert needle in line
    assert not any(tmp_path.iterdir())


def test_a_game_that_rejects_its_options_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine

    def refuse(game_id: str, **options: object) -> None:
        raise ValueError("a 4x4 board needs size=4")

    monkeypatch.setattr(engine, "make", refuse)
    code, out, err = run_cli(capsys, "run", "2048", "--option", "size=3", "--out", str(tmp_path))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert "size=4" in line and "Traceback" not in err
