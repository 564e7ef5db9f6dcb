"""``playtrace tournament`` (and ``tournament report``, and ``show --json``'s per-question scores) through
the real console entry point in a subprocess, offline, writing into a temporary folder."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sessions

REPO = Path(__file__).resolve().parents[1]


def cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "desktop.cli", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, env=os.environ.copy())


def session_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "manifest.json").exists())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("tournament")
    proc = cli("tournament", "tictactoe", "-p", "sim", "-p", "random", "-p", "minimax", "--matches", "2",
               "--seed", "7", "--concurrency", "3", "--sim-latency", "0", "--prompt-variant", "cot",
               "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    return out, json.loads(proc.stdout), proc


def test_a_round_robin_saves_every_match_and_writes_the_tables(
    played: tuple[Path, dict, subprocess.CompletedProcess[str]],
) -> None:
    out, data, proc = played
    assert data["matches"] == data["done"] == 6 and data["errors"] == 0
    assert proc.stderr.strip().splitlines()[-1].startswith("playtrace tournament done: 6/6")
    folders = session_dirs(out)
    assert len(folders) == 6
    tags = [json.loads((f / "manifest.json").read_text())["extra"]["tournament"] for f in folders]
    assert {t["id"] for t in tags} == {data["id"]}
    assert sorted(t["seed"] for t in tags) == list(range(7, 13))
    for pair in ([0, 1], [0, 2], [1, 2]):
        firsts = [t["players"][0] for t in tags if t["pair"] == pair]
        assert len(firsts) == 2 and len(set(firsts)) == 2  # each side moved first once

    rows = list(csv.DictReader((out / "results.csv").open(encoding="utf-8")))
    per_game = {r["player"]: r for r in rows if r["game"] == "tictactoe"}
    overall = {r["player"]: r for r in rows if r["game"] == "all"}
    assert set(per_game) == set(overall) == {"sim", "random", "minimax"}
    assert all(int(r["matches"]) == 4 for r in per_game.values())
    assert int(per_game["minimax"]["losses"]) == 0
    mm = per_game["minimax"]
    assert float(mm["outcome"]) == pytest.approx((int(mm["wins"]) - int(mm["losses"])) / 4)
    assert overall["random"]["intermediate"] == "" and overall["random"]["final"] == ""
    sim = overall["sim"]
    assert float(sim["final"]) == pytest.approx((float(sim["outcome"]) + float(sim["intermediate"])) / 2,
                                               abs=1e-4)

    questions = list(csv.DictReader((out / "questions.csv").open(encoding="utf-8")))
    assert {(q["player"], q["key"]) for q in questions} == {("sim", "1"), ("sim", "2")}
    mean = sum(float(q["score"]) for q in questions) / 2
    assert float(per_game["sim"]["intermediate"]) == pytest.approx(mean, abs=1e-4)

    md = (out / "results.md").read_text(encoding="utf-8")
    assert "## Outcome scores" in md and "## Intermediate scores" in md and "## Final score" in md
    assert "| Player | tictactoe | Average |" in md
    best = max((r for r in per_game.values()), key=lambda r: float(r["outcome"]))
    assert f"**{float(best['outcome']):.2f}**" in md  # the column's best is bold
    assert f"| Random | {float(per_game['random']['outcome']):.2f} |" in md or "| Random | **" in md


def test_report_rebuilds_the_same_tables_from_the_sessions(
    played: tuple[Path, dict, subprocess.CompletedProcess[str]],
) -> None:
    out, data, _ = played
    (out / "results.csv").unlink()
    proc = cli("tournament", "report", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    rebuilt = json.loads(proc.stdout)
    assert rebuilt["tournaments"] == [data["id"]] and rebuilt["matches"] == 6
    assert rebuilt["totals"] == data["totals"]
    assert rebuilt["standings"] == data["standings"]
    assert (out / "results.csv").exists()
    text = cli("tournament", "report", str(out))
    assert text.returncode == 0 and "Ranking" in text.stdout and "Intermediate questions" in text.stdout


def test_show_json_lists_each_question_with_how_often_it_was_asked(
    played: tuple[Path, dict, subprocess.CompletedProcess[str]],
) -> None:
    out, _, _ = played
    manifests = {f: json.loads((f / "manifest.json").read_text()) for f in session_dirs(out)}
    folder = next(f for f, m in manifests.items() if any(p["spec"] == "sim" for p in m["players"]))
    proc = cli("show", str(folder), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    seat = next(k for k, v in report["model"].items())
    listed = report["model"][seat]["questions"]
    assert [q["key"] for q in listed] == [1, 2]
    assert set(listed[0]) == {"key", "question", "metric", "asked", "correct", "format_errors",
                              "not_applicable", "score"}
    events = [e for e in sessions.load_session(folder).events
              if e["type"] == "verification" and e["seat"] == int(seat)]
    for q in listed:
        mine = [e for e in events if e["data"]["key"] == q["key"]]
        assert q["asked"] + q["not_applicable"] == len(mine) > 0
        assert q["correct"] == sum(1 for e in mine if e["data"]["correct"])
        assert q["metric"] == "f1" and 0.0 <= q["score"] <= 1.0
    human = cli("show", str(folder))
    assert human.returncode == 0
    assert "Q1 my winning moves: f1" in human.stdout and "Q2 opponent's winning moves: f1" in human.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["2048", "-p", "random", "-p", "sim"], "2048 is a 1-seat game"),
        (["tictactoe", "-p", "random"], "at least two --player values"),
        (["tictactoe", "-p", "random", "-p", "nobody"], "unknown player 'nobody' for tictactoe"),
        (["tictactoe", "-p", "random", "-p", "minimax", "--matches", "0"], "--matches must be at least 1"),
        (["tictactoe", "othello", "-p", "random", "-p", "default", "--option", "x=1"], "name the game"),
    ],
)
def test_bad_input_is_a_usage_error(tmp_path: Path, argv: list[str], message: str) -> None:
    proc = cli("tournament", *argv, "--out", str(tmp_path / "t"))
    assert proc.returncode == 2
    assert message in proc.stderr
    assert not (tmp_path / "t").exists()  # nothing written before the input is known to be good
