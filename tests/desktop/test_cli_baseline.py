"""``playtrace baseline``: random and bot baselines played on the spot, human baselines read from the
sessions people recorded (played here through the same human player the app drives)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from desktop.cli import main
from engine.baseline import episode_figures, summarise
from engine.match import Match
from engine.players import HumanPlayer
from engine.registry import make
from sessions.writer import SessionWriter


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def _person_plays(root: Path, seed: int, moves: int, study: dict[str, object] | None = None) -> None:
    """A person plays 2048 by pressing keys (the human player's submit, as the board view calls it)."""
    game = make("2048")
    person = HumanPlayer("You")
    match = Match(game, [person], seed=seed, max_steps=moves)
    extra = {"study": study} if study else None
    writer = SessionWriter.for_match(root, match, extra=extra)
    task = asyncio.create_task(match.run())
    rng = random.Random(seed)
    while not task.done():
        obs = person.waiting
        if obs is None:
            await asyncio.sleep(0)  # the match has not asked yet: let it run
            continue
        person.submit(rng.choice(list(obs.legal_actions)))
    await task
    writer.close()


def test_random_baseline_prints_mean_sd_and_se_of_both_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "baseline", "2048", "--episodes", "6", "--max-steps", "40", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["episodes"] == 6
    assert (result["raw_score"], result["progress_score"]) == ("score_2048", "max_tile")
    raw = result["raw"]
    assert raw["n"] == 6 and raw["low"] <= raw["mean"] <= raw["high"]
    assert raw["se"] == pytest.approx(raw["sd"] / 6 ** 0.5)
    assert result["progress"]["low"] >= 4  # a 2048 board always holds at least a 2 or a 4 that grew

    code, table, _ = run_cli(capsys, "baseline", "2048", "--episodes", "3", "--max-steps", "10")
    assert code == 0
    assert "raw (score_2048)" in table and "progress (max_tile)" in table and "±" in table


def test_random_2048_lands_near_the_papers_random_row(capsys: pytest.CaptureFixture[str]) -> None:
    """LMGame-Bench's random 2048 row is 100.4 ± 7.8 over 30 runs (10 × log2 of the merged sum)."""
    code, out, _ = run_cli(capsys, "baseline", "2048", "--json")
    assert code == 0
    raw = json.loads(out)["raw"]
    assert raw["n"] == 30
    assert 90 <= raw["mean"] <= 110 and 4 <= raw["sd"] <= 14


def test_human_baseline_reads_only_finished_human_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    asyncio.run(_person_plays(root, seed=1, moves=12))
    asyncio.run(_person_plays(root, seed=2, moves=15, study={"id": "s1", "participant": "P01"}))
    practice = {"id": "s1", "participant": "P01", "practice": True}
    asyncio.run(_person_plays(root, seed=3, moves=8, study=practice))
    # A bot's session of the same game is not a human baseline.
    code, _, _ = run_cli(capsys, "run", "2048", "-p", "random", "--max-steps", "5", "--out", str(root))
    assert code == 0

    code, out, _ = run_cli(capsys, "baseline", "2048", "--player", "human", "--sessions", str(root), "--json")
    assert code == 0
    every = json.loads(out)
    assert every["episodes"] == 3

    code, out, _ = run_cli(capsys, "baseline", "2048", "--player", "human", "--sessions", str(root),
                           "--study", "s1", "--json")
    assert code == 0
    assert json.loads(out)["episodes"] == 1  # the practice round does not count

    code, _, err = run_cli(capsys, "baseline", "2048", "--player", "human", "--sessions", str(root),
                           "--study", "nobody")
    assert code == 1 and "no finished human sessions of 2048" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run_cli(capsys, "baseline", "2048", "--episodes", "0")[0] == 2
    code, _, err = run_cli(capsys, "baseline", "2048", "--player", "nosuchbot")
    assert code == 2 and "unknown player" in err
    code, _, err = run_cli(capsys, "baseline", "2048", "--study", "s1")
    assert code == 2 and "--player human" in err
    code, _, err = run_cli(capsys, "baseline", "2048", "-p", "human", "--sessions", str(tmp_path / "none"))
    assert code == 2 and "not a folder" in err


def test_figures_of_an_unfinished_or_foreign_episode_do_not_count() -> None:
    game = make("2048")
    assert episode_figures(game, {"status": "aborted", "metrics": {"score_2048": 50.0}}) is None
    assert episode_figures(game, {"status": "completed", "metrics": {}}) is None
    fig = episode_figures(game, {"status": "completed", "metrics": {"score_2048": 50.0, "max_tile": 64}})
    assert fig is not None and (fig.raw, fig.progress) == (50.0, 64.0)
    s = summarise([1.0, 2.0, 3.0, 4.0])
    assert (s.mean, round(s.sd, 6), round(s.se, 6)) == (2.5, 1.290994, 0.645497)
    with pytest.raises(ValueError):
        summarise([])
