"""``playtrace sweep``: init, a sweep killed with SIGKILL twice and resumed, the report, bad files."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.cli import main
from engine.sweep import parse_sweep

#: The done-when sweep: 2 games × 3 players × 2 harness settings × 5 seeds = 60 episodes.
GRID = """\
name = "grid"
seeds = [0, 1, 2, 3, 4]
max_steps = 9
concurrency = 4

[[games]]
id = "tictactoe"
players = ["random", "minimax", "sim"]

[[games]]
id = "2048"
max_steps = 8
players = ["random", "greedy", "sim"]

[harness]
sim_latency = 0.001
perception = "text"

[[harness.settings]]
name = "zero-shot"
memory = 0
reflection = false

[[harness.settings]]
name = "memory"
memory = 3
reflection = true
"""

_MAIN = "import sys; from desktop.cli import main; sys.exit(main())"


def _done(folder: Path) -> int:
    """Episodes the index counts as done (0 before the index exists)."""
    path = folder / "index.sqlite"
    if not path.exists():
        return 0
    db = sqlite3.connect(path, timeout=10)
    try:
        return int(db.execute("SELECT COUNT(*) FROM episodes WHERE state = 'done'").fetchone()[0])
    except sqlite3.OperationalError:  # the tables are being created
        return 0
    finally:
        db.close()


def _start(sweep: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _MAIN, "sweep", str(sweep), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=sweep.parent)


def _kill_after(proc: subprocess.Popen[bytes], out: Path, at_least: int, timeout: float = 60.0) -> int:
    """SIGKILL ``proc`` as soon as the index counts ``at_least`` episodes done; returns the count."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = _done(out)
        if done >= at_least:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            return done
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        time.sleep(0.01)  # polling the index, which is the event waited for
    proc.kill()
    raise AssertionError(f"the sweep did not reach {at_least} episodes in {timeout} s")


def test_init_writes_an_offline_example_that_parses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "grid.toml"
    assert main(["sweep", "init", str(path)]) == 0
    sweep = parse_sweep(path.read_text(encoding="utf-8"))
    assert len(sweep.episodes) == 36 and not sweep.ray.tags
    assert all(s.split(":")[0] not in ("openai", "anthropic") for c in sweep.cells for s in c.lineup.specs)
    assert main(["sweep", "init", str(path)]) == 2
    assert "exists" in capsys.readouterr().err


def test_a_sweep_killed_twice_resumes_to_exactly_its_episodes(tmp_path: Path) -> None:
    sweep = tmp_path / "grid.toml"
    sweep.write_text(GRID, encoding="utf-8")
    out = tmp_path / "results"
    first = _kill_after(_start(sweep, out), out, at_least=4)
    second = _kill_after(_start(sweep, out), out, at_least=first + 8)
    assert first < second < 60, "the sweep was to be killed half-way"
    finished = subprocess.run([sys.executable, "-c", _MAIN, "sweep", str(sweep), "--out", str(out)],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr
    size = "2 game(s) × 3 lineup(s) × 2 harness setting(s) = 12 cells × 5 seed(s) = 60 episodes"
    assert size in finished.stderr
    assert f"{second} done, {60 - second} to play" in finished.stderr

    db = sqlite3.connect(out / "index.sqlite")
    rows = db.execute("SELECT cell, seed, state, session FROM episodes").fetchall()
    assert len(rows) == 60 and {r[2] for r in rows} == {"done"}
    assert len({(r[0], r[1]) for r in rows}) == 60
    sessions = {p.name for p in (out / "sessions").iterdir()}
    assert sessions == {Path(r[3]).name for r in rows}
    cells = {c: (g, json.loads(p)) for c, g, p in db.execute("SELECT cell, game, players FROM cells")}
    for cell, seed, _, session in rows:
        manifest = json.loads((out / session / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["seed"] == seed and manifest["game"] == cells[cell][0]
        assert manifest["extra"]["sweep"]["cell"] == cell and manifest["extra"]["sweep"]["seed"] == seed
        assert manifest["status"] in ("completed", "max_steps")
    # Whatever the kills tore was moved aside and is not counted.
    torn = {p.name for p in (out / "torn").iterdir()} if (out / "torn").exists() else set()
    assert not torn & sessions
    moved = db.execute("SELECT COUNT(*) FROM moved").fetchone()[0]
    assert moved == len(torn)

    report = subprocess.run([sys.executable, "-c", _MAIN, "sweep", "report", str(out)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "60 episode(s) in 12 cells" in report.stdout
    assert "score_2048" in report.stdout and "(n=5)" in report.stdout
    assert "LMGame-Bench harness ablation, 2048" in report.stdout
    assert "missing" not in report.stdout


def test_report_as_json_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "small.toml"
    sweep.write_text(GRID.replace("seeds = [0, 1, 2, 3, 4]", "seeds = [7]"), encoding="utf-8")
    out = tmp_path / "r"
    assert main(["sweep", str(sweep), "--out", str(out), "--dry-run"]) == 0
    assert "0 done, 12 to play" in capsys.readouterr().err
    assert main(["sweep", str(sweep), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["sweep", "report", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["cells"]) == 12 and data["missing"] == 0
    line = data["lmgame_ablation"]["2048"][0]
    assert line["players"] == "sim" and line["ZS"] == [] and line["+Perception"][0]["harness"] == "zero-shot"
    # A mistake in the file: one line naming the file, the line and the key, exit code 2.
    bad = tmp_path / "bad.toml"
    bad.write_text(GRID.replace('perception = "text"', 'perception = "smell"'), encoding="utf-8")
    assert main(["sweep", str(bad)]) == 2
    message = capsys.readouterr().err.strip()
    assert message == (f'playtrace: {bad}:17: harness.perception: expected "text", "image", "both" or '
                       "\"describe\", got 'smell'")
    assert main(["sweep", "report", str(tmp_path)]) == 2
    assert "not a sweep results folder" in capsys.readouterr().err



def test_dry_run_shows_size_and_cost_of_paid_models_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "x" * 32)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-" + "x" * 32)
    paid = GRID.replace('players = ["random", "minimax", "sim"]', 'players = ["openai:gpt-4o-mini"]')
    paid = paid.replace('players = ["random", "greedy", "sim"]', 'players = ["anthropic:no-such-model-9"]')
    path = tmp_path / "paid.toml"
    path.write_text(paid, encoding="utf-8")
    out = tmp_path / "results"
    assert main(["sweep", str(path), "--out", str(out), "--dry-run"]) == 0
    text = capsys.readouterr().err
    assert "4 cells × 5 seed(s) = 20 episodes" in text and "0 done, 20 to play" in text
    assert "estimated cost of what is left for the models with a price: about $" in text
    assert "cost estimate unknown for anthropic:no-such-model-9" in text
    assert not out.exists()
    # A cap that could never trigger (a model without a price) is refused before anything plays.
    path.write_text(paid + "\n[budget]\nsweep_usd = 1.0\n", encoding="utf-8")
    assert main(["sweep", str(path), "--out", str(out)]) == 2
    assert "sweep_usd cannot be enforced for anthropic:no-such-model-9" in capsys.readouterr().err
    assert not out.exists()
    monkeypatch.delenv("OPENAI_API_KEY")
    path.write_text(paid, encoding="utf-8")
    assert main(["sweep", str(path), "--out", str(out)]) == 2
    assert "no API key for openai" in capsys.readouterr().err


def test_progress_has_a_bar_per_game_lineup_and_harness_setting(capsys: pytest.CaptureFixture[str]) -> None:
    from desktop.cli.sweep import _Bars

    sweep = parse_sweep(GRID.replace("seeds = [0, 1, 2, 3, 4]", "seeds = [0, 1]"))
    first = sweep.cells[0]
    with _Bars(sweep, {(first.key, 0)}, enabled=True) as bars:
        for cell, seed in sweep.episodes[1:]:
            bars.episode(cell, seed, {"counted": cell.key != sweep.cells[-1].key or seed == 0})
    err = capsys.readouterr().err
    assert "all episodes" in err and "23/24" in err
    for label in ("game tictactoe", "game 2048", "players minimax", "players greedy", "harness zero-shot",
                  "harness memory"):
        assert label in err
    assert "12/12" in err and "11/12" in err  # the failed episode is in one game's and one setting's bar
    assert "it is played again next run" in err
