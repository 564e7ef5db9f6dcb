"""A game's own export formats: a chess session as PGN, the reasoning behind each move as comments."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

import sessions
from desktop import cli


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_chess_session_exports_as_pgn_with_the_reasoning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "run", "chess", "-p", "sim", "-p", "search", "-n", "1", "--max-steps", "6",
                           "--out", str(tmp_path / "runs"))
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "runs").iterdir() if (p / "manifest.json").exists()]
    code, out, err = run_cli(capsys, "export", str(folder), str(tmp_path / "game.pgn"))
    assert code == 0, err
    game = chess.pgn.read_game(io.StringIO((tmp_path / "game.pgn").read_text(encoding="utf-8")))
    assert game is not None and game.headers["White"].startswith("Simulated model")
    session = sessions.load_session(folder)
    played = [e["data"] for e in session.events if e["type"] == "decision"]
    board = game.board()
    sans, comments = [], []
    for node in game.mainline():
        sans.append(board.san(node.move))
        comments.append(node.comment)
        board.push(node.move)
    assert sans == [d["action"] for d in played] and len(sans) == 6
    assert all(comments) and comments[0] == " ".join(str(played[0]["rationale"]).split())
    # A format the game does not have is still refused.
    code, _, err = run_cli(capsys, "export", str(folder), str(tmp_path / "game.txt"))
    assert code == 2 and "unknown format" in err
