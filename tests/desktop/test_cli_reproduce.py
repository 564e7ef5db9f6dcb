"""``playtrace protocols`` and ``playtrace reproduce``: every paper's protocol plays offline to its end
(random, the built-in bots and the simulated model, with few episodes and short games), resumes without
replaying, and its report puts the paper's rows beside ours."""

from __future__ import annotations

import importlib.util
import json
import tomllib
from pathlib import Path

import pytest

from desktop.cli import main
from tests.browser import CHROMIUM, dump_dom

ROOT = Path(__file__).resolve().parents[2]
GVGAI = ROOT / ".." / "shared" / "gvgai"


def _report(capsys: pytest.CaptureFixture[str], folder: Path) -> dict:
    capsys.readouterr()
    assert main(["reproduce", "report", str(folder), "--json", "--no-files"]) == 0
    return json.loads(capsys.readouterr().out)


def _rows(report: dict, table: str) -> list[dict]:
    return next(t["rows"] for t in report["tables"] if t["id"] == table)


def test_protocols_lists_the_five_papers_and_shows_a_file_to_copy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocols", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [p["id"] for p in listed] == ["gamebot", "gvgai-llm", "lmgame-bench", "lvlm-playground",
                                        "modular-harness"]
    assert all(p["episodes"] > 0 for p in listed)
    assert main(["protocols", "show", "gamebot"]) == 0
    text = capsys.readouterr().out
    assert tomllib.loads(text)["id"] == "gamebot"
    assert main(["protocols", "show", "nope"]) == 2
    assert "lmgame-bench" in capsys.readouterr().err


def test_lmgame_bench_plays_resumes_and_reports_beside_the_paper(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lm"
    args = ["reproduce", "lmgame-bench", "--player", "sim", "--games", "2048,candycrush", "--episodes", "2",
            "--max-steps", "4", "--out", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "run random: 0/4 done, 4 to play" in err and "run model: 0/16 done, 16 to play" in err
    assert main(args) == 0  # everything is there: nothing is played again
    err = capsys.readouterr().err
    assert "run random: 4/4 done, 0 to play" in err and "run model: 16/16 done, 0 to play" in err
    report = _report(capsys, out)
    scores = _rows(report, "scores")
    ours = [r for r in scores if r["source"] == "ours"]
    assert {r["label"] for r in ours} >= {"random (ours)", "sim · +Both (Table 1: Harness Yes) (ours)"}
    random_row = next(r for r in ours if r["label"] == "random (ours)")
    assert set(random_row["checks"]) == {"2048", "candycrush"}
    assert all(v.split()[0] in ("within", "outside") for v in random_row["checks"].values())
    assert random_row["cells"]["2048"]["n"] == 2
    assert any(r["label"] == "Random (paper)" for r in scores)
    paired = _rows(report, "paired")
    assert any(r["source"] == "ours" and r["label"].startswith("2048 · sim") for r in paired)
    ablation = _rows(report, "ablation")
    mine = next(r for r in ablation if r["label"] == "candycrush · sim (ours)")
    assert set(mine["cells"]) == {"ZS", "+Memory", "+Perception", "+Both"}
    # The files: Markdown, CSV, LaTeX, figures.
    assert main(["reproduce", "report", str(out)]) == 0
    files = {p.name for p in (out / "report").iterdir()}
    assert {"report.md", "scores.csv", "scores.tex", "ablation.png", "ablation.svg",
            "distributions.png"} <= files
    assert "Random (paper)" in (out / "report" / "report.md").read_text(encoding="utf-8")
    page = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "default-src 'none'" in page and "Random (paper)" in page
    assert 'src="data:image/svg+xml;base64,' in page
    assert "http://" not in page.replace("http://www.w3.org", "")  # nothing to fetch
    if CHROMIUM is not None:  # the page opens offline in a real browser, tables and figures shown
        dom = dump_dom((out / "report" / "report.html").as_uri(), tmp_path / "profile")
        assert "reproduction report</h1>" in dom and dom.count("<table>") == page.count("<table>")
    # docs/reproduction.md is generated from such folders.
    spec = importlib.util.spec_from_file_location("make_reproduction_doc", ROOT / "scripts" /
                                                  "make_reproduction_doc.py")
    assert spec is not None and spec.loader is not None
    doc_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(doc_module)
    (tmp_path / "docs-root").mkdir()
    (tmp_path / "docs-root" / "lmgame-bench").symlink_to(out)
    doc = doc_module.build(tmp_path / "docs-root")
    assert "playtrace reproduce lmgame-bench --player SPEC" in doc
    assert "Measured with `playtrace reproduce lmgame-bench --player sim --games 2048,candycrush" in doc
    assert "| random (ours) |" in doc and "| Random (paper) |" in doc
    assert "random (ours), 2048: within" in doc or "random (ours), 2048: outside" in doc
    assert "Super Mario Bros levels and emulator" in doc  # a deviation, with its reason
    assert "_Not measured in this document's run._" in doc  # the other protocols


def test_a_protocol_a_user_edited_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocols", "show", "modular-harness"]) == 0
    text = capsys.readouterr().out
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace("episodes = 30", "episodes = 3").replace('label = "sokoban"',
                                                                          'label = "boxes"'),
                    encoding="utf-8")
    out = tmp_path / "mine-out"
    assert main(["reproduce", str(mine), "--games", "boxes", "--max-steps", "5", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "skipped run model (needs --player)" in err
    assert "run random: 0/3 done, 3 to play" in err
    assert _random_n(_report(capsys, out), "boxes") == 3
    # Edited again (another step cap per level) and played into the same folder: the report counts the
    # episodes of the protocol as it now stands, not those of its earlier version.
    mine.write_text(mine.read_text(encoding="utf-8").replace("max_steps = 200 }", "max_steps = 150 }"),
                    encoding="utf-8")
    assert main(["reproduce", str(mine), "--games", "boxes", "--max-steps", "5", "--episodes", "2",
                 "--out", str(out)]) == 0
    assert "run random: 0/2 done, 2 to play" in capsys.readouterr().err
    assert _random_n(_report(capsys, out), "boxes") == 2


def _random_n(report: dict, game: str) -> int:
    row = next(r for r in _rows(report, "scores") if r["label"] == "random (ours)")
    return int(row["cells"][game]["n"])


def test_a_bad_protocol_file_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocols", "show", "lmgame-bench"]) == 0
    text = capsys.readouterr().out.replace("moves = 50", "moves = -1")
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), start=1) if "moves = -1" in ln)
    assert main(["reproduce", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert f"bad.toml:{line}: games[4].options" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_gamebot_plays_matches_and_reports_s_i_and_the_final_score(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gb"
    assert main(["reproduce", "gamebot", "--player", "sim", "--games", "tictactoe,connect4",
                 "--episodes", "1",
                 "--out", str(out)]) == 0
    report = _report(capsys, out)
    s = _rows(report, "table2")
    sim_cot = next(r for r in s if r["label"] == "sim · cot (ours)")
    assert sim_cot["cells"]["tictactoe"]["n"] == 4  # against random and minimax, both seatings
    random_row = next(r for r in s if r["label"] == "random (ours)")
    assert random_row["checks"] and all("not comparable" in v for v in random_row["checks"].values())
    i_rows = _rows(report, "table3")
    cot = next(r for r in i_rows if r["label"] == "sim · cot (ours)")
    assert cot["cells"]["tictactoe"]["mean"] is not None
    final = _rows(report, "final")
    assert any(r["label"] == "GPT-4o (paper)" for r in final)
    assert next(r for r in final if r["label"] == "sim · cot (ours)")["cells"]["final"]["mean"] is not None
    assert any(r["label"] == "sim · naive (ours)" for r in final)


def test_lvlm_playground_makes_task_sets_and_plays_end_to_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lvlm"
    assert main(["reproduce", "lvlm-playground", "--player", "sim", "--games", "tictactoe,sudoku",
                 "--episodes", "2", "--max-steps", "6", "--out", str(out)]) == 0
    assert (out / "tasks" / "tictactoe-rules" / "results" / "random.json").is_file()
    report = _report(capsys, out)
    rules = _rows(report, "rules")
    random_row = next(r for r in rules if r["label"] == "Random (ours)")
    assert set(random_row["checks"]) == {"tictactoe", "sudoku"}
    assert any(r["label"] == "Random (paper)" for r in rules)
    assert any(r["label"].startswith("sim") for r in rules)
    e2e = _rows(report, "e2e")
    assert any(r["source"] == "ours" for r in e2e) and any(r["label"] == "GPT-4o (paper)" for r in e2e)
    assert main(["reproduce", "report", str(out)]) == 0
    assert (out / "report" / "radar.svg").is_file()


@pytest.mark.skipif(not GVGAI.is_dir(), reason="GVGAI's games are not beside the repository")
def test_gvgai_llm_plays_the_core_games_from_the_input_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gv"
    assert main(["reproduce", "gvgai-llm", "--player", "sim", "--games", "aliens", "--episodes", "1",
                 "--max-steps", "5", "--input", f"gvgai={GVGAI}", "--out", str(out)]) == 0
    report = _report(capsys, out)
    wins = _rows(report, "table3")
    labels = {r["label"] for r in wins}
    assert {"random (ours)", "sim · zero-shot (ours)", "sim · tagger (ours)"} <= labels
    assert any(r["label"] == "GPT-o3-mini (paper)" for r in wins)
    overall = _rows(report, "overall")
    assert all(r["cells"]["score"]["mean"] is not None for r in overall)
    grounding = {r["label"]: r for r in _rows(report, "table6")}
    p = grounding["sim · tagger against zero-shot: Fisher's p (ours)"]["cells"]["aliens"]["mean"]
    assert 0 <= p <= 1
    assert "GPT-4o-mini, with tagger: win rate (paper)" in grounding


def test_report_of_a_folder_that_is_not_a_reproduction(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "report", str(tmp_path)]) == 2
    assert "not a reproduction folder" in capsys.readouterr().err


def test_lmgame_reports_holdem_styles_and_the_long_context_ablation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "more"
    assert main(["reproduce", "lmgame-bench", "--player", "sim", "--games", "holdem,courtroom", "--episodes",
                 "1", "--max-steps", "30", "--out", str(out)]) == 0
    report = _report(capsys, out)
    rows = {r["label"]: r for r in _rows(report, "metrics")}
    v1 = rows["sim vs equity · Hold'em V1 (strategic heuristics; the ranking's) (ours)"]
    assert {"holdem: aggression_factor_p1", "holdem: fold_rate_p1", "holdem: chips_p1"} <= set(v1["cells"])
    assert 0 <= v1["cells"]["holdem: fold_rate_p1"]["mean"] <= 1
    assert "courtroom: checkpoint_broken" in rows["sim · context-long (ours)"]["cells"]
    assert "courtroom: checkpoint_broken" in rows["sim · context-recent (ours)"]["cells"]
    scores = {r["label"] for r in _rows(report, "scores")}
    assert "sim · Courtroom with long context (Table 10) (ours)" in scores
