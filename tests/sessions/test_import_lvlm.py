"""``playtrace import`` of LVLM-Playground experiment records: end-to-end games as sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop import cli
from engine.games.tictactoe.lvlm import cell_name
from sessions import load_session


def _turn(step: int, move: str | None, ai: str | None) -> dict[str, Any]:
    """A history entry as the reference's ``GameSimulator.run_e2e`` records it."""
    answer = f"Observation: ...\nStrategy: take {move}\nMovement: {move}" if move else "I am not sure."
    return {
        "step": step,
        "screenshot_path": f"round_1/step_{step:07d}.jpg",
        "llm_raw_output": answer,
        "parsed_move": move if move else "invalid",
        "move_result": 0 if move else 3,
        "ai_move": ai,
    }


def _record() -> dict[str, Any]:
    stopped = [("B2", "A1"), ("A2", "C2"), (None, None), ("C1", "A3"), (None, None), (None, None)]
    won = [("A1", "B1"), ("A2", "B2"), ("A3", None)]
    rounds = [
        {"score": 30, "steps": 9, "history": [_turn(i, m, a) for i, (m, a) in enumerate(stopped)]},
        {"score": 80, "steps": 5, "history": [_turn(i, m, a) for i, (m, a) in enumerate(won)]},
        None,
    ]
    return {
        "e2e": {"tictactoe": rounds},
        "perceive": {"tictactoe": [{"raw": "Game State: [[-1, -1, -1], [-1, 1, -1], [-1, -1, 0]]"}, None]},
    }


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _board(session: Any, k: int) -> set[str]:
    state = session.state_at(k)
    return {cell_name(i) for i, c in enumerate(state.cells) if c}


def test_each_finished_round_becomes_a_session_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "gpt-4o-240806e2e.json"
    record.write_text(json.dumps(_record(), indent=4), encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(record), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    stopped, won = (load_session(Path(p)) for p in out.split())
    assert stopped.game_id == won.game_id == "tictactoe"
    assert stopped.manifest["options"]["style"] == "lvlm"
    # Six legal moves, the invalid turns left out, then the model's forfeit (the reference's loss).
    assert stopped.num_steps == 6
    assert _board(stopped, 6) == {"B2", "A1", "A2", "C2", "C1", "A3"}
    assert stopped.manifest["extra"]["imported"]["invalid_turns"] == [3, 5, 6]
    assert stopped.summary()["winner"] == 1
    decisions = [e for e in stopped.events if e["type"] == "decision"]
    assert decisions[0]["data"]["rationale"].endswith("Movement: B2")
    assert won.num_steps == 5 and won.summary()["winner"] == 0
    assert _board(won, 5) == {"A1", "B1", "A2", "B2", "A3"}
    assert won.manifest["extra"]["imported"]["not_imported_results"] == 1


@pytest.mark.parametrize("case", ["occupied", "sudoku", "tasks-only", "not-a-record", "broken-json"])
def test_a_bad_record_is_one_line_and_exit_1(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data: Any = _record()
    if case == "occupied":
        data["e2e"]["tictactoe"][1]["history"][1]["parsed_move"] = "B1"
    elif case == "sudoku":
        data["e2e"]["sudoku"] = [{"score": 10, "steps": 1, "history": [_turn(0, "A1 5", None)]}]
    elif case == "tasks-only":
        del data["e2e"]
    elif case == "not-a-record":
        data = {"results": [1, 2]}
    record = tmp_path / "record.json"
    record.write_text("{" if case == "broken-json" else json.dumps(data), encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(record), "--format", "lvlm", "--out", str(tmp_path / "s"))
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: "), err
    assert not (tmp_path / "s").exists()
    if case == "occupied":
        assert "round 2, step 2" in err
    if case == "sudoku":
        assert "puzzle" in err
    if case == "tasks-only":
        assert "1 perceive/qa/rule" in err


def test_reversi_and_chess_rounds_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import engine
    from engine.tasks import definitions

    # Reversi: squares named the reference's way (row letter, column number), read off PlayTrace's
    # own list of legal squares so the test does not depend on a hand-checked opening.
    game = engine.make("reversi")
    state = game.initial_state(seed=0)
    names: list[str] = []
    for _ in range(4):
        seat = state.to_act[0]
        name = definitions("reversi").valid_moves(state, seat)[0]
        names.append(name)
        state = state.apply({seat: game.parse_action(name, state, seat)})
    reversi = [_turn(0, names[0], names[1]), _turn(1, names[2], names[3])]
    chess = [_turn(0, "e4", "e5"), _turn(1, "Nf3", "Nc6"), _turn(2, "Bb5", "a6")]
    data = {
        "e2e": {
            "reversi": [{"score": 40, "steps": 3, "history": reversi}],
            "chess": [{"score": 30, "steps": 4, "history": chess}],
        }
    }
    record = tmp_path / "record.json"
    record.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(record), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    rev, che = (load_session(Path(p)) for p in out.split())
    assert rev.game_id == "reversi" and rev.state_at(4).to_json() == state.to_json()
    assert che.game_id == "chess" and che.state_at(6).to_json()["fen"].startswith(
        "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w"
    )
    # Both rounds stop with the game on: the model (to move) forfeits, as the reference scores it.
    assert rev.summary()["winner"] == che.summary()["winner"] == 1


def test_gomoku_rounds_are_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"e2e": {"gomoku": [{"score": 10, "steps": 1, "history": [_turn(0, "H8", "H9")]}]}}
    record = tmp_path / "record.json"
    record.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(record), "--out", str(tmp_path / "s"))
    assert code == 1 and out == "" and err.count("\n") == 1 and "gomoku" in err and "column" in err, err
