"""``playtrace ratings``: one OpenSkill pool of people, bots and models, from recorded sessions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.episode import start_episode
from engine.players import HumanPlayer, RandomPlayer
from sessions.ratings import Match, matches_from, rate, suggest_opponent
from tests.commands import own_home, record, run_cli


def _manifest(
    game: str,
    players: list[tuple[str, str]],
    scores: list[float],
    winner: int | None,
    seed: int = 0,
    when: str = "2026-01-01T00:00:00Z",
) -> dict[str, Any]:
    return {
        "game": game,
        "status": "completed",
        "seed": seed,
        "options": {},
        "created_at": when,
        "players": [{"seat": i, "spec": s, "kind": k} for i, (s, k) in enumerate(players)],
        "scores": scores,
        "winner": winner,
    }


def test_matches_from_outcomes_draws_and_same_seed_solo_games() -> None:
    ms = matches_from(
        [
            _manifest("connect4", [("alphabeta", "bot"), ("random", "bot")], [1, 0], 0),
            _manifest("tictactoe", [("sim", "model"), ("minimax", "bot")], [0.5, 0.5], None),
            _manifest("2048", [("sim", "model")], [512], None, seed=3),
            _manifest("2048", [("random", "bot")], [96], None, seed=3),
            _manifest("2048", [("random", "bot")], [128], None, seed=4),  # no rival on seed 4
            {**_manifest("2048", [("sim", "model")], [1], None), "status": "aborted"},
        ]
    )
    by_game = {m.game: m for m in ms}
    assert len(ms) == 3
    assert by_game["connect4"].ranks == (1, 2)
    assert by_game["tictactoe"].ranks == (1, 1)
    assert dict(zip(by_game["2048"].players, by_game["2048"].ranks, strict=True)) == {"sim": 1, "random": 2}


def test_bots_are_fixed_anchors() -> None:
    ladder = [Match("g", f"{i:02d}", ("alphabeta", "random"), (1, 2), ("bot", "bot")) for i in range(10)]
    alone = {s.player: s for s in rate(ladder)}
    newcomer = [Match("g", f"{i + 20}", ("gpt", "random"), (1, 2), ("model", "bot")) for i in range(3)]
    pooled = {s.player: s for s in rate(ladder + newcomer)}
    assert pooled["random"].anchor and pooled["alphabeta"].anchor and not pooled["gpt"].anchor
    assert pooled["random"].mu == alone["random"].mu and pooled["random"].sigma == alone["random"].sigma
    assert pooled["gpt"].mu > 25


def test_matchmaking_picks_the_least_certain_result() -> None:
    ms = [Match("g", f"{i:02d}", ("strong", "weak"), (1, 2), ("bot", "bot")) for i in range(10)]
    ms += [Match("g", f"{i + 10}", ("mid", "weak"), (1, 2), ("model", "bot")) for i in range(2)]
    opponent, chance = suggest_opponent("mid", ms, ["strong", "weak", "mid"])
    assert opponent == "strong" and 0.2 < chance < 0.8


async def _person_plays(root: Path, participant: str, seed: int) -> None:
    """A person (a real HumanPlayer, answered as the app would) plays tic-tac-toe in a study."""
    human = HumanPlayer("Participant")
    episode = start_episode(
        "tictactoe",
        ["human", "random"],
        root=root,
        seed=seed,
        players=[human, RandomPlayer(seed)],
        extra={"study": {"study": "pilot", "participant": participant}},
    )
    task = asyncio.ensure_future(episode.run())
    while not task.done():
        waiting = human.waiting
        if waiting is not None:
            human.submit(waiting.legal_actions[0])
        await asyncio.sleep(0)
    await task


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("ratings")
    with own_home(tmp_path_factory):
        record(
            "tournament",
            "connect4",
            "tictactoe",
            "-p",
            "random",
            "-p",
            "default",
            "-p",
            "sim",
            "--matches",
            "10",
            "--sim-latency",
            "0",
            "-j",
            "4",
            "--out",
            str(root / "rr"),
        )
        for seed in range(4):
            asyncio.run(_person_plays(root / "study", "P001", seed))
    yield root


def test_search_bot_ranks_above_random_and_people_join_the_pool(
    pool: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "ratings", str(pool), "--json")
    assert code == 0, err
    report = json.loads(out)
    table = {s["player"]: s for s in report["standings"]}
    search, rand = table["alphabeta"], table["random"]
    assert search["mu"] > rand["mu"] and search["low"] > rand["high"]  # intervals do not overlap
    assert search["anchor"] and rand["anchor"] and not table["sim"]["anchor"]
    person = table["human:P001"]
    assert person["kind"] == "human" and person["games"] == 4
    code, out, _ = run_cli(capsys, "ratings", str(pool), "--game", "tictactoe", "--suggest", "human:P001")
    assert code == 0 and "next opponent for human:P001" in out and "connect4" not in out
    assert "⚓" in out


@pytest.mark.parametrize("case", ["missing", "empty", "game"])
def test_bad_input_is_one_line(
    pool: Path, tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = {
        "missing": [str(tmp_path / "nope")],
        "empty": [str(tmp_path)],
        "game": [str(pool), "--game", "chess"],
    }[case]
    code, out, err = run_cli(capsys, "ratings", *args)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_placement_plays_the_least_certain_opponent(
    pool: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys,
        "tournament",
        "tictactoe",
        "--place",
        "sim",
        "-p",
        "random",
        "-p",
        "minimax",
        "--rounds",
        "3",
        "--sim-latency",
        "0",
        "--ratings-from",
        str(pool / "rr"),
        "--out",
        str(tmp_path / "place"),
    )
    assert code == 0, err
    rounds = [line for line in out.splitlines() if line.startswith("round ")]
    assert len(rounds) == 3
    # Against the pool's ratings, sim's least certain opponent is the search bot, not random.
    assert all("sim vs minimax" in line for line in rounds)
    assert len(list((tmp_path / "place").glob("*/manifest.json"))) == 6
    assert "sim: rating" in out
    code, _, err = run_cli(
        capsys, "tournament", "tictactoe", "--place", "sim", "-p", "sim", "--out", str(tmp_path)
    )
    assert code == 2 and "needs a pool" in err
