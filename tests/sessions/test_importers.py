"""``playtrace import FILE.pgn``: games recorded elsewhere as chess sessions that replay."""

from __future__ import annotations

import os
from pathlib import Path

import chess
import pytest

from sessions import load_session
from tests.commands import run_cli

TWO_GAMES = """[Event "Casual"]
[White "Alice"]
[Black "gpt-x"]
[Result "0-1"]

1. f3 {opens the diagonal} e5 2. g4 Qh4# 0-1

[Event "Club"]
[White "Bob"]
[Black "Carol"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 {develops with tempo} Nc6 3. Bb5 a6 1/2-1/2
"""


def test_every_game_becomes_a_session_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(TWO_GAMES, encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(pgn), "--out", str(tmp_path / "sessions"))
    assert code == 0, err
    folders = [Path(line) for line in out.splitlines()]
    assert len(folders) == 2
    mate, club = (load_session(f) for f in folders)
    assert mate.game_id == club.game_id == "chess"
    assert [p["label"] for p in mate.manifest["players"]] == ["Alice", "gpt-x"]
    assert mate.manifest["status"] == "completed" and mate.manifest["winner"] == 1
    # The replayed final board is the PGN's.
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"):
        board.push_san(san)
    assert club.num_steps == 6
    final = club.state_at(club.num_steps)
    assert final.to_json()["fen"].split(" ")[0] == board.fen().split(" ")[0]
    rationales = [e["data"].get("rationale") for e in club.events if e["type"] == "decision"]
    assert rationales[2] == "develops with tempo"
    assert club.manifest["extra"]["imported"]["headers"]["Result"] == "1/2-1/2"


def test_export_then_import_gives_the_same_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        capsys,
        "run",
        "chess",
        "-p",
        "random",
        "-p",
        "random",
        "--max-steps",
        "12",
        "--out",
        str(tmp_path / "runs"),
    )
    assert code == 0, err
    (original,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    pgn = tmp_path / "game.pgn"
    assert run_cli(capsys, "export", str(original), str(pgn))[0] == 0
    code, out, err = run_cli(capsys, "import", str(pgn), "--out", str(tmp_path / "back"))
    assert code == 0, err
    again = load_session(Path(out.strip()))
    moves = [e["data"]["action"] for e in load_session(original).events if e["type"] == "decision"]
    assert [e["data"]["action"] for e in again.events if e["type"] == "decision"] == moves


@pytest.mark.parametrize("case", ["empty", "illegal", "garbage", "fifo", "missing"])
def test_a_bad_file_is_one_line_and_exit_1(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgn = tmp_path / "bad.pgn"
    if case == "empty":
        pgn.write_text("", encoding="utf-8")
    elif case == "illegal":
        pgn.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 Ke6 *\n', encoding="utf-8")
    elif case == "garbage":
        pgn.write_bytes(b"\x00\xff" * 200)
    elif case == "fifo":
        os.mkfifo(pgn)
    code, out, err = run_cli(capsys, "import", str(pgn), "--out", str(tmp_path / "sessions"))
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: "), err
    assert not any((tmp_path / "sessions").glob("*/manifest.json"))
    if case == "illegal":
        assert "move 3" in err or "Ke3" in err


def test_nothing_is_half_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The second game is broken: the file is refused before anything is written.
    pgn = tmp_path / "mixed.pgn"
    pgn.write_text(
        TWO_GAMES + '\n[Event "bad"]\n\n1. e4 Ke7 2. Qh5 Qe8 3. Qxf7 Kxf7 4. Ke3 *\n', encoding="utf-8"
    )
    code, _, err = run_cli(capsys, "import", str(pgn), "--out", str(tmp_path / "sessions"))
    assert code == 1 and "game 3" in err
    assert not (tmp_path / "sessions").exists() or not any((tmp_path / "sessions").iterdir())
