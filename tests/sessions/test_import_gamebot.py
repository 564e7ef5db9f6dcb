"""``playtrace import`` of GAMEBoT's tic-tac-toe ``game.log``: every game a session that replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop import cli
from sessions import load_session

Cells = list[tuple[int, int]]


def _board(marks: dict[tuple[int, int], str]) -> str:
    return "".join(" ".join(marks.get((r, c), "_") for c in range(3)) + " \n" for r in range(3))


def _game(moves: Cells, end: str, logged: set[int]) -> str:
    """One game as GAMEBoT's ``TicTacToe.play_game`` logs it: the board before every move, a model's
    ``[row, col]`` for the moves in ``logged``, and the result; the board after the last move is never
    logged."""
    text, marks = "", {}
    for k, cell in enumerate(moves):
        text += _board(marks) + "\n"
        if k in logged:
            text += "---------------------------\n\n" + f"[{cell[0]}, {cell[1]}]\n"
        marks[cell] = "X" if k % 2 == 0 else "O"
    return text + end + "\n"


def _log(*games: str) -> str:
    prompts = "Prompt1:\n You are player X.\n_ _ _ \n_ _ _ \n_ _ _ \nPrompt2:\n You are player O.\n"
    return prompts + "".join(games) + "gpt-4o_original wins 1 times.\nalgorithm wins 0 times.\n"


# X wins on the diagonal; X is the model (its cells logged), O the minimax "algorithm" (not logged).
DIAGONAL: Cells = [(1, 1), (0, 1), (0, 0), (2, 2), (2, 0), (0, 2), (1, 0)]
TIE: Cells = [(0, 0), (1, 1), (2, 2), (0, 1), (2, 1), (2, 0), (0, 2), (1, 2), (1, 0)]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _folder(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "running_log" / "tictactoe" / "gpt-4o_original_vs_algorithm_03-14-09-30qx"
    folder.mkdir(parents=True)
    (folder / "game.log").write_text(text, encoding="utf-8")
    return folder


def test_every_game_of_a_log_becomes_a_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    won = _game(DIAGONAL, "Congratulations! gpt-4o_original wins! X wins! ", {0, 2, 4, 6})
    tie = _game(TIE, "It's a tie!", {0, 2, 4, 6, 8})
    # The last move of this game is the algorithm's (not logged): the only cell completing O's line.
    o_wins = _game(
        [(0, 0), (1, 1), (0, 1), (0, 2), (2, 2), (2, 0)],
        "Congratulations! algorithm wins! O wins! ",
        {0, 2, 4},
    )
    folder = _folder(tmp_path, _log(won, tie, o_wins))
    code, out, err = _cli(capsys, "import", str(folder), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    first, second, third = (load_session(Path(p)) for p in out.split())
    assert [p["label"] for p in first.manifest["players"]] == ["gpt-4o_original", "algorithm"]
    assert first.manifest["options"]["style"] == "gamebot"
    assert first.num_steps == 7 and first.summary()["winner"] == 0
    actions = [e["data"]["action"] for e in first.events if e["type"] == "decision"]
    assert actions == [f"({r},{c})" for r, c in DIAGONAL]
    assert second.num_steps == 9 and second.summary()["winner"] is None
    assert third.summary()["winner"] == 1 and third.state_at(6).to_json() != third.state_at(5).to_json()


@pytest.mark.parametrize("case", ["jump", "other-game", "no-game", "ambiguous"])
def test_a_bad_log_is_one_line_and_exit_1(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    won = _game(DIAGONAL, "Congratulations! gpt-4o_original wins! X wins! ", {0, 2, 4, 6})
    text = _log(won)
    if case == "jump":  # the third board has two more marks than the second
        text = text.replace("_ O _ \n_ X _ \n_ _ _ \n\n", "X O X \n_ X _ \n_ _ _ \n\n", 1)
    elif case == "no-game":
        text = _log()
    elif case == "ambiguous":  # X could complete two lines, and the model's cell is not logged
        text = _log(
            _game(
                [(0, 0), (2, 2), (0, 1), (1, 1), (1, 0), (2, 1), (0, 2)],
                "Congratulations! x wins! X wins!",
                set(),
            )
        )
    folder = (
        tmp_path
        / "running_log"
        / ("connect4" if case == "other-game" else "tictactoe")
        / "a_vs_b_01-01-01-01ab"
    )
    folder.mkdir(parents=True)
    (folder / "game.log").write_text(text, encoding="utf-8")
    code, out, err = _cli(capsys, "import", str(folder / "game.log"), "--out", str(tmp_path / "s"))
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: "), err
    assert not (tmp_path / "s").exists()
    if case == "jump":
        assert "game 1" in err and "board 3" in err
    if case == "other-game":
        assert "connect4" in err
    if case == "ambiguous":
        assert "last move is not in the log" in err
