"""A study of three games with practice rounds, a Latin square and questionnaires, simulated with five
bot participants on two machines, merged, exported, and read back with pandas by the codebook; a
simulation killed in the middle resumes where it stopped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from desktop.cli import main

STUDY = """
id = "three"
version = 1
title = "Three games"
consent = "We record your moves."
order = "latin"

[[game]]
key = "ttt"
game = "tictactoe"
opponent = "minimax"
seeds = [1]
practice = 1
questionnaire = "after"

[[game]]
key = "2048"
game = "2048"
seeds = [2]
practice = 1
max_steps = 15
questionnaire = "after"

[[game]]
key = "c4"
game = "connect4"
opponent = "random"
seeds = [3]
max_steps = 12
questionnaire = "after"

[[questionnaire]]
key = "after"
[[questionnaire.item]]
key = "difficulty"
kind = "likert"
text = "How difficult?"
scale = 7
[[questionnaire.item]]
key = "why"
kind = "text"
text = "Why?"

[[questionnaire]]
key = "end"
[[questionnaire.item]]
key = "fun"
kind = "likert"
text = "Fun?"
"""


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def study_file(tmp_path: Path) -> Path:
    path = tmp_path / "three.toml"
    text = STUDY.replace('order = "latin"', 'order = "latin"\nfinal_questionnaire = "end"')
    path.write_text(text, encoding="utf-8")
    return path


def test_simulated_study_merged_from_two_machines_exports_a_table_pandas_reads(
    study_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "study", "check", str(study_file))[0] == 0
    # Machine A runs participants P001-P003; machine B P004-P005 (its own folder, ids renamed after).
    code, out, _ = cli(capsys, "study", "simulate", str(study_file), "-n", "3", "-p", "random",
                       "--out", str(tmp_path / "A"))
    assert code == 0 and "3 of 3 participants finished" in out
    code, _, _ = cli(capsys, "study", "simulate", str(study_file), "-n", "5", "-p", "random",
                     "--out", str(tmp_path / "B"))
    assert code == 0
    for pid in ("P001", "P002", "P003"):  # B's first three duplicate A's: B keeps P004 and P005 only
        progress = json.loads((tmp_path / "B" / "participants" / f"{pid}.json").read_text())
        for block in progress["blocks"]:
            if block.get("session"):
                shutil.rmtree(tmp_path / "B" / "sessions" / block["session"])
        (tmp_path / "B" / "participants" / f"{pid}.json").unlink()
    archive = tmp_path / "B.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in (tmp_path / "B").rglob("*"):
            zf.write(f, Path("B") / f.relative_to(tmp_path / "B"))

    code, out, _ = cli(capsys, "study", "merge", str(tmp_path / "A"), str(archive),
                       "--out", str(tmp_path / "all"))
    assert code == 0 and "merged 5 participants and 25 sessions" in out
    code, out, _ = cli(capsys, "study", "export", str(tmp_path / "all"), "--out", str(tmp_path / "x.csv"))
    assert code == 0, out

    book = pd.read_csv(tmp_path / "x.codebook.csv")
    data = pd.read_csv(tmp_path / "x.csv")
    assert list(data.columns) == list(book["column"])
    games = data[data.row_type == "game"]
    assert len(games) == 5 * 5  # 3 counted + 2 practice games each
    counted = games[games.practice == False]  # noqa: E712 (pandas compares element-wise)
    assert len(counted) == 15 and counted.q_after_difficulty.between(1, 7).all()
    assert games[games.practice == True].q_after_difficulty.isna().all()  # noqa: E712
    # The Latin square: each participant's counted games in their condition's order.
    firsts = counted[counted.position == 1].set_index("participant").game_key.to_dict()
    assert firsts == {"P001": "ttt", "P002": "2048", "P003": "c4", "P004": "c4", "P005": "ttt"}
    moves = data[data.row_type == "move"]
    assert len(moves) == games.steps.sum()
    assert set(data[data.row_type == "participant"].q_end_fun.dropna()) <= {1, 2, 3, 4, 5}
    # Nothing that identifies a machine, a person or a clock time.
    text = (tmp_path / "x.csv").read_text()
    assert os.environ.get("USER", "nobody-here") not in text and str(tmp_path) not in text
    assert "2026-" not in text and "T" not in set(data.session.str[8:9])


def test_merge_refuses_duplicates_and_other_versions(
    study_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("A", "B"):
        code, _, _ = cli(capsys, "study", "simulate", str(study_file), "-n", "1",
                         "--out", str(tmp_path / name))
        assert code == 0
    code, _, err = cli(capsys, "study", "merge", str(tmp_path / "A"), str(tmp_path / "B"), "--out",
                       str(tmp_path / "m"))
    assert code == 1 and "participant P001 is in both" in err
    newer = study_file.read_text().replace("version = 1", "version = 2")
    study_file.write_text(newer)
    assert cli(capsys, "study", "simulate", str(study_file), "-n", "1", "--out", str(tmp_path / "C"))[0] == 0
    code, _, err = cli(capsys, "study", "merge", str(tmp_path / "A"), str(tmp_path / "C"), "--out",
                       str(tmp_path / "m2"))
    assert code == 1 and "cannot be merged" in err
    code, _, err = cli(capsys, "study", "simulate", str(study_file), "-n", "1", "--out", str(tmp_path / "A"))
    assert code == 2 and "holds results of study 'three' version 1" in err


def test_a_killed_simulation_resumes_where_it_stopped(study_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "R"
    cmd = [sys.executable, "-m", "desktop.cli", "study", "simulate", str(study_file), "-n", "2", "-p",
           "random", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # wait for the event: the first finished game of the second participant
        if line.startswith("P002:"):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=60)
    progress = json.loads((out / "participants" / "P002.json").read_text())
    assert not progress["finished"] and progress["next_block"] > 0
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for pid in ("P001", "P002"):
        progress = json.loads((out / "participants" / f"{pid}.json").read_text())
        assert progress["finished"]
        games = [b for b in progress["blocks"] if b["kind"] in ("game", "practice")]
        assert len(games) == 5 and len({b["index"] for b in games}) == 5  # each block once
        assert not [b for b in progress["blocks"] if b["kind"] == "attempt"]


def test_the_export_also_writes_parquet(
    study_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "study", "simulate", str(study_file), "-n", "1", "--out", str(tmp_path / "A"))[0] == 0
    code, _, _ = cli(capsys, "study", "export", str(tmp_path / "A"), "--out", str(tmp_path / "x.parquet"))
    assert code == 0
    data = pd.read_parquet(tmp_path / "x.parquet")
    book = pd.read_csv(tmp_path / "x.codebook.csv")
    assert list(data.columns) == list(book["column"])
    assert (data.row_type == "game").sum() == 5


def test_check_names_the_line_of_every_game_that_cannot_be_played(
    study_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = study_file.read_text(encoding="utf-8")
    lines = text.splitlines()
    games = [i for i, line in enumerate(lines) if line.startswith("game = ")]
    assert len(games) >= 2
    lines[games[0]] = 'game = "nochess"'
    lines[games[1]] = 'game = "nogo"'
    study_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = cli(capsys, "study", "check", str(study_file))
    assert code != 0
    # Both mistakes, each with the line of the file it is on.
    assert f"line {games[0] + 1}: " in err and "'nochess'" in err
    assert f"line {games[1] + 1}: " in err and "'nogo'" in err
