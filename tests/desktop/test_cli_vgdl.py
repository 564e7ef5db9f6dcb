"""``playtrace vgdl check`` and ``playtrace vgdl report`` on real game files and recorded sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.cli import main

ROOT = Path(__file__).parents[2]
ASSETS = ROOT / "assets" / "vgdl"
GVGAI = ROOT / ".." / "shared" / "gvgai"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_summarises_a_game_and_its_levels(capsys):
    code, out, err = run_cli(capsys, "vgdl", "check", str(ASSETS / "crates.txt"),
                             str(ASSETS / "crates_lvl0.txt"), str(ASSETS / "crates_lvl4.txt"))
    assert code == 0, err
    assert "crates.txt: a VGDL game" in out
    assert "1: ACTION_LEFT" in out
    assert "level crates_lvl0.txt: 5 rows x 7 columns, avatar at (row 2, col 2)" in out
    assert "level crates_lvl4.txt: 9 rows x 12 columns" in out
    assert "OK: 2 level(s) parsed" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_check_reads_the_default_level_beside_a_core_game(capsys):
    code, out, _ = run_cli(capsys, "vgdl", "check", str(GVGAI / "zelda.txt"))
    assert code == 0
    assert "level zelda_lvl0.txt: 9 rows x 13 columns" in out


def test_check_reports_a_parse_error_with_its_line(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("BasicGame\n  SpriteSet\n    avatar > MovingAvatar\n    wall > Immovabel\n"
                   "  LevelMapping\n    A > avatar\n"
                   "  TerminationSet\n    SpriteCounter stype=avatar win=False\n",
                   encoding="utf-8")
    (tmp_path / "bad_lvl0.txt").write_text("A.\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "vgdl", "check", str(bad))
    assert code == 2
    assert "bad.txt" in err and "4" in err and "Immovabel" in err
    assert "Traceback" not in err


def test_check_reports_a_bad_level_character(capsys, tmp_path):
    level = tmp_path / "level.txt"
    level.write_text("w.A\n..?\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "vgdl", "check", str(ASSETS / "crates.txt"), str(level))
    assert code == 2
    assert "level.txt" in err and "'?'" in err


def test_check_of_a_missing_file_and_a_missing_verb(capsys, tmp_path):
    code, _, err = run_cli(capsys, "vgdl", "check", str(tmp_path / "nothing.txt"))
    assert code == 2 and "does not exist" in err
    code, _, err = run_cli(capsys, "vgdl")
    assert code == 2 and "vgdl check" in err


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random and search sessions on Crates' first level and Gems' first level, and one 2048 session."""
    out = tmp_path_factory.mktemp("sessions")
    for game in ("vgdl-crates", "vgdl-gems"):
        for player in ("random", "search"):
            assert main(["run", game, "-p", player, "-n", "2", "--option", "level=0",
                         "--option", "max_steps=30", "--out", str(out), "-j", "1"]) == 0
    assert main(["run", "2048", "-p", "random", "-n", "1", "--max-steps", "5", "--out", str(out)]) == 0
    return out


def test_report_prints_the_tables_at_80_columns(capsys, recorded):
    capsys.readouterr()
    code, out, err = run_cli(capsys, "vgdl", "report", str(recorded))
    assert code == 0
    assert "skipped" in err and "not a VGDL session (2048 has no GVGAI-LLM metrics)" in err
    lines = out.splitlines()
    assert "Per game, level and player" in lines[0]
    rows = [line.split() for line in lines if line.startswith("vgdl-")]
    assert {(r[0], r[2]) for r in rows} == {("vgdl-crates", "random"), ("vgdl-crates", "search"),
                                            ("vgdl-gems", "random"), ("vgdl-gems", "search")}
    crates_search = next(r for r in rows if r[0] == "vgdl-crates" and r[2] == "search")
    assert crates_search[3] == "2" and crates_search[4] == "100.0"
    assert "Win rate (%) per player and game" in out
    assert "Normalised over 8 episodes in 4 (player, level) rows" in " ".join(lines)
    assert all(len(line) <= 80 for line in lines)


def test_report_as_json_records_the_population_and_the_rule(capsys, recorded):
    capsys.readouterr()
    code, out, _ = run_cli(capsys, "vgdl", "report", str(recorded), "--json", "--one-step",
                           "--efficiency", "all")
    assert code == 0
    data = json.loads(out)
    assert data["population"]["players"] == ["random", "search"]
    assert data["population"]["levels"] == ["vgdl-crates/0", "vgdl-gems/0"]
    assert data["population"]["meaningful_rule"] == "1-step"
    assert data["population"]["efficiency"] == "all episodes"
    scores = {(r["game"], r["player"]): r for r in data["rows"]}
    assert scores[("vgdl-crates", "search")]["win_rate"] == 1.0
    assert scores[("vgdl-crates", "search")]["score"] > scores[("vgdl-crates", "random")]["score"]
    assert all(0.0 <= r["normalised_reward"] <= 1.0 for r in data["rows"])


def test_report_of_a_folder_without_vgdl_sessions_is_a_usage_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, "vgdl", "report", str(tmp_path))
    assert code == 2 and "no finished VGDL sessions" in err
    code, _, err = run_cli(capsys, "vgdl", "report", str(tmp_path / "missing"))
    assert code == 2 and "no such folder" in err
