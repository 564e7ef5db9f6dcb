"""``playtrace tasks generate|eval|report`` through the real console entry point in a subprocess,
offline, with ``random`` and ``sim`` on every registered game that declares tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.tasks import TASK_NAMES, games_with_tasks

REPO = Path(__file__).resolve().parents[1]
GAMES = games_with_tasks()
N = 4


def cli(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy()
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return subprocess.run([sys.executable, "-m", "desktop.cli", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, env=env)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every game with tasks × every task: a set of N items, evaluated with random and sim."""
    root = tmp_path_factory.mktemp("tasks")
    for game in GAMES:
        for task in TASK_NAMES:
            out = root / f"{game}-{task}"
            made = cli("tasks", "generate", game, "--task", task, "--n", str(N), "--seed", "3",
                       "--out", str(out))
            assert made.returncode == 0, made.stderr
            ran = cli("tasks", "eval", str(out), "--player", "random", "--player", "sim", "--json")
            assert ran.returncode == 0, ran.stderr
            (out / "eval.json").write_text(ran.stdout)
    return root


@pytest.mark.parametrize("game", GAMES)
def test_generate_and_eval_every_task(evaluated: Path, game: str) -> None:
    for task in TASK_NAMES:
        folder = evaluated / f"{game}-{task}"
        manifest = json.loads((folder / "manifest.json").read_text())
        assert (manifest["game"], manifest["task"], manifest["n"]) == (game, task, N)
        assert len(list((folder / "images").glob("*.png"))) == N
        assert (folder / "images" / "0001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "playtrace tasks generate" in (folder / "README.md").read_text()
        summary = json.loads((folder / "eval.json").read_text())
        assert [s["player"] for s in summary] == ["random", "sim"]
        assert "simulated" in summary[1]["label"]
        for s in summary:
            assert 0.0 <= s["score"] <= 1.0 and s["scored"] == N and s["api_errors"] == 0
            saved = json.loads(Path(s["results"]).read_text())
            assert saved["format"] == "playtrace-task-results" and len(saved["items"]) == N
            assert all(item["latency_s"] is not None for item in saved["items"])


def test_generation_is_byte_identical_with_images(tmp_path: Path) -> None:
    for name in ("a", "b"):
        done = cli("tasks", "generate", "sudoku", "--task", "qa", "--n", "3", "--seed", "9", "--out",
                   str(tmp_path / name))
        assert done.returncode == 0, done.stderr
    for rel in ("manifest.json", "README.md", "images/0001.png", "images/0002.png", "images/0003.png"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
    # Rewriting into the same folder gives the same files again.
    again = cli("tasks", "generate", "sudoku", "--task", "qa", "--n", "3", "--seed", "9", "--out",
                str(tmp_path / "a"))
    assert again.returncode == 0
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()


def test_report_prints_tables_with_best_and_random(evaluated: Path, tmp_path: Path) -> None:
    md = tmp_path / "report.md"
    done = cli("tasks", "report", str(evaluated), "--markdown", str(md))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for title in ("Perceiving", "Question answering", "Rule following"):
        assert title in out
    assert "overall" in out and "*" in out
    assert "Random (paper)" in out and "\nRandom " in out
    text = md.read_text()
    assert "**" in text and "| Random |" in text and "| Random (paper) |" in text
    js = cli("tasks", "report", str(evaluated), "--json")
    tables = json.loads(js.stdout)["tables"]
    assert [t["task"] for t in tables] == list(TASK_NAMES)
    for table in tables:
        assert set(table["games"]) == set(GAMES)
        sim = next(r for r in table["rows"] if r["player"] == "sim")
        assert sim["best"] and sim["overall"] is not None
        assert table["random"]["player"] == "random"


def test_report_of_one_results_file(evaluated: Path) -> None:
    one = evaluated / "sudoku-qa" / "results" / "sim.json"
    done = cli("tasks", "report", str(one), "--json")
    assert done.returncode == 0, done.stderr
    (table,) = json.loads(done.stdout)["tables"]
    assert table["games"] == ["sudoku"] and table["random"] is None


def test_a_person_who_answered_one_item_is_shown_with_coverage_and_is_never_best(tmp_path: Path) -> None:
    from desktop.cli.tasks import _lines, build_report
    from engine.tasks import load_results

    out = tmp_path / "sudoku-qa"
    assert cli("tasks", "generate", "sudoku", "--task", "qa", "--n", str(N), "--seed", "3",
               "--out", str(out)).returncode == 0
    assert cli("tasks", "eval", str(out), "--player", "sim").returncode == 0
    sim = load_results(out / "results" / "sim.json")
    # A person who answered one item of the set, and answered it right.
    person = {**sim, "player": "human", "label": "A person", "score": 1.0, "scored": 1,
              "items": sim["items"][:1]}
    (table,) = build_report([sim, person])
    row = next(r for r in table["rows"] if r["player"] == "human")
    assert row["coverage"]["sudoku"] == [1, N] and not row["complete"] and row["best"] == []
    line = next(line for line in _lines(table, markdown=False) if line[0] == "A person")
    assert line[1] == f"1.000 (1/{N} items)"  # no star, and the coverage shown
    best = next(r for r in table["rows"] if r["player"] == "sim")["best"]
    assert "sudoku" in best


@pytest.mark.parametrize(("argv", "message"), [
    (["tasks", "eval", "{tmp}/nowhere", "--player", "sim"], "not a folder"),
    (["tasks", "eval", "{tmp}", "--player", "sim"], "no manifest.json"),
    (["tasks", "generate", "sudoku", "--task", "draw", "--n", "2", "--out", "{tmp}/x"], "unknown task"),
    (["tasks", "generate", "2048", "--task", "qa", "--n", "2", "--out", "{tmp}/x"], "has no LVLM-Playground"),
    (["tasks", "generate", "nosuchgame", "--task", "qa", "--n", "2", "--out", "{tmp}/x"], "unknown game"),
    (["tasks", "generate", "sudoku", "--task", "qa", "--n", "0", "--out", "{tmp}/x"], "--n"),
    (["tasks", "report", "{tmp}"], "no task results"),
    (["tasks"], "generate|eval|report"),
])
def test_usage_errors_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    done = cli(*[a.format(tmp=tmp_path) for a in argv])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_player_exit_2(evaluated: Path) -> None:
    done = cli("tasks", "eval", str(evaluated / "sudoku-qa"), "--player", "bogus")
    assert done.returncode == 2 and "unknown player" in done.stderr


def test_end_to_end_games_make_table_5(tmp_path: Path, evaluated: Path) -> None:
    """End-to-end play is a normal run; the report reads its sessions' points (Table 5)."""
    runs = tmp_path / "runs"
    for player in ("sim", "random"):
        done = cli("run", "sudoku", "-p", player, "-n", "2", "--max-steps", "6", "--strikes", "3",
                   "--out", str(runs))
        assert done.returncode == 0, done.stderr
    # Task results and end-to-end sessions together: Tables 2-4 and Table 5.
    report = cli("tasks", "report", str(evaluated), str(runs), "--json")
    assert report.returncode == 0, report.stderr
    tables = json.loads(report.stdout)["tables"]
    assert {t["task"] for t in tables} == {*TASK_NAMES, "e2e"}
    (table,) = [t for t in tables if t["task"] == "e2e"]
    rows = {r["player"]: r["scores"]["sudoku"] for r in [*table["rows"], table["random"]] if r}
    assert set(rows) == {"sim", "random"}
    points = []
    for folder in sorted(p for p in runs.iterdir() if (p / "events.jsonl").exists()):
        lines = (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()
        finished = next(json.loads(line) for line in reversed(lines) if '"session_finished"' in line)
        points.append((json.loads((folder / "manifest.json").read_text())["players"][0]["spec"],
                       finished["data"]["metrics"]["lvlm_points"]))
    for player, mean in rows.items():
        mine = [p for spec, p in points if spec == player]
        assert mean == pytest.approx(sum(mine) / len(mine))
