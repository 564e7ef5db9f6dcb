"""``playtrace vgdl report`` puts the win rates measured on GVGAI's core games beside GVGAI-LLM's Table 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.cli import main
from engine.games.vgdl import published

GVGAI = Path(__file__).parents[2] / ".." / "shared" / "gvgai"

pytestmark = pytest.mark.skipif(not GVGAI.is_dir(),
                                reason="../shared/gvgai (GVGAI's games) is not beside the repository")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The planners and random play on GVGAI's Sokoban, level 0, a few steps each."""
    out = tmp_path_factory.mktemp("sessions")
    for player in ("random", "rhea", "olets"):
        assert main(["run", "vgdl", "-p", player, "-n", "1", "--game-file", str(GVGAI / "sokoban.txt"),
                     "--level-file", str(GVGAI / "sokoban_lvl0.txt"), "--option", "max_steps=4",
                     "--out", str(out), "-j", "1"]) == 0
    return out


def test_the_report_prints_our_rows_beside_the_papers(capsys: pytest.CaptureFixture[str],
                                                      recorded: Path) -> None:
    capsys.readouterr()
    assert main(["vgdl", "report", str(recorded)]) == 0
    out = capsys.readouterr().out
    assert "ours beside GVGAI-LLM, Table 3" in out
    lines = out.splitlines()
    assert next(line for line in lines if line.startswith("ours: rhea")).split()[2] == "1"
    assert "rhea for sampleRHEA" in " ".join(lines)
    paper = next(line.split() for line in lines if line.startswith("paper: sampleRHEA"))
    assert paper[-6:] == ["100.0", "4.0", "24.0", "0.0", "24.0", "36.0"]
    assert all(len(line) <= 80 for line in lines)


def test_the_json_report_carries_the_same_rows(capsys: pytest.CaptureFixture[str], recorded: Path) -> None:
    capsys.readouterr()
    assert main(["vgdl", "report", str(recorded), "--json"]) == 0
    rows = {r["agent"]: r for r in json.loads(capsys.readouterr().out)["published"]}
    sokoban = published.GAMES.index("sokoban")
    ours = rows["ours: olets"]
    assert ours["episodes"] == 1 and ours["stands_for"] == "olets" and ours["win_rates"][sokoban] == 0.0
    assert ours["win_rates"][published.GAMES.index("zelda")] is None
    assert rows["paper: sampleMCTS"]["win_rates"] == list(published.WIN_RATES["sampleMCTS"])
    assert rows["paper: sampleMCTS"]["episodes"] is None
