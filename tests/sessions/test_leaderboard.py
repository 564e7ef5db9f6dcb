"""``playtrace leaderboard``: per-game figures of each suite and the cross-suite normalised view."""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions.leaderboard import build
from sessions.search import SearchIndex, find_sessions
from tests.browser import CHROMIUM, dump_dom
from tests.commands import own_home, record, run_cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("board")
    with own_home(tmp_path_factory):
        for player in ("random", "sim"):
            out = str(root / "g2048" / player)
            record("run", "2048", "-p", player, "-n", "3", "--max-steps", "40", "--out", out)
        record(
            "tournament",
            "tictactoe",
            "-p",
            "random",
            "-p",
            "minimax",
            "-p",
            "sim",
            "--matches",
            "4",
            "--sim-latency",
            "0",
            "--out",
            str(root / "ttt"),
        )
    yield root


def test_figures_agree_with_the_sessions(runs: Path) -> None:
    with SearchIndex(runs, ":memory:") as index:
        index.update()
        board = build([index])
    entries = {(e.game, e.player): e for e in board.entries}
    finals = []
    for folder in find_sessions(runs / "g2048" / "sim"):
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        finals.append(manifest["scores"][0])
    sim = entries[("2048", "sim")]
    assert sim.episodes == 3 and sim.score[0] == pytest.approx(statistics.fmean(finals))
    assert sim.headline_name == "score_2048" and sim.i is None
    ttt = entries[("tictactoe", "sim")]
    assert ttt.headline_name == "S" and ttt.s is not None and ttt.i is not None and 0 <= ttt.i <= 1
    # Each game's headline runs from 0 (lowest player) to 1 (highest); overall is their mean.
    for game in ("2048", "tictactoe"):
        values = [e.normalised for e in board.entries if e.game == game]
        assert min(values) == 0 and max(values) == 1
    overall = {p: v for p, v, _ in board.overall}
    mine = [e.normalised for e in board.entries if e.player == "sim"]
    assert overall["sim"] == pytest.approx(statistics.fmean(v for v in mine if v is not None))


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "html"])
def test_every_format(runs: Path, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"board.{fmt}"
    code, stdout, err = run_cli(capsys, "leaderboard", str(runs), "--format", fmt, "--out", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert {r["game"] for r in rows} == {"2048", "tictactoe"}
    elif fmt == "json":
        assert {g["player"] for g in json.loads(text)["games"]} == {"random", "sim", "minimax"}
    elif fmt == "md":
        assert "| 2048 | sim |" in text and "## Overall" in text
    else:
        assert (
            "default-src 'none'" in text
            and "<svg" in text
            and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        )
        if CHROMIUM is not None:  # opens offline in a real browser: both tables and every bar
            dom = dump_dom(out.as_uri(), tmp_path / "profile")
            assert dom.count("<table>") == 2 and dom.count("<rect") == 3 and "sim" in dom


def test_bad_input(tmp_path: Path, runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "leaderboard", str(tmp_path / "none"))
    assert code == 2 and err.count("\n") == 1
    code, _, err = run_cli(capsys, "leaderboard", str(runs), "--game", "chess")
    assert code == 2 and "no finished session of chess" in err
