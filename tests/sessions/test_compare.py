"""``playtrace compare``: sessions aligned step by step, folders compared over matched seeds."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.stats import paired_stats
from sessions import load_session
from sessions.compare import align, prompt_diff
from sessions.search import find_sessions
from tests.commands import own_home, record, run_cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("compare")
    with own_home(tmp_path_factory):
        for name, player, extra in (
            ("sim", "sim", []),
            ("random", "random", []),
            ("simerr", "sim", ["--sim-error-rate", "0.6", "--retries", "0"]),
        ):
            record(
                "run",
                "2048",
                "-p",
                player,
                "-n",
                "6",
                "--max-steps",
                "40",
                "--no-reflection",
                *extra,
                "--out",
                str(root / name),
            )
        record("run", "tictactoe", "-p", "sim", "-p", "random", "-n", "1", "--out", str(root / "ttt"))
    yield root


def _first(folder: Path, seed: int = 0) -> Path:
    return next(f for f in find_sessions(folder) if load_session(f).manifest.get("seed") == seed)


def test_paired_statistics_match_known_values() -> None:
    a = [1.0, 2.0, 3.0, 4.0, 5.0]
    b = [2.0, 3.0, 5.0, 4.0, 7.0]
    r = paired_stats("x", a, b)
    # Differences 1, 1, 2, 0, 2: mean 1.2, SD sqrt(0.7); t = 1.2 / (sqrt(0.7) / sqrt(5)) on 4 df.
    assert r.n == 5 and r.mean_diff == pytest.approx(1.2)
    assert r.t_stat == pytest.approx(1.2 / (math.sqrt(0.7) / math.sqrt(5)))
    assert r.t_p == pytest.approx(0.03274, abs=1e-4)
    assert r.ci_low is not None and r.ci_high is not None and r.ci_low < 1.2 < r.ci_high
    assert r.wilcoxon_p is not None and 0 < r.wilcoxon_p < 1
    same = paired_stats("y", a, a)
    assert same.mean_diff == 0 and same.t_p is None and same.wilcoxon_p is None and same.ci_low == 0


def test_sessions_align_and_the_first_divergence_is_marked(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _first(runs / "sim"), _first(runs / "simerr")
    alignment = align([load_session(a), load_session(b)])
    assert alignment.same_start
    k = alignment.first_divergence
    assert k is not None
    for row in alignment.rows[:k]:
        assert row[0] is not None and row[1] is not None and row[0].action == row[1].action
    diverging = alignment.rows[k]
    assert (
        diverging[0] is None
        or diverging[1] is None
        or diverging[0].action != diverging[1].action
        or diverging[0].board != diverging[1].board
    )
    code, out, err = run_cli(capsys, "compare", str(a), str(b), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["first_divergence"] == k + 1 and len(report["steps"]) == len(alignment.rows)
    code, out, _ = run_cli(capsys, "compare", str(a), str(b))
    assert code == 0 and f"first divergence: step {k + 1}" in out and f"▶{k + 1}" in out


def test_prompt_diff_shows_only_what_differs() -> None:
    assert prompt_diff("a\nb\nc", "a\nb\nc") == []
    diff = prompt_diff("a\nb\nc", "a\nB\nc")
    assert "-b" in diff and "+B" in diff


def test_folders_are_compared_over_matched_seeds(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "compare", str(runs / "random"), str(runs / "sim"), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["pairs"] == 6 and report["seat"] == 0
    (score,) = [r for r in report["results"] if r["what"].startswith("score")]
    assert score["n"] == 6 and score["t_p"] is not None and score["wilcoxon_p"] is not None
    code, out, _ = run_cli(capsys, "compare", str(runs / "random"), str(runs / "sim"))
    assert code == 0 and "6 matched seeds" in out and "score of seat 0" in out


@pytest.mark.parametrize("case", ["games", "mixed", "one", "missing"])
def test_bad_input_is_one_line_and_exit_2(runs: Path, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = {
        "games": [str(_first(runs / "sim")), str(next(iter(find_sessions(runs / "ttt"))))],
        "mixed": [str(_first(runs / "sim")), str(runs / "random")],
        "one": [str(_first(runs / "sim"))],
        "missing": [str(runs / "nothing"), str(runs / "sim")],
    }[case]
    code, out, err = run_cli(capsys, "compare", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: ")
