"""``playtrace import`` of GamingAgent's episode logs: 2048 sessions holding the logged boards."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from desktop import cli
from engine.games.g2048 import move_board
from sessions import load_session

Board = list[list[int]]


def _powers(board: Board) -> list[list[int]]:
    return [[int(math.log2(v)) if v else 0 for v in row] for row in board]


def _line(step: int, action: str | None, thought: str, board: Board, total: int, gain: int) -> dict[str, Any]:
    """One line as GamingAgent's ``GymEnvAdapter.log_step_data`` writes it for its 2048 environment."""
    text = {
        "board": board,
        "highest_tile": max(max(r) for r in board),
        "analysis": f"Board has {sum(v == 0 for r in board for v in r)} empty spaces",
    }
    observation = {
        "img_path": None,
        "textual_representation": str(text),
        "processed_visual_description": None,
    }
    return {
        "episode_id": 1,
        "step": step,
        "agent_action": action,
        "thought": thought,
        "reward": float(gain),
        "perf_score": float(gain),
        "info": {
            "board": _powers(board),
            "step_score": gain,
            "total_score": total,
            "max_tile_power": max(max(r) for r in _powers(board)),
            "is_legal_move": True,
            "illegal_move_count": 0,
        },
        "agent_observation": json.dumps(observation, indent=2),
        "terminated": False,
        "truncated": False,
        "time_taken_s": 1.5,
    }


def _episode() -> tuple[list[dict[str, Any]], list[Board]]:
    """A short episode: moves slid by the rules, tiles spawned where this test says (not where
    PlayTrace's generator would)."""
    board: Board = [[0, 0, 0, 2], [0, 0, 0, 2], [0, 0, 0, 0], [0, 0, 0, 0]]
    plan = [("up", (3, 0, 2)), ("left", (3, 3, 4)), ("skip", None), ("down", (0, 1, 2)), ("right", (0, 0, 2))]
    lines, boards, total = [], [], 0
    for step, (action, spawn) in enumerate(plan, 1):
        if spawn is None:
            lines.append(_line(step, action, "not sure", board, total, 0))
            continue
        slid, gain = move_board(tuple(tuple(r) for r in board), action)
        board = [list(r) for r in slid]
        r, c, v = spawn
        assert board[r][c] == 0
        board[r][c] = v
        total += gain
        lines.append(_line(step, action, f"I slide {action} to keep the corner", board, total, gain))
        boards.append([row[:] for row in board])
    return lines, boards


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_2048_log_becomes_a_session_of_the_logged_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, boards = _episode()
    log = _write(tmp_path / "episode_001_log.jsonl", lines)
    code, out, err = _cli(capsys, "import", str(log), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    session = load_session(Path(out.strip()))
    assert session.game_id == "2048"
    # The first logged board is the start; the three later moves (the skip left out) are the steps.
    assert session.num_steps == 3
    for k, board in enumerate(boards):
        assert session.state_at(k).to_json()["board"] == board
    decisions = [e["data"] for e in session.events if e["type"] == "decision"]
    assert [d["action"] for d in decisions] == ["left", "down", "right"]
    assert decisions[0]["rationale"] == "I slide left to keep the corner"
    imported = session.manifest["extra"]["imported"]
    assert imported["format"] == "gamingagent" and imported["skipped_steps"] == [3]
    assert imported["first_step"]["action"] == "up"
    assert session.state_at(3).scores == (lines[-1]["info"]["total_score"],)


def test_a_folder_imports_every_episode_and_the_board_can_come_from_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, boards = _episode()
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "episode_001_log.jsonl", lines)
    # An older environment's info without the board: the board is read from the observation's text.
    text_only = [
        dict(line, info={"total_score": line["info"]["total_score"], "board": None}) for line in lines
    ]
    _write(run / "episode_002_log.jsonl", text_only)
    (run / "gym_run_summary.json").write_text("{}", encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(run), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    first, second = (load_session(Path(p)) for p in out.split())
    assert second.state_at(second.num_steps).to_json()["board"] == boards[-1]
    assert first.num_steps == second.num_steps == 3


@pytest.mark.parametrize("case", ["not-json", "not-a-record", "wrong-board", "sokoban", "empty"])
def test_a_bad_log_is_one_line_and_exit_1(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, _ = _episode()
    log = tmp_path / "episode_001_log.jsonl"
    if case == "not-json":
        log.write_text(json.dumps(lines[0]) + "\n{not json\n", encoding="utf-8")
    elif case == "not-a-record":
        _write(log, [lines[0], {"hello": 1}])
    elif case == "wrong-board":
        lines[3]["info"]["board"][0] = [5, 5, 5, 5]
        _write(log, lines)
    elif case == "sokoban":
        _write(log, [dict(line, info={"boxes_on_target": 0, "total_boxes": 2}) for line in lines])
    else:
        log.write_text("", encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(log), "--format", "gamingagent", "--out", str(tmp_path / "s"))
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: "), err
    assert not (tmp_path / "s").exists() or not any((tmp_path / "s").iterdir())
    if case == "wrong-board":
        assert "step 4" in err
    if case == "sokoban":
        assert "no board" in err


def test_a_wrong_format_and_an_unknown_file_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.json"
    results.write_text("{}", encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(results), "--format", "gamebot", "--out", str(tmp_path / "s"))
    assert code == 1 and out == "" and err.count("\n") == 1 and "not a GAMEBoT game log" in err, err
    log = tmp_path / "steps.jsonl"
    log.write_text('{"a": 1}\n', encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(log), "--out", str(tmp_path / "s"))
    assert code == 1 and err.count("\n") == 1, err
    assert not any((tmp_path / "s").glob("*/manifest.json"))
