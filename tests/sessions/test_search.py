"""``playtrace search``: the steps table agrees with counts made directly from the event logs."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions.search import FALLBACK_POLICIES, TABLES, SearchIndex, find_sessions
from tests.commands import own_home, record, run_cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("runs")
    with own_home(tmp_path_factory):
        record(
            "run",
            "tictactoe",
            "-p",
            "sim",
            "-p",
            "random",
            "-n",
            "3",
            "--sim-error-rate",
            "0.4",
            "--out",
            str(root / "ttt"),
        )
        record(
            "run",
            "2048",
            "-p",
            "sim",
            "-n",
            "2",
            "--max-steps",
            "25",
            "--sim-error-rate",
            "0.5",
            "--retries",
            "0",
            "--no-reflection",
            "--out",
            str(root / "g2048"),
        )
    yield root


def _events(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def _direct_counts(root: Path) -> dict[str, int]:
    counts = {"decisions": 0, "fallback": 0, "parsed": 0, "verifications": 0, "correct": 0, "invalid": 0}
    for folder in sorted(p.parent for p in root.rglob("events.jsonl")):
        for e in _events(folder):
            data = e["data"]
            assert isinstance(data, dict)
            if e["type"] == "decision":
                counts["decisions"] += 1
                counts["fallback"] += data.get("policy") in FALLBACK_POLICIES
                counts["parsed"] += data.get("policy") == "answer"
            elif e["type"] == "verification":
                counts["verifications"] += 1
                counts["correct"] += data.get("correct") is True
            elif e["type"] in ("action_unparsable", "action_illegal"):
                counts["invalid"] += 1
    return counts


def test_counts_agree_with_the_event_logs(runs: Path) -> None:
    direct = _direct_counts(runs)
    assert direct["fallback"] > 0 and direct["invalid"] > 0 and direct["verifications"] > 0
    with SearchIndex(runs, ":memory:") as index:
        stats = index.update()
        assert stats.sessions == stats.read == 5 and not stats.skipped
        (row,) = index.query(
            "SELECT count(*), sum(fallback), sum(parsed), sum(invalid_answers), sum(questions_correct) "
            "FROM steps"
        ).rows
        assert row == (
            direct["decisions"],
            direct["fallback"],
            direct["parsed"],
            direct["invalid"],
            direct["correct"],
        )
        assert index.query("SELECT count(*) FROM questions").rows == [(direct["verifications"],)]
        games = index.query("SELECT game, count(*) FROM sessions GROUP BY game ORDER BY game").rows
        assert games == [("2048", 2), ("tictactoe", 3)]
        # Each model decision names its player, and a fallback move is never counted as parsed.
        assert index.query("SELECT count(*) FROM steps WHERE fallback AND parsed").rows == [(0,)]
        assert index.query("SELECT DISTINCT player FROM steps WHERE kind = 'model'").rows == [("sim",)]
        # The seat's score after each step comes from the applied action.
        last = index.query(
            "SELECT score FROM steps WHERE game = '2048' ORDER BY path, step DESC LIMIT 1"
        ).rows
        assert last[0][0] is not None and last[0][0] > 0


def test_the_index_is_incremental_and_forgets_removed_sessions(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs, copy)
    cache = tmp_path / "index.sqlite"
    with SearchIndex(copy, cache) as index:
        assert index.update().read == 5
    with SearchIndex(copy, cache) as index:
        again = index.update()
        assert (again.read, again.removed) == (0, 0)
        gone = next(iter(find_sessions(copy / "ttt")))
        shutil.rmtree(gone)
        after = index.update()
        assert (after.read, after.removed) == (0, 1)
        assert index.query("SELECT count(*) FROM sessions").rows == [(4,)]
        assert index.query("SELECT count(*) FROM steps WHERE session = ?", (gone.name,)).rows == [(0,)]


def test_cli_prints_table_csv_and_json(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql = "SELECT game, count(*) AS n, sum(fallback) AS fallbacks FROM steps GROUP BY game ORDER BY game"
    code, out, err = run_cli(capsys, "search", str(runs), sql, "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["game"] for r in rows] == ["2048", "tictactoe"]
    code, out, _ = run_cli(capsys, "search", str(runs), sql, "--format", "json")
    assert code == 0 and json.loads(out)[0]["game"] == "2048"
    code, out, _ = run_cli(capsys, "search", str(runs), sql)
    assert code == 0 and "2 rows from 5 sessions" in out and "tictactoe" in out


@pytest.mark.parametrize(
    "sql",
    [
        "SELEC * FROM steps",
        "SELECT nothing FROM steps",
        "DELETE FROM steps",
        "ATTACH 'elsewhere.db' AS x",
        "SELECT 1; SELECT 2",
        "PRAGMA table_info(steps)",
    ],
)
def test_a_bad_or_writing_query_is_one_line_and_exit_2(
    runs: Path, sql: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "search", str(runs), sql)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("playtrace: the query failed")
    assert not (tmp_path / "elsewhere.db").exists()
    code, out, _ = run_cli(capsys, "search", str(runs), "SELECT count(*) FROM steps", "--format", "csv")
    assert code == 0 and int(out.splitlines()[1]) > 0


def test_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "search", str(tmp_path / "missing"), "SELECT 1")
    assert code == 2 and "not a folder" in err
    code, _, err = run_cli(capsys, "search", str(tmp_path))
    assert code == 2 and "needs a folder and a query" in err


def test_schema_lists_every_documented_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "search", "--schema")
    assert code == 0
    for table, columns in TABLES.items():
        assert f"{table}:" in out
        assert all(name in out for name, _, _ in columns)
    required = {
        "session",
        "game",
        "step",
        "seat",
        "player",
        "action",
        "parsed",
        "fallback",
        "questions_asked",
        "questions_correct",
        "cost_usd",
        "latency_s",
        "answer",
    }
    assert required <= {name for name, _, _ in TABLES["steps"]}


def test_a_damaged_session_is_skipped_with_a_note(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs / "ttt", copy)
    victim = next(iter(find_sessions(copy)))
    (victim / "events.jsonl").write_bytes(b"\x00\xff not json\n" * 3)
    with SearchIndex(copy, ":memory:") as index:
        stats = index.update()
    assert stats.sessions == 3
    assert stats.read + len(stats.skipped) == 3
